"""The one way to reach the database: URL resolution, the engine, sessions, the schema check.

Read commands check the schema revision with a plain query; Alembic is imported only to upgrade.
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, count, repeat
from operator import is_, itemgetter
from pathlib import Path

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlmodel import Session, create_engine

from claimsdb.errors import DatabaseProblem

# The newest migration in migrations/versions. A test checks it against Alembic's own head.
HEAD_REVISION = "0018"

# The triggers that keep the history append-only and the claims in step with it (migrations 0002–0016);
# `claims db check` reports any that is missing.
TRIGGERS = {
    "sqlite": (
        "event_no_update",
        "event_no_delete",
        "event_insert_guard",
        "snapshot_no_update",
        "snapshot_no_delete",
        "snapshot_insert_guard",
        "verification_no_update",
        "verification_no_delete",
        "verification_insert_guard",
        "claim_insert_guard",
        "claim_no_delete",
        "claim_key_fixed",
        "claim_tag_follows_history",
        "claim_status_follows_history",
        "claim_rank_follows_history",
        "tag_insert_guard",
        "tag_no_delete",
        "tag_trust_fixed",
        "anchor_no_update",
        "anchor_no_delete",
        "anchor_holds",
        "person_no_update",
        "person_no_delete",
        "definition_no_update",
        "definition_no_delete",
    ),
    "postgresql": (
        "event_append_only",
        "event_extends_chain",
        "snapshot_append_only",
        "verification_append_only",
        "claim_insert_guard",
        "claim_follows_history",
        "tag_trust_fixed",
        "anchor_append_only",
        "anchor_no_truncate",
        "anchor_holds",
        "person_append_only",
        "person_no_truncate",
        "definition_append_only",
        "definition_no_truncate",
    ),
}

ENV_VAR = "CLAIMS_DB"
# How long a writer waits for another writer's lock before giving up, in seconds.
BUSY_TIMEOUT_S = 30


def default_path() -> Path:
    """The embedded default: <XDG data home>/claimsdb/claims.db."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "claimsdb" / "claims.db"


def resolve_url(db: str | None = None) -> str:
    """--db, else $CLAIMS_DB, else the embedded default. A plain path means a SQLite file."""
    db = db or os.environ.get(ENV_VAR) or str(default_path())
    if "://" in db:
        try:
            url = make_url(db)
        except ArgumentError as exc:
            raise DatabaseProblem(f"not a database URL: {db!r} ({exc})") from None
        backend = url.get_backend_name()
        if backend not in ("sqlite", "postgresql"):
            raise DatabaseProblem(
                f"claims stores its data in SQLite or PostgreSQL, not {backend} ({describe_url(db)})"
            )
        if url.drivername in ("postgresql", "postgres"):
            db = url.set(drivername="postgresql+psycopg").render_as_string(
                hide_password=False
            )  # psycopg 3
        return db
    return f"sqlite:///{Path(db).expanduser().resolve()}"


def sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    # REPLACE then fires DELETE triggers too (the insert-guard triggers refuse it on any connection, in
    # any client: without this setting SQLite's REPLACE deletes the old row without a DELETE trigger).
    cursor.execute("PRAGMA recursive_triggers = ON")
    # 64 MB of page cache: an import touches the claim and figure indexes all over (the default is 2 MB)
    cursor.execute("PRAGMA cache_size = -65536")
    cursor.close()


def _sqlite_begin(conn) -> None:
    # Take the write lock at the start of every transaction: two writers then queue on the
    # busy timeout instead of failing with "database is locked" on lock upgrade.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


# Every engine this process made and still holds: the `claims` script closes their connections on exit.
_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()


def make_engine(url: str) -> Engine:
    """The engine for a URL. It creates nothing: a SQLite file is made by the first write."""
    try:
        engine = create_engine(url)
    except ModuleNotFoundError as exc:
        if make_url(url).get_backend_name() == "postgresql":
            raise DatabaseProblem(
                f"PostgreSQL needs its driver ({exc.name} is not installed): pip install 'claimsdb[postgres]'"
            ) from None
        raise DatabaseProblem(f"the database driver {exc.name} is not installed") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        # Let SQLAlchemy, not pysqlite, decide where transactions begin.
        event.listen(engine, "connect", lambda c, _r: setattr(c, "isolation_level", None))
        event.listen(engine, "begin", _sqlite_begin)
    _ENGINES.add(engine)
    return engine


