"""Anchors: the head of the history chain, kept outside the database.

A hash chain proves what it holds, not that nothing was cut from its end: whoever can write the SQLite
file (or owns the PostgreSQL tables) can drop the triggers, delete the newest events (a re-read, a
retag back to agent-reported), set the claims back and recreate the triggers, and the chain that is left
is intact. An anchor is the head the chain had at one moment: the digest of its latest event, that
event's id, and how many events the chain held up to it. `claims db anchor` writes it to a small file
(ANCHOR_FILE) that a paper repository commits, and records it in the anchor table (append-only; on
PostgreSQL a writer may only insert into it, and a trigger takes a row only as the chain holds it, so
nobody below the owner can plant an anchor that never held and fail `recorded_problems` for good).

An anchor holds the heads of the two side chains too, each with its length: the people registry
(trust.people: who may sign) and the definitions (claimsdb.definitions: what each tag is worth), so
that cutting or rewriting either is caught as the history's would be.

`problem(session, anchor)` says how the chain no longer holds the anchored head at its position: the
event is gone (cut), it is another event (rewritten or replaced), the events up to it are more or fewer
(removed or inserted before it), or an event up to it no longer matches its digest or does not name the
one before it: every event up to the anchored one is recomputed (history.walk), so an event rewritten
with its digest recomputed and the next event relinked is caught as well. Events after the anchor are
not covered until the next anchor. `claims db check --anchor FILE`, `claims lint --anchor FILE` and `claims export
--anchor FILE` fail (exit 1) on any; lint reads ANCHOR_FILE from the folder it runs in when there is one,
so the pre-commit hook checks the paper's anchor without being told.

Domain code: it returns values and raises BadQuery for a file it cannot use; it never prints.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Table, func, select
from sqlmodel import Session

from claimsdb import db, history, workers
from claimsdb.errors import BadQuery, BrokenHistory
from claimsdb.models import Anchor as AnchorRow
from claimsdb.models import Definition, Event, Person, table_of, utcnow
from claimsdb.records.types import MAX_INTEGER
from claimsdb.userfiles import read_small, write_atomically

__all__ = [
    "ANCHOR_FILE",
    "FORMAT",
    "Anchor",
    "Pending",
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
WORKER_FROM = 20_000  # events to recompute before a worker is worth its start (about half a second)
_PEOPLE = table_of(Person)  # trust.people's registry (its own chain)
_DEFINITIONS = table_of(Definition)  # claimsdb.definitions (its own chain)


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
    # the definitions' head then and how many rows they held (claimsdb.definitions; from schema 0014)
    definitions_head: str | None = None
    definitions_length: int = 0

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
        if self.definitions_head is not None:
            out |= {
                "definitions_head": self.definitions_head,
                "definitions_length": self.definitions_length,
            }
        return out

    def describe(self) -> str:
        people = f"; people registry {self.people_length} rows" if self.people_head else ""
        defined = f"; {self.definitions_length} definitions" if self.definitions_head else ""
        return f"{self.length} events, head {self.head[:16]}{people}{defined}"


def take(session: Session) -> Anchor | None:
    """The chain's head now (None for an empty history)."""
    row = session.execute(select(Event.id, Event.sha256).order_by(Event.id.desc()).limit(1)).first()
    if row is None:
        return None
    length = session.execute(select(func.count()).select_from(Event)).scalar() or 0
    sides = {}
    for name, table in (("people", _PEOPLE), ("definitions", _DEFINITIONS)):
        sides[f"{name}_head"] = session.execute(
            select(table.c.sha256).order_by(table.c.id.desc()).limit(1)
        ).scalar()
        sides[f"{name}_length"] = (
            session.execute(select(func.count()).select_from(table)).scalar() or 0
        )
    return Anchor(head=row.sha256, length=length, event_id=row.id, at=utcnow(), **sides)


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
            definitions_head=anchor.definitions_head,
            definitions_length=anchor.definitions_length,
        )
    )


def problem(session: Session, anchor: Anchor, walked: history.Walk | None = None) -> str | None:
    """How the chain no longer holds the anchored head at its position, or None. Every event up to the
    anchored one is recomputed (history.walk; `walked`: a walk of at least that far, already made), so a
    rewritten event is caught even when its digest was recomputed and the next event relinked."""
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
    if walked is None:
        walked = history.walk(session, upto=anchor.event_id)
    if walked.broken_id is not None and walked.broken_id <= anchor.event_id:
        return f"the history before the anchor was edited: {walked.broken}"
    return _side_problem(
        session, _PEOPLE, "people registry", anchor.people_head, anchor.people_length
    ) or _side_problem(
        session,
        _DEFINITIONS,
        "tag definitions",
        anchor.definitions_head,
        anchor.definitions_length,
    )


def _side_problem(
    session: Session, table: Table, what: str, head: str | None, length: int
) -> str | None:
    """How a side chain (the people registry, the definitions) no longer holds its anchored head at its
    position (None: it does, or the anchor holds none). Who may sign and what a tag is worth are decided
    by them, so cutting their last rows (the rule that signatures are required, a key's removal, a
    tag's definition) or replacing them is caught here."""
    if head is None:
        return None
    rows = session.execute(
        select(table.c.sha256, table.c.prev_sha256).order_by(table.c.id).limit(length)
    ).all()
    prev = None
    for sha, prev_sha in rows:
        if prev_sha != prev:
            return f"the {what} before the anchor was edited"
        prev = sha
    if len(rows) < length:
        return f"the {what} holds {len(rows)} rows, the anchor counted {length}: rows were cut"
    if prev != head:
        return f"the {what} is not the anchored one: it was rewritten or replaced"
    return None


def ensure(
    session: Session, anchors: list[tuple[str, Anchor]], walked: history.Walk | None = None
) -> None:
    """BrokenHistory (exit 1) naming the first anchor file whose head the chain no longer holds (the
    chain walked once, up to the latest anchored event, unless `walked` is that walk already)."""
    if anchors and walked is None:
        walked = history.walk(session, upto=max(a.event_id for _, a in anchors))
    for name, anchor in anchors:
        why = problem(session, anchor, walked)
        if why:
            raise BrokenHistory(
                f"{name}: the history no longer holds the anchored head ({anchor.describe()}, "
                f"taken {anchor.at[:19]}): {why}; run `claims db check --anchor {name}`"
            )


class Pending:
    """The anchors' check, begun before a command's own work and ended by `ensure()` before it writes
    anything. Recomputing every event up to the anchors is one pass over the chain (history.walk, about
    7 microseconds an event here); with WORKER_FROM events or more a worker process
    (`python -m claimsdb.anchor`, its own engine on the same database) walks it on another core while the
    command works, and `ensure()` waits for its answer. A worker that fails or says anything unexpected is
    dropped and the chain is walked inline: its answer is only ever a faster way to the same walk."""

    def __init__(self, session: Session, anchors: list[tuple[str, Anchor]]) -> None:
        self.anchors = anchors
        self.upto = max((a.event_id for _, a in anchors), default=0)
        self.proc: subprocess.Popen | None = None
        events = max((a.length for _, a in anchors), default=0)
        url = db.shared_url(session) if events >= WORKER_FROM else None
        if url is not None and workers.possible():
            job = {"url": url, "upto": self.upto}
            self.proc = workers.start("claimsdb.anchor", job, close_stdin=True)

    def __enter__(self) -> Pending:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the worker (killed if it still runs) and reap it."""
        if self.proc is not None:
            workers.reap(self.proc)
            self.proc = None

    def ensure(self, session: Session) -> None:
        """BrokenHistory (exit 1) naming the first anchor whose head the chain no longer holds."""
        if self.anchors:
            walked = self._answer() or history.walk(session, upto=self.upto)
            ensure(session, self.anchors, walked)

    def _answer(self) -> history.Walk | None:
        if self.proc is None:
            return None
        found = workers.answer(self.proc, MAX_FILE)  # the walk's few fields
        self.proc = None
        try:
            return history.Walk(**found) if isinstance(found, dict) else None
        except TypeError:  # other fields than a walk's
            return None


def recorded_problems(
    session: Session, walked: history.Walk | None = None
) -> tuple[int, list[str]]:
    """How many anchors the table holds, and how each that the chain no longer holds fails (`walked`: the
    whole chain's walk, already made; else it is walked once here)."""
    rows = list(session.scalars(select(AnchorRow).order_by(AnchorRow.id)))
    if rows and walked is None:
        walked = history.walk(session)
    out = []
    for r in rows:
        kept = Anchor(
            r.head,
            r.length,
            r.event_id,
            r.at,
            r.people_head,
            r.people_length or 0,
            r.definitions_head,
            r.definitions_length or 0,
        )
        why = problem(session, kept, walked)
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
    sides: dict[str, Any] = {}
    for side in ("people", "definitions"):  # either absent in a file from an earlier release
        side_head, side_length = data.get(f"{side}_head"), data.get(f"{side}_length", 0)
        if side_head is not None and not _digest(side_head):
            raise BadQuery(f"{path}: {side}_head: not a SHA-256 digest")
        if (
            not isinstance(side_length, int)
            or isinstance(side_length, bool)
            or not 0 <= side_length <= MAX_INTEGER
        ):
            raise BadQuery(f"{path}: {side}_length: not a whole number (at most {MAX_INTEGER:,})")
        sides |= {f"{side}_head": side_head, f"{side}_length": side_length}
    return Anchor(head, length, event_id, at, **sides)


def _digest(value: object) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def _worker() -> None:
    """`python -m claimsdb.anchor`: walk the chain a job on standard input names and print the walk."""
    from sqlalchemy import create_engine

    job = json.loads(sys.stdin.buffer.readline())
    engine = create_engine(job["url"])
    try:
        with Session(engine) as session:
            walked = history.walk(session, upto=int(job["upto"]))
    finally:
        engine.dispose()
    sys.stdout.write(json.dumps(dataclasses.asdict(walked)) + "\n")


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker()
