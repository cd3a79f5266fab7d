"""Re-read signatures checked on a second core while a command does its other work.

When one command checks many signatures (an export, lint or `claims db check` of a whole store that
requires them), `Prefetch` starts one worker process (`python -m claimsdb.trust.prefetch`) that opens
its own engine on the same database (never the parent's connections), replays the people registry
itself and, once the parent agrees it is the parent's (same head, same rows, no problems), checks the
signatures of the events the command will ask about with the same rule (`signatures.problem`), in the
command's order, sending {verdict key: reason or None} a chunk at a time. The parent drains the pipe on
a thread as the worker writes; before each check it merges what has come (it never waits) and checks
inline whatever the worker has not sent. It tells the worker how far it has got (a chunk at a time):
a worker the parent has overtaken resumes ahead of it, so the two never check the same stretch for
long, and a command with other work to do (the views of an export, the chain `claims db check` walks
before the signatures: it starts its worker first) leaves nearly every check to the worker. A verdict
is kept under the digest of every field the check reads (signatures.verdict_key: the claim's key, the
event's kind, actor, time, page, content and detail), so the parent takes it only for an event it reads
exactly so: a verdict is a pure function of what the parent checks. A worker that fails or says
anything unexpected is dropped (killed and reaped), never taken for "verified".

Nothing is stored: every command verifies what it relies on (an agent running as the user can write
the database and every file of the user's). The worker adds no output (its standard error is
discarded), runs in its own session (Ctrl-C reaches the parent only, which kills and reaps it), and
exits when the parent's pipe closes.

CLAIMS_VERIFY_WORKERS_FROM (read at each call; default WORKERS_FROM): the fewest signatures a command
checks before a worker is worth its start (about half a second).
"""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from typing import IO, Any

from sqlalchemy import bindparam, create_engine, text
from sqlmodel import Session

from claimsdb import db, workers
from claimsdb.history import (
    EVENT_FIELDS,
    IMPORT_KINDS,
    LATER_FIELDS,
    REREAD_KIND,
    VERIFIED,
)
from claimsdb.trust import people, signatures

WORKERS_FROM = 5000
ENV = "CLAIMS_VERIFY_WORKERS_FROM"
CHUNK = 250  # positions a worker's message covers
AHEAD = 2 * CHUNK  # how far past the parent's position a worker that fell behind resumes
VOUCHING, REREADS = "vouching", "rereads"
_FIELDS = ("id", *EVENT_FIELDS, *LATER_FIELDS, "sha256")  # every column the event digest covers


def threshold() -> int:
    try:
        return int(os.environ.get(ENV, WORKERS_FROM))
    except ValueError:
        return WORKERS_FROM


def _pump(
    proc: subprocess.Popen, expected: dict, inbox: queue.SimpleQueue[bytes], agreed: threading.Event
) -> None:
    """The worker's first line must describe the caller's own registry (`expected`): then it is told to
    go, and what it writes is moved into `inbox` as it comes (the caller only parses it; a pipe left
    full would stop the worker until the caller's next look). b"" at the end, or at any disagreement."""
    assert proc.stdin is not None and isinstance(proc.stdout, io.BufferedReader)
    try:
        if json.loads(proc.stdout.readline()) == expected:
            proc.stdin.write(b"go\n")
            proc.stdin.flush()
            agreed.set()
            while data := proc.stdout.read1(1 << 16):
                inbox.put(data)
    except (OSError, ValueError):
        pass
    inbox.put(b"")


