"""Several processes recording re-reads into one store at once (a test and a benchmark use it).

`python -m tests.rereaders DB WORKER COUNT KEY...` records COUNT re-reads, round-robin over the keys,
each in its own transaction through the domain layer, checked against the widget report's words
(tests.pages), and prints how many it recorded.
"""

from __future__ import annotations

import subprocess
import sys
import time

from claimsdb import db, provenance
from tests.pages import reread_of


def work(url: str, worker: int, count: int, keys: list[str]) -> int:
    engine = db.open_engine(url)
    for i in range(count):
        with db.session_scope(engine) as session:
            provenance.reread(
                session,
                keys[i % len(keys)],
                actor=f"reader-{worker}",
                note=f"seen by {worker} at {i}",
                **reread_of(keys[i % len(keys)]),
            )
    return count


def run(
    url: str, workers: int, count: int, keys: list[str], cwd: str
) -> tuple[float, list[subprocess.CompletedProcess]]:
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.rereaders", url, str(w), str(count), *keys],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        for w in range(workers)
    ]
    done = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        done.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
    return time.perf_counter() - start, done


if __name__ == "__main__":
    print(work(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]))
