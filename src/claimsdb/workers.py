"""Worker processes: a second core for a command's checks (trust.prefetch's signatures, anchor.Pending's
chain walk). A worker is `python -m MODULE` with the command's own import path, its standard error
discarded, in its own session (Ctrl-C reaches the command only, which ends and reaps it); it is handed
its job on standard input. Its answers are only ever a faster way to what the command would check
itself: a worker that fails or says anything unexpected is dropped and the check is made inline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def possible() -> bool:
    """Whether a worker can help here: another core, and POSIX (its session and pipes)."""
    return (os.cpu_count() or 1) >= 2 and os.name == "posix"


def start(module: str, job: dict[str, Any], *, close_stdin: bool) -> subprocess.Popen | None:
    """`python -m MODULE` with `job` as its first line (standard input closed after it when
    `close_stdin`); None when it cannot start."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    except (OSError, ValueError):
        return None
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(job).encode() + b"\n")
        proc.stdin.flush()
        if close_stdin:
            proc.stdin.close()
    except (OSError, ValueError):
        reap(proc)
        return None
    return proc


def answer(proc: subprocess.Popen, limit: int) -> Any:
    """A worker's one answer: the JSON it printed (at most `limit` bytes) once it ended with exit 0,
    else None (it failed, or said something that is not JSON). The worker is reaped either way."""
    try:
        assert proc.stdout is not None
        out = proc.stdout.read(limit)
        found = json.loads(out) if proc.wait() == 0 else None
    except (OSError, ValueError, AssertionError):
        found = None
    reap(proc)
    return found


def reap(proc: subprocess.Popen) -> None:
    """End the worker (killed if it still runs), wait for it, close its pipes."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:  # what was left to flush to a worker that ended: nobody reads it
            pass
