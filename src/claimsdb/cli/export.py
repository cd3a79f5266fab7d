"""`claims export`: paper-safe tables, behind the gate."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from claimsdb import db
from claimsdb.cli.options import (
    AnchorOption,
    CaptionOption,
    CiteNotesOption,
    DbOption,
    DraftOption,
    ExplainOption,
    ExportFormat,
    ExportFormatOption,
    ExportOutputOption,
    ExportStrictOption,
    GridOption,
    LabelOption,
    SkipUnsafeOption,
    filtered,
)
from claimsdb.cli.output import err_console
from claimsdb.errors import BadQuery, ExitCode
from claimsdb.userfiles import check_writable, write_atomically

if TYPE_CHECKING:
    from claimsdb.paper_safe import Blocked, Export
    from claimsdb.queries import ClaimFilter
    from claimsdb.trust.rule import Policy


# Formats that lay claims out as a table: --grid chooses subjects by stages. The others write figures,
# entries or a page that has both layouts, where --grid would be a flag accepted and ignored.
LAYOUT_FORMATS = ("markdown", "csv", "json", "latex")
# Formats whose default is the paper-safe claims only: a bibliography for the safe table, Quarto variables
# (a missing one is Quarto's error). The macros carry every figure, each unsafe one guarded in LaTeX.
SAFE_BY_DEFAULT = ("bibtex", "biblatex", "quarto")
# Formats that cite: a note is one of their references only when asked (--cite-notes).
CITING_FORMATS = ("latex", "bibtex", "biblatex")
STDOUT = Path("-")
# Blocked claims listed on standard error, so that what was written stays on screen: the rest are
# counted, and --explain lists every one the export kept (paper_safe.LISTED_BLOCKED).
SHOWN_BLOCKED = 10


def reread_hint(row: Blocked, db_: str | None) -> str:
    """What a person re-reads to clear a blocked claim, and where they record it (trust.rule.reread_hint)."""
    from claimsdb.trust.rule import reread_hint as hint

    return hint(row.key, row.reread_page, db_)


def describe_blocked(result, db_: str | None, shown: int | None = SHOWN_BLOCKED) -> list[str]:
    """The first `shown` blocked claims, each with the re-read that clears it, then how many more there
    are and where to see them (so that what was written stays on screen)."""
    lines = []
    for r in result.blocked[:shown]:
        figure = ", ".join(r.figures) or "(no figure)"
        stale = "; STALE: the latest verification no longer finds it" if r.stale else ""
        outdated = f"; {r.outdated}" if r.outdated else ""
        attested = (
            f"; ATTESTED: re-read without the page checked ({r.attested})" if r.attested else ""
        )
        unsigned = f"; UNSIGNED: {r.unsigned}" if r.unsigned else ""
        lines.append(
            f"  {r.key}: {figure} ({r.subject}) tag {r.tag} ({r.trust}){outdated}{stale}{attested}"
            f"{unsigned}"
        )
        lines.append(f"    to clear it, {reread_hint(r, db_)}")
    listed = len(result.blocked[:shown])
    more = result.blocked_count - listed
    if more > 0 and listed < len(result.blocked):
        lines.append(
            f"  ... and {more} more: --explain lists "
            + (
                "them"
                if result.blocked_count == len(result.blocked)
                else f"the first {len(result.blocked)}"
            )
            + " with how to clear each; the re-read queue of `claims serve` walks through every one"
        )
    elif more > 0:
        lines.append(
            f"  ... and {more} more (the first {listed} are listed): the re-read queue of "
            "`claims serve` walks through every one; --draft writes them all, marked"
        )
    return lines


def manifest_path(output: Path) -> Path:
    """Where a CSV export's manifest goes: FILE.manifest.json beside FILE."""
    return output.with_name(output.name + ".manifest.json")


def _written(output: Path, fmt: ExportFormat) -> tuple[Path, ...]:
    """Every file an export to `output` writes: the file, and a CSV's manifest beside it."""
    return (output, manifest_path(output)) if fmt is ExportFormat.csv else (output,)


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


