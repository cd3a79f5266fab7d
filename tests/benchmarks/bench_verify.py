"""Benchmark: `claims verify` over 200 sources served on loopback, concurrent against one at a time.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_verify.py [--sources 200] [--latency 0.1]

Each page is served by a real HTTP server on 127.0.0.1 that waits `--latency` seconds before
answering, standing in for the round trip to a real site (loopback itself answers in microseconds,
which would measure nothing but this machine's CPU). Both runs go through the whole command: plan,
fetch, snapshot, text extraction, locating, and the database writes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from typer.testing import CliRunner  # noqa: E402

from claimsdb.cli.app import app  # noqa: E402
from tests.httpserver import LocalHTTPServer  # noqa: E402


def page(i: int) -> bytes:
    return (
        f"<html><body><h1>System {i}</h1><p>System {i} was trained on {1024 + i:,} GPUs "
        f"for {i % 90 + 10} days.</p></body></html>"
    ).encode()


def run(tmp: Path, server: LocalHTTPServer, n: int, concurrency: int, label: str) -> float:
    db_path = tmp / f"{label}.db"
    doc = {
        "sources": [
            {
                "key": f"s{i}",
                "title": f"Page {i}",
                "kind": "report",
                "url": server.url(f"/p{i}.html"),
            }
            for i in range(n)
        ],
        "claims": [
            {
                "key": f"c{i}",
                "subject": f"System {i}",
                "statement": f"System {i} used {1024 + i:,} GPUs.",
                "tag": "agent-reported",
                "basis": "benchmark",
                "figures": [f"{1024 + i:,} GPUs"],
                "evidence": [
                    {"source": f"s{i}", "quote": f"System {i} was trained on {1024 + i:,} GPUs"}
                ],
            }
            for i in range(n)
        ],
    }
    data = tmp / "data.json"
    data.write_text(json.dumps(doc), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["import", str(data), "--db", str(db_path)]).exit_code == 0
    start = time.perf_counter()
    result = runner.invoke(
        app,
        [
            "verify",
            "--all",
            "--allow-local",
            "--concurrency",
            str(concurrency),
            "--db",
            str(db_path),
            "--sources-dir",
            str(tmp / f"{label}-snapshots"),
            "--format",
            "json",
        ],
    )
    elapsed = time.perf_counter() - start
    counts = json.loads(result.stdout)["counts"]
    print(f"{label:<14} concurrency {concurrency:>2}: {elapsed:6.2f} s for {n} sources  {counts}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=200)
    parser.add_argument(
        "--latency", type=float, default=0.1, help="seconds the server waits per response"
    )
    args = parser.parse_args()
    with LocalHTTPServer() as server, tempfile.TemporaryDirectory() as tmp_dir:
        for i in range(args.sources):
            server.add(f"/p{i}.html", page(i), delay_s=args.latency)
        tmp = Path(tmp_dir)
        print(
            f"{args.sources} sources on {server.url('/')}, {args.latency * 1000:.0f} ms server latency each"
        )
        serial = run(tmp, server, args.sources, 1, "one at a time")
        concurrent = run(tmp, server, args.sources, 8, "concurrent")
        print(f"speed-up: {serial / concurrent:.1f}x")


if __name__ == "__main__":
    main()
