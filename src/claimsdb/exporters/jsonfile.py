"""JSON: {"draft", "manifest", "rows"} (list) or {"draft", "manifest", "grids"} (grid): each grid its
"title", "columns" and "subjects", each subject its "cells" by column, each cell the claims (as in the
list, with "label") and the "text" a cell shows for each: its label, else its figures as written, else
null (a reader shows the statement as a note, not in the cell)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from claimsdb.paper_safe import NOT_REREAD, Export, ExportRow, cell_text, grids


def _row(r: ExportRow) -> dict[str, Any]:
    return {
        **r.canonical(),
        "figures": r.figures,
        "citations": r.citations,
        "marker": None if r.paper_safe else NOT_REREAD,
    }


def _dumped(value: Any, depth: int) -> str:
    """`value` as json.dumps(..., indent=2) writes it `depth` levels down in a document."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)


def render(export: Export) -> Iterator[str]:
    """The document: its bytes are those of json.dumps(doc, indent=2), the rows of a list written one
    at a time (a list of a million claims is written as it is read)."""
    doc: dict[str, Any] = {"draft": export.draft, "manifest": export.manifest}
    if export.layout == "grid":
        doc["grids"] = [
            {
                "title": g.title,
                "columns": g.columns,
                "subjects": [
                    {
                        "subject": subject,
                        "cells": {
                            c: [{**_row(r), "text": cell_text(r)} for r in cells.get(c, [])]
                            for c in g.columns
                        },
                    }
                    for subject, cells in g.rows
                ],
            }
            for g in grids(export.rows)
        ]
        yield json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        return
    yield (
        "{\n"
        + "".join(f"  {json.dumps(k)}: {_dumped(v, 1)},\n" for k, v in doc.items())
        + '  "rows": ['
    )
    first = True
    for r in export.rows:
        yield ("\n    " if first else ",\n    ") + _dumped(_row(r), 2)
        first = False
    yield "]\n}\n" if first else "\n  ]\n}\n"
