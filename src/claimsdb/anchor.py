"""Anchors: the head of the history chain, kept outside the database.

A hash chain proves what it holds, not that nothing was cut from its end: whoever can write the SQLite
file (or owns the PostgreSQL tables) can drop the triggers, delete the newest events (a re-read, a
retag back to agent-reported), set the claims back and recreate the triggers, and the chain that is left
is intact. An anchor is the head the chain had at one moment: the digest of its latest event, that
event's id, and how many events the chain held up to it. `claims db anchor` writes it to a small file
(ANCHOR_FILE) that a paper repository commits, and records it in the anchor table (append-only; on
PostgreSQL a writer may only insert into it).

`problem(session, anchor)` says how the chain no longer holds the anchored head at its position: the
event is gone (cut), it is another event (rewritten or replaced), the events up to it are more or fewer
(removed or inserted before it), or a link up to it is broken. Events after the anchor are not covered
until the next anchor. `claims db check --anchor FILE`, `claims lint --anchor FILE` and `claims export
--anchor FILE` fail (exit 1) on any; lint reads ANCHOR_FILE from the folder it runs in when there is one,
so the pre-commit hook checks the paper's anchor without being told.

Domain code: it returns values and raises BadQuery for a file it cannot use; it never prints.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from claimsdb.errors import BadQuery, BrokenHistory
from claimsdb.models import Anchor as AnchorRow
from claimsdb.models import Event, Person, table_of, utcnow
from claimsdb.records.types import MAX_INTEGER
from claimsdb.userfiles import read_small, write_atomically

__all__ = [
    "ANCHOR_FILE",
    "FORMAT",
    "Anchor",
    "default_files",
    "ensure",
    "load",
    "problem",
    "record",
    "recorded_problems",
    "save",
    "take",
]

ANCHOR_FILE = "claims.anchor"
FORMAT = "claimsdb-anchor/1"
MAX_FILE = 10_000  # bytes: an anchor file is a few hundred
_CHUNK = 5000
_PEOPLE = table_of(Person)  # trust.people's registry (its own chain)


@dataclass(frozen=True)
class Anchor:
    head: str  # the SHA-256 of the anchored event
    length: int  # how many events the chain holds up to and including it
    event_id: int
    at: str  # when the anchor was taken (UTC, ISO 8601)
    # the people registry's head then (trust.people: its own chain) and how many rows it held; an anchor
    # taken before the registry existed (or file written by an earlier release) holds none
    people_head: str | None = None
    people_length: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "head": self.head,
            "length": self.length,
            "event_id": self.event_id,
            "at": self.at,
        }
        if self.people_head is not None:
            out |= {"people_head": self.people_head, "people_length": self.people_length}
        return out

    def describe(self) -> str:
        people = f"; people registry {self.people_length} rows" if self.people_head else ""
        return f"{self.length} events, head {self.head[:16]}{people}"


def take(session: Session) -> Anchor | None:
    """The chain's head now (None for an empty history)."""
    row = session.execute(select(Event.id, Event.sha256).order_by(Event.id.desc()).limit(1)).first()
    if row is None:
        return None
    length = session.execute(select(func.count()).select_from(Event)).scalar() or 0
    people = session.execute(
        select(_PEOPLE.c.sha256).order_by(_PEOPLE.c.id.desc()).limit(1)
    ).scalar()
    people_length = session.execute(select(func.count()).select_from(_PEOPLE)).scalar() or 0
    return Anchor(
        head=row.sha256,
        length=length,
        event_id=row.id,
        at=utcnow(),
        people_head=people,
        people_length=people_length,
    )


def record(session: Session, anchor: Anchor, actor: str) -> None:
    """Keep the anchor in the database's own append-only table too."""
    session.add(
        AnchorRow(
            at=anchor.at,
            actor=actor,
            event_id=anchor.event_id,
            length=anchor.length,
            head=anchor.head,
            people_head=anchor.people_head,
            people_length=anchor.people_length,
        )
    )


def problem(session: Session, anchor: Anchor) -> str | None:
    """How the chain no longer holds the anchored head at its position, or None."""
    row = session.execute(select(Event.sha256).where(Event.id == anchor.event_id)).first()
    if row is None:
        return f"the anchored event {anchor.event_id} is gone: the history was cut below it"
    if row.sha256 != anchor.head:
        return f"event {anchor.event_id} is not the anchored one: the history was rewritten or replaced"
    length = session.execute(
        select(func.count()).select_from(Event).where(Event.id <= anchor.event_id)
    ).scalar()
    if length != anchor.length:
        return (
            f"the history holds {length} events up to the anchored one, the anchor counted {anchor.length}: "
            "events before it were removed or inserted"
        )
    prev = None
    rows = session.execute(
        select(Event.id, Event.sha256, Event.prev_sha256)
        .where(Event.id <= anchor.event_id)
        .order_by(Event.id)
        .execution_options(yield_per=_CHUNK)
    )
    for event_id, sha, prev_sha in rows:
        if prev_sha != prev:
            return f"event {event_id} does not follow the event before it: the history before the anchor was edited"
        prev = sha
    return _people_problem(session, anchor)


