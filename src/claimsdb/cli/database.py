"""`claims db`: where the database is and which schema revision it has."""

from __future__ import annotations

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


@app.command("check")
def check(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """Verify the history: the schema revision, the triggers, every link of the event chain, and each
    claim's tag, status and content against its events. Exit 1 naming the first broken link.

    Example: claims db check
    """
    from claimsdb import history

    url = db.resolve_url(db_)
    engine = db.make_engine(url)
    revision = db.current_revision(engine)
    if revision is None:
        raise DatabaseProblem(f"no claims database at {db.describe_url(url)}")
    with db.session_scope(engine) as session:
        checks = history.check_store(
            session, revision=revision, head_revision=db.HEAD_REVISION,
            expected_triggers=db.TRIGGERS.get(engine.dialect.name, ()),
            installed_triggers=db.installed_triggers(session.connection()),
        )
    ok = all(c.ok for c in checks)
    if fmt is OutputFormat.json:
        emit_json({"database": db.describe_url(url), "ok": ok, "checks": [vars(c) for c in checks]})
    else:
        emit_table(f"{db.describe_url(url)}: {'intact' if ok else 'BROKEN'}", ("check", "result", "detail"),
                   [(c.name, "ok" if c.ok else "FAILED", c.detail) for c in checks])
    if not ok:
        raise BrokenHistory("; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok))
