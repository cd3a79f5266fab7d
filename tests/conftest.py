"""Shared fixtures: the test's own database (a real SQLite file in tmp_path, or with
CLAIMS_TEST_ENGINE=postgresql a fresh database on a real PostgreSQL server), the real CLI through
CliRunner, data files the tests write."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

# Rich sizes tables from COLUMNS when output is not a terminal; wide enough to keep cells whole.
os.environ["COLUMNS"] = "200"

from sqlalchemy.exc import DBAPIError  # noqa: E402

from claimsdb.cli.app import app  # noqa: E402
from claimsdb.db import resolve_url, sqlite_file  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DATA_FILES = [REPO / "data" / "pipelines.json", REPO / "data" / "rl_loop.json"]


def importer_before_observations(patched: pytest.MonkeyPatch) -> None:
    """Today's importer as a release before schema 0017 ran it: no claim.observation column to write,
    none hashed in the stored record it recorded."""
    from claimsdb import history
    from claimsdb.importer import known, plan, write

    stored = history.stored_digest
    patched.setattr(history, "stored_digest", lambda *a: stored(*a[:5]))

    patched.setattr(
        write, "CLAIM_FIELDS", tuple(f for f in write.CLAIM_FIELDS if f != "observation")
    )
    fields = tuple(f for f in known.DATA_FIELDS if f != "observation")
    for module in (known, plan, write):
        patched.setattr(module, "DATA_FIELDS", fields)


def importer_before_alias_definitions(patched: pytest.MonkeyPatch) -> None:
    """Today's importer as a release before schema 0016 ran it: no claim's aliases defined or checked
    (nor, before 0017, an observation written)."""
    from claimsdb import definitions

    importer_before_observations(patched)
    patched.setattr(definitions, "define_aliases", lambda *a: None)
    patched.setattr(definitions, "ensure_aliases", lambda *a: None)
    patched.setattr(definitions, "aliases_disagreeing", lambda *a: {})


def importer_before_definitions(patched: pytest.MonkeyPatch) -> None:
    """Today's importer as a release before schema 0014 ran it, for a test that writes a store of that
    release: the tag table's trust levels read as they stand, no definition recorded (of a tag, a source
    or a quantity) and none checked."""
    from sqlmodel import select

    from claimsdb import definitions
    from claimsdb.models import Tag

    importer_before_alias_definitions(patched)
    patched.setattr(
        definitions, "trust_levels", lambda s: {t.name: t.trust for t in s.scalars(select(Tag))}
    )
    patched.setattr(definitions, "define_tag", lambda *a: None)
    patched.setattr(definitions, "define_sources", lambda *a: None)
    patched.setattr(definitions, "define_quantities", lambda *a: None)
    patched.setattr(definitions, "ensure_registered", lambda *a: None)
    patched.setattr(definitions, "outside_claims", lambda *a: {})


def importer_before_fraction_reach(patched: pytest.MonkeyPatch) -> None:
    """Today's importer as a release before schema 0018 ran it: a slash fraction ("1/4") in the trace
    index by its parts alone, not by its value too."""
    from claimsdb.figures import matching
    from claimsdb.importer import write

    def reach_before(q):
        fraction = matching.reach(matching._as_fraction(q)) if matching.fraction_value(q) else []
        return [r for r in matching.reach(q) if r not in fraction]

    patched.setattr(write, "_reach", reach_before)


def store_of_release(
    store: str, revision: str, files: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test's store as a release at schema `revision` (before 0018) left it: migrated that far, and
    `files` imported by today's importer as that release ran it (importer_before_definitions before
    0014, importer_before_alias_definitions before 0016, importer_before_observations before 0017;
    importer_before_fraction_reach in every case)."""
    from claimsdb import db
    from claimsdb import store as store_

    url = resolve_url(store)
    db.upgrade(url, revision)
    engine = db.make_engine(url)
    try:
        with monkeypatch.context() as patched, db.session_scope(engine) as session:
            if revision < "0014":
                importer_before_definitions(patched)
            elif revision < "0016":
                importer_before_alias_definitions(patched)
            elif revision < "0017":
                importer_before_observations(patched)
            importer_before_fraction_reach(patched)
            store_.import_files(session, [str(p) for p in files])
    finally:
        engine.dispose()


