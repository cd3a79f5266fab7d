"""Figures that authors write in words and the grammar (`parser`) leaves alone on purpose:

- ratios in words: "a 16-to-44 split", "divided twelve to eight" (the grammar reads "16 to 44" as a
  range): "X to Y" is a ratio when its clause says so (ratio, split, divided, proportion);
- approximate counts: "a dozen" (about 12), "half a dozen" (about 6), "a pair of" (2), "a couple of"
  (about 2); the grammar calls "a dozen" vague, which it is for a figure's definition, not for a reader;
- magnitudes in words: "hundreds of thousands", "several hundred thousand" and "tens of thousands" are
  one order of magnitude each (`magnitude`), however they are worded.

`worded(text)` finds them in prose as `Found` figures; `magnitude(raw)` gives the order of magnitude of
a figure written without digits, or None. Standard library only.
"""

from __future__ import annotations

import re

from claimsdb.figures import vocabulary as V
from claimsdb.figures.lexing import MAX_DIGITS
from claimsdb.figures.parser import parse
from claimsdb.figures.quantity import FigureError, Quantity
from claimsdb.figures.scanner import Found

__all__ = ["magnitude", "worded"]

_WORD_NUMBER = "|".join(sorted((*V.ONES[1:], *V.TENS), key=len, reverse=True))
# Runs of digits are bounded (MAX_DIGITS): an unbounded run backtracks over every later digit at each
# start, so a page of "9,9,9,..." took time quadratic in its length.
_NUMBER = rf"(?:\d[\d,]{{0,{MAX_DIGITS}}}(?:\.\d{{1,{MAX_DIGITS}}})?|(?:{_WORD_NUMBER})(?:-(?:{'|'.join(V.ONES[1:10])}))?)"
_RATIO = re.compile(
    rf"(?=[^\W_])(?<![\w.,\-])({_NUMBER})(?:-to-|[ \u00a0]+to[ \u00a0]+)({_NUMBER})(?!\w|[.\-]\d)",
    re.I,
)
# Each pattern below starts with a letter or a digit: the lookahead says so in one cheap test, which skips
# the other positions of a text (spaces, punctuation) without trying each alternative there.
_CLAUSE = 300  # how far back a ratio's words are looked for
_RATIO_WORDS = re.compile(
    r"\b(?:ratios?|split|splits|divided|divides|dividing|proportions?)\b", re.I
)
_COUNTS = re.compile(
    r"(?=[^\W_])(?<![\w-])(?:(?P<half>half[ \u00a0]+a[ \u00a0]+dozen)|(?P<dozen>a[ \u00a0]+dozen)(?![ \u00a0]+or\b)"
    r"|(?P<pair>a[ \u00a0]+pair[ \u00a0]+of)|(?P<couple>a[ \u00a0]+couple[ \u00a0]+of))(?![\w-])",
    re.I,
)
_COUNT_VALUE = {"half": ("~", 6.0), "dozen": ("~", 12.0), "pair": ("=", 2.0), "couple": ("~", 2.0)}
_SCALE = {
    "dozen": 12.0,
    "dozens": 12.0,
    "ten": 10.0,
    "tens": 10.0,
    "hundred": 1e2,
    "hundreds": 1e2,
    "thousand": 1e3,
    "thousands": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "trillion": 1e12,
    "trillions": 1e12,
}
_VAGUE = re.compile(
    r"(?=[^\W_])(?<![\w-])(?:(?:several|a[ \u00a0]+few|few|many|some|numerous)[ \u00a0]+)?"
    r"(?:(?:tens|hundreds|thousands|millions|billions|dozens|hundred|thousand|million)(?:[ \u00a0]+of)?[ \u00a0]+)*"
    r"(?:tens|hundreds|thousands|millions|billions|dozens|hundred|thousand|million|billion)(?![\w-])",
    re.I,
)
_VAGUE_LEAD = re.compile(r"several|a few|few|many|some|numerous", re.I)


def magnitude(raw: str) -> float | None:
    """The order of magnitude a figure without digits states ("hundreds of thousands": 1e5, "several
    hundred thousand": 1e5, "tens of thousands": 1e4), or None: it states none, or it has digits."""
    if re.search(r"\d", raw):
        return None
    words = re.findall(r"[a-z]+", raw.casefold())
    scales = [w for w in words if w in _SCALE]
    if not scales or not (_VAGUE_LEAD.search(raw) or scales[0].endswith("s")):
        return None  # "a thousand" is a number, not a magnitude
    m = 1.0
    for w in scales:
        m *= _SCALE[w]
    return m


def _number(text: str) -> float | None:
    try:
        q = parse(text)
    except FigureError:
        return None
    return q.value if q.kind == "value" else None


def worded(text: str) -> list[Found]:
    """The figures of the module docstring, found in running prose, left to right. A ratio says which
    span it replaces: it starts where the scanner's range would."""
    out: list[Found] = []
    for m in _RATIO.finditer(text):
        # The clause back to its sentence's start, at most _CLAUSE characters: a search back to the
        # text's start from every ratio made a page of "9 to 9 to ..." quadratic.
        back = max(0, m.start() - _CLAUSE)
        start = max(back, text.rfind(".", back, m.start()) + 1)
        clause = text[start : m.end() + 80].split(".", 1)[0]
        a, b = _number(m.group(1)), _number(m.group(2))
        if a is None or b is None or not _RATIO_WORDS.search(clause):
            continue
        out.append(
            Found(
                m.start(),
                m.end(),
                m.group(0),
                Quantity(raw=m.group(0), kind="ratio", steps=(float(a), float(b))),
            )
        )
    for m in _COUNTS.finditer(text):
        comparator, value = _COUNT_VALUE[m.lastgroup or ""]
        out.append(
            Found(
                m.start(),
                m.end(),
                m.group(0),
                Quantity(raw=m.group(0), kind="value", comparator=comparator, value=value),
            )
        )
    for m in _VAGUE.finditer(text):
        if magnitude(m.group(0)) is not None:
            out.append(Found(m.start(), m.end(), m.group(0), Quantity(raw=m.group(0), kind="text")))
    return sorted(out, key=lambda f: f.start)
