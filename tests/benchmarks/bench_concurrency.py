"""Benchmark: 8 processes × 100 re-reads into one store, on SQLite and (when $CLAIMS_TEST_POSTGRES names
a server, as `eval "$(.ci/postgres start)"` sets it) on PostgreSQL. Prints the time, the events that
landed and whether the history chain is intact; asserts nothing.

    .venv/bin/python tests/benchmarks/bench_concurrency.py [--workers 8] [--each 100]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from claimsdb import db, integrity, store  # noqa: E402
from claimsdb.models import Event  # noqa: E402
from tests.conftest import SAMPLE  # noqa: E402
from tests.rereaders import run  # noqa: E402

KEYS = [c["key"] for c in SAMPLE["claims"]]


def measure(url: str, workers: int, each: int, workdir: Path) -> None:
    data = workdir / "sample.json"
    data.write_text(json.dumps(SAMPLE), encoding="utf-8")
    engine = db.open_engine(url)
    with db.session_scope(engine) as session:
        store.import_files(session, [str(data)])
        before = session.execute(select(func.count()).select_from(Event)).scalar()
    elapsed, done = run(url, workers, each, KEYS, cwd=str(REPO))
    failed = [p.stderr.strip().splitlines()[-1] for p in done if p.returncode != 0]
    revision = db.current_revision(engine)
    with db.session_scope(engine) as session:
        after = session.execute(select(func.count()).select_from(Event)).scalar()
        checks = integrity.check_store(
            session,
            revision=revision,
            head_revision=db.HEAD_REVISION,
            expected_triggers=db.TRIGGERS[engine.dialect.name],
            installed_triggers=db.installed_triggers(session.connection()),
        )
    engine.dispose()
    name = engine.dialect.name
    print(
        f"{name:10} {workers} × {each} re-reads: {elapsed:6.2f} s, {(after - before) / elapsed:6.1f} events/s, "
        f"{after - before} of {workers * each} events landed, failures {len(failed)}, "
        f"history {'intact' if all(c.ok for c in checks) else 'BROKEN'}"
    )
    for line in failed[:3]:
        print("   ", line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--each", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure(str(Path(tmp) / "claims.db"), args.workers, args.each, Path(tmp))
        admin = os.environ.get("CLAIMS_TEST_POSTGRES")
        if not admin:
            print('postgresql skipped: set CLAIMS_TEST_POSTGRES (eval "$(.ci/postgres start)")')
            return
        name = f"claims_bench_{uuid.uuid4().hex[:8]}"
        server = create_engine(admin, isolation_level="AUTOCOMMIT")
        with server.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            measure(
                make_url(admin).set(database=name).render_as_string(hide_password=False),
                args.workers,
                args.each,
                Path(tmp),
            )
        finally:
            with server.connect() as conn:
                conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