@filtered
def export(
    fmt: ExportFormatOption = ExportFormat.markdown,
    output: ExportOutputOption = None,
    grid: GridOption = False,
    strict: ExportStrictOption = False,
    skip_unsafe: SkipUnsafeOption = False,
    draft: DraftOption = False,
    cite_notes: CiteNotesOption = False,
    explain: ExplainOption = False,
    caption: CaptionOption = None,
    label: LabelOption = None,
    *,
    filters: ClaimFilter,
    anchors: AnchorOption = None,
    db_: DbOption = None,
) -> None:
    """Export the selected claims for a paper, behind the paper-safe gate.

    If any selected claim is not paper-safe, nothing is written and the command exits 1, listing each
    blocked claim with the page a person re-reads to clear it. --skip-unsafe exports the rest;
    --draft includes them, visibly marked. Withdrawn and superseded claims are never exported.

    Some formats carry the gate in another way. bibtex (and biblatex, for biber) writes the entries of the
    sources the paper-safe claims cite (with --draft: every claim's), warning on standard error for each
    entry that lacks what a citation style needs (`claims sources check` lists them all). A note is not a reference: latex
    and the bibliographies cite a claim whose only sources are notes when asked (--cite-notes). quarto
    writes the paper-safe figures (--draft: all, marked). macros writes every figure, each unsafe one a LaTeX error unless the paper says
    \\claimsdraft (--draft: the file says it; --skip-unsafe: only the safe figures). The manifest states
    the mode used, and the history it came from (its head and length); with --anchor FILE the export
    first checks that the history still holds the anchored head (exit 1 if not).

    Example: claims export --format latex --grid --subject SmolLM3 -o table.tex
    """
    from claimsdb.trust.rule import Policy

    _check_flags(fmt, grid=grid, cite_notes=cite_notes, skip_unsafe=skip_unsafe, draft=draft)
    _check_caption(fmt, caption, label, grid=grid)
    output = _destination(fmt, output)
    if output is not None:  # before the store is read: what stands there must be a regular file
        check_writable(*_written(output, fmt))
    mode = _mode(fmt.value, draft=draft, skip_unsafe=skip_unsafe)
    policy = Policy(strict=strict)
    result, text = _prepare(
        fmt,
        filters,
        policy,
        mode=mode,
        layout="grid" if grid else "list",
        cite_notes=cite_notes,
        anchors=anchors,
        db_=db_,
        table=(caption, label),
    )
    # --explain: every blocked claim the export listed (200 at most); else the first SHOWN_BLOCKED
    shown = None if explain else SHOWN_BLOCKED
    if result.refused:
        _refuse(result, policy, db_, shown)
    _write(text, output, result, fmt, mode)
    _report(result, fmt, mode, policy, db_, asked=skip_unsafe, shown=shown)


def _check_flags(
    fmt: ExportFormat, *, grid: bool, cite_notes: bool, skip_unsafe: bool, draft: bool
) -> None:
    """Refuse the flags that contradict each other or that the format would accept and ignore."""
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


LABEL = re.compile(r"[A-Za-z][A-Za-z0-9:._-]{0,63}")
MAX_CAPTION = 500  # characters of a caption: a sentence or two


def _check_caption(
    fmt: ExportFormat, caption: str | None, label: str | None, *, grid: bool
) -> None:
    """Refuse a caption or label the LaTeX table cannot carry as given (exit 2, nothing read)."""
    if (caption is not None or label is not None) and fmt is not ExportFormat.latex:
        raise BadQuery(f"--caption and --label are for --format latex, not --format {fmt.value}")
    if caption is not None and (
        not caption.strip() or len(caption) > MAX_CAPTION or not caption.isprintable()
    ):
        raise BadQuery(
            f"--caption: one line of printable text, at most {MAX_CAPTION} characters, is needed"
        )
    if label is not None and not LABEL.fullmatch(label):
        raise BadQuery(
            f"--label {label!r}: a label starts with a letter and holds letters, digits and :._- "
            "(64 at most), as \\ref{...} takes it"
        )
    if label is not None and caption is None and grid:
        raise BadQuery("--label names a grid's table by its caption: give --caption too")


def _destination(fmt: ExportFormat, output: Path | None) -> Path | None:
    """The file the export goes to (None: standard output); an html export's -o names its folder."""
    if output == STDOUT:
        return None
    if fmt is ExportFormat.html and output is not None:
        from claimsdb.exporters.html import page_path

        return page_path(output)
    return output


