"""Writers at once, on SQLite and on PostgreSQL: no re-read lost, no lock error, one unbroken chain."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from claimsdb import db
from claimsdb.models import Event
from tests.conftest import REPO
from tests.rereaders import run

KEYS = ["widget.pretrain", "widget.context", "gadget.fleet"]
WORKERS, EACH = 4, 8


def events(url: str) -> int:
    with db.session_scope(db.open_engine(url)) as session:
        return session.execute(select(func.count()).select_from(Event)).scalar()


@pytest.mark.slow
@pytest.mark.parametrize("engine_name", ["sqlite", "postgresql"])
def test_concurrent_rereads_all_land_on_one_chain(
    engine_name, request, claims, write_json, sample, db_path
):
    url = str(db_path) if engine_name == "sqlite" else request.getfixturevalue("pg_url")
    assert claims("import", write_json(sample), db=url).exit_code == 0
    before = events(url)
    _, done = run(url, WORKERS, EACH, KEYS, cwd=str(REPO))
    for p in done:
        assert p.returncode == 0 and p.stdout.strip() == str(EACH), p.stderr
        assert "locked" not in p.stderr and "serializ" not in p.stderr
    assert events(url) == before + WORKERS * EACH
    assert claims("db", "check", db=url).exit_code == 0
