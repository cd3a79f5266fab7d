"""Benchmark: `claims import` against `sqlite-utils insert` and a plain sqlite3 executemany of the same
rows, measured side by side in one run; the re-import of an unchanged file; peak memory; and, with
--jsonl N, a streamed JSON Lines import of N claims. Prints figures and ratios; asserts nothing.

Two more comparisons hold the rest of the store to the same measure: the rows a claimsdb import
writes (claims, figures, the figures' reach for trace, evidence, history events) written again by a
plain executemany, and by `sqlite-utils insert`, into an empty copy of claimsdb's schema (its indexes,
constraints and triggers).

    .venv/bin/python tests/benchmarks/bench_import.py [--claims 100000] [--distinct] [--jsonl 1000000]

Each import runs as a command in its own process (Python start-up included, as a user runs it); its
peak memory is the process's maximum resident set. `--distinct` gives every figure its own text (the
default data repeats figures, as real data sets do; the parser remembers figures it has read).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import claimsdb  # noqa: E402

TAGS = ("spot-checked", "note-2026-09-21", "prior-note", "agent-reported")
STAGES = ("Data", "Pretrain", "Midtrain", "Post-train", "Agentic RL", "Serve")
# Runs a command and reports its peak memory on stderr's last line (kB, as getrusage gives it on Linux).
RUNNER = (
    "import resource, sys\n"
    "from claimsdb.cli.app import main\n"
    "sys.argv = ['claims', *sys.argv[1:]]\n"
    "try:\n    main()\n"
    "finally:\n    print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)


# JSON Lines is an agent channel: only tags of unverified trust.
AGENT_TAG = "agent-reported"


def claim(i: int, distinct: bool, tags: tuple[str, ...] = TAGS) -> dict:
    gpus = 64 * (1 + (i if distinct else i % 512))
    tokens = (1 + (i if distinct else i % 300)) / 10
    record = {
        "key": f"bench.{i:07d}",
        "subject": f"System {i % 997}",
        "stage": STAGES[i % len(STAGES)],
        "statement": f"System {i % 997} trained on {gpus:,} H100 GPUs for {tokens:.1f}T tokens (run {i}).",
        "tag": tags[i % len(tags)],
        "basis": "Generated for the benchmark.",
        "figures": [f"{gpus:,} H100", f"{tokens:.1f}T tokens"],
        "evidence": [{"source": "bench-source", "locator": f"row {i}"}],
    }
    if (
        record["tag"] == "spot-checked"
    ):  # a verified tag names who re-read it; the import records that re-read
        record["reread"] = {
            "by": "Bench Reader",
            "at": "2026-09-21",
            "source": "bench-source",
            "locator": f"row {i}",
            "quote": f"{gpus:,} H100 GPUs",
        }
    return record


SOURCE = {
    "key": "bench-source",
    "title": "Benchmark source",
    "kind": "other",
    "url": "https://example.org/bench",
}


def run(args: list[str], env: dict) -> tuple[float, int, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, *args], capture_output=True, text=True, env=env
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"claims {' '.join(args)} failed: {proc.stderr[-2000:]}")
    rss = int(proc.stderr.strip().splitlines()[-1].split()[1])
    return elapsed, rss, proc


def sqlite_utils(tmp: Path, claims: list[dict]) -> float:
    """What a user would reach for: sqlite-utils insert of the claim rows and the figure rows."""
    exe = shutil.which("sqlite-utils", path=str(Path(sys.executable).parent)) or shutil.which(
        "sqlite-utils"
    )
    if exe is None:
        return float("nan")
    rows = tmp / "su_claims.json"
    rows.write_text(
        json.dumps(
            [
                {k: c[k] for k in ("key", "subject", "stage", "statement", "tag", "basis")}
                for c in claims
            ]
        ),
        encoding="utf-8",
    )
    figures = tmp / "su_figures.json"
    figures.write_text(
        json.dumps(
            [
                {"claim": c["key"], "position": i, "raw": raw}
                for c in claims
                for i, raw in enumerate(c["figures"])
            ]
        ),
        encoding="utf-8",
    )
    start = time.perf_counter()
    for table, path, extra in (("claim", rows, ["--pk", "key"]), ("figure", figures, [])):
        subprocess.run(
            [exe, "insert", str(tmp / "su.db"), table, str(path), *extra],
            check=True,
            capture_output=True,
        )
    return time.perf_counter() - start


def executemany(tmp: Path, claims: list[dict]) -> float:
    """The floor: a plain sqlite3 executemany of the same claim and figure rows, figures parsed beforehand."""
    from claimsdb.figures import parse

    claim_rows = [
        (c["key"], c["subject"], c["stage"], c["statement"], c["tag"], c["basis"]) for c in claims
    ]
    figure_rows = [
        (i, pos, raw, q.kind, q.value, q.unit, q.counted)
        for i, c in enumerate(claims, start=1)
        for pos, raw in enumerate(c["figures"])
        for q in (parse(raw),)
    ]
    con = sqlite3.connect(tmp / "plain.db")
    con.executescript(
        "CREATE TABLE claim (id INTEGER PRIMARY KEY, key TEXT UNIQUE, subject TEXT, stage TEXT, statement TEXT,"
        " tag TEXT, basis TEXT);"
        "CREATE TABLE figure (id INTEGER PRIMARY KEY, claim_id INTEGER, position INTEGER, raw TEXT, kind TEXT,"
        " value REAL, unit TEXT, counted TEXT);"
    )
    start = time.perf_counter()
    with con:
        con.executemany(
            "INSERT INTO claim (key, subject, stage, statement, tag, basis) VALUES (?,?,?,?,?,?)",
            claim_rows,
        )
        con.executemany(
            "INSERT INTO figure (claim_id, position, raw, kind, value, unit, counted) VALUES (?,?,?,?,?,?,?)",
            figure_rows,
        )
    con.close()
    return time.perf_counter() - start


STORE_TABLES = (
    "tag",
    "source",
    "quantity",
    "claim",
    "event",
    "evidence",
    "figure",
    "figure_number",
)
SQLITE_PRAGMAS = (
    "PRAGMA foreign_keys = ON",
    "PRAGMA recursive_triggers = ON",
    "PRAGMA cache_size = -65536",
)


def stored_rows(db: Path) -> tuple[list[str], dict[str, tuple[list[str], list[tuple]]]]:
    """The schema of an imported store (its CREATE statements in order) and every row of its tables."""
    con = sqlite3.connect(db)
    schema = [
        sql
        for (sql,) in con.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
        )
    ]
    rows = {}
    for table in STORE_TABLES:
        cursor = con.execute(f'SELECT * FROM "{table}" ORDER BY rowid')
        rows[table] = ([d[0] for d in cursor.description], cursor.fetchall())
    con.close()
    return schema, rows


def empty_store(path: Path, schema: list[str]) -> None:
    con = sqlite3.connect(path)
    for sql in schema:
        con.execute(sql)
    con.commit()
    con.close()


def executemany_store(tmp: Path, schema: list[str], rows: dict) -> float:
    """The floor for what an import writes: the same rows, executemany into the same schema, with
    claimsdb's connection settings, in one transaction."""
    path = tmp / "plain_store.db"
    empty_store(path, schema)
    con = sqlite3.connect(path, isolation_level=None)
    for pragma in SQLITE_PRAGMAS:
        con.execute(pragma)
    start = time.perf_counter()
    con.execute("BEGIN IMMEDIATE")
    for table, (columns, values) in rows.items():
        if values:
            names = ", ".join(f'"{c}"' for c in columns)
            con.executemany(
                f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})', values
            )
    con.execute("COMMIT")
    con.close()
    return time.perf_counter() - start