class Prefetch:
    """Verdicts a worker checks along `ids` ahead of the caller: the caller calls `merge(position)`
    before each check, which takes whatever the worker has sent so far (never waiting) and tells the
    worker where the caller is; every verdict the worker has not sent is the caller's to check inline."""

    def __init__(
        self, session: Session, registry: people.Registry, mode: str, ids: Sequence[int]
    ) -> None:
        self.registry = registry
        self.proc: subprocess.Popen | None = None
        self.agreed = threading.Event()  # the worker's registry is the caller's: its verdicts count
        self.done = False  # the worker has sent every chunk
        self._buffer = b""
        self._told = 0  # the last position the worker was told
        self._inbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()  # its lines; b"" at its end
        if len(ids) < max(1, threshold()) or not workers.possible():
            return
        url = db.shared_url(session)
        if url is None or registry.problems:
            return
        self._begin(url, mode, ids)

    def _begin(self, url: str, mode: str, ids: Sequence[int]) -> None:
        job = {"url": url, "mode": mode, "ids": list(ids)}
        self.proc = workers.start("claimsdb.trust.prefetch", job, close_stdin=False)
        if self.proc is None:
            return
        self._finalizer = weakref.finalize(self, workers.reap, self.proc)
        reg = self.registry
        expected = {"head": reg.head, "rows": reg.rows, "problems": 0}
        pump = (self.proc, expected, self._inbox, self.agreed)
        threading.Thread(target=_pump, args=pump, daemon=True).start()

    def close(self) -> None:
        """Kill and reap the worker (idempotent)."""
        if self.proc is not None:
            self._finalizer()
            self.proc = None

    def __enter__(self) -> Prefetch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def merge(self, position: int | None = None) -> None:
        """Take what the worker has sent so far (nothing is waited for): the caller calls it before each
        check the worker may have done, and checks inline whatever is still missing. `position`: how far
        down the list the caller is, told to the worker (a CHUNK at a time) so that it stays ahead."""
        if not self._inbox.empty():  # nothing new, nearly always: no exception raised to say so
            self.wait(0.0)
        if position is not None and self.agreed.is_set() and position >= self._told + CHUNK:
            try:
                assert self.proc is not None and self.proc.stdin is not None
                self.proc.stdin.write(b"at %d\n" % position)
                self.proc.stdin.flush()
                self._told = position
            except (OSError, ValueError, AssertionError):
                self.close()

    def wait(self, timeout: float) -> None:
        """Merge what the worker sends within `timeout` seconds, or until it has sent everything."""
        deadline = time.monotonic() + timeout
        try:
            while self.proc is not None and not self.done:
                try:
                    data = self._inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    return
                self._parse(data)
        except (OSError, ValueError, KeyError, TypeError):
            self.close()

    def _parse(self, data: bytes) -> None:
        if not data:
            self.close()  # the worker ended: whatever it did not send is checked inline
            return
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            if self.proc is not None:
                self._take(json.loads(line))

    def _take(self, message: dict[str, Any]) -> None:
        verdicts = message["verdicts"]
        if not all(v is None or isinstance(v, str) for v in verdicts.values()):
            raise ValueError("a verdict that is neither None nor a reason")
        for key, why in verdicts.items():
            self.registry.verdicts.setdefault(str(key), why)
        self.done = bool(message.get("last"))


# -- the worker --------------------------------------------------------------------------------------

_VOUCHING_KINDS = ", ".join(f"'{k}'" for k in (*IMPORT_KINDS, REREAD_KIND))
_SQL = {
    # the latest tag event that vouches for each verified claim of the batch (selection.vouching_events)
    VOUCHING: 'SELECT c.id, c."key", {fields} FROM claim c JOIN tag t ON t.name = c.tag '
    "JOIN event e ON e.id = (SELECT max(v.id) FROM event v WHERE v.claim_id = c.id "
    f"AND v.tag_after IS NOT NULL AND v.kind IN ({_VOUCHING_KINDS})) "
    f"WHERE t.trust = '{VERIFIED}' AND c.id IN :ids",
    # the re-read events of the batch (signatures.audit)
    REREADS: 'SELECT e.id, c."key", {fields} FROM event e JOIN claim c ON c.id = e.claim_id '
    f"WHERE e.kind = '{REREAD_KIND}' AND e.id IN :ids",
}


def _events(session: Session, mode: str, ids: Sequence[int]) -> Iterator[tuple[str, dict]]:
    fields = ", ".join(f'e."{f}"' for f in _FIELDS)
    stmt = text(_SQL[mode].format(fields=fields)).bindparams(bindparam("ids", expanding=True))
    for row in session.execute(stmt, {"ids": list(ids)}):
        yield row[1], dict(zip(_FIELDS, row[2:]))


def _verdicts(session: Session, reg: people.Registry, mode: str, ids: Sequence[int]) -> dict:
    out: dict[str, str | None] = {}
    for key, event in _events(session, mode, ids):
        if mode == REREADS and '"signature": ' not in str(event["detail"] or ""):
            continue
        out[signatures.verdict_key(key, event)] = signatures.problem(reg, key, event)
    return out


def _listen(stdin: IO[bytes], parent_at: list[int]) -> None:
    """Keep `parent_at[0]` at the position the parent last said it reached; exit when the parent's pipe
    closes (the parent ended, or dropped this worker)."""
    while line := stdin.readline():
        if line.startswith(b"at "):
            parent_at[0] = int(line[3:])
    os._exit(0)


def main() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    job = json.loads(stdin.readline())
    engine = create_engine(job["url"])
    try:
        with Session(engine) as session:
            reg = people.load(session)
            ready = {"head": reg.head, "rows": reg.rows, "problems": len(reg.problems)}
            stdout.write(json.dumps(ready).encode() + b"\n")
            stdout.flush()
            if stdin.readline().strip() != b"go":
                return
            ids = job["ids"]
            parent_at = [0]
            threading.Thread(target=_listen, args=(stdin, parent_at), daemon=True).start()
            i = 0
            while i < len(ids):
                if parent_at[0] > i:  # the parent overtook this worker: resume ahead of it
                    i = parent_at[0] + AHEAD
                    continue
                verdicts = _verdicts(session, reg, job["mode"], ids[i : i + CHUNK])
                stdout.write(json.dumps({"verdicts": verdicts}).encode() + b"\n")
                stdout.flush()
                i += CHUNK
            stdout.write(b'{"verdicts": {}, "last": true}\n')
            stdout.flush()
    finally:
        engine.dispose()


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        main()
    except BaseException:  # noqa: BLE001 - the parent checks inline whatever was not sent
        os._exit(1)
