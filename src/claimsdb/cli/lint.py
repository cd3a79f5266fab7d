"""`claims lint`: check the figures typed into a manuscript against the store."""

from __future__ import annotations

from pathlib import Path

import typer

from claimsdb import db
from claimsdb.cli.options import (
    AnchorOption,
    DbOption,
    FormatOption,
    LintStrictOption,
    ManuscriptsArgument,
    NotesOption,
    OutputFormat,
)
from claimsdb.cli.output import Output, console, emit, err_console, progress
from claimsdb.errors import ExitCode

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "note": "dim", "skipped": "dim"}
FINDING_COLUMNS = ("file", "line", "col", "severity", "raw", "message", "claims", "tags", "verdict")


def lint(
    files: ManuscriptsArgument,
    strict: LintStrictOption = False,
    notes: NotesOption = False,
    anchors: AnchorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Find every figure in a manuscript and check it against the claims database.

    A figure is checked against the claims of the subjects named in its sentence, table row or column,
    or section heading, or else in an earlier sentence of its paragraph (a claim's aliases count as its
    subject's names). error: only claims that are not paper-safe state it; warning: it differs from
    the store (another value, a rounding) or matches a stale claim; note: it matches nothing
    (untracked), or lies within a stored range. A number without a unit below 10 is checked only where
    the words around it say what a claim measures. Citations, labels, references, URLs, years and
    dates, section and table numbers and display math are skipped, each counted with its reason. A
    figure by reference (\\claim{KEY}, {{< var KEY.fig >}}) is judged as its claim's: an unknown key
    or a claim that is not paper-safe is an error, whatever the TeX macros print, unless a comment
    line of the file says "claims: draft" (then a warning). The files a manuscript brings in
    (\\input, \\include, \\subfile, \\import; Quarto's include) are linted too, each once. The summary
    counts the figures checked, passed, errors, warnings, untracked and skipped; --notes lists the
    untracked and skipped ones. The history the store held is reported
    (its events and head); with --anchor FILE, or ./claims.anchor when it exists, lint first checks
    that the history still holds the anchored head (exit 1 if not). Exit 1 on any error.

    Example: claims lint paper.tex sections/*.md
    """
    report = _check(files, strict, anchors, db_)
    counts = report.counts()
    seen = report.history.to_json() if report.history else None
    history = (
        {"head": seen["head"], "length": seen["length"]} if seen else {"head": None, "length": 0}
    )
    shown = [f for f in report.findings if notes or f.severity != "note"]
    if notes:
        shown = sorted(shown + report.skipped, key=lambda f: (f.file, f.line, f.col))
    rows = [{**f.to_dict(), "claims": " ".join(f.claims), "tags": " ".join(f.tags)} for f in shown]
    emit(
        fmt,
        Output(
            {
                **counts,
                "history": history,
                "signatures_required": report.signatures_required,
                "findings": [f.to_dict() for f in shown],
            },
            FINDING_COLUMNS,
            rows,
            lambda: print_findings(shown, summary(counts, notes), history),
        ),
    )
    if fmt is OutputFormat.csv:  # the rows are the findings; the summary goes beside them
        err_console.print(summary(counts, notes), markup=False)
    if not report.signatures_required:
        from claimsdb.trust.people import UNSIGNED_NOTICE

        err_console.print(UNSIGNED_NOTICE, markup=False)
    if counts["errors"]:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _check(files: list[Path], strict: bool, anchors: list[Path] | None, db_: str | None):
    """The lint report of the files, once the history is found to hold every anchor (by default the
    paper repository's own ./claims.anchor, when there is one)."""
    from claimsdb import anchor
    from claimsdb import lint as linting
    from claimsdb.trust.rule import Policy

    if anchors is None:  # a paper repository's own anchor: the pre-commit hook checks it
        anchors = anchor.default_files()
    loaded = [(str(p), anchor.load(p)) for p in anchors or ()]
    with (
        db.session_of(db_) as session,
        anchor.Pending(session, loaded) as pending,  # the chain walked on another core meanwhile
        progress("linting", total=len(files)) as advance,
    ):
        report = linting.lint_files(
            session,
            [str(f) for f in files],
            Policy(strict=strict),
            on_file=lambda name, files: advance(item=name, total=files),
        )
        pending.ensure(session)
        return report


def print_findings(shown: list, summarized: str, history: dict) -> None:
    """The table format: each finding as file:line:col: severity: figure: message, then the summary and
    the history the store held."""
    from rich.text import Text

    for f in shown:
        line = Text(f"{f.file}:{f.line}:{f.col}: ")
        line.append(f.severity, style=SEVERITY_STYLE.get(f.severity, ""))
        line.append(f": {f.raw}: {f.message}")
        console.print(line)
    console.print(summarized, markup=False)
    console.print(
        f"store history: {history['length']} events, head {(history['head'] or 'none')[:16]}",
        markup=False,
        style="dim",
    )


def summary(counts: dict[str, int], notes: bool) -> str:
    """One line: figures checked, passed, errors, warnings, untracked, skipped."""
    hint = (
        ""
        if notes or not (counts["untracked"] or counts["skipped"])
        else " (list them with --notes)"
    )
    within = counts["notes"] - counts["untracked"]
    passed = f"{counts['passed']} passed" + (f" ({within} within a stored range)" if within else "")
    return (
        f"{counts['checked']} figure(s) checked: {passed}, {counts['errors']} error(s), "
        f"{counts['warnings']} warning(s), {counts['untracked']} untracked, {counts['skipped']} skipped{hint}"
    )
