"""A parsed figure to and from its row in the figure table: the one place that knows both shapes.

`figure_columns` is what an import writes, `figure_dict` what a read returns (JSON-ready, as in claim
views), and `as_quantity` turns either back into the parser's `Quantity`. Duck-typed on the row and
the record, so that this package never imports the models (which import it).
"""

from __future__ import annotations

import json
from typing import Any

from claimsdb.figures.quantity import Quantity

__all__ = ["as_quantity", "figure_columns", "figure_dict"]


def figure_columns(position: int, fig: Any) -> dict[str, Any]:
    """The stored form of a figure record (its `quantity` and `name`): what the figure table holds, minus ids."""
    q: Quantity = fig.quantity
    return {
        "position": position,
        "name": fig.name,
        "raw": q.raw,
        "kind": q.kind,
        "comparator": q.comparator,
        "value": q.value,
        "low": q.low,
        "high": q.high,
        "start": q.start,
        "end": q.end,
        "steps": json.dumps(list(q.steps)) if q.steps else None,
        "active": q.active,
        "unit": q.unit,
        "counted": q.counted,
    }


def figure_dict(row: Any) -> dict[str, Any]:
    """A figure table row as a JSON-ready dict (steps as a list), as claim views show it."""
    return {
        "raw": row.raw,
        "name": row.name,
        "kind": row.kind,
        "comparator": row.comparator,
        "value": row.value,
        "low": row.low,
        "high": row.high,
        "start": row.start,
        "end": row.end,
        "steps": json.loads(row.steps) if row.steps else [],
        "active": row.active,
        "unit": row.unit,
        "counted": row.counted,
    }


def as_quantity(figure: Any) -> Quantity:
    """A stored figure (a `figure_dict`, or a figure table row) back as the parser's Quantity."""
    if not isinstance(figure, dict):
        figure = figure_dict(figure)
    return Quantity.from_dict({k: v for k, v in figure.items() if k != "name"})
