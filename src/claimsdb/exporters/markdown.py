"""Markdown tables (GitHub style), list or grid, with a manifest footer."""

from __future__ import annotations

from claimsdb.export import NOT_REREAD, Export, ExportRow, cell_text, grid

DAGGER = "†"


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _mark(text: str, row: ExportRow) -> str:
    return text if row.paper_safe else f"{text} {DAGGER}"


def _cite(row: ExportRow) -> str:
    return "; ".join(f"[{c['title']}]({c['url']})" if c["url"] else c["title"] for c in row.citations)


def render(export: Export) -> str:
    lines: list[str] = []
    if export.draft:
        lines += [f"**DRAFT**: figures marked {DAGGER} are {NOT_REREAD}; this table is not for a paper.", ""]
    if export.layout == "grid":
        stages, subjects = grid(export.rows)
        lines.append("| Subject | " + " | ".join(_cell(s or "(no stage)") for s in stages) + " |")
        lines.append("|---" * (len(stages) + 1) + "|")
        for subject, cells in subjects:
            parts = ["; ".join(_cell(_mark(cell_text(r), r)) for r in cells.get(s, [])) or "—" for s in stages]
            lines.append(f"| {_cell(subject)} | " + " | ".join(parts) + " |")
    else:
        lines.append("| Subject | Stage | Statement | Figure | Source |")
        lines.append("|---|---|---|---|---|")
        for r in export.rows:
            figure = ", ".join(r.figures)
            lines.append(
                f"| {_cell(r.subject)} | {_cell(r.stage or '')} | {_cell(_mark(r.statement, r))} | "
                f"{_cell(_mark(figure, r) if figure else ('' if r.paper_safe else DAGGER))} | {_cell(_cite(r))} |"
            )
    if any(not r.paper_safe for r in export.rows):
        lines += ["", f"{DAGGER} {NOT_REREAD}: the figure's tag is not paper-safe under the {export.policy.name} policy."]
    m = export.manifest
    tags = ", ".join(f"{t} {n}" for t, n in m["counts_by_tag"].items()) or "none"
    lines += [
        "",
        f"<sub>claimsdb export · schema {m['schema_revision']} · {m['exported_at']} · {m['policy']} · "
        f"mode {m['mode']} · {m['rows']} rows ({tags}) · sha256 {m['content_sha256']}</sub>",
    ]
    return "\n".join(lines) + "\n"
