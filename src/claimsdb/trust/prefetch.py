"""Re-read signatures checked on a second core while a command does its other work.

When one command checks many signatures (an export, lint or `claims db check` of a whole store that
requires them), `Prefetch` starts one worker process (`python -m claimsdb.trust.prefetch`) that opens
its own engine on the same database (never the parent's connections), replays the people registry
itself, reads the events the command will ask about, in the command's order, and checks their
signatures with the same rule (`signatures.problem`), sending {verdict key: reason or None} a chunk
at a time (signatures.verdict_key: the digest of every field the check reads). The parent merges a chunk into `registry.verdicts` only when the worker's registry is the
parent's (same head, same rows, no problems); each verdict is kept under the digest of every field the
check reads (signatures.verdict_key: the claim's key, the event's kind, actor, time, page, content and
detail), so the parent takes it only for an event it reads exactly so: a verdict is a pure function of
what the parent checks. Whatever the worker did not cover,
or did not cover in time, the parent checks itself, inline: a worker that fails, hangs or says
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
WAIT = 10.0  # seconds the parent waits for the chunk in progress before it drops the worker
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
    """Verdicts a worker checks ahead of the caller, who asks `need(position, digest)` before it checks
    the signature of the event at `position` of `ids` itself (see the module docstring). `share`: the
    fraction of the positions left when the worker is ready that the caller keeps checking inline (0 for
    a caller with much other work per claim, such as building views; 0.5 for one that only checks)."""

    def __init__(
        self,
        session: Session,
        registry: people.Registry,
        mode: str,
        ids: Sequence[int],
        *,
        share: float = 0.0,
    ) -> None:
        self.registry, self.share, self.total = registry, share, len(ids)
        self.proc: subprocess.Popen | None = None
        self.start: int | None = None  # the first position the worker checks, once it is ready
        self.upto = 0  # the worker has sent every chunk before this position
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

    def need(self, position: int, digest: str | None) -> None:
        """Before the caller checks the event at `position` (its verdict key `digest`,
        signatures.verdict_key): merge what the worker has sent, waiting for the chunk in progress when it
        covers `position`."""
        if self.proc is None or digest is None or digest in self.registry.verdicts:
            return
        try:
            self._read(0.0, position)
            while self.proc is not None and self.start is not None and self.start <= position:
                if not self.upto <= position < self.upto + CHUNK or not self._read(WAIT, position):
                    return
        except (OSError, ValueError, KeyError, TypeError):
            self.close()

    def _read(self, timeout: float, position: int) -> bool:
        """Take the messages waiting (for up to `timeout` s for the first); False when none came."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        got = False
        while select.select([fd], [], [], timeout)[0]:
            data = os.read(fd, 1 << 16)
            if not data:
                self.close()  # the worker ended: whatever it did not send is checked inline
                return got
            got, timeout = True, 0.0
            self._buffer += data
            *lines, self._buffer = self._buffer.split(b"\n")
            for line in lines:
                if self.proc is None:
                    return got
                self._take(json.loads(line), position)
        if timeout and not got:
            self.close()  # no word within WAIT: dropped
        return got

    def _take(self, message: dict[str, Any], position: int) -> None:
        if "head" in message:
            reg = self.registry
            if (message["head"], message["rows"], message["problems"]) != (reg.head, reg.rows, 0):
                self.close()
                return
            left = self.total - position
            self.start = min(self.total, position + max(CHUNK, int(left * self.share)))
            self.upto = self.start
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(f"{self.start}\n".encode())
            self.proc.stdin.flush()
            return
        verdicts = message["verdicts"]
        if not all(v is None or isinstance(v, str) for v in verdicts.values()):
            raise ValueError("a verdict that is neither None nor a reason")
        self.upto = int(message["upto"])
        for digest, why in verdicts.items():
            self.registry.verdicts.setdefault(str(digest), why)


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
            line = stdin.readline()
            if not line.strip():
                return
            start, ids = int(line), job["ids"]
            threading.Thread(target=_orphaned, args=(stdin,), daemon=True).start()
            for i in range(start, len(ids), CHUNK):
                verdicts = _verdicts(session, reg, job["mode"], ids[i : i + CHUNK])
                upto = min(len(ids), i + CHUNK)
                stdout.write(json.dumps({"upto": upto, "verdicts": verdicts}).encode() + b"\n")
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
