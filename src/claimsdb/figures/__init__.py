"""Figures: read them (`parse`, `scan`), store them (`codec`), and judge them (`match`).

One package answers "is this written figure that stored one?" for trace, lint and verify:
- `parser`: the grammar of a figure as written (with `canonical`, `lexing`, `phrases`); `scanner`: the
  figures of running prose; `mapped_text`: a rewritten text that maps back to the original's offsets;
- `vocabulary`: every word list (units, scales, qualifiers, accelerators, counted things, stop words);
- `codec`: a parsed figure to and from its row in the figure table;
- `matching`: `match(stored, written, context)`, one named verdict with its reason.
Standard library only: read commands import it cheaply.
"""

from __future__ import annotations

from claimsdb.figures.codec import as_quantity, figure_columns, figure_dict
from claimsdb.figures.matching import (
    REACH_TIERS,
    SPAN,
    VERDICTS,
    Context,
    Verdict,
    fraction_value,
    match,
    reach,
)
from claimsdb.figures.parser import parse
from claimsdb.figures.quantity import COMPARATORS, KINDS, REL_TOLERANCE, FigureError, Quantity
from claimsdb.figures.scanner import Found, scan
from claimsdb.figures.units import normalize_unit, same_unit

__all__ = [
    "COMPARATORS",
    "KINDS",
    "REL_TOLERANCE",
    "VERDICTS",
    "Context",
    "FigureError",
    "Found",
    "Quantity",
    "Verdict",
    "REACH_TIERS",
    "SPAN",
    "as_quantity",
    "figure_columns",
    "figure_dict",
    "fraction_value",
    "match",
    "reach",
    "normalize_unit",
    "parse",
    "same_unit",
    "scan",
]
