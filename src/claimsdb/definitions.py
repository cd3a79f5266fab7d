"""Definitions: what a claim's verdict reads besides its own rows, in a hash chain of their own.

A claim's events say which tag it carries; what that tag is worth (its trust level) is a row of the tag
table, which no claim's digest covers. Whoever can write the SQLite file (or owns the PostgreSQL
tables) could switch the triggers off, turn `agent-reported` into a secondary tag, and every claim
carrying it would pass. So each tag is recorded, as it is defined, in the `definition` table: append-only
(triggers; on PostgreSQL a writer may only insert), each row the digest of its fields and of the row
before it (like the history), and anchors hold its head and length (anchor.py), so rewriting it with
every digest recomputed is caught as a rewritten history is.

Every read takes a tag's trust from its definition, never from the tag table alone: `trust_levels`
reads the chain's tag rows (each digest recomputed; `claims db check` and anchors walk the links) and
gives each tag the trust its first definition recorded (a tag's trust never changes); a tag row that
disagrees with its definition, a tag with none, a defined tag whose row is gone and a chain that does
not verify stop the command (TamperedDefinitions, exit 2) until a person looks: `claims db check` lists each (`load(...).problems`).

Sources and quantities are defined the same way: every write of a source row (its registered fields,
models.SourceFields: url, title, cite key, kind, ...) or of a quantity row (subject, measure,
description) appends a definition (kind "source" or "quantity", named by the row's key) with the row's
new fields. A read checks just the rows it uses (`disagreeing`): each one's latest definition, fetched by
(kind, name) and its own digest recomputed, must hold the row's fields as they stand; the links between
rows are walked by `claims db check` (`load`) and by anchors (anchor._side_problem).

A claim's aliases (other names lint reads as its subject) are defined too (kind "aliases", named by the
claim's key, the names as a JSON list): every import that sets or changes them appends one. A view of a
claim with aliases checks them (`outside_claims`); lint, which reads every subject's names, and `claims
db check` check every claim's (`alias_problems`) both ways: names with no definition holding them, and
a definition whose names are gone. The policy a verdict reads besides these (who may vouch, whether a
re-read must be signed) is the people registry's (people.py), in a chain of its own.

Domain code: it returns values and raises ClaimsError subclasses; it never prints.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import history
from claimsdb.errors import TamperedDefinitions
from claimsdb.models import (
    TRUST_LEVELS,
    Claim,
    Definition,
    MeasuredQuantity,
    Source,
    SourceFields,
    Tag,
    aliases_of,
    table_of,
    utcnow,
)

FORMAT = "claimsdb-definition/1"
UPGRADE_ACTOR = "claims db upgrade"
# The tags every store starts with (schema 0001) are defined at this fixed time and in this order, so
# every store's definitions begin with the same rows (`claims db copy` keeps them as they are).
SEEDED_AT = "2026-09-21T00:00:00Z"
SEEDED = ("spot-checked", "note-2026-09-21", "prior-note", "agent-reported")
_CHUNK = 500  # keys a read asks for at once (a parameter each)
_TABLE = table_of(Definition)
# A source's registered fields (its key names the definition) and a quantity's.
SOURCE_FIELDS = tuple(name for name in SourceFields.model_fields if name != "key")
QUANTITY_FIELDS = ("subject", "measure", "description")
_REGISTERED = {"source": SOURCE_FIELDS, "quantity": QUANTITY_FIELDS}
_ROWS = {"source": table_of(Source), "quantity": table_of(MeasuredQuantity)}


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


def registered_fields(kind: str, row: Mapping[str, Any]) -> str:
    """A source's or a quantity's registered fields (a row, a record's fields) as a definition stores
    them (canonical JSON, sorted keys; a field the row lacks is null)."""
    return json.dumps({name: row.get(name) for name in _REGISTERED[kind]}, sort_keys=True)


def chained(
    kind: str, named: list[tuple[str, str]], actor: str, at: str, prev_sha256: str | None
) -> list[dict[str, Any]]:
    """The chained rows defining these (name, fields) of one kind, after `prev_sha256`."""
    out = []
    for name, fields in named:
        sha = row_digest(kind, name, fields, actor, at, prev_sha256)
        out.append(
            {
                "at": at,
                "kind": kind,
                "name": name,
                "fields": fields,
                "actor": actor,
                "prev_sha256": prev_sha256,
                "sha256": sha,
            }
        )
        prev_sha256 = sha
    return out


def rows_for(
    tags: list[tuple[str, str, str]], actor: str, at: str, prev_sha256: str | None
) -> list[dict[str, Any]]:
    """The chained rows defining these tags ((name, trust, description)), after `prev_sha256`."""
    return chained("tag", [(n, tag_fields(t, d)) for n, t, d in tags], actor, at, prev_sha256)


def _append(session: Session, kind: str, named: list[tuple[str, str]], actor: str) -> None:
    """Extend the chain under the writers' lock (history.begin_write), so that two writers never
    extend the same head."""
    if not named:
        return
    history.begin_write(session)
    head = session.execute(select(_TABLE.c.sha256).order_by(_TABLE.c.id.desc()).limit(1)).scalar()
    session.execute(_TABLE.insert(), chained(kind, named, actor, utcnow(), head))


def define_tag(session: Session, name: str, trust: str, description: str, actor: str) -> None:
    """Record a new tag's definition at the end of the chain (with the tag row, in the same transaction)."""
    _append(session, "tag", [(name, tag_fields(trust, description))], actor)


def define_sources(session: Session, rows: Sequence[Mapping[str, Any]], actor: str) -> None:
    """Record these sources' registered fields as just written (each a row or a record's fields, with
    its key) at the end of the chain, in the transaction that writes them: every write of a source row."""
    _append(session, "source", [(r["key"], registered_fields("source", r)) for r in rows], actor)


def define_quantities(session: Session, rows: Sequence[Mapping[str, Any]], actor: str) -> None:
    """Record these quantities' registered fields as just written (see `define_sources`)."""
    _append(
        session, "quantity", [(r["key"], registered_fields("quantity", r)) for r in rows], actor
    )


def alias_fields(stored: str | None) -> str:
    """A claim's aliases (its column's text) as a definition holds them: the names as a JSON list."""
    return json.dumps(aliases_of(stored), ensure_ascii=False)


def define_aliases(session: Session, named: Sequence[tuple[str, str | None]], actor: str) -> None:
    """Record these claims' aliases ((key, the aliases column's text)) as just written, at the end of
    the chain, in the transaction that writes them: every import that sets or changes a claim's."""
    _append(session, "aliases", [(key, alias_fields(a)) for key, a in named], actor)


def _latest(session: Session, kind: str, names: Sequence[str] | None) -> dict[str, Any]:
    """{name: its latest definition row} of one kind: these names (by the (kind, name, id) index), or
    every one of the kind (None)."""
    query = select(_TABLE).where(_TABLE.c.kind == kind).order_by(_TABLE.c.id)
    return {
        r.name: r
        for r in session.execute(query if names is None else query.where(_TABLE.c.name.in_(names)))
    }


def aliases_disagreeing(session: Session, aliased: Mapping[str, str | None]) -> dict[str, str]:
    """{key: why} for each of these claims ({key: its aliases column}) whose aliases are not what their
    latest definition holds: names with no definition, a definition that does not match its digest,
    or other names. A claim without aliases and without a definition agrees."""
    out: dict[str, str] = {}
    wanted = sorted(aliased)
    for i in range(0, len(wanted), _CHUNK):
        latest = _latest(session, "aliases", wanted[i : i + _CHUNK])
        for key in wanted[i : i + _CHUNK]:
            why = _alias_disagreement(aliased[key], latest.get(key))
            if why:
                out[key] = why
    return out


def alias_problems(session: Session) -> dict[str, str]:
    """{key: why} for every claim whose aliases disagree with their definitions, both ways: a claim
    whose names no definition holds, and a definition whose names the claim no longer has (`claims
    db check`, and lint before it reads every subject's names)."""
    table = table_of(Claim)
    stored: dict[str, str | None] = {
        key: aliases
        for key, aliases in session.execute(
            select(table.c.key, table.c.aliases).where(
                table.c.aliases.is_not(None), table.c.aliases != ""
            )
        )
    }
    latest = _latest(session, "aliases", None)
    out = {}
    for key in sorted(set(stored) | set(latest)):
        why = _alias_disagreement(stored.get(key), latest.get(key))
        if why:
            out[key] = why
    return out


def ensure_aliases(session: Session) -> None:
    """TamperedDefinitions (exit 2) when a claim's aliases disagree with their definitions, so that lint
    never reads a name changed outside claims as a subject's."""
    found = alias_problems(session)
    if found:
        first = min(found)
        raise TamperedDefinitions(f"claim {first}: {found[first].removeprefix('its ')}", len(found))


def _alias_disagreement(stored: str | None, defined: Any) -> str | None:
    if defined is None:
        return "its aliases have no definition: they were set outside claims" if stored else None
    d = defined
    if d.sha256 != row_digest(d.kind, d.name, d.fields, d.actor, d.at, d.prev_sha256):
        return f"its aliases' definition {d.id} does not match its hash: it was edited"
    if d.fields != alias_fields(stored):
        return "its aliases were changed outside claims"
    return None


def disagreeing(session: Session, kind: str, keys: Collection[str]) -> dict[str, str]:
    """{key: why} for each of these sources (or quantities) whose row disagrees with its latest
    definition: none, one that does not match its own digest, or other fields than the row holds. Reads
    only these keys' rows and definitions (index on kind, name, id), so every read can afford it."""
    out: dict[str, str] = {}
    wanted = sorted(set(keys))
    table = _ROWS[kind]
    columns = [table.c.key, *(table.c[name] for name in _REGISTERED[kind])]
    for i in range(0, len(wanted), _CHUNK):
        part = wanted[i : i + _CHUNK]
        latest = _latest(session, kind, part)
        for row in session.execute(select(*columns).where(table.c.key.in_(part))).mappings():
            why = _disagreement(kind, row, latest.get(row["key"]))
            if why:
                out[row["key"]] = why
    return out


def ensure_registered(session: Session, kind: str, keys: Collection[str]) -> None:
    """TamperedDefinitions (exit 2) when one of these sources (or quantities) disagrees with its
    definition: what prints a source's fields (`claims sources`, `sources show`) prints none changed."""
    found = disagreeing(session, kind, keys)
    if found:
        first = min(found)
        raise TamperedDefinitions(found[first].removeprefix("its "), len(found))


def outside_claims(
    session: Session,
    source_keys: Collection[str],
    quantity_ids: Collection[int],
    aliased: Mapping[str, str | None] | None = None,
) -> dict[tuple[str, Any], str]:
    """{("source", key), ("quantity", id) or ("aliases", claim key): why} for the sources and
    quantities a batch of claims uses whose rows disagree with their definitions (`disagreeing`), and
    for its claims with aliases ({key: aliases}) that disagree with theirs: those claims are blocked."""
    out: dict[tuple[str, Any], str] = {
        ("source", key): why for key, why in disagreeing(session, "source", source_keys).items()
    }
    if aliased:
        found = aliases_disagreeing(session, aliased)
        out.update({("aliases", key): why for key, why in found.items()})
    if quantity_ids:
        table = _ROWS["quantity"]
        ids: dict[str, int] = {
            key: id_
            for key, id_ in session.execute(
                select(table.c.key, table.c.id).where(table.c.id.in_(quantity_ids))
            )
        }
        found = disagreeing(session, "quantity", ids)
        out.update({("quantity", ids[key]): why for key, why in found.items()})
    return out


def _disagreement(kind: str, row: Any, defined: Any) -> str | None:
    what = f"its {kind} {row['key']}"
    if defined is None:
        return f"{what} has no definition: it was added outside claims"
    d = defined
    if d.sha256 != row_digest(d.kind, d.name, d.fields, d.actor, d.at, d.prev_sha256):
        return f"{what}'s definition {d.id} does not match its hash: it was edited"
    if d.fields == registered_fields(kind, row):
        return None  # as written (the common case: no parsing)
    try:
        held = json.loads(d.fields)
    except ValueError:
        held = None
    if not isinstance(held, dict):
        return f"{what}'s definition {d.id} holds no fields"
    changed = [n for n in _REGISTERED[kind] if held.get(n) != row[n]]
    if changed:
        return f"{what}'s {', '.join(changed)} was changed outside claims"
    return None


def registered_problems(session: Session) -> list[str]:
    """Every source and quantity row that disagrees with its definition, every definition of one whose
    row is gone, and every claim whose aliases disagree with theirs (`claims db check`)."""
    out = []
    for kind, table in _ROWS.items():
        keys = list(session.scalars(select(table.c.key)))
        out += [why.removeprefix("its ") for why in disagreeing(session, kind, keys).values()]
        gone = set(
            session.scalars(select(_TABLE.c.name).where(_TABLE.c.kind == kind).distinct())
        ) - set(keys)
        out += [f"{kind} {name} was defined but its row is gone" for name in sorted(gone)]
    out += [
        f"claim {key}: {why.removeprefix('its ')}" for key, why in alias_problems(session).items()
    ]
    return out


@dataclass
class Definitions:
    """The chain as replayed: each tag's trust as first defined, every disagreement, the head."""

    trust: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    head: str | None = None
    length: int = 0


def load(session: Session, *, full: bool = True) -> Definitions:
    """Replay the definitions and hold the tag table against them. `full` (`claims db check`): every row
    of the chain, each link and digest; otherwise (every read) the tag rows alone, each digest
    recomputed (the links are walked by db check and by anchors), so that reads do not replay the
    definitions of every source and quantity."""
    out = Definitions()
    defined: dict[str, tuple[str, str]] = {}  # name: (trust as first defined, latest description)
    prev = None
    query = select(_TABLE).order_by(_TABLE.c.id)
    for r in session.execute(query if full else query.where(_TABLE.c.kind == "tag")):
        out.length += 1
        if full and r.prev_sha256 != prev:
            out.problems.append(f"definition {r.id} does not follow the one before it: edited")
        elif r.sha256 != row_digest(r.kind, r.name, r.fields, r.actor, r.at, r.prev_sha256):
            out.problems.append(f"definition {r.id} does not match its hash: it was edited")
        if out.problems:
            out.trust = {}  # a chain that does not verify defines nothing
            return out
        prev = out.head = r.sha256
        if r.kind != "tag":
            continue
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
    found = load(session, full=False)
    if found.problems:
        raise TamperedDefinitions(found.problems[0], len(found.problems))
    return found.trust
