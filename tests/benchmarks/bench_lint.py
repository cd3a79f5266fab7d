"""Benchmark: `claims lint` of the DeepSeek-V3 technical report (160 KB of Markdown), in process.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_lint.py [--corpus ../shared/corpus] [--repeat 5]

The bundled data set is imported into a temporary database through the CLI; the store is read once and
the report linted `--repeat` times (the best and the median time are printed, with the counts).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from typer.testing import CliRunner  # noqa: E402

from claimsdb import db  # noqa: E402
from claimsdb.cli.app import app  # noqa: E402
from claimsdb.lint import build_store, lint_report  # noqa: E402
from claimsdb.trust.rule import Policy  # noqa: E402

REPORT = "deepseek_v3_tech_report_arxiv2412.19437.md"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = (args.corpus / REPORT).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "bench.db"
        result = CliRunner().invoke(
            app,
            [
                "import",
                str(ROOT / "data/pipelines.json"),
                str(ROOT / "data/rl_loop.json"),
                "--db",
                str(db_path),
            ],
        )
        assert result.exit_code == 0, result.output
        engine = db.open_engine(str(db_path))
        started = time.perf_counter()
        with db.session_scope(engine) as session:
            store = build_store(session, Policy())
        read_s = time.perf_counter() - started
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            report = lint_report(text, name=REPORT, kind="md", store=store)
            times.append(time.perf_counter() - started)
    counts = report.counts()
    print(
        f"lint of {REPORT}: {len(text):,} characters, store of {len(store):,} figures read in {read_s:.3f}s"
    )
    print(
        f"  best {min(times):.3f}s, median {statistics.median(times):.3f}s over {args.repeat} runs "
        f"({len(text) / min(times) / 1e3:,.0f} K characters/s)"
    )
    print(
        f"  {counts['checked']} figures checked: {counts['passed']} passed, {counts['errors']} errors, "
        f"{counts['warnings']} warnings, {counts['notes']} notes"
    )


if __name__ == "__main__":
    main()
