"""Benchmark: a store of N claims (1,000,000 by default, two figures each) on SQLite and, when
$CLAIMS_TEST_POSTGRES names a server (`eval "$(.ci/postgres start)"`), on PostgreSQL: the import's time
(`claims import` of a JSON Lines file, as a user runs it), the database's size, and `claims trace`
latency in process, p50 and p95 over 100 queries of figures the store holds and some it does not.
Prints figures; asserts nothing.

    .venv/bin/python tests/benchmarks/bench_scale.py [--claims 1000000] [--queries 100] [--engine both]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.benchmarks.bench_import import AGENT_TAG, SOURCE, STAGES  # noqa: E402

UNITS = ("H100", "H800", "B300", "A100", "nodes", "tasks", "environments")


def claim(i: int) -> dict:
    """Varied figures: counts of several things over a wide range, and token amounts."""
    rnd = random.Random(i)
    count = rnd.randrange(8, 200_000)
    tokens = rnd.randrange(1, 400) / 10
    thing = UNITS[i % len(UNITS)]
    return {
        "key": f"scale.{i:07d}", "subject": f"System {i % 4999}", "stage": STAGES[i % len(STAGES)],
        "statement": f"System {i % 4999} used {count:,} {thing} and {tokens:.1f}T tokens (run {i}).",
        "tag": AGENT_TAG, "basis": "Generated for the benchmark.",  # JSON Lines: an agent channel
        "figures": [f"{count:,} {thing}", f"{tokens:.1f}T tokens"],
        "evidence": [{"source": "bench-source", "locator": f"row {i}"}],
    }


def queries(n: int, claims: int) -> list[str]:
    rnd = random.Random(7)
    out = []
    for _ in range(n):
        if rnd.random() < 0.8:  # a figure the store holds
            c = claim(rnd.randrange(claims))
            out.append(c["figures"][rnd.randrange(2)])
        else:  # one it may not
            out.append(f"{rnd.randrange(200_001, 900_000):,} {rnd.choice(UNITS)}")
    return out


def measure(url: str, lines: Path, n: int, qs: list[str], size) -> None:
    from claimsdb import db, queries as q
    from claimsdb.errors import NotFound

    env = {**os.environ, "CLAIMS_DB": url}
    start = time.perf_counter()
    proc = subprocess.run([str(Path(sys.executable).with_name("claims")), "import", str(lines)], env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"import failed: {proc.stderr[-2000:]}")
    engine = db.open_engine(url)
    times, found = [], 0
    for query in qs:
        t = time.perf_counter()
        with db.session_scope(engine) as session:
            try:
                found += bool(q.trace(session, query)["matches"])
            except NotFound:
                pass
        times.append(time.perf_counter() - t)
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"{engine.dialect.name:10} {n:,} claims: import {elapsed:7.1f} s, database {size() / 1e6:7.0f} MB, "
          f"trace p50 {statistics.median(times) * 1000:6.1f} ms, p95 {p95 * 1000:6.1f} ms "
          f"({found} of {len(qs)} queries matched)")
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--engine", choices=("both", "sqlite", "postgresql"), default="both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        lines = tmp / "scale.jsonl"
        with open(lines, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"source": SOURCE}) + "\n")
            for i in range(args.claims):
                fh.write(json.dumps(claim(i)) + "\n")
        qs = queries(args.queries, args.claims)
        path = tmp / "scale.db"
        if args.engine != "postgresql":
            measure(str(path), lines, args.claims, qs, lambda: path.stat().st_size)
        if args.engine == "sqlite":
            return
        admin = os.environ.get("CLAIMS_TEST_POSTGRES")
        if not admin:
            print("postgresql skipped: set CLAIMS_TEST_POSTGRES (eval \"$(.ci/postgres start)\")")
            return
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        name = f"claims_scale_{uuid.uuid4().hex[:8]}"
        server = create_engine(admin, isolation_level="AUTOCOMMIT")
        with server.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(admin).set(database=name).render_as_string(hide_password=False)

        def size() -> int:
            with server.connect() as conn:
                return conn.execute(text("SELECT pg_database_size(:n)"), {"n": name}).scalar()

        try:
            measure(url, lines, args.claims, qs, size)
        finally:
            with server.connect() as conn:
                conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
