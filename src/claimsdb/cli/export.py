"""`claims export`: paper-safe tables, behind the gate."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claimsdb import db
from claimsdb.cli.options import (
    AnchorOption,
    DbOption,
    SearchFilter,
    SourceFilter,
    StageFilter,
    StatusFilter,
    SubjectFilter,
    TagFilter,
    TrustFilter,
    claim_filter,
)
from claimsdb.cli.output import err_console
from claimsdb.errors import BadQuery, ExitCode

if TYPE_CHECKING:
    from claimsdb.export import Blocked


class ExportFormat(str, Enum):
    markdown = "markdown"
    csv = "csv"
    json = "json"
    latex = "latex"
    bibtex = "bibtex"
    biblatex = "biblatex"
    macros = "macros"
    quarto = "quarto"
    prov = "prov"
    html = "html"


# Formats that lay claims out as a table: --grid chooses subjects by stages. The others write figures,
# entries or a page that has both layouts, where --grid would be a flag accepted and ignored.
LAYOUT_FORMATS = ("markdown", "csv", "json", "latex")
# Formats whose default is the paper-safe claims only: a bibliography for the safe table, Quarto variables
# (a missing one is Quarto's error). The macros carry every figure, each unsafe one guarded in LaTeX.
SAFE_BY_DEFAULT = ("bibtex", "biblatex", "quarto")
# Formats that cite: a note is one of their references only when asked (--cite-notes).
CITING_FORMATS = ("latex", "bibtex", "biblatex")
STDOUT = Path("-")


def reread_command(row: Blocked, db_: str | None) -> str:
    """The exact command that clears a blocked claim (policy.reread_command)."""
    from claimsdb.policy import reread_command as command

    return command(row.key, row.reread_source, db_)


def describe_blocked(result, db_: str | None) -> list[str]:
    """Each listed blocked claim with the command that clears it, then how many more there are."""
    lines = []
    for r in result.blocked:
        figure = ", ".join(r.figures) or "(no figure)"
        stale = "; STALE: the latest verification no longer finds it" if r.stale else ""
        outdated = f"; {r.outdated}" if r.outdated else ""
        lines.append(f"  {r.key}: {figure} ({r.subject}) tag {r.tag} ({r.trust}){outdated}{stale}")
        lines.append(f"    clear it: {reread_command(r, db_)}")
    more = result.blocked_count - len(result.blocked)
    if more > 0:
        lines.append(
            f"  ... and {more} more (the first {len(result.blocked)} are listed): the re-read queue of "
            "`claims serve` walks through every one; --draft writes them all, marked"
        )
    return lines


def write_atomically(path: Path, text: str | Iterable[str]) -> None:
    """Write the whole file or nothing, with the permissions a new file of the user's gets (umask); the
    text may come in pieces, written as they come."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for piece in [text] if isinstance(text, str) else text:
                f.write(piece)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def manifest_path(output: Path) -> Path:
    """Where a CSV export's manifest goes: FILE.manifest.json beside FILE."""
    return output.with_name(output.name + ".manifest.json")


def _mode(fmt: str, *, draft: bool, skip_unsafe: bool) -> str:
    """The export mode a format runs in, as its manifest states it."""
    if draft:
        return "draft"
    if skip_unsafe or fmt in SAFE_BY_DEFAULT:
        return "skip-unsafe"
    if fmt in ("macros", "prov"):
        # macros: every figure, each unsafe one a LaTeX error unless the paper says \claimsdraft;
        # prov: every claim's history, each claim marked claims:paper_safe true or false.
        return "guarded"
    return "gate"


