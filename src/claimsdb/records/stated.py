"""A claim's figures are its own words': what an agent channel records (`claims add`, JSON Lines, the MCP
server's add_claim) states no figure its statement does not, and a claim given without figures gets the
ones its statement writes (read by `figures.scan`), so `trace` finds every agent claim.

A data file read from a path is its author's and keeps its figures as given (a grid cell's figure may be
stated by the table, not the sentence).
"""

from __future__ import annotations

import dataclasses
import re

from claimsdb.errors import InvalidRecord
from claimsdb.figures import Context, Found, match, scan
from claimsdb.figures.matching import SAME
from claimsdb.records.types import MAX_FIGURE, MAX_ITEMS, ClaimRecord, FigureRecord

# A number that names a place in the page, not a figure of the claim: "§3.5", "Table 5", "Figure 2".
_REFERENCE = re.compile(
    r"(?:§|\b(?:table|figure|fig\.|section|sec\.|appendix|eq\.|equation|page|p\.|pp\.)\s*)\Z",
    re.I,
)


def _reference_or_year(statement: str, found: Found) -> bool:
    q = found.quantity
    if _REFERENCE.search(statement[max(0, found.start - 12) : found.start]):
        return True
    bare = q.kind == "value" and q.unit is None and q.counted is None and q.value is not None
    return bare and found.raw.isdigit() and 1900 <= int(found.raw) <= 2100


def statement_figures(statement: str) -> list[Found]:
    """The figures a statement writes, as the scanner reads them, but the numbers of a place in the page
    ("§3.5", "Table 5") and bare years; each once, at most as many as a claim may have."""
    out: list[Found] = []
    for found in scan(statement):
        if _reference_or_year(statement, found) or len(found.raw) > MAX_FIGURE:
            continue
        if all(f.raw != found.raw for f in out):
            out.append(found)
    return out[:MAX_ITEMS]


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def states(statement: str, written: Found | FigureRecord, found: list[Found]) -> bool:
    """Whether the statement states this figure: its text stands in the statement's words, or one of
    the statement's figures is the same value as it (figures.match: "2048 GPUs" in "2,048 H800 GPUs");
    a rounding of a figure the statement writes is not stated by it."""
    q = written.quantity
    # the figure's words as a whole in the statement's: "48" is not stated by "2,048", nor "4" by "4.5"
    whole = rf"(?<![\w.,]){re.escape(_normal(q.raw))}(?![\w]|[.,]\d)"
    if re.search(whole, _normal(statement)):
        return True
    return any(match(f.quantity, q, Context.query()).verdict == SAME for f in found)


def with_stated_figures(rec: ClaimRecord) -> ClaimRecord:
    """The record of an agent channel with figures its statement states: read from the statement when
    the record gives none; each one given checked (InvalidRecord naming the figure when the statement
    does not state it)."""
    found = statement_figures(rec.statement)
    if not rec.figures:
        read = tuple(FigureRecord(quantity=f.quantity) for f in found)
        return dataclasses.replace(rec, figures=read) if read else rec
    for i, fig in enumerate(rec.figures):
        if not states(rec.statement, fig, found):
            raise InvalidRecord(
                rec.file,
                rec.record_name,
                f"figures[{i}]",
                f"{fig.quantity.raw!r} is not stated in the statement: a claim's figures are its "
                "own words' (give each figure as the statement writes it, or leave figures out to "
                "have them read from the statement)",
            )
    return rec
