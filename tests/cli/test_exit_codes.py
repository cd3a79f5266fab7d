"""Every exit code the exit-codes reference and `claims --help` name, each caused the way a user would cause it:
0 success, 1 findings, 2 the user's input or environment (nothing changed), 70 only for a bug."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from claimsdb.errors import EXIT_CODES_HELP
from tests.conftest import REPO, run_sql, sqlite_only


def test_0_success(claims, loaded):
    assert claims("tags").exit_code == 0


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "args, says",
    [
        (["trace", "999,999 widgets"], "no figure matches"),  # nothing states it
        (["export"], "export blocked"),  # the gate: gadget.fleet is agent-reported
        (["verify", "widget.pretrain", "--offline"], ""),  # no snapshot to confirm it against
    ],
)
@pytest.mark.slow
def test_1_findings(claims, args, says):
    result = claims(*args)
    assert result.exit_code == 1, result.output
    assert says in result.stderr


def test_1_lint_error(claims, loaded, tmp_path):
    paper = tmp_path / "paper.md"
    paper.write_text("Gadget runs 40–60K sandboxes at once.\n", encoding="utf-8")
    result = claims("lint", paper)
    assert result.exit_code == 1 and "error" in result.stdout


def test_1_broken_history(claims, loaded, store):
    run_sql(
        store,
        "DROP TRIGGER event_no_update"
        if "://" not in store
        else "DROP TRIGGER event_append_only ON event",
    )
    assert claims("db", "check").exit_code == 1


def test_2_a_read_command_never_creates_a_database(claims, tmp_path):
    typo = tmp_path / "typo" / "claims.db"
    for args in (
        ["list"],
        ["trace", "466"],
        ["show", "k"],
        ["export"],
        ["db", "check"],
        ["db", "current"],
        ["retag", "k", "prior-note", "--reason", "r"],
        ["verify", "--all"],
        ["sources"],
    ):
        result = claims(*args, db=typo)
        assert result.exit_code == 2, (args, result.output)
        assert (
            result.stderr.strip()
            == f"error: no claims database at {typo}; `claims import` creates one"
        ), args
    assert not (tmp_path / "typo").exists()


def test_2_a_writer_creates_it(claims, tmp_path):
    new = tmp_path / "new" / "claims.db"
    assert claims("sources", "add", "page", "--url", "https://example.org/p", db=new).exit_code == 0
    assert new.exists()


@pytest.mark.parametrize(
    "args, says",
    [
        (["import", "{dir}/missing.json"], "missing.json: no such file"),
        (["import", "{dir}/bad.json"], "bad.json"),
        (["import", "{dir}/deep.json"], "nested deeper than"),  # was a RecursionError, exit 70
        (["lint", "{dir}/missing.md"], "missing.md: cannot read"),
        (
            ["export", "--skip-unsafe", "-o", "/proc/nope/table.md"],
            "cannot use /proc/nope",
        ),  # unwritable
        (["list", "--db", "/proc/nope/claims.db"], "no claims database at /proc/nope/claims.db"),
        (
            ["import", "{dir}/bad.json", "--db", "/proc/nope/claims.db"],
            "cannot create the database /proc/nope/claims.db",
        ),
        (["list", "--db", "mysql://u@h/x"], "SQLite or PostgreSQL, not mysql"),
        (["list", "--format", "yaml"], "Invalid value for '--format'"),
        (["export", "--format", "bibtex", "--grid"], "--grid lays out a table"),
    ],
)
@pytest.mark.slow
def test_2_the_users_input_or_environment(claims, loaded, tmp_path, args, says):
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    argv = [a.format(dir=tmp_path) for a in args]
    result = claims(*argv, **({"db": None} if "--db" in argv else {}))  # else the loaded store
    assert result.exit_code == 2, result.output
    assert says in result.stderr and "Traceback" not in result.output


def test_2_a_missing_database_driver(claims, monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if claimsdb[postgres] were not installed
    result = claims("list", db="postgresql://u@127.0.0.1:1/x")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: PostgreSQL needs its driver (psycopg is not installed): pip install 'claimsdb[postgres]'"
    )


def test_2_a_database_error_raised_by_the_driver_itself(claims, loaded, store):
    # db check streams its reads through the driver (no SQLAlchemy around them): a table someone dropped
    # by hand is still the user's environment, exit 2 naming it, not a bug
    run_sql(store, "DROP TABLE evidence" + (" CASCADE" if "://" in store else ""))
    result = claims("db", "check")
    assert result.exit_code == 2, result.output
    assert "evidence" in result.stderr and result.stderr.startswith("error: database: ")


@sqlite_only(
    "SQLite's file lock; PostgreSQL writers wait for each other (tests/test_concurrency.py)"
)
def test_2_a_database_still_locked_after_the_retry_window(claims, loaded, db_path, monkeypatch):
    monkeypatch.setattr("claimsdb.db.BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another writer, mid-transaction
    try:
        result = claims("retag", "widget.pretrain", "prior-note", "--reason", "r", "--by", "Bo")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 2, result.output
    assert (
        "the database is locked by another claims (or sqlite3) writing to it; waited 0.2 s"
        in result.stderr
    )
    history = json.loads(claims("history", "widget.pretrain", "--format", "json").stdout)
    assert [e["kind"] for e in history["events"]] == ["imported", "reread"]  # nothing changed


def test_70_only_for_a_bug_and_still_no_traceback(claims, loaded, monkeypatch):
    def broken(session):
        raise RuntimeError("a bug")

    monkeypatch.setattr("claimsdb.queries.list_tags", broken)
    result = claims("tags")
    assert result.exit_code == 70
    assert result.stderr.strip() == "internal error: RuntimeError: a bug (please report this)"


def test_a_real_process_exits_with_the_code_and_prints_no_traceback(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "claimsdb.cli", "list", "--db", str(tmp_path / "none.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.startswith("error: no claims database at ") and "Traceback" not in out.stderr


def test_the_codes_are_documented_in_help_and_the_reference(claims):
    help_text = " ".join(claims("--help", db=None).stdout.split())
    assert EXIT_CODES_HELP in help_text
    page = (REPO / "docs" / "reference" / "exit-codes.md").read_text(encoding="utf-8")
    section = page.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in ("`0`", "`1`", "`2`", "`70`", "`141`"):
        assert code in section