def sqlite_utils_store(tmp: Path, schema: list[str], rows: dict) -> float:
    """sqlite-utils insert of the same rows into the same schema, a table at a time (JSON files written
    beforehand, outside the timing)."""
    exe = shutil.which("sqlite-utils", path=str(Path(sys.executable).parent)) or shutil.which(
        "sqlite-utils"
    )
    if exe is None:
        return float("nan")
    path = tmp / "su_store.db"
    empty_store(path, schema)
    files = []
    for table, (columns, values) in rows.items():
        if values:
            file = tmp / f"su_store_{table}.json"
            file.write_text(json.dumps([dict(zip(columns, v)) for v in values]), encoding="utf-8")
            files.append((table, file))
    start = time.perf_counter()
    for table, file in files:
        subprocess.run(
            [exe, "insert", str(path), table, str(file)], check=True, capture_output=True
        )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--distinct", action="store_true", help="every figure written differently")
    parser.add_argument(
        "--jsonl", type=int, default=0, help="also stream a JSON Lines file of this many claims"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        claims = [claim(i, args.distinct) for i in range(args.claims)]
        data = tmp / "bench.json"
        data.write_text(json.dumps({"sources": [SOURCE], "claims": claims}), encoding="utf-8")
        print(
            f"{args.claims:,} claims, {2 * args.claims:,} figures ({data.stat().st_size / 1e6:.1f} MB)"
            f"{', every figure distinct' if args.distinct else ''}"
        )
        env = {**os.environ, "CLAIMS_DB": str(tmp / "claims.db")}
        # as a user's Python runs: our modules' bytecode cached (an editable install has none until then)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(Path(claimsdb.__file__).parent)],
            env=env,
            check=True,
        )
        first, rss_first, _ = run(["import", str(data)], env)
        again, rss_again, _ = run(["import", str(data)], env)
        su = sqlite_utils(tmp, claims)
        floor = executemany(tmp, claims)
        schema, rows = stored_rows(tmp / "claims.db")
        written = sum(len(v) for _, v in rows.values())
        floor_store = executemany_store(tmp, schema, rows)
        su_store = sqlite_utils_store(tmp, schema, rows)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import sqlmodel, typer"], check=True)
        startup = time.perf_counter() - start
        print(f"claims import, first:              {first:7.2f} s  peak {rss_first / 1024:6.0f} MB")
        print(f"claims import, again (unchanged):  {again:7.2f} s  peak {rss_again / 1024:6.0f} MB")
        print(f"sqlite-utils insert, same rows:    {su:7.2f} s")
        print(f"sqlite3 executemany, same rows:    {floor:7.2f} s")
        print(f"python -c 'import sqlmodel, typer': {startup:6.2f} s (the stack's start-up floor)")
        print(
            f"the rows the import wrote ({written:,} in {sum(1 for _, v in rows.values() if v)} tables), "
            "again into an empty copy of its schema:"
        )
        print(f"  sqlite3 executemany:              {floor_store:7.2f} s")
        print(f"  sqlite-utils insert:              {su_store:7.2f} s")
        print(
            f"ratios: first import / sqlite-utils {first / su:.2f}; / executemany {first / floor:.1f}; "
            f"re-import {again:.2f} s"
        )
        print(
            f"        first import / sqlite-utils into the same schema {first / su_store:.2f}; "
            f"/ executemany into the same schema {first / floor_store:.2f}"
        )
        if args.jsonl:
            lines = tmp / "bench.jsonl"
            with open(lines, "w", encoding="utf-8") as fh:
                fh.write(json.dumps({"source": SOURCE}) + "\n")
                for i in range(args.jsonl):
                    fh.write(json.dumps(claim(i, args.distinct, (AGENT_TAG,))) + "\n")
            env = {**os.environ, "CLAIMS_DB": str(tmp / "stream.db")}
            elapsed, rss, _ = run(["import", str(lines)], env)
            print(
                f"claims import of {args.jsonl:,} claims as JSON Lines ({lines.stat().st_size / 1e6:.0f} MB): "
                f"{elapsed:.1f} s, peak {rss / 1024:.0f} MB"
            )


if __name__ == "__main__":
    main()
