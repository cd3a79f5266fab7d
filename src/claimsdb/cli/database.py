"""`claims db`: where the database is and which schema revision it has."""

from __future__ import annotations

from typing import Annotated

import typer

from claimsdb import db
from claimsdb.errors import BrokenHistory, DatabaseProblem
from claimsdb.cli.options import DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import console, emit_json, emit_table

app = typer.Typer(help="The database: schema revision and upgrades.", no_args_is_help=True)


@app.command("upgrade")
def upgrade(db_: DbOption = None) -> None:
    """Create the database if needed and apply every pending migration.

    Example: claims db upgrade --db team.db
    """
    url = db.resolve_url(db_)
    before = db.current_revision(db.make_engine(url))
    db.upgrade(url)
    after = db.current_revision(db.make_engine(url))
    console.print(f"{db.describe_url(url)}: schema revision {before or 'none'} → {after}")


@app.command("current")
def current(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """Show the database's location and schema revision, read with a plain query.

    Example: claims db current
    """
    url = db.resolve_url(db_)
    revision = db.current_revision(db.make_engine(url))
    info = {"database": db.describe_url(url), "revision": revision, "head": db.HEAD_REVISION,
            "up_to_date": revision == db.HEAD_REVISION}
    if fmt is OutputFormat.json:
        emit_json(info)
    else:
        state = "up to date" if info["up_to_date"] else ("blank" if revision is None else "needs `claims db upgrade`")
        console.print(f"{info['database']}: schema revision {revision or 'none'} (head {db.HEAD_REVISION}, {state})")


def _check(engine) -> list:
    """What `claims db check` checks, on this engine's database."""
    from claimsdb import history

    with db.session_scope(engine) as session:
        return history.check_store(
            session, revision=db.current_revision(engine), head_revision=db.HEAD_REVISION,
            expected_triggers=db.TRIGGERS.get(engine.dialect.name, ()),
            installed_triggers=db.installed_triggers(session.connection()),
        )


@app.command("check")
def check(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """Verify the history: the schema revision, the triggers, every link of the event chain, and each
    claim's tag, status and content against its events. Exit 1 naming the first broken link.

    Example: claims db check
    """
    url = db.resolve_url(db_)
    engine = db.make_engine(url)
    revision = db.current_revision(engine)
    if revision is None:
        raise DatabaseProblem(f"no claims database at {db.describe_url(url)}")
    checks = _check(engine)
    ok = all(c.ok for c in checks)
    if fmt is OutputFormat.json:
        emit_json({"database": db.describe_url(url), "ok": ok, "checks": [vars(c) for c in checks]})
    else:
        emit_table(f"{db.describe_url(url)}: {'intact' if ok else 'BROKEN'}", ("check", "result", "detail"),
                   [(c.name, "ok" if c.ok else "FAILED", c.detail) for c in checks])
    if not ok:
        raise BrokenHistory("; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok))


@app.command("copy")
def copy(
    to: Annotated[str, typer.Option("--to", help="The empty target: a SQLite file path or a SQLAlchemy URL.", show_default=False)],
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Copy the whole store (claims, history, sources, evidence, snapshots' records, verifications) into
    an empty database, ids and history chain intact; then check the copy as `claims db check` does.

    Example: claims db copy --to postgresql+psycopg://claims@db.example.org/review
    """
    from claimsdb import transfer

    source = db.open_engine(db_)
    target_url = db.resolve_url(to)
    if target_url == db.resolve_url(db_):
        raise DatabaseProblem("--to names the database being copied")
    target = db.open_engine(target_url)
    report = transfer.copy_store(source, target)
    checks = _check(target)
    ok = all(c.ok for c in checks)
    if fmt is OutputFormat.json:
        emit_json({"from": db.describe_url(db.resolve_url(db_)), "to": db.describe_url(target_url), "rows": report.rows,
                   "history_head": report.head, "ok": ok, "checks": [vars(c) for c in checks]})
    else:
        counts = ", ".join(f"{n} {t}" for t, n in report.rows.items())
        console.print(f"copied to {db.describe_url(target_url)}: {counts}; history head {(report.head or 'none')[:16]}")
    if not ok:
        raise BrokenHistory("; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok))


@app.command("grant")
def grant(
    role: Annotated[str, typer.Argument(help="An existing PostgreSQL role (create it with its login first).")],
    access: Annotated[str, typer.Option("--as", help="writer (import, add, re-read; never rewrite history) or reader.", show_default=False)],
    db_: DbOption = None,
) -> None:
    """Give a PostgreSQL role the rights of a writer or a reader on the store (run as the owner).

    Writers insert everything and update only what imports rewrite; they cannot update or delete events,
    snapshots, verifications or tags, nor drop the triggers. Readers only read.

    Example: claims db grant alice --as writer --db postgresql+psycopg://owner@db.example.org/review
    """
    from claimsdb import roles

    with db.session_scope(db.open_engine(db_)) as session:
        roles.grant(session, role, access)
    console.print(f"{role} is now a {access} of {db.describe_url(db.resolve_url(db_))}")