def bundled_file(tmp_path_factory, name: str) -> Path:
    """A SQLite store of the bundled data, imported through the real CLI, for a module's tests."""
    path = tmp_path_factory.mktemp(name) / "claims.db"
    result = CliRunner().invoke(app, ["import", "--db", str(path), *map(str, DATA_FILES)])
    assert result.exit_code == 0, result.output
    return path


def reread(
    source: str,
    *,
    locator: str = "§1",
    quote: str = "as stated",
    by: str = "Grace Hopper",
    at: str = "2026-10-02",
) -> dict:
    """The `reread` a data file's claim with a verified tag carries: who re-read which page, when, where, what."""
    return {"by": by, "at": at, "source": source, "locator": locator, "quote": quote}


# A small data set of the tests' own making, in the claimsdb/1 format.
SAMPLE = {
    "tags": [{"name": "note-2026-10-04", "trust": "secondary", "description": "A later note."}],
    "sources": [
        {"key": "lab-notes", "title": "Lab notes", "kind": "note", "date": "2026-10-01"},
        {
            "key": "widget-report",
            "title": "Widget technical report",
            "kind": "report",
            "url": "https://example.org/widget",
            "publisher": "Widget Lab",
            "date": "2026-05",
            "cite_key": "widget2026",
        },
    ],
    "claims": [
        {
            "key": "widget.pretrain",
            "subject": "Widget-7",
            "stage": "Pretrain",
            "statement": "Widget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens.",
            "tag": "spot-checked",
            "basis": "Re-read the report's compute section.",
            "section": "§1",
            "figures": ["3,072 H100", "21.5T tokens"],
            "evidence": [
                {"source": "widget-report", "locator": "§3.1", "quote": "3,072 H100 GPUs"}
            ],
            "reread": {
                "by": "Grace Hopper",
                "at": "2026-10-02",
                "source": "widget-report",
                "locator": "§3.1",
                "quote": "3,072 H100 GPUs",
            },
        },
        {
            "key": "widget.context",
            "subject": "Widget-7",
            "stage": "Midtrain",
            "statement": "Widget-7's context grew from 8K to 256K tokens.",
            "tag": "note-2026-10-04",
            "basis": "From the later note.",
            "figures": ["8K → 256K"],
            "evidence": [{"source": "lab-notes", "locator": "p. 2", "quote": "8K → 256K"}],
        },
        {
            "key": "gadget.fleet",
            "subject": "Gadget",
            "stage": "Agentic RL",
            "statement": "Gadget runs 40–60K sandboxes at once.",
            "tag": "agent-reported",
            "basis": "An agent's sweep; not re-read.",
            "figures": ["40–60K sandboxes"],
            "evidence": [{"source": "lab-notes", "locator": None, "quote": None}],
        },
    ],
}


# Who records in every test: a reader set through CLAIMS_READER, so no test depends on the machine's
# git user.name (or falls back on nobody); tests of the reader's settings unset it (`no_reader`).
TEST_READER = "Test Reader"


