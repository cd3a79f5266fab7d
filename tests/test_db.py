"""Schema and migrations: Alembic for real on blank databases (SQLite files, or PostgreSQL databases under
CLAIMS_TEST_ENGINE=postgresql)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event, inspect, text
from sqlmodel import SQLModel

from claimsdb import db, models  # noqa: F401
from claimsdb.errors import DatabaseProblem
from tests.conftest import REFUSED, REPO, run_sql, sqlite_only


def rows(store: str, sql: str) -> list[tuple]:
    """A query's rows, read the way any client would (not through claimsdb's checks)."""
    engine = db.make_engine(db.resolve_url(store))
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.exec_driver_sql(sql)]
    finally:
        engine.dispose()


def test_upgrade_on_blank_database_creates_every_table_and_seeds_tags(store):
    url = db.resolve_url(store)
    db.upgrade(url)
    from sqlalchemy import inspect

    engine = db.make_engine(url)
    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
    engine.dispose()
    assert {"tag", "source", "claim", "evidence", "figure", "event", "alembic_version"} <= tables
    assert dict(rows(store, "SELECT name, trust FROM tag")) == {
        "spot-checked": "verified",
        "note-2026-09-21": "secondary",
        "prior-note": "secondary",
        "agent-reported": "unverified",
    }
    assert db.current_revision(db.make_engine(url)) == db.HEAD_REVISION


def test_autogenerate_finds_no_drift_between_models_and_migrations(store):
    url = db.resolve_url(store)
    db.upgrade(url)
    engine = db.make_engine(url)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(context, SQLModel.metadata)
    assert diff == []


def test_head_revision_constant_matches_the_migration_scripts():
    config = Config()
    config.set_main_option("script_location", str(db.migrations_dir()))
    assert ScriptDirectory.from_config(config).get_current_head() == db.HEAD_REVISION


def test_open_engine_creates_and_migrates_on_first_use(tmp_path):
    path = tmp_path / "nested" / "dir" / "claims.db"
    engine = db.open_engine(str(path))
    assert path.exists()
    assert db.current_revision(engine) == db.HEAD_REVISION


@sqlite_only("database files that are missing or another program's")
def test_open_engine_without_create_refuses_a_missing_or_blank_database_and_makes_nothing(tmp_path):
    path = tmp_path / "typo" / "claims.db"
    with pytest.raises(
        DatabaseProblem, match=f"no claims database at {path}; `claims import` creates one"
    ):
        db.open_engine(str(path), create=False)
    assert not (tmp_path / "typo").exists()
    blank = tmp_path / "blank.db"
    sqlite3.connect(blank).execute("CREATE TABLE other (x)")
    with pytest.raises(DatabaseProblem, match="holds no claims schema"):
        db.open_engine(str(blank), create=False)


def test_a_new_store_is_put_in_place_only_when_its_command_succeeds(tmp_path):
    from claimsdb import store

    path = tmp_path / "new" / "claims.db"
    with db.session_of(str(path), create=True) as session:
        store.import_files(session, [str(REPO / "data" / "rl_loop.json")])
        assert not path.exists()  # built beside its place, under another name
    assert path.exists() and [p.name for p in path.parent.iterdir()] == ["claims.db"]
    with db.session_scope(db.open_engine(str(path), create=False)) as session:
        assert session.execute(text("SELECT count(*) FROM claim")).scalar_one() > 0


def test_a_new_store_another_command_made_meanwhile_is_never_replaced(tmp_path):
    from claimsdb import store

    path = tmp_path / "claims.db"
    with pytest.raises(DatabaseProblem, match="created by another command while this one ran"):
        with db.session_of(str(path), create=True) as session:
            store.import_files(session, [str(REPO / "data" / "rl_loop.json")])
            with db.session_of(str(path), create=True) as other:  # the other command, done first
                store.import_files(other, [str(REPO / "data" / "pipelines.json")])
    with db.session_scope(db.open_engine(str(path), create=False)) as session:
        keys = set(session.execute(text("SELECT key FROM claim")).scalars())
    assert any(k.startswith("pipelines.") for k in keys) and not any(
        k.startswith("rl.") for k in keys
    )
    assert [p.name for p in tmp_path.iterdir()] == ["claims.db"]  # the loser's file is gone


def test_open_engine_refuses_a_database_at_another_revision(store):
    db.upgrade(db.resolve_url(store))
    run_sql(store, "UPDATE alembic_version SET version_num = '0001'")
    with pytest.raises(DatabaseProblem, match="claims db upgrade"):
        db.open_engine(store)


@pytest.mark.parametrize("call", [db.open_engine, lambda path: db.upgrade(db.resolve_url(path))])
def test_a_database_at_a_revision_this_version_does_not_know_is_refused(store, call):
    db.upgrade(db.resolve_url(store))
    run_sql(store, "UPDATE alembic_version SET version_num = '0099_future'")
    with pytest.raises(
        DatabaseProblem, match=r"written by a newer claimsdb \(revision 0099_future\)"
    ):
        call(store)
    assert rows(store, "SELECT version_num FROM alembic_version") == [("0099_future",)]


def test_resolve_url_prefers_argument_then_environment_then_default(monkeypatch, tmp_path):
    monkeypatch.setenv("CLAIMS_DB", str(tmp_path / "env.db"))
    assert db.resolve_url(str(tmp_path / "arg.db")).endswith("arg.db")
    assert db.resolve_url(None).endswith("env.db")
    monkeypatch.delenv("CLAIMS_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert db.resolve_url(None) == f"sqlite:///{tmp_path / 'xdg' / 'claimsdb' / 'claims.db'}"
    assert (
        db.resolve_url("postgresql://u:p@h/claims") == "postgresql+psycopg://u:p@h/claims"
    )  # psycopg 3
    assert (
        db.resolve_url("postgresql+psycopg://u:p@h/claims") == "postgresql+psycopg://u:p@h/claims"
    )


def test_claim_foreign_key_to_tag_is_enforced(store):
    engine = db.open_engine(store)
    with engine.begin() as conn:
        with pytest.raises(Exception, match="(?i)foreign key"):
            conn.exec_driver_sql(
                "INSERT INTO claim (key, subject, statement, tag, basis, status, rank, created_at, updated_at) "
                "VALUES ('k', 's', 'st', 'no-such-tag', 'b', 'active', 'normal', 'now', 'now')"
            )


# What a read command must not load: the other commands' modules and the libraries only they use.
HEAVY = (
    "claimsdb.lint",
    "claimsdb.fetching",
    "claimsdb.locating",
    "claimsdb.verification",
    "claimsdb.paper_safe",
    "claimsdb.exporters",
    "claimsdb.web",
    "claimsdb.store",
    "claimsdb.importer.stream",
    "claimsdb.importer.plan",
    "claimsdb.importer.checks",
    "claimsdb.importer.known",
    "claimsdb.importer.read",
    "claimsdb.importer.write",
    "claimsdb.records",
    "claimsdb.records.types",
    "claimsdb.records.validation",
    "claimsdb.records.fields",
    "claimsdb.records.figures",
    "claimsdb.cli.export",
    "claimsdb.cli.lint",
    "claimsdb.cli.verify",
    "claimsdb.cli.serve",
    "claimsdb.cli.mcp",
    "claimsdb.mcp_server",
    "claimsdb.mcp_tools",
    "mcp",
    "mcp_types",
    "alembic",
    "httpx",
    "starlette",
    "jinja2",
    "pypdf",
    "uvicorn",
    "rich.progress",
    "rich.markdown",
    "pygments",
)


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["trace", "466"],
        ["show", "k"],
        ["tags"],
        ["sources"],
        ["history", "k"],
        ["values"],
        ["db", "current"],
        ["--help"],
        ["export", "--help"],
        ["lint", "--help"],
        ["mcp", "--help"],
    ],
)
@pytest.mark.slow
def test_read_commands_and_help_load_nothing_they_do_not_use(store, command):
    db.upgrade(db.resolve_url(store))  # an existing, current database
    helping = "--help" in command  # help reads the command's own (light) module, and only that
    argv = command if helping else command + ["--db", store]
    forbidden = tuple(h for h in HEAVY if not (helping and h.startswith("claimsdb.cli.")))
    if command == [
        "--help"
    ]:  # the command list comes from the docstrings: nothing is drawn with rich
        forbidden += ("rich", "claimsdb.models", "claimsdb.queries")
    code = (
        "import sys\n"
        "from claimsdb.cli.app import app\n"
        f"try:\n    app({argv!r})\n"
        "except SystemExit:\n    pass\n"
        f"print('LOADED', sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in {forbidden!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "LOADED []" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE event SET actor = 'mallory'",
        "DELETE FROM event",
        "UPDATE event SET tag_after = 'spot-checked'",
    ],
)
def test_event_history_refuses_raw_update_and_delete(engine, store, sql):
    before = rows(store, "SELECT * FROM event ORDER BY id")
    with pytest.raises(REFUSED, match="append-only"):
        run_sql(store, sql)  # a plain connection, as the sqlite3 shell or psql would open it
    assert rows(store, "SELECT * FROM event ORDER BY id") == before


def test_upgrade_from_the_first_revision_keeps_data(store):
    url = db.resolve_url(store)
    db.upgrade(url, "0001")
    run_sql(
        store,
        "INSERT INTO claim (key, subject, statement, tag, basis, status, created_at, updated_at) "
        "VALUES ('k', 's', 'st', 'agent-reported', 'b', 'active', 'now', 'now')",
    )
    db.upgrade(url)
    assert db.current_revision(db.make_engine(url)) == db.HEAD_REVISION
    assert rows(store, "SELECT key FROM claim") == [("k",)]


@pytest.mark.parametrize("extra", [-1, 0, 1, 2 * (db.MAX_PARAMETERS // 3) + 5])
def test_insert_rows_writes_every_row_across_statements(store, extra):
    """insert_rows packs rows into multi-row statements (db.MAX_PARAMETERS each) and a shorter last one."""
    from claimsdb.models import Tag

    count = db.MAX_PARAMETERS // 3 + extra  # a tag row has three columns
    url = db.resolve_url(store)
    db.upgrade(url)
    names = [f"bulk-{i:04d}" for i in range(count)]
    with db.session_scope(db.make_engine(url)) as session:
        db.insert_rows(
            session,
            Tag.__table__,
            [(n, "unverified", f"tag {n}") for n in names],
            ("name", "trust", "description"),
        )
        db.insert_rows(
            session, Tag.__table__, [{"name": "dict-row", "trust": "secondary", "description": "d"}]
        )
    got = [
        r
        for r in rows(store, "SELECT name, trust, description FROM tag ORDER BY name")
        if r[0].startswith("bulk-") or r[0] == "dict-row"
    ]
    assert got == [(n, "unverified", f"tag {n}") for n in names] + [("dict-row", "secondary", "d")]


def test_insert_rows_leaves_out_a_column_null_in_every_row_and_stores_the_same_rows(store):
    """A column NULL in every row is left out of the INSERT (fewer values to bind); one NULL in some rows
    only is not. Either way the rows read back exactly as given."""
    from claimsdb.models import Source

    url = db.resolve_url(store)
    db.upgrade(url)
    engine = db.make_engine(url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, sql, *_a: statements.append(sql))
    given = [
        (
            f"s{i}",
            f"Title {i}",
            "report",
            f"https://example.org/{i}" if i % 2 else None,
            None,
            "2026",
        )
        for i in range(db.MAX_PARAMETERS)
    ]
    try:
        with db.session_scope(engine) as session:
            db.insert_rows(
                session,
                Source.__table__,
                given,
                ("key", "title", "kind", "url", "publisher", "date"),
            )
    finally:
        engine.dispose()
    inserts = [s for s in statements if s.startswith("INSERT INTO source")]
    assert inserts and all("publisher" not in s and "url" in s for s in inserts)
    keys = {g[0] for g in given}
    got = [
        r
        for r in rows(
            store, "SELECT key, title, kind, url, publisher, date FROM source ORDER BY id"
        )
        if r[0] in keys
    ]
    assert got == given


def test_every_column_insert_rows_may_leave_out_has_no_default_in_the_migrated_schema(store):
    """insert_rows leaves a column out only where the models say the database then stores NULL; the
    migrations must agree (a default the models do not know would be stored instead of the NULL)."""
    url = db.resolve_url(store)
    db.upgrade(url)
    engine = db.make_engine(url)
    try:
        inspector = inspect(engine)
        checked = 0
        for table in SQLModel.metadata.sorted_tables:
            defaults = {c["name"]: c.get("default") for c in inspector.get_columns(table.name)}
            for column in table.columns:
                if db._defaults_to_null(column):
                    assert defaults[column.name] is None, (
                        f"{table.name}.{column.name} has a default in the database"
                    )
                    checked += 1
    finally:
        engine.dispose()
    assert checked >= 40  # the nullable columns of claim, figure, event, evidence, source, ...


def test_a_store_of_the_release_before_fraction_reach_upgrades_and_traces_a_fraction_by_its_value(
    store, claims, write_json, monkeypatch
):
    """Migration 0018: a stored "1/4" is in the trace index by its parts (1 and 4) at schema 0017; the
    upgrade adds its value (0.25), so `db check` passes and `claims trace 0.25` finds it; downgrading
    takes the value away again."""
    from alembic import command

    from tests.conftest import store_of_release

    quote = "Orchard-9 keeps 1/4 of its nodes idle."
    doc = {
        "sources": [{"key": "orchard-page", "title": "Orchard", "kind": "report"}],
        "claims": [
            {
                "key": "orchard.idle",
                "subject": "Orchard-9",
                "statement": quote,
                "tag": "agent-reported",
                "basis": "test",
                "figures": ["1/4", "3 racks"],
                "evidence": [{"source": "orchard-page", "quote": quote}],
            }
        ],
    }
    store_of_release(store, "0017", [write_json(doc, "orchard.json")], monkeypatch)
    reached = "SELECT position, lo, hi FROM figure_number ORDER BY position, lo"
    before = rows(store, reached)
    assert not [r for r in before if r[1] <= 0.25 <= r[2]]
    assert claims("db", "upgrade").exit_code == 0
    after = rows(store, reached)
    assert [r for r in after if r[1] <= 0.25 <= r[2]] and set(before) < set(after)
    checked = claims("db", "check")
    assert checked.exit_code == 0, checked.output
    traced = claims("trace", "0.25")
    assert traced.exit_code == 0 and "orchard.idle" in traced.output, traced.output
    command.downgrade(db._alembic_config(db.resolve_url(store)), "0017")
    assert rows(store, reached) == before
