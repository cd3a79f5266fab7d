"""CSV: one row per claim (list) or per subject (grid). Manifest and any DRAFT heading as leading '#' lines.

Every cell goes through `csv_cell`: a cell a spreadsheet would run as a formula starts with a quote.
"""

from __future__ import annotations

import csv
import io

from claimsdb.escaping import csv_cell
from claimsdb.export import NOT_REREAD, Export, cell_text, grid
from claimsdb.exporters.common import manifest_comments

LIST_COLUMNS = ("key", "subject", "stage", "statement", "figure", "sources", "tag", "trust", "paper_safe", "marker")


def _heading(export: Export) -> list[str]:
    lines = []
    if export.draft:
        lines.append(f"# DRAFT: rows with paper_safe=false are {NOT_REREAD}; not for a paper")
    return lines + manifest_comments(export, "# ")


def render(export: Export) -> str:
    buf = io.StringIO()
    buf.write("\n".join(_heading(export)) + "\n")
    writer = csv.writer(buf, lineterminator="\n")

    def row(cells: list) -> None:
        writer.writerow([csv_cell(cell) for cell in cells])

    if export.layout == "grid":
        stages, subjects = grid(export.rows)
        row(["subject", *[s or "(no stage)" for s in stages], "not_re_read"])
        for subject, cells in subjects:
            unsafe = [r.key for rows in cells.values() for r in rows if not r.paper_safe]
            row([
                subject,
                *["; ".join(cell_text(r) + ("" if r.paper_safe else " †") for r in cells.get(s, [])) for s in stages],
                " ".join(unsafe),
            ])
    else:
        row(list(LIST_COLUMNS))
        for r in export.rows:
            row([
                r.key, r.subject, r.stage or "", r.statement, " | ".join(r.figures),
                " | ".join(c["cite_key"] for c in r.citations), r.tag, r.trust or "",
                "true" if r.paper_safe else "false", "" if r.paper_safe else NOT_REREAD,
            ])
    return buf.getvalue()