@pytest.fixture(autouse=True)
def reader_env(tmp_path_factory, monkeypatch) -> None:
    """The developer's git config and claimsdb settings stay out of every test (and its subprocesses)."""
    monkeypatch.setenv("CLAIMS_READER", TEST_READER)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "no-config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def no_reader(tmp_path: Path, monkeypatch) -> Path:
    """Nobody named anywhere: no CLAIMS_READER, an empty home and config folder, no git user.name (global,
    system, or of a repository around the working directory, which is this test's folder). Returns the
    home folder."""
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    monkeypatch.delenv("CLAIMS_READER", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.chdir(tmp_path)
    return home


@pytest.fixture
def page(tmp_path: Path):
    """Write a local copy of a page (Markdown) for a re-read to check its quote against:
    `page(*paragraphs, name=None) -> Path`, then `claims reread KEY --source S --locator L --quote Q
    --copy PATH` (the quote must be on it word for word, with the claim's figures in or around it)."""
    made = itertools.count()

    def write(*paragraphs: str, name: str | None = None) -> Path:
        path = tmp_path / "pages" / (name or f"page-{next(made)}.md")
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
        return path

    return write


@pytest.fixture
def sample() -> dict:
    return copy.deepcopy(SAMPLE)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the SQLite database file is (or would be): tests about the file itself use it."""
    return tmp_path / "claims.db"


# --- The engine under test -----------------------------------------------------------------------
# SQLite by default. CLAIMS_TEST_ENGINE=postgresql runs every test that uses `store` (and the fixtures
# built on it: `claims`, `engine`, `loaded`) against a fresh database on the server that
# $CLAIMS_TEST_POSTGRES names; a test that holds only on SQLite is marked `sqlite_only(why)`.

ENGINE_ENV = "CLAIMS_TEST_ENGINE"
ENGINES = ("sqlite", "postgresql")
ENGINE = os.environ.get(ENGINE_ENV, "sqlite")


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory) -> Path:
    """An empty SQLite database migrated to the head revision by Alembic, once per test process."""
    from claimsdb import db

    path = tmp_path_factory.mktemp("template") / "head.db"
    db.upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(autouse=True)
def migrate_from_template(request, monkeypatch, migrated_template) -> None:
    """On SQLite, a new database migrated to the head is a copy of `migrated_template`: the very file
    Alembic's migrations made, made once per test process instead of once per test (a fifth of a
    second each). Every other migration (to an earlier revision, of a database that holds a schema, on
    PostgreSQL) runs as it is; tests/test_db.py migrates new files for real."""
    if ENGINE != "sqlite" or request.node.path.name == "test_db.py":
        return
    from claimsdb import db

    upgrade = db.upgrade

    def from_template(url: str, revision: str = "head") -> None:
        path = sqlite_file(url)
        if revision != "head" or path is None or (path.exists() and path.stat().st_size):
            upgrade(url, revision)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(migrated_template, path)

    monkeypatch.setattr(db, "upgrade", from_template)


def pytest_configure(config):
    if ENGINE not in ENGINES:
        raise pytest.UsageError(f"{ENGINE_ENV}={ENGINE!r}: use one of {', '.join(ENGINES)}")
    if ENGINE == "postgresql" and not os.environ.get(POSTGRES_ENV):
        raise pytest.UsageError(
            f"{ENGINE_ENV}=postgresql needs a server: set {POSTGRES_ENV} "
            '(eval "$(.ci/postgres start)")'
        )


STORE_FIXTURES = {"store", "stores", "pg_url", "pg_databases", "pg_server"}


def pytest_collection_modifyitems(config, items):
    """Under CLAIMS_TEST_ENGINE=postgresql, run the tests that use a database; the rest (the figure
    parser, escaping, the HTTP fetcher...) do not depend on the engine and ran on the SQLite pass, and so
    do the tests marked `engine_free`: they use a store, but what they judge is drawn or refused before
    the engine matters (a page in Chromium, LaTeX compiled, a name refused before any write)."""
    if ENGINE == "sqlite":
        return
    keep = [
        item
        for item in items
        if STORE_FIXTURES & set(getattr(item, "fixturenames", ()))
        and item.get_closest_marker("engine_free") is None
    ]
    dropped = [item for item in items if item not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def sqlite_only(why: str):
    """Mark a test that holds only on SQLite, saying why; it skips under CLAIMS_TEST_ENGINE=postgresql."""
    return pytest.mark.skipif(ENGINE != "sqlite", reason=f"SQLite-specific: {why}")


@pytest.fixture
def store(db_path: Path, tmp_path: Path, request, monkeypatch) -> str:
    """The test's database, as --db takes it: the SQLite file db_path, or a fresh PostgreSQL database
    (whose snapshots then go to the user's data folder: the test's own)."""
    if ENGINE == "postgresql":
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
        return request.getfixturevalue("pg_databases")()
    return str(db_path)


def store_digest(url: str) -> str | None:
    """What a database holds, as one digest, to show that a refused command left it exactly as it was:
    the file's bytes on SQLite (None when there is no file); on PostgreSQL every table's rows in key
    order and the triggers with their state (sequences are left out: a rolled-back insert advances them)."""
    path = sqlite_file(resolve_url(url))
    if path is not None:
        return file_digest(path) if path.exists() else None
    from sqlalchemy import create_engine, inspect, text

    digest = hashlib.sha256()
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            for table in sorted(inspect(conn).get_table_names()):
                digest.update(f"\0table {table}\0".encode())
                for row in conn.execute(text(f'SELECT * FROM "{table}" ORDER BY 1')):
                    digest.update(repr(tuple(row)).encode())
            triggers = conn.execute(
                text(
                    "SELECT tgrelid::regclass::text, tgname, tgenabled FROM pg_trigger "
                    "WHERE NOT tgisinternal ORDER BY 1, 2"
                )
            )
            digest.update(repr([tuple(r) for r in triggers]).encode())
    finally:
        engine.dispose()
    return digest.hexdigest()


REFUSED = (
    sqlite3.DatabaseError,
    DBAPIError,
)  # what run_sql raises when the database refuses a statement


def run_sql(url: str, *statements, without_triggers: bool = False) -> None:
    """Run SQL on a test's database from outside claimsdb, as its shell would (sqlite3, psql), in one
    transaction. Each statement is a string, or (sql, params) with `?` placeholders. without_triggers:
    as someone who has dropped the append-only triggers (SQLite) or, as the tables' owner, switched them
    off (PostgreSQL)."""
    steps = [(s, ()) if isinstance(s, str) else (s[0], tuple(s[1])) for s in statements]
    path = sqlite_file(resolve_url(url))
    if path is not None:
        con = sqlite3.connect(path)
        try:
            if without_triggers:
                for (name,) in con.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'trigger'"
                ).fetchall():
                    con.execute(f'DROP TRIGGER "{name}"')
            for sql, params in steps:
                con.execute(sql, params)
            con.commit()
        finally:
            con.close()
        return
    from sqlalchemy import create_engine

    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            if (
                without_triggers
            ):  # as the owner may: switched off, which `claims db check` reports as missing
                for (table,) in conn.exec_driver_sql(
                    "SELECT DISTINCT tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal"
                ).fetchall():
                    conn.exec_driver_sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            for sql, params in steps:
                conn.exec_driver_sql(sql.replace("?", "%s"), params)
    finally:
        engine.dispose()


@pytest.fixture
def write_json(tmp_path: Path):
    def write(doc: dict, name: str = "claims.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        return path

    return write


@pytest.fixture
def claims(store: str, monkeypatch):
    """Run `claims ...` against the test's database; returns the click Result."""
    monkeypatch.delenv("CLAIMS_DB", raising=False)
    runner = CliRunner()

    def run(*args: str, db: Path | str | None = store, input: str | None = None):
        argv = [str(a) for a in args]
        if db is not None:
            argv += ["--db", str(db)]
        return runner.invoke(app, argv, catch_exceptions=False, input=input)

    return run