def export(
    fmt: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            "-f",
            help="markdown, csv, json, latex, bibtex (the entries the paper-safe claims cite; biblatex: the same for biber), macros (\\claim{KEY} for LaTeX), quarto (variables), prov (W3C PROV-JSON of the claims' histories) or html (a self-contained page; -o names a folder).",
        ),
    ] = ExportFormat.markdown,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write to this file (- or none: standard output). A CSV file's manifest goes beside it, as FILE.manifest.json; on standard output, to standard error.",
        ),
    ] = None,
    grid: Annotated[
        bool,
        typer.Option(
            "--grid",
            help="Subjects by stages, like the note's stage table (markdown, csv, json and latex).",
        ),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Only verified tags pass (default: verified and secondary)."),
    ] = False,
    skip_unsafe: Annotated[
        bool,
        typer.Option(
            "--skip-unsafe", help="Export the paper-safe claims; list the rest on stderr."
        ),
    ] = False,
    draft: Annotated[
        bool,
        typer.Option(
            "--draft", help="Include every claim; mark the unsafe ones; head the output as a draft."
        ),
    ] = False,
    cite_notes: Annotated[
        bool,
        typer.Option(
            "--cite-notes",
            help="latex, bibtex, biblatex: a claim whose only sources are notes cites them (by default a note is not a reference).",
        ),
    ] = False,
    tag: TagFilter = None,
    trust: TrustFilter = None,
    subject: SubjectFilter = None,
    stage: StageFilter = None,
    source: SourceFilter = None,
    search: SearchFilter = None,
    status: StatusFilter = None,
    anchors: AnchorOption = None,
    db_: DbOption = None,
) -> None:
    """Export the selected claims for a paper, behind the paper-safe gate.

    If any selected claim is not paper-safe, nothing is written and the command exits 1, listing each
    blocked claim and the `claims reread` command that would clear it. --skip-unsafe exports the rest;
    --draft includes them, visibly marked. Withdrawn and superseded claims are never exported.

    Some formats carry the gate in another way. bibtex (and biblatex, for biber) writes the entries of the
    sources the paper-safe claims cite (with --draft: every claim's). A note is not a reference: latex
    and the bibliographies cite a claim whose only sources are notes when asked (--cite-notes). quarto
    writes the paper-safe figures (--draft: all, marked). macros writes every figure, each unsafe one a LaTeX error unless the paper says
    \\claimsdraft (--draft: the file says it; --skip-unsafe: only the safe figures). The manifest states
    the mode used, and the history it came from (its head and length); with --anchor FILE the export
    first checks that the history still holds the anchored head (exit 1 if not).

    Example: claims export --format latex --grid --subject SmolLM3 -o table.tex
    """
    from claimsdb import export as exporting
    from claimsdb.policy import Policy

    if skip_unsafe and draft:
        raise BadQuery("choose one of --skip-unsafe and --draft")
    if grid and fmt.value not in LAYOUT_FORMATS:
        raise BadQuery(
            f"--grid lays out a table: {', '.join(LAYOUT_FORMATS)}; --format {fmt.value} has no layout"
        )
    if cite_notes and fmt.value not in CITING_FORMATS:
        raise BadQuery(
            f"--cite-notes is for the formats that cite ({', '.join(CITING_FORMATS)}), not --format {fmt.value}"
        )
    if output == STDOUT:
        output = None
    if fmt is ExportFormat.html and output is not None:
        from claimsdb.exporters.html import page_path

        output = page_path(output)
    mode = _mode(fmt.value, draft=draft, skip_unsafe=skip_unsafe)
    policy = Policy(strict=strict)
    filters = claim_filter(tag, trust, subject, stage, source, search, status)
    from claimsdb import anchor

    loaded = [(str(p), anchor.load(p)) for p in anchors or ()]
    with db.session_of(db_) as session:
        anchor.ensure(session, loaded)
        result = exporting.prepare(
            session,
            filters,
            policy=policy,
            mode=mode,
            layout="grid" if grid else "list",
            cite_notes=cite_notes,
        )
        if fmt is ExportFormat.prov:
            from claimsdb import lineage

            prov_text = lineage.render(
                lineage.export_document(
                    session, [r.key for r in result.rows], result.manifest, policy=policy
                )
            )
    if result.refused:
        lines = [
            f"export blocked: {result.blocked_count} selected claim(s) are not paper-safe "
            f"under the {policy.describe()}; nothing was written."
        ]
        lines += describe_blocked(result, db_)
        lines.append(
            "Re-read them, or use --skip-unsafe to export the rest, or --draft to include them marked."
        )
        err_console.print("\n".join(lines), markup=False)
        raise typer.Exit(int(ExitCode.FINDINGS))
    if fmt is ExportFormat.prov:
        text: str | Iterable[str] = prov_text
    else:
        from claimsdb.exporters import pieces

        text = pieces(result, fmt.value)
    _write(text, output, result, fmt, mode)
    _report(result, fmt, mode, policy, db_, asked=skip_unsafe)


