"""`claims db`: upgrade and current, and the environment variable."""

from __future__ import annotations

import json

from claimsdb.db import HEAD_REVISION, describe_url, resolve_url
from tests.conftest import run_sql, sqlite_only


def test_upgrade_then_current(claims, store):
    result = claims("db", "upgrade")
    assert result.exit_code == 0, result.output
    assert f"schema revision none → {HEAD_REVISION}" in result.stdout
    info = json.loads(claims("db", "current", "--format", "json").stdout)
    assert info == {
        "database": describe_url(resolve_url(store)),
        "revision": HEAD_REVISION,
        "head": HEAD_REVISION,
        "up_to_date": True,
    }
    assert "://" in store or info["database"] == store  # a SQLite store is named by its path


@sqlite_only("a database file that does not exist (a server's database always does)")
def test_current_on_a_missing_database_says_where_it_looked_and_does_not_create_it(claims, db_path):
    result = claims("db", "current")
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"error: no claims database at {db_path}; `claims import` creates one"
    )
    assert not db_path.exists()


def test_current_on_a_blank_database_says_it_is_blank(claims, store):
    run_sql(store, "CREATE TABLE other (x INTEGER)")
    result = claims("db", "current")
    assert result.exit_code == 0 and "revision none" in result.stdout and "blank" in result.stdout


@sqlite_only("the variable names a file, checked on disk")
def test_claims_db_environment_variable_is_used(claims, tmp_path, monkeypatch):
    target = tmp_path / "from-env.db"
    monkeypatch.setenv("CLAIMS_DB", str(target))
    assert claims("db", "upgrade", db=None).exit_code == 0
    assert target.exists()
    assert claims("tags", db=None).exit_code == 0


def test_a_database_that_cannot_be_opened_is_a_clean_error(claims, tmp_path):
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("this is not sqlite\n" * 100)
    result = claims("list", db=not_a_db)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "Traceback" not in result.output
