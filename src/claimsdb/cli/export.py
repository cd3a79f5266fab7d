"""`claims export`: paper-safe tables, behind the gate."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from claimsdb import db, export as exporting
from claimsdb.cli.options import (
    DbOption, SearchFilter, SourceFilter, StageFilter, StatusFilter, SubjectFilter, TagFilter, TrustFilter,
    claim_filter,
)
from claimsdb.cli.output import err_console
from claimsdb.errors import BadQuery, ExitCode
from claimsdb.exporters import render
from claimsdb.policy import Policy


class ExportFormat(str, Enum):
    markdown = "markdown"
    csv = "csv"
    json = "json"
    latex = "latex"
    bibtex = "bibtex"
    macros = "macros"
    quarto = "quarto"
    prov = "prov"


def reread_command(row: exporting.ExportRow, db_: str | None) -> str:
    """The exact command that clears a blocked claim."""
    parts = ["claims", "reread", row.key, "--source", row.reread_source or "PAGE"]
    if db_:
        parts += ["--db", db_]
    command = shlex.join(parts)
    if row.reread_source is None:
        command += "  (it cites no primary page yet: PAGE is the URL you re-read, or a key from `claims sources add`)"
    return command


def describe_blocked(rows: list[exporting.ExportRow], db_: str | None) -> list[str]:
    lines = []
    for r in rows:
        figure = ", ".join(r.figures) or "(no figure)"
        stale = "; STALE: the latest verification no longer finds it" if r.stale else ""
        outdated = f"; {r.outdated}" if r.outdated else ""
        lines.append(f"  {r.key}: {figure} ({r.subject}) tag {r.tag} ({r.trust}){outdated}{stale}")
        lines.append(f"    clear it: {reread_command(r, db_)}")
    return lines


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export(
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="markdown, csv, json, latex, bibtex, macros (\\claim{KEY} for LaTeX), quarto (variables) or prov (W3C PROV-JSON of the claims' histories).")] = ExportFormat.markdown,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file (default: standard output).")] = None,
    grid: Annotated[bool, typer.Option("--grid", help="Subjects by stages, like the note's stage table.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Only verified tags pass (default: verified and secondary).")] = False,
    skip_unsafe: Annotated[bool, typer.Option("--skip-unsafe", help="Export the paper-safe claims; list the rest on stderr.")] = False,
    draft: Annotated[bool, typer.Option("--draft", help="Include every claim; mark the unsafe ones; head the output as a draft.")] = False,
    tag: TagFilter = None,
    trust: TrustFilter = None,
    subject: SubjectFilter = None,
    stage: StageFilter = None,
    source: SourceFilter = None,
    search: SearchFilter = None,
    status: StatusFilter = None,
    db_: DbOption = None,
) -> None:
    """Export the selected claims for a paper, behind the paper-safe gate.

    If any selected claim is not paper-safe, nothing is written and the command exits 1, listing each
    blocked claim and the `claims reread` command that would clear it. --skip-unsafe exports the rest;
    --draft includes them, visibly marked. Withdrawn and superseded claims are never exported.

    Example: claims export --format latex --grid --subject OLMo -o table.tex
    """
    if skip_unsafe and draft:
        raise BadQuery("choose one of --skip-unsafe and --draft")
    mode = "draft" if draft else "skip-unsafe" if skip_unsafe else "gate"
    if fmt in (ExportFormat.macros, ExportFormat.prov) and mode == "gate":
        # macros: every figure, each unsafe one a LaTeX error unless the paper says \claimsdraft;
        # prov: every claim's history, each claim marked claims:paper_safe true or false.
        mode = "guarded"
    elif fmt is ExportFormat.quarto and mode == "gate":
        mode = "skip-unsafe"  # a missing variable is Quarto's error; unsafe ones only in drafts
    policy = Policy(strict=strict)
    filters = claim_filter(tag, trust, subject, stage, source, search, status)
    with db.session_scope(db.open_engine(db_)) as session:
        result = exporting.prepare(session, filters, policy=policy, mode=mode, layout="grid" if grid else "list")
        if fmt is ExportFormat.prov:
            from claimsdb import lineage

            prov_text = lineage.render(lineage.export_document(
                session, [r.key for r in result.rows], result.manifest, policy=policy))
    if result.refused:
        lines = [f"export blocked: {len(result.blocked)} selected claim(s) are not paper-safe "
                 f"under the {policy.describe()}; nothing was written."]
        lines += describe_blocked(result.blocked, db_)
        lines.append("Re-read them, or use --skip-unsafe to export the rest, or --draft to include them marked.")
        err_console.print("\n".join(lines), markup=False)
        raise typer.Exit(int(ExitCode.FINDINGS))
    text = prov_text if fmt is ExportFormat.prov else render(result, fmt.value)
    if output is not None:
        write_atomically(output, text)
        err_console.print(f"wrote {len(result.rows)} claim(s) to {output} ({result.manifest['policy']}, "
                          f"mode {mode}, sha256 {result.manifest['content_sha256'][:12]})", markup=False)
    else:
        sys.stdout.write(text)
    if mode == "guarded" and result.blocked and fmt is ExportFormat.macros:
        err_console.print(f"{len(result.blocked)} claim(s) are not paper-safe: \\claim{{}} of any of them stops the "
                          "LaTeX build unless the document says \\claimsdraft", markup=False)
    if mode == "skip-unsafe" and result.blocked:
        lines = [f"left out {len(result.blocked)} claim(s) that are not paper-safe ({policy.describe()}):"]
        lines += describe_blocked(result.blocked, db_)
        err_console.print("\n".join(lines), markup=False)
    for quantity, keys in result.undecided.items():
        err_console.print(f"warning: {quantity} has {len(keys)} competing values and none is preferred; all are "
                          f"written ({', '.join(keys)}): choose one with `claims prefer KEY --reason ...`", markup=False)
    if result.stale:
        lines = [f"warning: {len(result.stale)} exported claim(s) are stale (spot-checked, but the latest "
                 "`claims verify` found the figure changed or gone); --strict blocks them:"]
        lines += [f"  {r.key}: {', '.join(r.figures) or '(no figure)'} ({r.subject})" for r in result.stale]
        err_console.print("\n".join(lines), markup=False)
    if not result.rows and not result.blocked:
        err_console.print("no claims selected", markup=False)
