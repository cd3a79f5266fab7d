"""Definitions: what a claim's verdict reads besides its own rows, in a hash chain of their own.

A claim's events say which tag it carries; what that tag is worth (its trust level) is a row of the tag
table, which no claim's digest covers. Whoever can write the SQLite file (or owns the PostgreSQL
tables) could switch the triggers off, turn `agent-reported` into a secondary tag, and every claim
carrying it would pass. So each tag is recorded, as it is defined, in the `definition` table: append-only
(triggers; on PostgreSQL a writer may only insert), each row the digest of its fields and of the row
before it (like the history), and anchors hold its head and length (anchor.py), so rewriting it with
every digest recomputed is caught as a rewritten history is.

Every read takes a tag's trust from its definition, never from the tag table alone: `trust_levels`
replays the chain (each digest and link checked) and gives each tag the trust its first definition
recorded (a tag's trust never changes); a tag row that disagrees with its definition, a tag with none,
a defined tag whose row is gone and a chain that does not verify stop the command (TamperedDefinitions,
exit 2) until a person looks: `claims db check` lists each (`load(...).problems`). Sources, aliases and
quantities are the next kinds.

Domain code: it returns values and raises ClaimsError subclasses; it never prints.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb.errors import TamperedDefinitions
from claimsdb.models import TRUST_LEVELS, Definition, Tag, table_of, utcnow

FORMAT = "claimsdb-definition/1"
UPGRADE_ACTOR = "claims db upgrade"
# The tags every store starts with (schema 0001) are defined at this fixed time and in this order, so
# every store's definitions begin with the same rows (`claims db copy` keeps them as they are).
SEEDED_AT = "2026-09-21T00:00:00Z"
SEEDED = ("spot-checked", "note-2026-09-21", "prior-note", "agent-reported")
_TABLE = table_of(Definition)


def tag_fields(trust: str, description: str) -> str:
    """A tag's defined fields as the row stores them (canonical JSON)."""
    return json.dumps({"description": description, "trust": trust}, sort_keys=True)


def row_digest(
    kind: str, name: str, fields: str, actor: str, at: str, prev_sha256: str | None
) -> str:
    """The SHA-256 of one definition row: its fields and the digest of the row before it."""
    payload = [FORMAT, kind, name, fields, actor, at, prev_sha256]
    encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8", "surrogatepass")).hexdigest()


def rows_for(
    tags: list[tuple[str, str, str]], actor: str, at: str, prev_sha256: str | None
) -> list[dict[str, Any]]:
    """The chained rows defining these tags ((name, trust, description)), after `prev_sha256`."""
    out = []
    for name, trust, description in tags:
        fields = tag_fields(trust, description)
        sha = row_digest("tag", name, fields, actor, at, prev_sha256)
        out.append(
            {
                "at": at,
                "kind": "tag",
                "name": name,
                "fields": fields,
                "actor": actor,
                "prev_sha256": prev_sha256,
                "sha256": sha,
            }
        )
        prev_sha256 = sha
    return out


def define_tag(session: Session, name: str, trust: str, description: str, actor: str) -> None:
    """Record a new tag's definition at the end of the chain (with the tag row, in the same transaction)."""
    head = session.execute(select(_TABLE.c.sha256).order_by(_TABLE.c.id.desc()).limit(1)).scalar()
    session.execute(_TABLE.insert(), rows_for([(name, trust, description)], actor, utcnow(), head))


@dataclass
class Definitions:
    """The chain as replayed: each tag's trust as first defined, every disagreement, the head."""

    trust: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    head: str | None = None
    length: int = 0


def load(session: Session) -> Definitions:
    """Replay the definitions and hold the tag table against them (a few rows: every read does it)."""
    out = Definitions()
    defined: dict[str, tuple[str, str]] = {}  # name: (trust as first defined, latest description)
    prev = None
    for r in session.execute(select(_TABLE).order_by(_TABLE.c.id)):
        out.length += 1
        if r.prev_sha256 != prev:
            out.problems.append(f"definition {r.id} does not follow the one before it: edited")
        elif r.sha256 != row_digest(r.kind, r.name, r.fields, r.actor, r.at, r.prev_sha256):
            out.problems.append(f"definition {r.id} does not match its hash: it was edited")
        if out.problems:
            out.trust = {}  # a chain that does not verify defines nothing
            return out
        prev = out.head = r.sha256
        values = _fields(r.fields)
        if values is None:
            out.problems.append(f"definition {r.id} of {r.name!r} holds no trust level")
            return out
        first = defined.get(r.name, (values[0], ""))[0]
        defined[r.name] = (first, values[1])
    out.trust = {name: trust for name, (trust, _) in defined.items()}
    rows = {t.name: (t.trust, t.description) for t in session.scalars(select(Tag))}
    for name, (trust, description) in rows.items():
        if name not in defined:
            out.problems.append(f"tag {name!r} has no definition: it was added outside claims")
        elif trust != defined[name][0]:
            out.problems.append(
                f"tag {name!r} is {trust} in the tag table but was defined {defined[name][0]}: "
                "its trust was changed outside claims"
            )
        elif description != defined[name][1]:
            out.problems.append(f"tag {name!r}'s description was changed outside claims")
    out.problems += [
        f"tag {name!r} was defined but its row is gone" for name in defined if name not in rows
    ]
    return out


def _fields(raw: str) -> tuple[str, str] | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("trust") not in TRUST_LEVELS:
        return None
    return value["trust"], str(value.get("description", ""))


def trust_levels(session: Session) -> dict[str, str]:
    """Each tag's trust level as its definition recorded it; TamperedDefinitions (exit 2) when the tag
    table or the chain disagrees, so that no read relies on a trust level changed outside claims."""
    found = load(session)
    if found.problems:
        raise TamperedDefinitions(found.problems[0], len(found.problems))
    return found.trust
