"""CSV: one row per claim (list) or per grid cell (grid), plain CSV that any reader takes as it is.

The manifest (with `draft`) is not in the file: the CLI writes it beside it (FILE.manifest.json) or to
standard error. A draft's unsafe rows say so in their own cells: `paper_safe` false and the marker (list),
a dagger and the `not_re_read` keys (grid). Every cell goes through `csv_cell`: a cell a spreadsheet would
run as a formula starts with a quote.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from claimsdb.escaping import csv_cell
from claimsdb.paper_safe import NOT_REREAD, Export, cell_text, grids

# The grid: one row per cell that holds a claim (grid, subject, column), in the grids' order; a spreadsheet's
# pivot table lays it out. A cell shows each claim's label or figures, or NO_FIGURE, never its statement.
GRID_COLUMNS = ("grid", "subject", "column", "cell", "keys", "not_re_read")
NO_FIGURE = "(no figure)"
LIST_COLUMNS = (
    "key",
    "subject",
    "stage",
    "statement",
    "figure",
    "sources",
    "tag",
    "trust",
    "paper_safe",
    "marker",
)


def render(export: Export) -> Iterator[str]:
    """The rows, a batch at a time (a list of a million claims is written as it is read)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")

    def row(cells: list) -> None:
        writer.writerow([csv_cell(cell) for cell in cells])

    if export.layout == "grid":
        row(list(GRID_COLUMNS))
        for g in grids(export.rows):
            for subject, cells in g.rows:
                for column in g.columns:
                    claims = cells.get(column, [])
                    if claims:
                        row(
                            [
                                g.title,
                                subject,
                                column,
                                "; ".join(
                                    (cell_text(r) or NO_FIGURE) + ("" if r.paper_safe else " †")
                                    for r in claims
                                ),
                                " ".join(r.key for r in claims),
                                " ".join(r.key for r in claims if not r.paper_safe),
                            ]
                        )
    else:
        row(list(LIST_COLUMNS))
        for n, r in enumerate(export.rows, 1):
            row(
                [
                    r.key,
                    r.subject,
                    r.stage or "",
                    r.statement,
                    " | ".join(r.figures),
                    " | ".join(c["cite_key"] for c in r.citations),
                    r.tag,
                    r.trust or "",
                    "true" if r.paper_safe else "false",
                    "" if r.paper_safe else NOT_REREAD,
                ]
            )
            if n % 1000 == 0:
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
    yield buf.getvalue()
