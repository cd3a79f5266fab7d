"""`claims lint`: check the figures typed into a manuscript against the store."""

from __future__ import annotations

from dataclasses import asdict
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
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Find every figure in a manuscript and check it against the claims database.

    error: the figure matches only claims that are not paper-safe; warning: it matches a stale claim;
    note: it matches nothing (untracked). Math, citations, labels, references, URLs, years and dates,
    section and table numbers and \\claim{} uses are skipped. Exit 1 on any error.

    Example: claims lint paper.tex sections/*.md
    """
    with db.session_scope(db.open_engine(db_)) as session:
        findings = linting.lint_files(session, [str(f) for f in files], Policy(strict=strict))
    errors = sum(1 for f in findings if f.severity == "error")
    if fmt is OutputFormat.json:
        emit_json({"errors": errors, "findings": [asdict(f) for f in findings]})
    else:
        for f in findings:
            line = Text(f"{f.file}:{f.line}:{f.col}: ")
            line.append(f.severity, style=SEVERITY_STYLE.get(f.severity, ""))
            line.append(f": {f.raw}: {f.message}")
            console.print(line)
        counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "note")}
        console.print(f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['note']} note(s)")
    if errors:
        raise typer.Exit(int(ExitCode.FINDINGS))
