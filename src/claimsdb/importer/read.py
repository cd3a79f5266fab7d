"""What an import reads of the store to plan a batch of claims: the stored claims, their figures and
evidence, the state their histories imply, and the re-reads recorded of them. Reads only, in chunks of
keys or ids, as plain rows (ORM objects cost too much at 100,000 claims)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import case, select
from sqlmodel import Session, col

from claimsdb import history
from claimsdb.db import parameter_mark
from claimsdb.models import Claim, Event, Evidence, Figure, table_of
from claimsdb.trust import signatures

CHUNK = 500
# The event columns history.derive replays.
STATE_COLUMNS = (
    "claim_id",
    "kind",
    "actor",
    "at",
    "tag_after",
    "status_after",
    "rank_after",
    "content_sha256",
)
# A re-read as a data file names one: (by, day, page, locator, quote, signature): a re-read signed since
# it was recorded is recorded again, signed.
RereadSeen = tuple[str, str, str | None, str | None, str | None, str | None]


def chunks(items: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


@dataclass
class StoredClaims:
    """The stored side of a batch: claim key -> row, and by claim id the state its history implies,
    its figure and evidence rows (in position order) and the re-reads recorded of it."""

    claims: dict[str, Any] = field(default_factory=dict)
    states: dict[int, history.ClaimState] = field(default_factory=dict)
    figures: dict[int, list] = field(default_factory=dict)
    evidence: dict[int, list] = field(default_factory=dict)
    rereads: dict[int, list[RereadSeen]] = field(default_factory=dict)

    def state(self, claim_id: int) -> history.ClaimState:
        return self.states.get(claim_id, history.ClaimState())


def read_stored(
    session: Session, keys: list[str], rereading: set[str], trust: dict[str, str]
) -> StoredClaims:
    """The stored claims with one of `keys`, and what planning needs of each; the recorded re-reads of
    those in `rereading` (the records that name a re-read)."""
    claims = load_claims(session, keys)
    ids = [c.id for c in claims.values()]
    return StoredClaims(
        claims=claims,
        states=claim_states(session, ids, trust),
        figures=children(session, Figure, ids),
        evidence=children(session, Evidence, ids),
        rereads=reread_events(session, [c.id for k, c in claims.items() if k in rereading]),
    )


def reread_events(session: Session, claim_ids: list[int]) -> dict[int, list[RereadSeen]]:
    """claim id -> the re-reads recorded of it, each as a data file names one."""
    out: dict[int, list[RereadSeen]] = {}
    for chunk in chunks(claim_ids):
        rows = session.execute(
            select(col(Event.claim_id), col(Event.actor), col(Event.at), col(Event.detail))
            .where(col(Event.claim_id).in_(chunk), col(Event.kind) == history.REREAD_KIND)
            .order_by(col(Event.id))
        )
        for claim_id, actor, at, detail in rows:
            seen = json.loads(detail) if detail else {}
            out.setdefault(claim_id, []).append(
                (
                    actor,
                    str(at)[:10],
                    seen.get("source"),
                    seen.get("locator"),
                    seen.get("quote"),
                    signatures.signature_text(seen),
                )
            )
    return out


def as_declared(stored: tuple, raw: Any) -> bool:
    """Whether a stored claim's tag, status and rank are still what its record declares (a person may
    have changed them since: then the import reads the record in full and reports the difference)."""
    _digest, tag, status, rank = stored
    return isinstance(raw, dict) and (tag, status, rank) == (
        raw.get("tag"),
        raw.get("status") or "active",
        raw.get("rank") or "normal",
    )


def stored_digests(session: Session, keys: list[str]) -> dict[str, tuple]:
    """key -> (record digest, tag, status, rank) of the claims already stored."""
    return claim_columns(session, ("record_sha256", "tag", "status", "rank"), keys)


def claim_columns(session: Session, columns: Sequence[str], keys: list[str]) -> dict[str, tuple]:
    """key -> the named columns of each stored claim with one of `keys`, by plain DB-API queries: this
    runs for every record of every import, where building SQL per chunk would cost more than the query."""
    connection = session.connection()
    mark = parameter_mark(connection)
    out: dict[str, tuple] = {}
    for chunk in chunks(keys, 900):
        rows = connection.exec_driver_sql(
            f"SELECT key, {', '.join(columns)} FROM claim WHERE key IN ({', '.join([mark] * len(chunk))})",
            tuple(chunk),
        )
        out.update((r[0], tuple(r[1:])) for r in rows)
    return out


def claim_ids(session: Session, keys: list[str]) -> dict[str, int]:
    return {k: row[0] for k, row in claim_columns(session, ("id",), keys).items()}


def load_claims(session: Session, keys: list[str]) -> dict[str, Any]:
    """Existing claims as plain rows (attribute access by column name)."""
    out: dict[str, Any] = {}
    table = table_of(Claim)
    for chunk in chunks(keys):
        for row in session.execute(select(table).where(table.c.key.in_(chunk))):
            out[row.key] = row
    return out


def existing_keys(session: Session, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for chunk in chunks(keys):
        found.update(session.scalars(select(col(Claim.key)).where(col(Claim.key).in_(chunk))))
    return found


def children(session: Session, model: Any, ids: list[int]) -> dict[int, list]:
    out: dict[int, list] = {}
    table = table_of(model)
    for chunk in chunks(ids):
        rows = session.execute(
            select(table)
            .where(table.c.claim_id.in_(chunk))
            .order_by(table.c.claim_id, table.c.position)
        )
        for row in rows:
            out.setdefault(row.claim_id, []).append(row)
    return out


def claim_states(
    session: Session, ids: list[int], trust: dict[str, str]
) -> dict[int, history.ClaimState]:
    """For each claim, the state its history implies. "Latest" is insertion order (the id), never the clock."""
    events: dict[int, list] = {}
    table = table_of(Event)
    # and a re-read's detail (whether it corrected a figure): the detail of no other event is read
    detail = case((table.c.kind == history.REREAD_KIND, table.c.detail), else_=None).label("detail")
    columns = [*(table.c[n] for n in STATE_COLUMNS), detail]
    for chunk in chunks(ids):
        for row in session.execute(
            select(*columns)
            .where(table.c.claim_id.in_(chunk))
            .order_by(table.c.claim_id, table.c.id)
        ):
            events.setdefault(row.claim_id, []).append(row._mapping)
    return {cid: history.derive(evs, trust) for cid, evs in events.items()}
