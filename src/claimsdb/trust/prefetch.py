"""Re-read signatures checked on a second core while a command does its other work.

When one command checks many signatures (an export, lint or `claims db check` of a whole store that
requires them), `Prefetch` starts one worker process (`python -m claimsdb.trust.prefetch`) that opens
its own engine on the same database (never the parent's connections), replays the people registry
itself and, once the parent agrees it is the parent's (same head, same rows, no problems), checks the
signatures of the events the command will ask about with the same rule (`signatures.problem`), from
the far end of the command's list, sending {verdict key: reason or None} a chunk at a time. The parent
goes from the near end: before each check it merges what has come (it never waits), and checks
inline whatever the worker has not sent, so the two meet where their work balances. A verdict is kept
under the digest of every field the check reads (signatures.verdict_key: the claim's key, the event's
kind, actor, time, page, content and detail), so the parent takes it only for an event it reads
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

import json
import os
import select
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterator, Sequence
from typing import IO, Any

from sqlalchemy import Engine, bindparam, create_engine, text
from sqlmodel import Session

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
VOUCHING, REREADS = "vouching", "rereads"
_FIELDS = ("id", *EVENT_FIELDS, *LATER_FIELDS, "sha256")  # every column the event digest covers


def threshold() -> int:
    try:
        return int(os.environ.get(ENV, WORKERS_FROM))
    except ValueError:
        return WORKERS_FROM


def _url(session: Session) -> str | None:
    """The database URL a worker can open, None when it cannot share the parent's (in memory)."""
    bind = session.get_bind()
    url = bind.url if isinstance(bind, Engine) else bind.engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return None
    if url.query.get("mode") == "memory":
        return None
    return url.render_as_string(hide_password=False)


def _reap(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            pipe.close()


class Prefetch:
    """Verdicts a worker checks from the far end of `ids` while the caller goes from the near end: the
    caller calls `merge()` before each stretch of its checks, which takes whatever the worker has sent so
    far and never waits. The two meet where their work
    balances (the caller, building views or reading events besides, checks fewer); every verdict the
    worker has not sent is the caller's to check inline."""

    def __init__(
        self, session: Session, registry: people.Registry, mode: str, ids: Sequence[int]
    ) -> None:
        self.registry = registry
        self.proc: subprocess.Popen | None = None
        self.ready = False  # the worker's registry is the caller's: its verdicts count
        self.done = False  # the worker has sent every chunk
        self._buffer = b""
        if len(ids) < max(1, threshold()) or (os.cpu_count() or 1) < 2 or os.name != "posix":
            return
        url = _url(session)
        if url is None or registry.problems:
            return
        self._begin(url, mode, ids)

    def _begin(self, url: str, mode: str, ids: Sequence[int]) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "claimsdb.trust.prefetch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
            )
            self._finalizer = weakref.finalize(self, _reap, self.proc)
            job = {"url": url, "mode": mode, "ids": list(ids)}
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps(job).encode() + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self.close()

    def close(self) -> None:
        """Kill and reap the worker (idempotent)."""
        if self.proc is not None:
            self._finalizer()
            self.proc = None

    def __enter__(self) -> Prefetch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def merge(self) -> None:
        """Take what the worker has sent so far (nothing is waited for): the caller calls it before each
        stretch of checks and checks inline whatever is still missing."""
        self.wait(0.0)

    def wait(self, timeout: float) -> None:
        """Merge what the worker sends within `timeout` seconds, or until it has sent everything."""
        try:
            while self.proc is not None and not self.done and self._read(timeout):
                pass
        except (OSError, ValueError, KeyError, TypeError):
            self.close()

    def _read(self, timeout: float) -> bool:
        """Take the messages waiting (for up to `timeout` s for the first); False when none came."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        if not select.select([fd], [], [], timeout)[0]:
            return False
        data = os.read(fd, 1 << 16)
        if not data:
            self.close()  # the worker ended: whatever it did not send is checked inline
            return False
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            if self.proc is not None:
                self._take(json.loads(line))
        return True

    def _take(self, message: dict[str, Any]) -> None:
        if "head" in message:
            reg = self.registry
            if (message["head"], message["rows"], message["problems"]) != (reg.head, reg.rows, 0):
                self.close()
                return
            self.ready = True
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(b"go\n")
            self.proc.stdin.flush()
            return
        if not self.ready:
            raise ValueError("verdicts before the registry was agreed")
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


def _orphaned(stdin: IO[bytes]) -> None:
    """Exit when the parent's pipe closes (the parent ended, or dropped this worker)."""
    while stdin.readline():
        pass
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
            threading.Thread(target=_orphaned, args=(stdin,), daemon=True).start()
            starts = list(range(0, len(ids), CHUNK))
            for n, i in enumerate(
                reversed(starts)
            ):  # from the far end: the caller starts at the near one
                verdicts = _verdicts(session, reg, job["mode"], ids[i : i + CHUNK])
                last = n == len(starts) - 1
                stdout.write(json.dumps({"verdicts": verdicts, "last": last}).encode() + b"\n")
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