def dispose_engines() -> None:
    """Close every pooled connection of this process's engines (a server sees each session end)."""
    for engine in list(_ENGINES):
        engine.dispose()


def files_folder(url: str) -> Path:
    """Where the files that belong to a database live (snapshots of its sources): the folder holding the
    SQLite file; for a server database, the user's claimsdb data folder (where the embedded default is)."""
    path = sqlite_file(url)
    return path.parent if path is not None else default_path().parent


def describe_database_error(exc: Exception) -> str:
    """A database error as the user can act on it (the CLI adds exit 2)."""
    reason = str(getattr(exc, "orig", None) or exc)
    if "database is locked" in reason or "database table is locked" in reason:
        return (
            f"the database is locked by another claims (or sqlite3) writing to it; waited "
            f"{BUSY_TIMEOUT_S:g} s for it to finish: try again when it has"
        )
    return f"database: {reason}"


def describe_url(url: str) -> str:
    """The database as a person would name it: the file path, or the URL without its password."""
    path = sqlite_file(url)
    return str(path) if path is not None else make_url(url).render_as_string(hide_password=True)


def current_revision(engine: Engine) -> str | None:
    """The schema revision recorded in the database, by a plain query; None on a blank database."""
    path = sqlite_file(str(engine.url))
    if path is not None and not path.exists():
        return None
    try:
        with engine.connect() as conn:
            has_table = conn.execute(
                text("SELECT 1 FROM sqlite_master WHERE type='table' AND name='alembic_version'")
                if engine.dialect.name == "sqlite"
                else text(
                    "SELECT 1 FROM information_schema.tables WHERE table_name='alembic_version'"
                )
            ).first()
            if not has_table:
                return None
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except OperationalError as exc:
        if "locked" in str(exc.orig):
            raise DatabaseProblem(describe_database_error(exc)) from None
        raise DatabaseProblem(
            f"cannot open the database {describe_url(str(engine.url))}: {exc.orig}"
        ) from None


def installed_triggers(connection) -> set[str]:
    if connection.dialect.name == "sqlite":
        rows = connection.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
    else:
        # a trigger switched off (ALTER TABLE ... DISABLE TRIGGER) counts as missing
        rows = connection.execute(
            text("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'D'")
        )
    return {r[0] for r in rows}


def migrations_dir() -> Path:
    here = Path(__file__).resolve().parent
    packaged = here / "_migrations"
    return packaged if packaged.is_dir() else here.parent.parent / "migrations"


def _alembic_config(url: str):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.attributes["claimsdb_url"] = url
    return config


def _refuse_unknown(revision: str | None, config) -> None:
    """A revision no migration here knows was written by a newer claimsdb: refuse it, never guess."""
    from alembic.script import ScriptDirectory

    if revision is None:
        return
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    if revision not in known:
        raise DatabaseProblem(
            f"this database was written by a newer claimsdb (revision {revision}); this claimsdb knows "
            f"revisions up to {HEAD_REVISION}: install the newer claimsdb to use it"
        )


def upgrade(url: str, revision: str = "head") -> None:
    """Apply Alembic migrations up to `revision`. The only place that imports Alembic."""
    from alembic import command

    config = _alembic_config(url)
    _refuse_unknown(current_revision(make_engine(url)), config)
    _make_folder(url)
    command.upgrade(config, revision)


def open_engine(db: str | None = None, *, create: bool = True) -> Engine:
    """The engine for --db / $CLAIMS_DB / the default, created and migrated on first use when `create`.

    Without `create` (every command that only reads, or changes what is already there) a missing
    database is an error, never an empty one made on the spot. A database at another revision is not
    migrated behind the user's back: `claims db upgrade` does that.
    """
    url = resolve_url(db)
    engine = make_engine(url)
    revision = current_revision(engine)
    if revision is None:
        if not create:
            raise DatabaseProblem(missing_database(url))
        _make_folder(url)
        upgrade(url)
    elif revision != HEAD_REVISION:
        _refuse_unknown(revision, _alembic_config(url))  # only on this error path: reads stay light
        raise DatabaseProblem(
            f"the database is at schema revision {revision}, this claims needs {HEAD_REVISION}: "
            "run `claims db upgrade`"
        )
    return engine