def _people_problem(session: Session, anchor: Anchor) -> str | None:
    """How the people registry no longer holds the anchored head at its position (None: it does, or the
    anchor holds none). Who may sign is decided by the registry, so cutting its last rows (the rule that
    signatures are required, a key's removal) or replacing it is caught here."""
    if anchor.people_head is None:
        return None
    rows = session.execute(
        select(_PEOPLE.c.sha256, _PEOPLE.c.prev_sha256)
        .order_by(_PEOPLE.c.id)
        .limit(anchor.people_length)
    ).all()
    prev = None
    for sha, prev_sha in rows:
        if prev_sha != prev:
            return "the people registry before the anchor was edited"
        prev = sha
    if len(rows) < anchor.people_length:
        return (
            f"the people registry holds {len(rows)} rows, the anchor counted {anchor.people_length}: "
            "rows were cut"
        )
    if prev != anchor.people_head:
        return "the people registry is not the anchored one: it was rewritten or replaced"
    return None


def ensure(session: Session, anchors: list[tuple[str, Anchor]]) -> None:
    """BrokenHistory (exit 1) naming the first anchor file whose head the chain no longer holds."""
    for name, anchor in anchors:
        why = problem(session, anchor)
        if why:
            raise BrokenHistory(
                f"{name}: the history no longer holds the anchored head ({anchor.describe()}, "
                f"taken {anchor.at[:19]}): {why}; run `claims db check --anchor {name}`"
            )


def recorded_problems(session: Session) -> tuple[int, list[str]]:
    """How many anchors the table holds, and how each that the chain no longer holds fails."""
    rows = list(session.scalars(select(AnchorRow).order_by(AnchorRow.id)))
    out = []
    for r in rows:
        kept = Anchor(r.head, r.length, r.event_id, r.at, r.people_head, r.people_length or 0)
        why = problem(session, kept)
        if why:
            out.append(f"anchor {r.id} (taken {r.at[:19]} by {r.actor}): {why}")
    return len(rows), out


def save(path: str | Path, anchor: Anchor) -> None:
    """The anchor file, written as every output is (userfiles: a regular file, whole or not at all)."""
    try:
        write_atomically(Path(path), json.dumps(anchor.to_json(), indent=2) + "\n")
    except OSError as exc:
        raise BadQuery(f"{path}: cannot write the anchor: {exc.strerror or exc}") from None


def default_files() -> list[Path]:
    """The anchor of the folder a command runs in (ANCHOR_FILE), when anything stands at that name: a
    link that leads nowhere, a folder or a FIFO there is an error when it is loaded, never passed over."""
    return [Path(ANCHOR_FILE)] if os.path.lexists(ANCHOR_FILE) else []


def load(path: str | Path) -> Anchor:
    """An anchor file as written by `save`; BadQuery naming the file and field if it is not one. Only
    a regular file of at most MAX_FILE bytes is read (userfiles.read_small)."""
    raw = read_small(path, MAX_FILE, "anchor")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadQuery(
            f"{path}: not an anchor file (not JSON): write one with `claims db anchor`"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadQuery(f"{path}: not an anchor file (format is not {FORMAT})")
    head, length, event_id, at = (data.get(k) for k in ("head", "length", "event_id", "at"))
    if not _digest(head):
        raise BadQuery(f"{path}: head: not a SHA-256 digest")
    for name, value in (("length", length), ("event_id", event_id)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_INTEGER:
            raise BadQuery(f"{path}: {name}: not a positive whole number (at most {MAX_INTEGER:,})")
    if not isinstance(at, str):
        raise BadQuery(f"{path}: at: not a time")
    people_head, people_length = data.get("people_head"), data.get("people_length", 0)
    if people_head is not None and not _digest(people_head):
        raise BadQuery(f"{path}: people_head: not a SHA-256 digest")
    if (
        not isinstance(people_length, int)
        or isinstance(people_length, bool)
        or not 0 <= people_length <= MAX_INTEGER
    ):
        raise BadQuery(f"{path}: people_length: not a whole number (at most {MAX_INTEGER:,})")
    return Anchor(head, length, event_id, at, people_head, people_length)


def _digest(value: object) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )
