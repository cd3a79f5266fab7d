"""A whole-store read on two cores (issue 35): from SPLIT_FROM claims on, `claims export` and `claims list
--format json` read the second half of the claims they select in a worker process (`python -m
claimsdb.halves`, its own session on the same database: workers.py) while they read the first half
themselves, then take the worker's half in after their own, in order.

The worker runs the very code the command runs (views.load, each claim checked against its history and
its definitions, paper_safe.Gathered for an export, the same JSON encoder for a list) and writes what it
gathered to files in a private temporary folder: an export's rows and the canonical text the manifest's
digest is computed from, a list's JSON lines, and a summary. Its answer is used only when it ended well
and read the store exactly as the command did: the chain heads (events, people, definitions; anchor.take)
the worker saw when it began and when it ended must both be those the command saw before its own half.
Otherwise (a worker that failed, could not start, or a store written to meanwhile) the command reads the
second half itself: the worker is only ever a faster way to the same output. A claim of the worker's half
that disagrees with its history is refused (export) or printed marked and refused (list) just as if the
command had read it.

Domain code: it returns values; it never prints (the worker writes its one answer).
"""

from __future__ import annotations

import json
import pickle
import sys
import tempfile
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlmodel import Session

from claimsdb import canonical, db, workers

SPLIT_FROM = (
    20_000  # claims: below this a read takes about a second; a worker's start-up would not pay
)
_ANSWER_LIMIT = 64_000  # bytes of a worker's printed answer: the heads it saw
_CHUNK = 1 << 20  # characters copied at a time from a worker's JSON lines


def head(session: Session) -> list[Any] | None:
    """The store as a read sees it: each chain's head and length (events, people, definitions)."""
    from claimsdb import anchor  # only once a worker reads: a small listing never loads it

    found = anchor.take(session)
    if found is None:
        return None
    return [
        found.head,
        found.length,
        found.event_id,
        found.people_head,
        found.people_length,
        found.definitions_head,
        found.definitions_length,
    ]


class Half:
    """The worker reading the second half of a selection, and the folder it writes to."""

    def __init__(self, folder: tempfile.TemporaryDirectory, proc: Any) -> None:
        self.temporary = folder  # removed when this (or an export's rows that adopted it) is let go
        self.folder = Path(folder.name)
        self.proc = proc

    def result(self, session: Session, before: list[Any] | None) -> dict[str, Any] | None:
        """What the worker gathered, once it ended well having read the store as the command did
        (`before`: `head` before the command's own half, taken again now); None otherwise."""
        from claimsdb.errors import TamperedHistory

        found = workers.answer(self.proc, _ANSWER_LIMIT)
        self.proc = None
        now = head(session)
        if not isinstance(found, dict) or found.get("heads") != [before, before] or now != before:
            return None
        try:
            with open(self.folder / "summary", "rb") as f:
                summary = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError):
            return None
        if not isinstance(summary, dict):
            return None
        if summary.get("tampered_first"):  # an export refuses the first, as it would have read it
            key, reason = summary["tampered_first"]
            if summary.get("kind") == "export":
                raise TamperedHistory(key, reason)
        return summary

    def close(self) -> None:
        """End the worker if it still runs. The folder stays while something holds `temporary`."""
        if self.proc is not None:
            workers.reap(self.proc)
            self.proc = None


# The share of the claims the worker reads: an export's command also renders every row and reads the
# worker's back, so the worker takes more than half (the two end about together at 100,000 claims).
SHARE = {"export": 0.6, "list": 0.5}


def start(
    session: Session, kind: str, ids: Sequence[int], params: dict[str, Any]
) -> tuple[Sequence[int], Half | None]:
    """(the ids the command reads itself, the worker reading the rest) for a selection of `ids` in the
    order it is written; (ids, None) when no worker helps: a small selection, one core, a store another
    process cannot open, or a worker that did not start."""
    url = db.shared_url(session)
    if len(ids) < SPLIT_FROM or url is None or not workers.possible():
        return ids, None
    middle = len(ids) - int(len(ids) * SHARE[kind])
    folder = tempfile.TemporaryDirectory(prefix="claims-half-")
    with open(Path(folder.name) / "ids", "wb") as f:
        array("q", ids[middle:]).tofile(f)
    proc = workers.start(
        "claimsdb.halves",
        {"kind": kind, "url": url, "folder": folder.name, "params": params},
        close_stdin=True,
    )
    if proc is None:
        folder.cleanup()
        return ids, None
    return ids[:middle], Half(folder, proc)


class Encoded:
    """A worker's JSON lines (a list's second half), each item as `LINE` writes it, ",\\n  " between."""

    def __init__(self, path: Path, keep: Half) -> None:
        self.path, self._keep = path, keep

    def pieces(self) -> Iterator[str]:
        with open(self.path, encoding="utf-8", errors="surrogatepass") as f:
            while piece := f.read(_CHUNK):
                yield piece


def _export(session: Session, ids: Sequence[int], params: dict[str, Any], folder: Path) -> dict:
    from claimsdb import paper_safe, views
    from claimsdb.export_rows import Rows
    from claimsdb.trust.rule import Policy

    gathered = paper_safe.Gathered(
        params["mode"], Policy(strict=params["strict"]), rows=Rows(folder)
    )
    for view in views.load(session, ids):
        gathered.add(view)
    return {"kind": "export", **gathered.summary()}


def _list(session: Session, ids: Sequence[int], params: dict[str, Any], folder: Path) -> dict:
    from claimsdb import views
    from claimsdb.errors import Tampered

    tampered, count = Tampered(), 0
    with open(folder / "lines", "w", encoding="utf-8", errors="surrogatepass") as out:
        for v in views.load(session, ids):
            if params["stale"] and not (v.stale or v.reread_outdated):
                continue
            out.write((",\n  " if count else "") + canonical.LINE(tampered.note(v).to_json()))
            count += 1
    first = [tampered.first_key, tampered.first_reason] if tampered.count else None
    return {"kind": "list", "count": count, "tampered": tampered.count, "tampered_first": first}


def _worker() -> None:
    """`python -m claimsdb.halves`: read the half of a selection its job names; write what it gathered to
    the job's folder and print the heads of the store as it began and ended."""
    from sqlalchemy import create_engine

    from claimsdb.errors import TamperedHistory

    job = json.loads(sys.stdin.buffer.readline())
    folder = Path(job["folder"])
    ids = array("q")
    ids.frombytes((folder / "ids").read_bytes())
    # its own engine, reading only: not db.session_of's, whose SQLite transactions take the write lock
    # first (the command holds it, so this one would wait for the command to end)
    engine = create_engine(job["url"])
    try:
        with Session(engine) as session:
            began = head(session)
            try:
                read = _export if job["kind"] == "export" else _list
                summary = read(session, ids, job["params"], folder)
            except TamperedHistory as e:  # an export stops at the first, as the command would
                summary = {"kind": job["kind"], "tampered_first": [e.key, e.reason]}
            ended = head(session)
    finally:
        engine.dispose()
    with open(folder / "summary", "wb") as f:
        pickle.dump(summary, f, pickle.HIGHEST_PROTOCOL)
    sys.stdout.write(json.dumps({"heads": [began, ended]}) + "\n")


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker()