def _prepare(
    fmt: ExportFormat,
    filters: ClaimFilter,
    policy: Policy,
    *,
    mode: str,
    layout: str,
    cite_notes: bool,
    anchors: list[Path] | None,
    db_: str | None,
    table: tuple[str | None, str | None] = (None, None),
) -> tuple[Export, str | Iterable[str]]:
    """The selection behind the gate, once the history is found to hold every anchor, and its text:
    whole for prov (read while the session is open), else in pieces written as they come. `table`: a
    LaTeX table's caption and label."""
    from claimsdb import anchor
    from claimsdb import paper_safe as exporting

    loaded = [(str(p), anchor.load(p)) for p in anchors or ()]
    with db.session_of(db_) as session, anchor.Pending(session, loaded) as pending:
        result = exporting.prepare(
            session, filters, policy=policy, mode=mode, layout=layout, cite_notes=cite_notes
        )
        pending.ensure(session)  # the chain walked on another core meanwhile
        if fmt is ExportFormat.prov:
            from claimsdb import lineage

            keys = [r.key for r in result.rows]
            document = lineage.export_document(session, keys, result.manifest, policy=policy)
            return result, lineage.render(document)
    from claimsdb.exporters import pieces

    result.caption, result.label = table
    return result, pieces(result, fmt.value)


def _refuse(result: Export, policy: Policy, db_: str | None, shown: int | None) -> NoReturn:
    """The gate's refusal: each blocked claim and the command that clears it; nothing was written."""
    lines = [
        f"export blocked: {result.blocked_count} selected claim(s) are not paper-safe "
        f"under the {policy.describe()}; nothing was written."
    ]
    lines += describe_blocked(result, db_, shown)
    lines.append(
        "Re-read them, or use --skip-unsafe to export the rest, or --draft to include them marked."
    )
    err_console.print("\n".join(lines), markup=False)
    signing_notice(result)
    raise typer.Exit(int(ExitCode.FINDINGS))


def _write(
    text: str | Iterable[str], output: Path | None, result, fmt: ExportFormat, mode: str
) -> None:
    """The export to its file (and a CSV's manifest beside it) or to standard output, piece by piece."""
    separate_manifest = fmt is ExportFormat.csv  # plain CSV: its manifest cannot be inside
    manifest = json.dumps(result.manifest, ensure_ascii=False, indent=2) + "\n"
    if output is None:
        for piece in [text] if isinstance(text, str) else text:
            sys.stdout.write(piece)
        sys.stdout.flush()  # all of it out (or a closed pipe met) before anything goes to stderr
        if separate_manifest:
            err_console.print(
                "manifest: " + json.dumps(result.manifest, ensure_ascii=False),
                markup=False,
                soft_wrap=True,
            )
        return
    written = _written(output, fmt)
    write_atomically(output, text, also=written[1:])
    if separate_manifest:
        write_atomically(manifest_path(output), manifest)
    beside = f"; manifest in {manifest_path(output)}" if separate_manifest else ""
    err_console.print(
        f"wrote {len(result.rows)} claim(s) to {output} ({result.manifest['policy']}, "
        f"mode {mode}, sha256 {result.manifest['content_sha256'][:12]}{beside})",
        markup=False,
    )


def _report(
    result, fmt: ExportFormat, mode: str, policy, db_: str | None, *, asked: bool, shown: int | None
) -> None:
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
        lines += describe_blocked(result, db_, shown)
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
    _bibliography_lacks(result, fmt)
    if not result.rows and not result.blocked_count:
        err_console.print("no claims selected", markup=False)
    signing_notice(result)


def _bibliography_lacks(result: Export, fmt: ExportFormat) -> None:
    """A warning for each bibliography entry that lacks what a citation style needs: the first
    SHOWN_BLOCKED, then how many more and where to see them all (the result stays on screen)."""
    if fmt.value not in ("bibtex", "biblatex"):
        return
    from claimsdb.exporters.bibtex import lacking

    found = list(lacking(result, fmt.value))
    for entry in found[:SHOWN_BLOCKED]:
        err_console.print(entry.message(), markup=False, soft_wrap=True)
    if len(found) > SHOWN_BLOCKED:
        err_console.print(
            f"... and {len(found) - SHOWN_BLOCKED} more entries lack what a citation style needs: "
            "`claims sources check` lists every one",
            markup=False,
        )


def signing_notice(result: Export) -> None:
    """One line on standard error when the store does not require signed re-reads (export and lint)."""
    if not result.manifest.get("signatures_required"):
        from claimsdb.trust.people import UNSIGNED_NOTICE

        err_console.print(UNSIGNED_NOTICE, markup=False)