@pytest.fixture
def terminal(monkeypatch):
    """Standard input is a person's terminal (CliRunner's is not), so commands may ask."""
    monkeypatch.setattr("claimsdb.cli.output.stdin_is_terminal", lambda: True)


@pytest.fixture
def loaded(claims, write_json, sample):
    """A database holding SAMPLE."""
    result = claims("import", write_json(sample))
    assert result.exit_code == 0, result.output
    return sample


def show_json(claims, key: str) -> dict:
    """`claims show KEY --format json`, parsed (the run must succeed)."""
    result = claims("show", key, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def engine(store, write_json, sample):
    """A migrated database holding SAMPLE, loaded through the importer (tests may override it)."""
    from claimsdb import db
    from claimsdb import store as store_

    engine = db.open_engine(store, create=True)
    with db.session_scope(engine) as session:
        store_.import_files(session, [str(write_json(sample))])
    yield engine
    engine.dispose()


# --- PostgreSQL: a real server, when CLAIMS_TEST_POSTGRES names one (.ci/run starts one) -----------

POSTGRES_ENV = "CLAIMS_TEST_POSTGRES"


class PostgresServer:
    """The server named by $CLAIMS_TEST_POSTGRES (an admin URL, e.g.
    postgresql+psycopg://claims@127.0.0.1:55432/postgres): databases made and dropped for the tests."""

    def __init__(self, admin: str):
        from sqlalchemy import create_engine

        self.admin = admin
        self.engine = create_engine(admin, isolation_level="AUTOCOMMIT")
        # PostgreSQL 15's default copies a database block by block through the WAL; copying the files is
        # about twice as fast for the small databases of the tests (0.045 s against 0.081 s a copy here).
        with self.engine.connect() as conn:
            version = int(conn.exec_driver_sql("SHOW server_version_num").scalar())
        self.strategy = " STRATEGY FILE_COPY" if version >= 150000 else ""

    def create(self, template: str | None = None) -> str:
        """A new database, empty or a copy of `template` (a URL this server made); its URL."""
        import uuid

        from sqlalchemy import text
        from sqlalchemy.engine import make_url

        name = f"claims_test_{uuid.uuid4().hex[:12]}"
        with self.engine.connect() as conn:
            if template is None:
                conn.execute(text(f'CREATE DATABASE "{name}"{self.strategy}'))
            else:  # a copy needs the template to itself: close what the commands left open on it
                source = make_url(template).database
                conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :d AND pid <> pg_backend_pid()"
                    ),
                    {"d": source},
                )
                conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{source}"{self.strategy}'))
        return make_url(self.admin).set(database=name).render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        from sqlalchemy import text
        from sqlalchemy.engine import make_url

        with self.engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def pg_server():
    admin = os.environ.get(POSTGRES_ENV)
    if not admin:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/run starts one)")
    server = PostgresServer(admin)
    yield server
    server.engine.dispose()