def missing_database(url: str) -> str:
    path = sqlite_file(url)
    if path is not None and not path.exists():
        return f"no claims database at {path}; `claims import` creates one"
    return f"no claims database at {describe_url(url)} (it holds no claims schema); `claims import` creates one"


def _make_folder(url: str) -> None:
    path = sqlite_file(url)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseProblem(f"cannot create the database {path}: {exc.strerror or exc}") from None


# Bound parameters in one statement: SQLite's lowest limit (999 before 3.32); far below PostgreSQL's.
MAX_PARAMETERS = 999


def insert_rows(
    session: Session, table, rows: list[dict] | list[tuple], columns: Sequence[str] | None = None
) -> None:
    """INSERT many rows through the driver's executemany: the plain DB-API call, for the big inserts of
    an import, where building each row's SQL parameters through SQLAlchemy costs more than the insert.
    Rows are dicts (each with the first row's keys), or tuples in the order of `columns`.

    Each statement inserts as many rows as MAX_PARAMETERS allows (one multi-row VALUES, portable SQL):
    SQLite evaluates a table's CHECK (... IN (...)) constraints once per statement, not once per row,
    and every statement executed costs a round of the driver either way."""
    if not rows:
        return
    connection = session.connection()
    quote = connection.dialect.identifier_preparer.quote
    if columns is None:
        columns = list(rows[0])
        rows = _pick(rows, columns)
    columns, rows = _without_null_columns(table, columns, rows)
    mark = parameter_mark(connection)
    head = f"INSERT INTO {quote(table.name)} ({', '.join(quote(c) for c in columns)}) VALUES "
    one = f"({', '.join([mark] * len(columns))})"
    per = max(1, MAX_PARAMETERS // len(columns))
    whole = len(rows) - len(rows) % per
    if whole:
        connection.exec_driver_sql(
            head + ", ".join([one] * per),
            [tuple(chain.from_iterable(rows[i : i + per])) for i in range(0, whole, per)],
        )
    if whole < len(rows):
        connection.exec_driver_sql(
            head + ", ".join([one] * (len(rows) - whole)), tuple(chain.from_iterable(rows[whole:]))
        )


def shared_url(session: Session) -> str | None:
    """The database URL another process can open to read what this session reads; None when it cannot
    share it (an in-memory SQLite database)."""
    bind = session.get_bind()
    url = bind.url if isinstance(bind, Engine) else bind.engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return None
    if url.query.get("mode") == "memory":
        return None
    return url.render_as_string(hide_password=False)


def parameter_mark(connection) -> str:
    """How the connection's driver marks a bound parameter in SQL it is given as is: "?" or "%s"."""
    return "?" if connection.dialect.paramstyle == "qmark" else "%s"


_CURSORS = count()  # server-side cursors open at once need their own names


def stream_rows(
    session: Session, sql: str, params: Sequence = (), size: int = 5000
) -> Iterator[tuple]:
    """The rows of one query through the driver itself, as plain tuples, `size` at a time: a server-side
    cursor on PostgreSQL (a client-side one would hold every row), SQLite's own stepping elsewhere. Its
    SQL is given as is (quote reserved words; the driver's parameter mark: `parameter_mark`)."""
    connection = session.connection()
    raw = connection.connection.dbapi_connection
    cursor = (
        raw.cursor(name=f"claims_{next(_CURSORS)}")
        if connection.dialect.name == "postgresql"
        else raw.cursor()
    )
    try:
        cursor.execute(sql, tuple(params))
        while part := cursor.fetchmany(size):
            yield from part
    finally:
        cursor.close()


def _pick(rows: Sequence, keys: Sequence) -> list[tuple]:
    """Each row's values at `keys` (dict keys, or tuple positions), as tuples built in C."""
    if len(keys) == 1:
        return [(r[keys[0]],) for r in rows]
    return list(map(itemgetter(*keys), rows))


def _without_null_columns(
    table, columns: Sequence[str], rows: list[tuple]
) -> tuple[Sequence[str], list[tuple]]:
    """Leave out of the INSERT each column that is NULL in every row and would be NULL if left out
    (nullable, no default, not the key): the same rows are stored, with fewer values to bind. Binding
    is most of an insert's time in the driver, and a data set's figures and events leave many columns
    empty (7 of a figure's 15 on the benchmark's data)."""
    empty = [
        i
        for i, name in enumerate(columns)
        if _defaults_to_null(table.c[name])
        and all(map(is_, map(itemgetter(i), rows), repeat(None)))
    ]
    if not empty or len(empty) == len(columns):
        return columns, rows
    kept = [i for i in range(len(columns)) if i not in empty]
    return [columns[i] for i in kept], _pick(rows, kept)


def _defaults_to_null(column) -> bool:
    """Whether the database stores NULL in a column an INSERT leaves out (a test holds every table of
    the migrated schema to what the models declare here)."""
    return (
        column.nullable
        and not column.primary_key
        and column.server_default is None
        and column.default is None
    )


# Claims written by one command after which PostgreSQL's planner statistics are refreshed at once.
STATISTICS_AFTER = 10_000


def refresh_statistics(engine: Engine, claims_written: int) -> None:
    """After a bulk write (an import or copy of STATISTICS_AFTER claims or more), bring PostgreSQL's
    planner statistics up to date. Its autovacuum does so in its own time (a minute or more after a
    million claims); until then the planner guesses row counts for the trace index from a near-empty
    table and picks slow plans (trace p50 32 ms instead of 10 ms at 1M). SQLite keeps no statistics
    unless asked; its plans come from the indexes alone, so nothing is done there. Runs in its own
    transaction, after the write committed; a role that does not own a table gets a warning, not an error."""
    if engine.dialect.name != "postgresql" or claims_written < STATISTICS_AFTER:
        return
    with engine.begin() as connection:
        analyze(connection)


def analyze(connection: Connection) -> None:
    """ANALYZE the claims tables on PostgreSQL (nothing elsewhere). Inside a transaction it counts that
    transaction's own rows too: an import calls it as the store doubles, since the planner would otherwise
    plan each batch's lookups by claim id for the near-empty tables it last saw and scan them whole (a
    million-claim import slowing as it grows)."""
    if connection.dialect.name != "postgresql":
        return
    from claimsdb.models import SQLModel  # the claims tables, declared

    quote = connection.dialect.identifier_preparer.quote
    connection.exec_driver_sql(
        f"ANALYZE {', '.join(quote(t.name) for t in SQLModel.metadata.sorted_tables)}"
    )


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One transaction: committed when the block ends, rolled back entirely on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def session_of(db: str | None, *, create: bool = False, keep_new: bool = True) -> Iterator[Session]:
    """One transaction on the database --db names: an existing one, unless `create` (commands that add).

    A new SQLite file is built under a temporary name beside its place and linked into place only when the
    command succeeds (and `keep_new`: not for a dry run): a command that fails leaves no store behind, and
    no command ever removes a file another one may have opened. Should another command have created the
    file meanwhile, this one's work is dropped whole and the error says to run it again."""
    url = resolve_url(db)
    path = sqlite_file(url) if create else None
    if path is None or path.exists():
        with session_scope(open_engine(url, create=create)) as session:
            yield session
        return
    made_folder = not path.parent.exists()
    _make_folder(url)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")
    os.close(fd)  # an empty file: SQLite makes it a database
    building = Path(name)
    engine, placed = None, False
    try:
        engine = open_engine(
            make_url(url).set(database=str(building)).render_as_string(hide_password=False)
        )
        with session_scope(engine) as session:
            yield session
        engine.dispose()
        if keep_new:
            placed = _place(building, path)
    finally:
        if engine is not None:
            engine.dispose()
        for extra in ("", "-journal", "-wal", "-shm"):
            building.with_name(building.name + extra).unlink(missing_ok=True)
        if made_folder and not placed:
            try:
                path.parent.rmdir()  # only when empty: it was made for this file
            except OSError:
                pass


def _place(building: Path, path: Path) -> bool:
    """The finished new database, put at `path` unless a file is there by now (never replaced)."""
    try:
        os.link(building, path)
    except FileExistsError:
        raise DatabaseProblem(
            f"{path} was created by another command while this one ran; nothing was written "
            "to it: run this command again"
        ) from None
    except OSError:  # a file system without hard links
        if path.exists():
            raise DatabaseProblem(
                f"{path} was created by another command while this one ran; nothing was "
                "written to it: run this command again"
            ) from None
        os.rename(building, path)
    return True
