"""Markdown tables (GitHub style), list or grid, with a manifest footer.

Every cell goes through `markdown_text`: no HTML, link, image, emphasis or math can come out of the data.
"""

from __future__ import annotations

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


def render(export: Export) -> str:
    lines: list[str] = []
    if export.draft:
        lines += [f"**DRAFT**: figures marked {DAGGER} are {NOT_REREAD}; this table is not for a paper.", ""]
    if export.layout == "grid":
        stages, subjects = grid(export.rows)
        lines.append("| Subject | " + " | ".join(markdown_text(s or "(no stage)") for s in stages) + " |")
        lines.append("|---" * (len(stages) + 1) + "|")
        for subject, cells in subjects:
            parts = ["; ".join(_mark(cell_text(r), r) for r in cells.get(s, [])) or "—" for s in stages]
            lines.append(f"| {markdown_text(subject)} | " + " | ".join(parts) + " |")
    else:
        lines.append("| Subject | Stage | Statement | Figure | Source |")
        lines.append("|---|---|---|---|---|")
        for r in export.rows:
            figure = ", ".join(r.figures)
            lines.append(
                f"| {markdown_text(r.subject)} | {markdown_text(r.stage or '')} | {_mark(r.statement, r)} | "
                f"{_mark(figure, r) if figure else ('' if r.paper_safe else DAGGER)} | {_cite(r)} |"
            )
    if any(not r.paper_safe for r in export.rows):
        lines += ["", f"{DAGGER} {NOT_REREAD}: the figure's tag is not paper-safe under the "
                  f"{markdown_text(export.policy.name)} policy."]
    m = export.manifest
    tags = ", ".join(f"{t} {n}" for t, n in m["counts_by_tag"].items()) or "none"
    footer = (f"claimsdb export · schema {m['schema_revision']} · {m['exported_at']} · {m['policy']} · "
              f"mode {m['mode']} · {m['rows']} rows ({tags}) · sha256 {m['content_sha256']}")
    lines += ["", f"<sub>{markdown_text(footer)}</sub>"]
    return "\n".join(lines) + "\n"