@pytest.fixture
def pg_databases(pg_server):
    """Make fresh, empty databases on the test server; all are dropped afterwards."""
    made = []

    def make() -> str:
        made.append(pg_server.create())
        return made[-1]

    yield make
    for url in made:
        pg_server.drop(url)


@pytest.fixture
def pg_url(pg_databases):
    """A fresh, empty PostgreSQL database (another one than `store`'s, under CLAIMS_TEST_ENGINE=postgresql)."""
    return pg_databases()


class Stores:
    """Databases on the engine under test for tests that build one store and copy it for each test:
    SQLite files, or (CLAIMS_TEST_ENGINE=postgresql) databases on the server, copied as templates."""

    def __init__(self, server: PostgresServer | None):
        self.server = server

    def new(self, folder: Path) -> str:
        """An empty store (a SQLite file in `folder`, not yet created)."""
        return self.server.create() if self.server else str(folder / "claims.db")

    def copy(self, source: str, folder: Path) -> str:
        """A copy of a store, to change freely (a SQLite copy goes into `folder`)."""
        if self.server:
            return self.server.create(template=source)
        import shutil

        target = folder / "claims.db"
        shutil.copy(source, target)
        return str(target)

    def drop(self, url: str) -> None:
        """Remove a copy (a SQLite file goes with its temporary folder)."""
        if self.server:
            self.server.drop(url)


@pytest.fixture(scope="session")
def stores(request) -> Stores:
    return Stores(request.getfixturevalue("pg_server") if ENGINE == "postgresql" else None)


@pytest.fixture
def keys(tmp_path: Path):
    """`keys(name) -> Path` of a fresh ed25519 private key (its .pub beside it), made by ssh-keygen."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen (OpenSSH) is needed to make keys")

    def make(name: str, passphrase: str = "") -> Path:
        path = tmp_path / "keys" / name
        if path.exists():  # the same name is the same key
            return path
        path.parent.mkdir(exist_ok=True)
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", name, "-f", str(path)],
            check=True,
        )
        return path

    return make


# --- a real browser: Debian's Chromium driven by Playwright, one per worker (web and trust tests) ----

CHROMIUM = os.environ.get("CLAIMS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium installed ({CHROMIUM}): apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()
