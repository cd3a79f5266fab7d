"""`claims db`: where the database is and which schema revision it has."""

from __future__ import annotations

import typer

from claimsdb import db
from claimsdb.cli.options import DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import console, emit_json

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
