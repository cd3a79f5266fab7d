"""JSON: {"draft", "manifest", "rows"} (list) or {"draft", "manifest", "stages", "subjects"} (grid)."""

from __future__ import annotations

import json
from typing import Any

from claimsdb.export import NOT_REREAD, Export, ExportRow, cell_text, grid


def _row(r: ExportRow) -> dict[str, Any]:
    return {**r.canonical(), "figures": r.figures, "citations": r.citations,
            "marker": None if r.paper_safe else NOT_REREAD}


def render(export: Export) -> str:
    doc: dict[str, Any] = {"draft": export.draft, "manifest": export.manifest}
    if export.layout == "grid":
        stages, subjects = grid(export.rows)
        doc["stages"] = stages
        doc["subjects"] = [
            {"subject": subject, "cells": {
                s or "": [{**_row(r), "text": cell_text(r)} for r in cells.get(s, [])] for s in stages
            }}
            for subject, cells in subjects
        ]
    else:
        doc["rows"] = [_row(r) for r in export.rows]
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
