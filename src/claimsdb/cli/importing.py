"""`claims import`: load data files into the store."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from claimsdb import db, store
from claimsdb.cli.options import DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import console, emit_json


def import_(
    files: Annotated[list[Path], typer.Argument(help="JSON (claimsdb/1 format) or CSV files.", show_default=False)],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan; write nothing.")] = False,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Import claims, sources and tags from data files, all or nothing.

    A bad record aborts the whole call (exit 2) and leaves the database as it was. Importing the same
    files again changes nothing; a changed record updates its claim and writes an event. A tag or
    status that a person set is kept, and the difference is reported as a conflict.

    Example: claims import data/pipelines.json data/rl_loop.json --dry-run
    """
    engine = db.open_engine(db_)
    with db.session_scope(engine) as session:
        plan = store.import_files(session, [str(f) for f in files], dry_run=dry_run)
        if dry_run:
            session.rollback()
    if fmt is OutputFormat.json:
        emit_json({**asdict(plan), "counts": plan.counts()})
        return
    counts = plan.counts()
    head = "dry run, nothing written: would import" if dry_run else "imported"
    console.print(
        f"{head} {', '.join(plan.files)}: {counts['added']} added, {counts['updated']} updated, "
        f"{counts['unchanged']} unchanged, {counts['conflicts']} conflicts; "
        f"{counts['sources_added']} sources added, {counts['sources_updated']} updated; "
        f"{counts['tags_added']} tags added"
    )
    if dry_run:
        for key in plan.added:
            console.print(Text(f"  add     {key}"))
        for key, fields in plan.updated.items():
            console.print(Text(f"  update  {key}: {', '.join(fields)}"))
    for c in plan.conflicts:
        console.print(
            Text(
                f"  conflict {c.key}: kept {c.field} {c.kept!r} ({c.why}); the file says {c.offered!r}",
                style="yellow",
            )
        )