def _write(
    text: str | Iterable[str], output: Path | None, result, fmt: ExportFormat, mode: str
) -> None:
    """The export to its file (and a CSV's manifest beside it) or to standard output, piece by piece."""
    separate_manifest = fmt is ExportFormat.csv  # plain CSV: its manifest cannot be inside
    manifest = json.dumps(result.manifest, ensure_ascii=False, indent=2) + "\n"
    if output is None:
        for piece in [text] if isinstance(text, str) else text:
            sys.stdout.write(piece)
        if separate_manifest:
            err_console.print(
                "manifest: " + json.dumps(result.manifest, ensure_ascii=False),
                markup=False,
                soft_wrap=True,
            )
        return
    write_atomically(output, text)
    if separate_manifest:
        write_atomically(manifest_path(output), manifest)
    beside = f"; manifest in {manifest_path(output)}" if separate_manifest else ""
    err_console.print(
        f"wrote {len(result.rows)} claim(s) to {output} ({result.manifest['policy']}, "
        f"mode {mode}, sha256 {result.manifest['content_sha256'][:12]}{beside})",
        markup=False,
    )


def _report(result, fmt: ExportFormat, mode: str, policy, db_: str | None, *, asked: bool) -> None:
    """What the export left out, guarded or could not decide, on standard error."""
    if mode == "guarded" and result.blocked_count and fmt is ExportFormat.macros:
        err_console.print(
            f"{result.blocked_count} claim(s) are not paper-safe: \\claim{{}} of any of them stops the "
            "LaTeX build unless the document says \\claimsdraft",
            markup=False,
        )
    if (
        mode == "skip-unsafe" and result.blocked_count and not asked
    ):  # bibtex, quarto: the paper-safe part by default
        err_console.print(
            f"left out {result.blocked_count} claim(s) that are not paper-safe ({policy.describe()}); "
            "`claims export` lists them, --draft includes them",
            markup=False,
        )
    elif mode == "skip-unsafe" and result.blocked_count:
        lines = [
            f"left out {result.blocked_count} claim(s) that are not paper-safe ({policy.describe()}):"
        ]
        lines += describe_blocked(result, db_)
        err_console.print("\n".join(lines), markup=False)
    for quantity, keys in result.undecided.items():
        err_console.print(
            f"warning: {quantity} has {len(keys)} competing values and none is preferred; all are "
            f"written ({', '.join(keys)}): choose one with `claims prefer KEY --reason ...`",
            markup=False,
        )
    uncited, named = result.uncited if fmt.value in CITING_FORMATS else (0, [])
    if uncited:
        err_console.print(
            f"{uncited} exported claim(s) cite only notes, which are not references: no \\cite "
            f"for them ({', '.join(named)}{', ...' if uncited > len(named) else ''}); re-read "
            "their pages, or --cite-notes cites the notes",
            markup=False,
        )
    if result.stale:
        lines = [
            f"warning: {len(result.stale)} exported claim(s) are stale (spot-checked, but the latest "
            "`claims verify` found the figure changed or gone); --strict blocks them:"
        ]
        lines += [
            f"  {r.key}: {', '.join(r.figures) or '(no figure)'} ({r.subject})"
            for r in result.stale
        ]
        err_console.print("\n".join(lines), markup=False)
    if not result.rows and not result.blocked_count:
        err_console.print("no claims selected", markup=False)
