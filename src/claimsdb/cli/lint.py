"""`claims lint`: check the figures typed into a manuscript against the store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from claimsdb import db, lint as linting
from claimsdb.cli.options import DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import console, emit_json
from claimsdb.errors import ExitCode
from claimsdb.policy import Policy

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "note": "dim"}


def lint(
    files: Annotated[list[Path], typer.Argument(help=".tex, .md, .qmd, .html or .txt manuscripts.", show_default=False)],
    strict: Annotated[bool, typer.Option("--strict", help="Only verified tags pass; stale claims are errors.")] = False,
    notes: Annotated[bool, typer.Option("--notes", help="List every untracked figure, not only their number.")] = False,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Find every figure in a manuscript and check it against the claims database.

    A figure is checked against the claims of the subjects named in its sentence, table row or column,
    or section heading. error: only claims that are not paper-safe state it; warning: it differs from
    the store (another value, a rounding) or matches a stale claim; note: it matches nothing
    (untracked; counted, and listed with --notes). The summary also counts the figures that passed.
    Math, citations, labels, references, URLs, years and dates, section and table numbers and \\claim{}
    uses are skipped. Exit 1 on any error.

    Example: claims lint paper.tex sections/*.md
    """
    with db.session_scope(db.open_engine(db_)) as session:
        report = linting.lint_files(session, [str(f) for f in files], Policy(strict=strict))
    counts = report.counts()
    shown = [f for f in report.findings if notes or f.severity != "note"]
    if fmt is OutputFormat.json:
        emit_json({**counts, "findings": [f.to_dict() for f in shown]})
    else:
        for f in shown:
            line = Text(f"{f.file}:{f.line}:{f.col}: ")
            line.append(f.severity, style=SEVERITY_STYLE.get(f.severity, ""))
            line.append(f": {f.raw}: {f.message}")
            console.print(line)
        hidden = "" if notes or not counts["notes"] else " (untracked figures: list them with --notes)"
        console.print(f"{counts['checked']} figure(s) checked: {counts['passed']} passed, {counts['errors']} error(s), "
                      f"{counts['warnings']} warning(s), {counts['notes']} note(s){hidden}")
    if counts["errors"]:
        raise typer.Exit(int(ExitCode.FINDINGS))
