"""Parse figures as written in research notes ("~50B", "32–33T tokens", "4K → 128K", "355B-A32B").

`parse(raw)` turns one figure into a `Quantity` or raises `FigureError` with a short reason;
`scan(text)` finds the figures in running prose with the same grammar (see its docstring). The
parser never guesses: text without an exact value is kind "text" with value None, and text it cannot
read unambiguously (malformed numbers, two unrelated numbers, ambiguous scales) is an error.

Numbers are converted exactly: the decimal digits and the scale are combined as a decimal string and
rounded to a float once, so "14.8T" is exactly float("14.8e12").

Rules decided here, beyond the plain cases:
- bracketed groups anywhere ("(YaRN)", "[12]") are ignored and end the unit phrase; a figure wholly in
  parentheses is unwrapped; unbalanced brackets are an error.
- a number glued to a word is part of a name, not a figure: "H100", "GPT-4", "v1.5", "Qwen2.5".
- a sign is kept ("-0.5", "−5% → +3%"); scientific notation is read ("3e-4", "3.8e25").
- glued "+" means ">=" ("1,000+ GPUs"); glued "-ish" means "~"; "30-odd" / "20-something" are text.
- "$5.6M" / "€" / "£" give unit USD / EUR / GBP; "hundred" is a scale word like "thousand".
- "USD1,700", "RM120,000", "$US5", "EUR 5" give the code's currency; "bn", "mn" glued are scales
  ("$1.8bn"), and so are b, m, t, k glued after a currency sign ("$35m").
- a range may repeat its currency ("$10 to $15 billion") or its unit ("44 mg to 50 mg").
- lowercase glued b, m, t ("7b", "10m") and a spaced K/M/B/T ("15 T") are ambiguous: errors. Letters
  glued to a number must be a known unit ("20s", "2TB", "5kW") or one capital letter ("4D").
- a range's second-end scale applies to the first ("32–33T"); transitions and ratios never share scales.
- an accelerator followed by a plain noun gives that noun as unit: "1,024 H100 nodes" -> nodes, counted
  H100; a unit symbol still wins: "8× H100" -> unit "x", counted H100.
- a label needs "="/":" or must be at most four words none of which is prose (stop words, qualifiers).
- "one" after the figure ("16K H100 in one cluster") does not count as a second number.
- uncountable nouns ("context", "data", "memory") are not pluralised; adjectives such as "active",
  "dense" end the unit phrase.

The grammar is split by what each part reads: `canonical` (written forms read in one spelling, with
the map back), `lexing` (cleaning, one number with its scale and glued unit), `phrases` (the prefix
and the unit phrase), this module (`parse`, `precision`) and `scanner` (`scan`).

Standard library only; no output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache, partial

from claimsdb.figures.canonical import _canonical
from claimsdb.figures.lexing import (
    _AND,
    _ARROW,
    _CONNECTOR,
    _QUAL_FULL,
    _QUALIFIERS,
    _RANGE_SEP,
    _RATIO_SEP,
    _REPEAT_UNIT,
    _SPAN_UNIT,
    _TO,
    _VAGUE,
    _clean,
    _first_number,
    _mask_groups,
    _repeated_unit_end,
    _Term,
    _term,
    _to_float,
    fold_forms,
)
from claimsdb.figures.phrases import _has_number, _parse_prefix, _rest_unit
from claimsdb.figures.quantity import COMPARATORS, KINDS, FigureError, Quantity
from claimsdb.figures.units import normalize_unit, same_unit

__all__ = [
    "COMPARATORS",
    "KINDS",
    "FigureError",
    "Quantity",
    "normalize_unit",
    "parse",
    "precision",
    "same_unit",
]


# --- parse ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Reading:
    """A figure read up to its numbers: the terms, their kind, and what stands around them."""

    raw: str
    s: str  # the cleaned text
    first: _Term
    terms: list[_Term]  # the first and any others
    kind: str
    comparator: str | None
    label: str | None
    currency: str | None
    # the first number as written (digits, scale exponent), for `precision`; None when the figure was
    # read in canonical spelling ("3.8 × 10^25"), whose first number as written is another one
    first_term: tuple[Decimal, int] | None
    rest: str = ""  # the text after the last number
    # the word joining a range's ends, "between" or "to": a range "between 20 and 10", and one of values
    # below zero joined by "to" ("-18 °C to -34 °C"), are read from either end. A dash joins them low end
    # first ("33–32" is refused), and so does "to" above zero, where a change reads the same ("from
    # roughly 700 to 480 words" is two figures, not a range)
    worded: str | None = None


def parse(raw: str) -> Quantity:
    """Parse one figure as written in a note. Raises FigureError with a short reason."""
    if not isinstance(raw, str):
        raise FigureError(raw, "a figure must be text")
    canonical, omap = _canonical(fold_forms(raw))
    s = _clean(canonical)
    if not s:
        raise FigureError(raw, "empty figure")
    s = _mask_groups(raw, s)
    start = _first_number(s)
    if start is None:
        return _parse_vague(raw, s)
    comparator, label, between, currency = _parse_prefix(raw, s[:start])
    first = _term(raw, s, start)
    assert first is not None  # _first_number found a number here
    # the first number as read from the figure as written is what `precision` would read
    first_term = (first.mant, first.exp) if omap is None else None
    r = _Reading(raw, s, first, [first], "value", comparator, label, currency, first_term)
    if first.active is not None:
        r.kind, pos = "moe", first.end
    elif between or _CONNECTOR.match(s, first.end) or _unit_then_range(s, first.end):
        pos = _read_terms(r, between)
    else:
        pos = first.end  # no arrow, dash, "to", colon or slash follows: a single number
    r.rest = rest = s[pos:]
    if _has_number(rest):
        if r.kind == "range" and _RANGE_SEP.match(rest):
            raise FigureError(raw, "a range has two ends")
        raise FigureError(raw, "more than one number: split it into separate figures")
    several = len(r.terms) > 1
    if several and any(t.active is not None for t in r.terms[1:]):
        raise FigureError(raw, "a MoE size cannot be part of a range, transition or ratio")
    if several or first.vague or first.plus or first.approx:  # else nothing to do there
        q = _vague_or_flagged(r)
        if q is not None:
            return q
    return _quantity(r)


def _unit_then_range(s: str, pos: int) -> bool:
    """A unit, then "to" or a dash ("44 mg to 50 mg"): tested only where such a separator follows."""
    return (" to " in s or "-" in s or "–" in s or "—" in s) and bool(_REPEAT_UNIT.match(s, pos))


def _read_terms(r: _Reading, between: str | None) -> int:
    """Read the numbers after the first (a range, transition or ratio); set r.kind; the end offset."""
    raw, s, first = r.raw, r.s, r.first
    pos = first.end
    if between:
        unit = _SPAN_UNIT.match(s, pos)
        at = unit.end() if unit else pos  # "between 44 mg and 50 mg", also "between 44 mg to 50 mg"
        m = (_AND.match(s, at) or _TO.match(s, at)) if between == "between" else _TO.match(s, at)
        t = _term(raw, s, m.end()) if m else None
        if t is None:
            example = "'between 10 and 20'" if between == "between" else "'from 4K to 128K'"
            raise FigureError(raw, f"'{between}' needs two numbers: {example}")
        r.terms.append(t)
        r.kind, pos = ("range" if between == "between" else "transition"), t.end
        r.worded = between
    elif (m := _ARROW.match(s, pos)) and (t := _term(raw, s, m.end())):
        r.kind = "transition"
        while t is not None:
            r.terms.append(t)
            pos = t.end
            m = _ARROW.match(s, pos)
            t = _term(raw, s, m.end()) if m else None
    elif (m := _RANGE_SEP.match(s, pos)) and (t := _term(raw, s, m.end())):
        r.kind, r.worded = "range", "to" if "to" in m.group(0).lower() else None
        r.terms.append(t)
        pos = t.end
    elif (
        (m := _REPEAT_UNIT.match(s, pos))
        and (t := _term(raw, s, m.end()))
        and _repeated_unit_end(s, t, m)
    ):
        r.kind = "range"  # "44 mg to 50 mg": the unit on both ends
        r.worded = "to" if "to" in s[m.end("u") : m.end()].lower() else None
        r.terms.append(t)
        pos = t.end
    elif (m := _RATIO_SEP.match(s, pos)) and (t := _term(raw, s, m.end())):
        r.kind = "ratio"
        sep = m.group(1)
        while t is not None:
            r.terms.append(t)
            pos = t.end
            m = _RATIO_SEP.match(s, pos)
            t = _term(raw, s, m.end()) if m and m.group(1) == sep else None
    return pos


def _vague_or_flagged(r: _Reading) -> Quantity | None:
    """Qualifiers glued to the number ("1,000+", "20-ish", "30-odd"): a vague number is text (returned);
    "+" and "-ish" set r.comparator. None when the figure goes on to be read as numbers."""
    raw, terms, first = r.raw, r.terms, r.first
    single = len(terms) == 1  # most figures: the checks over every term below need only the first
    if first.vague if single else any(t.vague for t in terms):
        if len(terms) > 1:
            raise FigureError(raw, "a vague number cannot be part of a range, transition or ratio")
        unit, counted = _rest_unit(raw, r.rest, None)
        return Quantity(
            raw=raw,
            kind="text",
            comparator=r.comparator or "=",
            unit=unit,
            counted=counted or r.label,
            first_term=r.first_term,
        )
    if (first.plus or first.approx) if single else any(t.plus or t.approx for t in terms):
        if len(terms) > 1:
            raise FigureError(raw, "'+' or '-ish' only applies to a single number")
        glued_cmp = ">=" if first.plus else "~"
        if first.plus and first.approx:
            raise FigureError(raw, "conflicting qualifiers")
        if r.comparator is not None and r.comparator != glued_cmp:
            raise FigureError(raw, "conflicting qualifiers")
        r.comparator = glued_cmp
    r.comparator = r.comparator or "="
    return None


def _glued_unit(r: _Reading) -> str | None:
    """The unit glued to the numbers (one, or the same on each), or the currency before them."""
    raw, terms = r.raw, r.terms
    if len(terms) == 1:
        glued = r.first.unit
    else:
        glued_units = [t.unit for t in terms if t.unit is not None]
        for u in glued_units[1:]:
            if not same_unit(u, glued_units[0]):
                raise FigureError(
                    raw, f"the numbers have different units: {glued_units[0]!r} and {u!r}"
                )
        glued = glued_units[0] if glued_units else None
    if r.currency is not None:
        if glued is not None:
            raise FigureError(raw, f"a currency amount cannot also be in {glued!r}")
        glued = r.currency
    return glued


def _quantity(r: _Reading) -> Quantity:
    """The Quantity of a figure read as numbers, of its kind."""
    raw, kind, terms, first = r.raw, r.kind, r.terms, r.first
    single = len(terms) == 1
    # a scale on the second end of a range applies to both when the first has none: "32–33T"
    if kind == "range" and not first.has_scale and not first.scientific and terms[1].has_scale:
        first.exp = terms[1].exp
        r.worded = None  # "100 to 2K" read as 100K to 2K is refused, not turned round
    glued = first.unit if single and r.currency is None else _glued_unit(r)
    unit, counted = _rest_unit(raw, r.rest, glued)
    if not counted:
        counted = (
            first.counted if single else next((t.counted for t in terms if t.counted), None)
        ) or r.label
    if single:  # most figures: one value
        value = _to_float(raw, first.mant, first.exp, first.text)
        if kind == "value":
            return Quantity(
                raw=raw,
                kind="value",
                comparator=r.comparator or "=",
                value=value,
                unit=unit,
                counted=counted,
                first_term=r.first_term,
            )
        return _moe(r, value, counted)
    return _several(r, [_to_float(raw, t.mant, t.exp, t.text) for t in terms], unit, counted)


def _moe(r: _Reading, total: float, counted: str | None) -> Quantity:
    """A MoE size ("355B-A32B"): its total and active parameters."""
    mant, exp = r.first.active  # type: ignore[misc]
    active = _to_float(r.raw, mant, exp, r.first.text)
    if active > total:
        raise FigureError(r.raw, "active parameters exceed the total")
    return Quantity(
        raw=r.raw,
        kind="moe",
        comparator=r.comparator or "=",
        value=total,
        active=active,
        unit="parameters",
        counted=counted,
        first_term=r.first_term,
    )


def _several(r: _Reading, values: list[float], unit: str | None, counted: str | None) -> Quantity:
    """A range, transition or ratio of `values`."""
    of_kind = partial(
        Quantity,
        raw=r.raw,
        comparator=r.comparator or "=",
        unit=unit,
        counted=counted,
        first_term=r.first_term,
    )
    if r.kind == "range":
        low, high = values
        if low > high and (r.worded == "between" or (r.worded == "to" and low < 0)):
            # "between 20 and 10", "from -18 °C to -34 °C": the same span, written from its high end
            low, high = high, low
        if low > high:
            raise FigureError(
                r.raw,
                f"range low end {r.terms[0].text!r} is above the high end {r.terms[1].text!r}",
            )
        return of_kind(kind="range", low=low, high=high)
    if r.kind == "transition":
        return of_kind(kind="transition", start=values[0], end=values[-1], steps=tuple(values))
    return of_kind(kind="ratio", steps=tuple(values))


# --- precision ------------------------------------------------------------------------------------


def precision(figure: Quantity | str) -> float | None:
    """The step of the last digit of the figure's first number: 1e11 for "5.9T", 1e3 for "16K", 1 for
    "466". None if the figure has no number. Never raises. A parsed figure carries its first number
    (`first_term`, when `parse` read it from the figure as written); otherwise it is read from the text."""
    if isinstance(figure, Quantity):
        first = figure.first_term if figure.first_term is not None else _first_term(figure.raw)
    else:
        first = _first_term(figure)
    if first is None:
        return None
    exponent = first[0].as_tuple().exponent
    if not isinstance(exponent, int):
        return None
    try:
        return 10.0 ** (int(exponent) + first[1])
    except OverflowError:  # "1e400 steps": no float holds that step
        return None


# A figure's first number read from its text: pure, and asked for the same stored figures again (a
# store's figures in `claims check`, verify's claim figures); a bounded number of them remembered.
@lru_cache(maxsize=32_768)
def _first_term(raw: str) -> tuple[Decimal, int] | None:
    first = _read_first_term(raw)
    if first is None and "\\" in raw:  # siunitx: "\num{16384}" is written as precisely as "16384"
        first = _read_first_term(_canonical(raw)[0])
    return first


def _read_first_term(raw: str) -> tuple[Decimal, int] | None:
    try:
        s = _mask_groups(raw, _clean(raw))
        start = _first_number(s)
        t = _term(raw, s, start) if start is not None else None
    except FigureError:
        t = None
    return (t.mant, t.exp) if t is not None else None


def _parse_vague(raw: str, s: str) -> Quantity:
    """Text without a number: a vague-number phrase ("hundreds of thousands") or an error."""
    m = _VAGUE.search(s)
    if not m:
        raise FigureError(raw, "no number in figure")
    prefix = " ".join(s[: m.start()].replace("\x00", " ").split())
    comparator = "="
    unit = counted = None
    if prefix and _QUAL_FULL.fullmatch(prefix):
        comparator = _QUALIFIERS[" ".join(prefix.lower().split())]
    if not prefix or comparator != "=":
        rest = re.sub(r"^\s*of(?!\w)", "", s[m.end() :], flags=re.I)
        try:
            unit, counted = _rest_unit(raw, rest, None)
        except FigureError:
            unit = counted = (
                None  # "thousands of K..." : no unit rather than an error on vague text
            )
    return Quantity(raw=raw, kind="text", comparator=comparator, unit=unit, counted=counted)
