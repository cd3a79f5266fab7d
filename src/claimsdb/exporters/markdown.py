"""Markdown tables (GitHub style), list or grid, with a manifest footer.

Every cell goes through `markdown_text`: no HTML, link, image, emphasis or math can come out of the data.
"""

from __future__ import annotations

from collections.abc import Iterator

from claimsdb.escaping import markdown_text, markdown_url
from claimsdb.export import NOT_REREAD, Export, ExportRow, cell_text, grid

DAGGER = "†"


def _mark(text: str, row: ExportRow) -> str:
    return markdown_text(text) if row.paper_safe else f"{markdown_text(text)} {DAGGER}"


def _cite(row: ExportRow) -> str:
    parts = []
    for c in row.citations:
        title, link = markdown_text(c["title"]), markdown_url(c["url"])
        parts.append(f"[{title}]({link})" if link else title)
    return "; ".join(parts)


def render(export: Export) -> Iterator[str]:
    """The table, line by line (a list of a million claims is written as it is read)."""
    if export.draft:
        yield f"**DRAFT**: figures marked {DAGGER} are {NOT_REREAD}; this table is not for a paper.\n\n"
    if export.layout == "grid":
        stages, subjects = grid(export.rows)
        yield "| Subject | " + " | ".join(markdown_text(s or "(no stage)") for s in stages) + " |\n"
        yield "|---" * (len(stages) + 1) + "|\n"
        for subject, cells in subjects:
            parts = ["; ".join(_mark(cell_text(r), r) for r in cells.get(s, [])) or "—" for s in stages]
            yield f"| {markdown_text(subject)} | " + " | ".join(parts) + " |\n"
    else:
        yield "| Subject | Stage | Statement | Figure | Source |\n|---|---|---|---|---|\n"
        for r in export.rows:
            figure = ", ".join(r.figures)
            yield (f"| {markdown_text(r.subject)} | {markdown_text(r.stage or '')} | {_mark(r.statement, r)} | "
                   f"{_mark(figure, r) if figure else ('' if r.paper_safe else DAGGER)} | {_cite(r)} |\n")
    if export.rows.not_re_read:
        yield (f"\n{DAGGER} {NOT_REREAD}: the figure's tag is not paper-safe under the "
               f"{markdown_text(export.policy.name)} policy.\n")
    m = export.manifest
    tags = ", ".join(f"{t} {n}" for t, n in m["counts_by_tag"].items()) or "none"
    footer = (f"claimsdb export · schema {m['schema_revision']} · {m['exported_at']} · {m['policy']} · "
              f"mode {m['mode']} · {m['rows']} rows ({tags}) · sha256 {m['content_sha256']}")
    yield f"\n<sub>{markdown_text(footer)}</sub>\n"
