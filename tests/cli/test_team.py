"""A team database: the PostgreSQL driver as an extra, moving a store with `claims db copy`, and the
writer and reader roles of `claims db grant` checked against a real server."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.conftest import DATA_FILES
from tests.httpserver import LocalHTTPServer
from tests.pages import KIMI_TASKS

FORMATS = ("json", "csv", "markdown", "latex", "macros", "quarto", "prov")


def test_a_postgresql_url_without_its_driver_is_a_clear_error(tmp_path):
    code = (
        "import sys\n"
        "sys.modules['psycopg'] = None  # as if claimsdb[postgres] were not installed\n"
        "from claimsdb.cli.app import main\n"
        "sys.argv = ['claims', 'list', '--db', 'postgresql://u@127.0.0.1:1/x']\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == (
        "error: PostgreSQL needs its driver (psycopg is not installed): pip install 'claimsdb[postgres]'"
    )


def test_only_sqlite_and_postgresql(claims):
    result = claims("list", db="mysql://u@h/x")
    assert result.exit_code == 2 and "SQLite or PostgreSQL, not mysql" in result.stderr


def exports(claims, db) -> dict[str, str]:
    out = {}
    for fmt in FORMATS:
        result = claims("export", "--draft", "--format", fmt, db=db)
        assert result.exit_code == 0, result.output
        out[fmt] = result.stdout
    return out


@pytest.fixture
def busy_store(claims, store, tmp_path, monkeypatch):
    """The bundled data with a re-read, a retag, a withdrawal and a verification in its history."""
    monkeypatch.setenv(
        "SOURCE_DATE_EPOCH", "1764460800"
    )  # exports of the same store are the same bytes
    monkeypatch.setenv("CLAIMS_VERIFY_ALLOW_LOCAL", "1")  # the test server is on 127.0.0.1
    assert claims("import", *DATA_FILES).exit_code == 0
    with LocalHTTPServer() as server:
        url = server.add(
            "/llama3.html",
            b"<h3>3.3.4 Reliability</h3><p>Over 54 days there were 466 job interruptions; more "
            b"than 90% of the time went to effective training.</p>",
        )
        reread = claims(
            "reread",
            "pipelines.obs.llama3-failures",
            *("--source", url, "--locator", "§3.3.4", "--quote", "466 job interruptions"),
            *("--by", "Ada", "--yes"),
        )  # the page fetched now: the environment allows the test server's address
        assert reread.exit_code == 0, reread.output
        assert claims(
            "verify",
            "pipelines.obs.llama3-failures",
            "--source",
            "127-0-0-1-llama3",
            "--sources-dir",
            tmp_path / "snap",
        ).exit_code in (0, 1)
    assert (
        claims(
            "retag",
            "pipelines.llama3.pretrain",
            "agent-reported",
            "--reason",
            "check again",
            "--by",
            "Bo",
        ).exit_code
        == 0
    )
    assert (
        claims("withdraw", "rl.bench.weirdml", "--reason", "family dropped", "--by", "Bo").exit_code
        == 0
    )
    return store


@pytest.mark.slow
def test_copy_a_store_to_an_empty_sqlite_file_and_back(claims, busy_store, tmp_path):
    before = exports(claims, busy_store)
    copy = tmp_path / "copy.db"
    result = claims("db", "copy", "--to", copy, "--format", "json", db=busy_store)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["rows"]["claim"] == 180 and report["rows"]["verification"] == 1
    assert exports(claims, copy) == before
    again = tmp_path / "again.db"
    assert claims("db", "copy", "--to", again, db=copy).exit_code == 0
    assert exports(claims, again) == before
    assert claims("db", "check", db=again).exit_code == 0
    # history, evidence added by the re-read and the verification came along
    shown = json.loads(
        claims("show", "pipelines.obs.llama3-failures", "--format", "json", db=again).stdout
    )
    assert shown["sources"][-1]["added_by"] == "Ada" and shown["verifications"][0]["outcome"]


def test_copy_keeps_the_people_registry_the_definitions_and_the_anchor_that_holds_them(
    claims, store, keys, write_json, sample, tmp_path
):
    """The side chains come along with their ids (the seeded definitions are the target's own already),
    so an anchor taken before the copy still holds in it."""
    # defines note-2026-10-04 and the sources lab-notes and widget-report
    assert claims("import", write_json(sample)).exit_code == 0
    assert claims("people", "add", "Ada", "--key", f"{keys('ada')}.pub").exit_code == 0
    anchor = tmp_path / "before.anchor"
    assert claims("db", "anchor", "-o", anchor).exit_code == 0
    copy = tmp_path / "copy.db"
    result = claims("db", "copy", "--to", copy, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert rows["person"] == 1 and rows["definition"] == 7 and rows["anchor"] == 1
    checked = claims("db", "check", "--anchor", anchor, db=copy)
    assert checked.exit_code == 0, checked.output
    # the copy's sources agree with their definitions: its BibTeX prints their URLs
    bib = claims("export", "--format", "bibtex", db=copy)
    assert bib.exit_code == 0 and "https://example.org/widget" in bib.stdout
    listed = json.loads(claims("people", "list", "--format", "json", db=copy).stdout)
    assert [r["name"] for r in listed["rows"]] == ["Ada"]


def test_copy_refuses_a_target_that_holds_data(claims, busy_store, tmp_path):
    other = tmp_path / "other.db"
    assert claims("import", DATA_FILES[0], db=other).exit_code == 0
    result = claims("db", "copy", "--to", other, db=busy_store)
    assert result.exit_code == 2 and "copy into an empty store" in result.stderr
    assert claims("db", "copy", "--to", busy_store, db=busy_store).exit_code == 2


def test_copy_to_postgresql_and_back_keeps_every_export_byte_for_byte(
    claims, busy_store, pg_url, tmp_path, page
):
    before = exports(claims, busy_store)
    assert claims("db", "copy", "--to", pg_url, db=busy_store).exit_code == 0
    assert exports(claims, pg_url) == before
    assert claims("db", "check", db=pg_url).exit_code == 0
    # the sequences moved past the copied ids: new events still extend the chain
    assert (
        claims(
            "reread",
            "rl.fleet.kimi-k25-tasks",
            *KIMI_TASKS.flags(page),
            "--by",
            "Cy",
            "--yes",
            db=pg_url,
        ).exit_code
        == 0
    )
    back = tmp_path / "back.db"
    assert claims("db", "copy", "--to", back, db=pg_url).exit_code == 0
    assert claims("db", "check", db=back).exit_code == 0
    assert (
        json.loads(claims("show", "rl.fleet.kimi-k25-tasks", "--format", "json", db=back).stdout)[
            "tag"
        ]
        == "spot-checked"
    )


def analyzed_tables(url: str) -> set[str]:
    """The tables an ANALYZE command (not the autovacuum) has read, as the server's statistics say."""
    engine = create_engine(url)
    with engine.connect() as conn:
        names = set(
            conn.execute(
                text("SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL")
            ).scalars()
        )
    engine.dispose()
    return names


def test_a_bulk_write_refreshes_the_planner_statistics_on_postgresql(
    claims, pg_databases, monkeypatch
):
    small, large, copied = pg_databases(), pg_databases(), pg_databases()
    monkeypatch.setattr("claimsdb.db.STATISTICS_AFTER", 1_000)  # the bundled data has 180 claims
    assert claims("import", *DATA_FILES, db=small).exit_code == 0
    assert analyzed_tables(small) == set()  # a small import leaves it to the autovacuum
    monkeypatch.setattr("claimsdb.db.STATISTICS_AFTER", 100)
    assert claims("import", "--dry-run", *DATA_FILES, db=large).exit_code == 0
    assert analyzed_tables(large) == set()  # a dry run wrote nothing
    assert claims("import", *DATA_FILES, db=large).exit_code == 0
    assert {"claim", "figure", "figure_number", "event"} <= analyzed_tables(large)
    assert claims("db", "copy", "--to", copied, db=small).exit_code == 0
    assert {"claim", "figure", "figure_number", "event"} <= analyzed_tables(copied)


def analyze_count(url: str, table: str) -> int:
    engine = create_engine(url)
    with engine.connect() as conn:
        count = conn.execute(
            text("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = :t"), {"t": table}
        ).scalar_one()
    engine.dispose()
    return count


def test_a_large_import_refreshes_the_statistics_while_it_writes_on_postgresql(
    claims, pg_databases, monkeypatch
):
    """Within the import's transaction too, as the store doubles: else each batch's lookups by claim id are
    planned for the empty tables the planner last saw (a million-claim import slowed as it grew)."""
    url = pg_databases()
    monkeypatch.setattr(
        "claimsdb.db.STATISTICS_AFTER", 100
    )  # the bundled data: 180 claims, one batch
    assert claims("import", *DATA_FILES, db=url).exit_code == 0
    assert analyze_count(url, "evidence") == 2  # once inside the import, once after it committed


def as_role(url: str, role: str) -> str:
    return make_url(url).set(username=role, password=None).render_as_string(hide_password=False)


@pytest.fixture
def team_roles(claims, pg_url):
    """The bundled data on a fresh database, a writer and a reader granted by its owner: (writer, reader);
    the roles are dropped afterwards."""
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    suffix = make_url(pg_url).database[-12:]
    writer, reader = f"w_{suffix}", f"r_{suffix}"
    with admin.connect() as conn:
        conn.execute(text(f"CREATE ROLE {writer} LOGIN"))
        conn.execute(text(f"CREATE ROLE {reader} LOGIN"))
    try:
        assert claims("import", *DATA_FILES, db=pg_url).exit_code == 0
        assert claims("db", "grant", writer, "--as", "writer", db=pg_url).exit_code == 0
        assert claims("db", "grant", reader, "--as", "reader", db=pg_url).exit_code == 0
        yield writer, reader
    finally:
        with admin.connect() as conn:
            for role in (writer, reader):
                conn.execute(text(f"DROP OWNED BY {role}"))
                conn.execute(text(f"DROP ROLE {role}"))
        admin.dispose()


def test_writer_and_reader_roles_on_a_real_server(claims, pg_url, tmp_path, page, team_roles):
    writer, reader = team_roles
    as_writer, as_reader = as_role(pg_url, writer), as_role(pg_url, reader)
    # a writer records and imports...
    assert (
        claims(
            "reread",
            "rl.fleet.kimi-k25-tasks",
            *KIMI_TASKS.flags(page),
            "--by",
            "W",
            "--yes",
            db=as_writer,
        ).exit_code
        == 0
    )
    assert claims("import", *DATA_FILES, db=as_writer).exit_code == 0
    assert (
        claims("db", "anchor", "-o", str(tmp_path / "claims.anchor"), db=as_writer).exit_code == 0
    )
    # ...but cannot rewrite history or the anchors taken of it, nor switch off its guard
    engine = create_engine(as_writer)
    for sql in (
        "UPDATE event SET actor = 'x'",
        "DELETE FROM event",
        "UPDATE tag SET trust = 'verified'",
        "DELETE FROM claim",
        "ALTER TABLE event DISABLE TRIGGER ALL",
        "DROP TRIGGER event_append_only ON event",
        "UPDATE anchor SET head = 'x'",
        "DELETE FROM anchor",
        "TRUNCATE anchor",
        "ALTER TABLE anchor DISABLE TRIGGER ALL",
    ):
        with (
            engine.connect() as conn,
            pytest.raises(Exception, match="permission denied|must be owner"),
        ):
            conn.execute(text(sql))
    # ...nor plant an anchor the chain never held, which would fail `db check` for good
    with engine.begin() as conn, pytest.raises(Exception, match="an anchor records the chain"):
        conn.execute(
            text(
                "INSERT INTO anchor (at, actor, event_id, length, head) "
                "VALUES ('2026-12-04', 'w', 1, 1, :head)"
            ),
            {"head": "0" * 64},
        )
    engine.dispose()
    # a reader reads and nothing else
    assert claims("list", db=as_reader).exit_code == 0
    refused = claims(
        "retag",
        "rl.fleet.kimi-k25-tasks",
        "agent-reported",
        "--reason",
        "x",
        "--by",
        "R",
        db=as_reader,
    )
    assert refused.exit_code == 2 and "permission denied" in refused.stderr
    assert (
        claims("db", "check", "--anchor", str(tmp_path / "claims.anchor"), db=pg_url).exit_code == 0
    )


def test_grant_is_postgresql_only(claims, db_path):
    assert (
        claims("db", "upgrade", db=db_path).exit_code == 0
    )  # a SQLite store, on either engine's run
    result = claims("db", "grant", "alice", "--as", "writer", db=db_path)
    assert result.exit_code == 2 and "roles are PostgreSQL's" in result.stderr


def test_grant_names_an_unknown_access_by_its_flag(pg_url, claims):
    """roles.grant refuses the access as a field ("access"); the command line names it --as."""
    assert claims("db", "upgrade", db=pg_url).exit_code == 0
    result = claims("db", "grant", "alice", "--as", "owner", db=pg_url)
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --as must be one of: writer, reader"


def table_rights(url: str, role: str) -> set[tuple[str, str]]:
    """The rights granted to `role` itself on the store's tables: (table, privilege)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT c.relname, a.privilege_type FROM pg_class c "
                    "CROSS JOIN LATERAL aclexplode(c.relacl) a "
                    "WHERE c.relnamespace = 'public'::regnamespace AND a.grantee = CAST(:r AS regrole)"
                ),
                {"r": role},
            )
            return {tuple(r) for r in rows}
    finally:
        engine.dispose()


def test_grant_by_a_non_owner_is_refused_and_changes_nothing(claims, pg_url, team_roles):
    """PostgreSQL answers a GRANT or REVOKE by someone who does not own the tables with a warning, not an
    error: the command must see that nothing was granted and say so, exit 2."""
    writer, reader = team_roles
    rights = {r: table_rights(pg_url, r) for r in (writer, reader)}
    owner = make_url(pg_url).username
    for role, access in ((reader, "writer"), (writer, "reader")):
        result = claims("db", "grant", role, "--as", access, db=as_role(pg_url, writer))
        assert result.exit_code == 2, result.output
        assert (
            f"error: {writer} cannot grant: PostgreSQL granted and revoked nothing" in result.stderr
            and f"run it as the tables' owner ({owner})" in result.stderr
        ), result.stderr
        assert "is now a" not in result.stdout
    assert {r: table_rights(pg_url, r) for r in (writer, reader)} == rights
    assert ("claim", "INSERT") in rights[writer] and ("claim", "INSERT") not in rights[reader]
