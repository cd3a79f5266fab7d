"""Markdown tables (GitHub style), list or grid, with a manifest footer.

Every cell goes through `markdown_text`: no HTML, link, image, emphasis or math can come out of the data.
"""

from __future__ import annotations

from collections.abc import Iterator

from claimsdb.escaping import markdown_text, markdown_url
from claimsdb.paper_safe import NOT_REREAD, Export, ExportRow, cell_text, grids

DAGGER = "†"


def _mark(text: str, row: ExportRow) -> str:
    return markdown_text(text) if row.paper_safe else f"{markdown_text(text)} {DAGGER}"


def _cite(row: ExportRow) -> str:
    parts = []
    for c in row.citations:
        title, link = markdown_text(c["title"]), markdown_url(c["url"])
        parts.append(f"[{title}]({link})" if link else title)
    return "; ".join(parts)


def _grids(export: Export) -> Iterator[str]:
    """Each grid as a table under its caption (pandoc's `Table:` line). A cell shows each claim's label
    or figures; a claim with neither shows a footnote mark (`[^3]`), its statement in the footnote under
    the table (GitHub and pandoc render these as footnotes)."""
    notes = 0
    for g in grids(export.rows):
        footnotes = []
        yield f"Table: {markdown_text(g.title)}\n\n"
        yield "| Subject | " + " | ".join(markdown_text(c) for c in g.columns) + " |\n"
        yield "|---" * (len(g.columns) + 1) + "|\n"
        for subject, cells in g.rows:
            parts = []
            for column in g.columns:
                shown = []
                for r in cells.get(column, []):
                    text = cell_text(r)
                    if text is None:
                        notes += 1
                        footnotes.append(
                            f"[^{notes}]: {markdown_text(subject)}, {markdown_text(column)}: "
                            f"{_mark(r.statement, r)}\n"
                        )
                        shown.append(f"[^{notes}]" + ("" if r.paper_safe else f" {DAGGER}"))
                    else:
                        shown.append(_mark(text, r))
                parts.append("; ".join(shown) or "—")
            yield f"| {markdown_text(subject)} | " + " | ".join(parts) + " |\n"
        yield "\n" + "".join(footnotes) + ("\n" if footnotes else "")


def render(export: Export) -> Iterator[str]:
    """The table, line by line (a list of a million claims is written as it is read)."""
    if export.draft:
        yield f"**DRAFT**: figures marked {DAGGER} are {NOT_REREAD}; this table is not for a paper.\n\n"
    if export.layout == "grid":
        yield from _grids(export)
    else:
        yield "| Subject | Stage | Statement | Figure | Source |\n|---|---|---|---|---|\n"
        for r in export.rows:
            figure = ", ".join(r.figures)
            yield (
                f"| {markdown_text(r.subject)} | {markdown_text(r.stage or '')} | {_mark(r.statement, r)} | "
                f"{_mark(figure, r) if figure else ('' if r.paper_safe else DAGGER)} | {_cite(r)} |\n"
            )
    if export.rows.not_re_read:
        yield (
            f"\n{DAGGER} {NOT_REREAD}: the figure's tag is not paper-safe under the "
            f"{markdown_text(export.policy.name)} policy.\n"
        )
    m = export.manifest
    tags = ", ".join(f"{t} {n}" for t, n in m["counts_by_tag"].items()) or "none"
    footer = (
        f"claimsdb export · schema {m['schema_revision']} · {m['exported_at']} · {m['policy']} · "
        f"mode {m['mode']} · {m['rows']} rows ({tags}) · sha256 {m['content_sha256']}"
    )
    yield f"\n<sub>{markdown_text(footer)}</sub>\n"
