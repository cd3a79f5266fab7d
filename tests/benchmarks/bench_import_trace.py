"""Benchmark: import and trace at 100,000 claims with two figures each.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_import_trace.py [--claims N]

It writes a generated data file, imports it with `claims import` into a fresh SQLite file (a real
subprocess, as a user runs it), re-imports it (the unchanged path), times `claims trace` for a few
queries (subprocess, so Python start-up is included, and in-process), and, in the same run, a plain
sqlite3 executemany of the same claim and figure rows as the floor to compare against.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TAGS = ("spot-checked", "note-2026-09-21", "prior-note", "agent-reported")
STAGES = ("Data", "Pretrain", "Midtrain", "Post-train", "Agentic RL", "Serve")
TRACE_QUERIES = ("2048", "16K H100", "14.8T", "100k")


def generate(n: int) -> dict:
    claims = []
    for i in range(n):
        gpus = 64 * (1 + i % 512)  # 64 .. 32,768
        tokens = (1 + i % 300) / 10  # 0.1T .. 30T
        claims.append({
            "key": f"bench.{i:06d}",
            "subject": f"System {i % 997}",
            "stage": STAGES[i % len(STAGES)],
            "statement": f"System {i % 997} trained on {gpus:,} H100 GPUs for {tokens:.1f}T tokens (run {i}).",
            "tag": TAGS[i % len(TAGS)],
            "basis": "Generated for the benchmark.",
            "figures": [f"{gpus:,} H100", f"{tokens:.1f}T tokens"],
            "evidence": [{"source": "bench-source", "locator": f"row {i}", "quote": None}],
        })
    return {
        "sources": [{"key": "bench-source", "title": "Benchmark source", "kind": "other"}],
        "claims": claims,
    }


def timed(cmd: list[str], env: dict) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, proc


def plain_sqlite(path: Path, doc: dict) -> float:
    from claimsdb.figures import parse

    # Parse outside the timing: the floor is the database writes alone.
    claim_rows = [(c["key"], c["subject"], c["stage"], c["statement"], c["tag"], c["basis"]) for c in doc["claims"]]
    figure_rows = []
    for i, c in enumerate(doc["claims"], start=1):
        for pos, raw in enumerate(c["figures"]):
            q = parse(raw)
            figure_rows.append((i, pos, raw, q.kind, q.comparator, q.value, q.unit, q.counted))
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE claim (id INTEGER PRIMARY KEY, key TEXT UNIQUE, subject TEXT, stage TEXT, statement TEXT, tag TEXT, basis TEXT);"
        "CREATE TABLE figure (id INTEGER PRIMARY KEY, claim_id INTEGER, position INTEGER, raw TEXT, kind TEXT,"
        " comparator TEXT, value REAL, unit TEXT, counted TEXT);"
        "CREATE INDEX ix_figure_value ON figure(value);"
    )
    start = time.perf_counter()
    with con:
        con.executemany("INSERT INTO claim (key, subject, stage, statement, tag, basis) VALUES (?,?,?,?,?,?)", claim_rows)
        con.executemany(
            "INSERT INTO figure (claim_id, position, raw, kind, comparator, value, unit, counted) VALUES (?,?,?,?,?,?,?,?)",
            figure_rows,
        )
    elapsed = time.perf_counter() - start
    con.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=100_000)
    args = parser.parse_args()
    claims_bin = str(Path(sys.executable).with_name("claims"))

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        data = tmp_path / "bench.json"
        start = time.perf_counter()
        doc = generate(args.claims)
        data.write_text(json.dumps(doc), encoding="utf-8")
        print(f"generated {args.claims:,} claims, {2 * args.claims:,} figures "
              f"({data.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - start:.1f} s")

        db_path = tmp_path / "claims.db"
        env = {**os.environ, "CLAIMS_DB": str(db_path)}
        elapsed, proc = timed([claims_bin, "db", "upgrade"], env)
        assert proc.returncode == 0, proc.stderr
        elapsed, proc = timed([claims_bin, "import", str(data)], env)
        if proc.returncode != 0:
            sys.exit(f"import failed: {proc.stderr}")
        print(f"claims import (first, {args.claims:,} added):   {elapsed:7.2f} s   "
              f"({args.claims / elapsed:,.0f} claims/s)")
        elapsed, proc = timed([claims_bin, "import", str(data)], env)
        print(f"claims import (again, all unchanged):  {elapsed:7.2f} s")
        print(f"database file: {db_path.stat().st_size / 1e6:.1f} MB")

        for query in TRACE_QUERIES:
            runs = [timed([claims_bin, "trace", query, "--format", "json"], env) for _ in range(3)]
            best = min(t for t, _ in runs)
            found = len(json.loads(runs[0][1].stdout)["matches"]) if runs[0][1].returncode == 0 else 0
            print(f"claims trace {query!r:<12} (process, best of 3): {best:6.3f} s, {found:,} matches")

        from claimsdb import db, queries

        engine = db.open_engine(str(db_path))
        for query in TRACE_QUERIES:
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                with db.session_scope(engine) as session:
                    try:
                        queries.trace(session, query)
                    except Exception:
                        pass
                best = min(best, time.perf_counter() - start)
            print(f"queries.trace {query!r:<12} (in-process, best of 3): {best:6.3f} s")

        floor = plain_sqlite(tmp_path / "plain.db", doc)
        print(f"plain sqlite3 executemany, same claim and figure rows, one transaction: {floor:7.2f} s")


if __name__ == "__main__":
    main()
