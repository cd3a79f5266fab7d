"""Find a claim's evidence in a page's text, checking its figures as numbers, never as strings.

`locate(text, quote=..., figures=..., hint=..., names=...)` returns a `Location` with one of these outcomes:

- "confirmed": the quote is in the page (after `normalize`) and every figure is in the passage;
  without a quote: every figure is found on the page, each on its own.
- "reworded": the quote is not in the page word for word, but a passage similar enough is
  (word-level similarity >= FUZZY_THRESHOLD) and every figure is in it.
- "rounded" (no quote): every figure is found, at least one as a more precise value that rounds to it
  ("5.93 Trillion" for "5.9T").
- "partial" (no quote): some figures are found and some are not; `missing` lists those, and `changes`
  pairs a missing one with a figure of the same measure standing beside the found ones.
- "figure-changed": the passage is there but a figure is not: `changes` pairs the claim's figure
  with the page figure found in its place, `missing` lists figures with no counterpart.
- "not-found": no passage (or, without a quote, none of the figures and no changed figure).
- "nothing-to-check": the claim has no figure and no quote.

Decisions:
- Whether a page figure is the claim's is `claimsdb.figures.match`'s verdict ("same", or "rounded"),
  with the page as the claim's own source (its subject counts as named) and the words before the page
  figure on its line as what may say what it counts: "GPUs: 2,048" and "| H800 | 2,048" state 2,048
  GPUs, while "Figure 16" is never "16 GPUs"; a labelled claim figure ("max_off_policy_steps = 8") needs
  its label there. A value inside a claimed range does not state the range; one step on the page does
  not state a change, but consecutive figures do ("from 4K to 32K and then to 128K" states 32K → 128K);
  a MoE size may be written as its total and active counts within 150 characters. A figure without a
  number ("hundreds of thousands") must appear word for word.
- Without a quote, each figure is located on its own, anywhere on the page, at the place with the most
  hint words around it (the claim's subject and statement, and twice the figure's own name, such as
  "prefill unit"); `figures` reports each one found, rounded or missing, with its passage. A weak figure
  (a bare small whole number such as "two" or "28", which any page has) counts only where half the hint
  words stand around it. "figure-changed" needs a window with 60 % of the hint words and a figure of the
  same measure within a factor of 10 of the claim's value, but not equal to it.
- A quote made only of figures ("14.8T tokens") that is not in the page word for word is looked
  for as figures, as without a quote; found so, it is "reworded" (written differently), never
  "confirmed".
- With a quote, the figures the quote itself contains (the claim's and any other number in it) must
  be in the matched words; the claim's other figures may be anywhere in the passage (the match with
  some context, at most PASSAGE_CHARS). An exact match is word-bounded, so "8 GPUs" is not found in
  "128 GPUs"; when the quote occurs several times, the first occurrence with all figures is used.
- The fuzzy match compares words (difflib, autojunk off) in a few candidate regions chosen by where
  the quote's rarer words occur; only those regions are split into words. It needs at least
  _MIN_FUZZY_WORDS words in common: "SFT, CISPO RL" against "SFT and RL" is two words of three, which
  says nothing; a quote that short must be found word for word.
- A replacement found by unit alone (figures outside the quote, or without a quote) must be within
  a factor of 10 of the claim's value and in the same paragraph.
- Bounded memory: a page up to FULL_SCAN_CHARS is scanned whole once (cached for the next claims);
  a larger one is never split into words or copied per character: the quote is searched with one
  pattern over the text, and figures are read only in windows around the places where the claim's
  digits (or number words) and words stand, at most _MAX_WINDOWS per figure, nearest the claim's
  words first. Locating costs a small constant times the page's size.
- `score` is the word similarity of quote and passage (1.0 for an exact match); without a quote, or
  for a figures-only quote found as figures, it is the share of hint words in the passage (1.0 with
  no hint words).
Pure functions; the page's figures are cached for the few most recent pages, since `claims verify`
locates many claims in one page.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import lru_cache

from claimsdb.figures import REL_TOLERANCE, Context, Found, Quantity, Verdict, match, scan
from claimsdb.figures.matching import ROUNDED, SAME
from claimsdb.figures.parser import precision
from claimsdb.figures.vocabulary import DASHES, HINT_STOP_WORDS

__all__ = [
    "FUZZY_THRESHOLD",
    "OUTCOMES",
    "PASSAGE_CHARS",
    "WINDOW_CHARS",
    "FigureReport",
    "Location",
    "locate",
    "normalize",
]

OUTCOMES = (
    "confirmed",
    "reworded",
    "rounded",
    "partial",
    "figure-changed",
    "not-found",
    "nothing-to-check",
)
FUZZY_THRESHOLD = (
    0.6  # below this a "similar" passage is too often a different sentence on the same topic
)
PASSAGE_CHARS = 400
WINDOW_CHARS = 300
_PAIR_CHARS = 150  # how far apart a MoE size's total and active counts may be
_RUN_GAP_CHARS = 40  # the most text between consecutive figures of one transition
_MAX_OCCURRENCES = 20  # exact occurrences of a quote examined
_CANDIDATES = 12  # fuzzy candidate regions examined
_MIN_FUZZY_WORDS = (
    4  # a fuzzy match shares at least this many words with the quote: shorter quotes match exactly
)
_COMMON = 2000  # a word occurring more often than this says nothing about where the quote is
FULL_SCAN_CHARS = (
    1_000_000  # a page up to this size is read whole; a larger one in windows (bounded memory)
)
_MAX_POSITIONS = 20_000  # places where a figure's digits stand, examined on a large page
_MAX_HINT_POSITIONS = 20_000  # places where the claim's words stand, examined on a large page
_MAX_WINDOWS = 200  # windows read per figure on a large page, those nearest the claim's words first
# Without a quote, the share of the hint's words that must stand around a weak figure (a bare small number):
# "28" next to one generic word ("train") on another model's page is not the claim's.
_WEAK_SHARE = 1 / 2
_CHANGED_SHARE = (
    0.6  # and for "figure-changed" without a quote, where nothing else anchors the passage
)
_MAGNITUDE = 10.0  # a figure paired by unit alone must be within this factor of the claim's


@dataclass(frozen=True)
class FigureReport:
    """One claim figure located on its own (no quote): found, rounded (the page is more precise) or missing."""

    figure: str  # the claim's figure as written
    status: str  # "found" | "rounded" | "missing"
    found: str | None = None  # the page's words for it
    passage: str | None = None


@dataclass(frozen=True)
class Location:
    """Where a claim's evidence stands in a page. See the module docstring for each field."""

    outcome: str  # one of OUTCOMES
    passage: str | None
    score: float
    changes: tuple[tuple[str, str], ...] = ()
    missing: tuple[str, ...] = ()
    figures: tuple[FigureReport, ...] = ()  # without a quote: each figure, found or missing


# --- normalisation ------------------------------------------------------------------------------------

_ONE_TO_ONE = str.maketrans(
    {
        **{c: "-" for c in DASHES},
        **{c: "'" for c in "‘’‚‛′"},
        **{c: '"' for c in "“”„‟″"},
        **{c: " " for c in "\u00a0\u2007\u2009\u200a\u202f\u205f\u3000"},
    }
)
_DROP = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")  # soft hyphen, zero-width characters
_NONSPACE = re.compile(r"\S+")


def normalize(text: str) -> str:
    """Case-folded text with whitespace collapsed and stripped, dashes as "-", special spaces as " ",
    curly quotes straight, zero-width characters and soft hyphens removed; "×" is kept."""
    return _normalize_map(text)[0]


def _normalize_map(text: str) -> tuple[str, list[int]]:
    """normalize(text) and, for each of its characters, the offset of the character it came from."""
    t = text.translate(_ONE_TO_ONE)  # one character for one: offsets still match `text`
    parts: list[str] = []
    where: list[int] = []
    for m in _NONSPACE.finditer(t):
        tok, start = m.group(0), m.start()
        folded = tok.casefold()
        if len(folded) == len(tok) and not _DROP.search(tok):
            piece, offsets = folded, range(start, start + len(tok))
        else:  # "ß" -> "ss", "ﬁ" -> "fi", or characters to drop: map each one
            chars: list[str] = []
            offs: list[int] = []
            for k, ch in enumerate(tok):
                if _DROP.match(ch):
                    continue
                f = ch.casefold()
                chars.append(f)
                offs.extend([start + k] * len(f))
            piece, offsets = "".join(chars), offs
        if not piece:
            continue
        if parts:
            parts.append(" ")
            where.append(start - 1)
        parts.append(piece)
        where.extend(offsets)
    return "".join(parts), where


# --- the page -------------------------------------------------------------------------------------------

_WORD = re.compile(r"\w+(?:[.,'/:-]\w+)*")


@dataclass(frozen=True)
class _Figures:
    """Page figures (from scan) with their start and end offsets, for bisecting."""

    all: tuple[Found, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @staticmethod
    def of(found: list[Found]) -> _Figures:
        return _Figures(tuple(found), tuple(f.start for f in found), tuple(f.end for f in found))

    def between(self, a: int, b: int) -> list[Found]:
        """The figures overlapping text[a:b]; figures do not overlap, so ends are sorted too."""
        return list(self.all[bisect_right(self.ends, a) : bisect_left(self.starts, b)])


@dataclass
class _Page:
    text: str
    figures: _Figures | None  # the whole page's figures, or None for a page read in windows
    windows: dict[tuple[int, int], _Figures]  # figures of the windows read so far (large pages)


@lru_cache(maxsize=4)
def _page(text: str) -> _Page:
    whole = _Figures.of(scan(text)) if len(text) <= FULL_SCAN_CHARS else None
    return _Page(text, whole, {})


_EDGE = 80  # characters read past a window's ends, so that a figure cut by the window is read whole


def _figures_in(page: _Page, a: int, b: int) -> list[Found]:
    """The page figures overlapping text[a:b]."""
    if page.figures is not None:
        return page.figures.between(a, b)
    lo, hi = max(0, a - _EDGE), min(len(page.text), b + _EDGE)
    cached = page.windows.get((lo, hi))
    if cached is None:
        found = [Found(f.start + lo, f.end + lo, f.raw, f.quantity) for f in scan(page.text[lo:hi])]
        cached = _Figures.of([f for f in found if f.start >= a - _EDGE // 2 or f.start > lo])
        if len(page.windows) > 4096:
            page.windows.clear()  # bounded: a page read in windows never holds more than a few thousand
        page.windows[(lo, hi)] = cached
    return cached.between(a, b)


# --- figures: when a page figure is the claim's --------------------------------------------------------


def _same(a: float | None, b: float | None) -> bool:
    return (
        a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=REL_TOLERANCE)
    )


def _same_seq(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


_BEFORE_CHARS = 40  # the words before a page figure that may say what it counts ("GPUs: 2,048", "| H800 | 2,048")


def _context(text: str, f: Found, name: str | None = None) -> Context:
    """The page is the claim's own source, so its subject counts as named. What the figure counts may
    stand before it on its line, or head its table column."""
    before = text[max(0, f.start - _BEFORE_CHARS) : f.start]
    cut = max(before.rfind("\n"), before.rfind(". "))  # only its own line and sentence
    return Context(subject=True, words=f"{_column(text, f.start)} {before[cut + 1 :]}", name=name)


_TABLE_LINES = 500  # how far up a table's header may be


def _column(text: str, pos: int) -> str:
    """The header of the table column that text[pos] stands in, or "". A page's table is a run of lines
    of tab-separated cells (verify.text; an HTML table may leave a blank line between rows); its first
    line is the header: "5.93 Trillion" under "Training Tokens" counts tokens."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    if "\t" not in text[start : end if end >= 0 else len(text)]:
        return ""
    column = text.count("\t", start, pos)
    top = start
    for _ in range(_TABLE_LINES):
        if top == 0:
            break
        above = text.rfind("\n", 0, top - 1) + 1
        if "\t" in text[above : top - 1]:
            top = above
        elif (
            above == top - 1
            and above > 0
            and "\t" in text[text.rfind("\n", 0, above - 1) + 1 : above - 1]
        ):
            top = text.rfind("\n", 0, above - 1) + 1  # a blank line between two rows
        else:
            break
    if top == start:
        return ""  # the header row itself
    header = text[top : text.find("\n", top)].split("\t")
    return header[column] if column < len(header) else ""


def _verdict(q: Quantity, f: Found, text: str, name: str | None = None) -> Verdict:
    return match(q, f.quantity, _context(text, f, name))


def _states(v: Verdict, q: Quantity) -> bool:
    """The page figure is the claim's: the same, or a more precise value that rounds to it. A value inside
    a claimed range does not state the range."""
    return v.verdict in (SAME, ROUNDED)


def _near(wanted: tuple[float, ...], f: Found, step: float = 0.0) -> bool:
    """A cheap test before asking the matcher: some number of f is within 10 % (or one step of the claim's
    precision) of one of `wanted`."""
    return any(
        abs(n - m) <= max(0.1 * abs(m), step) + 1e-12 for n in f.quantity.numbers() for m in wanted
    )


def _same_measure(q: Quantity, f: Found, text: str) -> bool:
    """f counts what q counts, or nothing says otherwise (its numbers aside)."""
    n = f.quantity.numbers()[0]
    return (
        _verdict(_value(q, n), Found(f.start, f.end, f.raw, _value(f.quantity, n)), text).verdict
        == SAME
    )


def _value(q: Quantity, n: float) -> Quantity:
    return Quantity(raw=q.raw, kind="value", value=n, unit=q.unit, counted=q.counted)


def _steps(q: Quantity) -> tuple[float, ...]:
    return tuple(float(s) for s in q.steps) or tuple(n for n in (q.start, q.end) if n is not None)


def _occurrences(
    q: Quantity, figs: list[Found], text: str, name: str | None = None
) -> list[tuple[int, int, tuple[int, ...]]]:
    """Where claim figure q stands among page figures `figs`: (start, end, indices of figs used)."""
    out: list[tuple[int, int, tuple[int, ...]]] = []
    wanted, step = q.numbers(), precision(q) or 0.0
    for i, f in enumerate(figs):
        if f.quantity.kind == "text" or (
            q.kind == "transition" and f.quantity.kind not in ("transition", "range")
        ):
            continue  # one step on a page does not state a change
        if _near(wanted, f, step) and _states(_verdict(q, f, text, name), q):
            out.append((f.start, f.end, (i,)))
    if q.kind == "transition":
        out.extend(_runs(q, figs, text))
    elif q.kind == "moe":
        out.extend(_moe_pairs(q, figs, text))
    return sorted(set(out))


def _rounded(q: Quantity, figs: list[Found], text: str, name: str | None = None) -> bool:
    """Whether the page states q only more precisely at this one figure (a run of several states it)."""
    return len(figs) == 1 and _verdict(q, figs[0], text, name).verdict == ROUNDED


def _runs(q: Quantity, figs: list[Found], text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """Consecutive value/transition figures whose numbers, in order, are the transition's steps."""
    want = _steps(q)
    out = []
    for i in range(len(figs)):
        if not _near(want, figs[i]):
            continue  # a run starts at one of the change's steps (or just before it)
        got: tuple[float, ...] = ()
        j = i
        while j < len(figs) and len(got) < len(want) + 2:
            f = figs[j]
            if f.quantity.kind not in ("value", "transition") or not _same_measure(q, f, text):
                break
            if j > i and f.start - figs[j - 1].end > _RUN_GAP_CHARS:
                break
            got += f.quantity.numbers()
            j += 1
            if j - i > 1 and len(got) >= len(want) and _same_seq(got[-len(want) :], want):
                # the change's steps end the run: "from 4K to 32K and then to 128K" states 32K → 128K
                out.append((figs[i].start, figs[j - 1].end, tuple(range(i, j))))
                break
    return out


def _moe_pairs(q: Quantity, figs: list[Found], text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """A MoE size written out: "355B total parameters, 32B of them active"."""
    out = []
    for i, a in enumerate(figs):
        if (
            a.quantity.kind != "value"
            or not _near((float(q.value or 0),), a)
            or _verdict(_value(q, q.value), a, text).verdict != SAME
        ):
            continue
        for j, b in enumerate(figs):
            if (
                j != i
                and b.quantity.kind == "value"
                and abs(b.start - a.start) <= _PAIR_CHARS
                and _near((float(q.active or 0),), b)
                and _verdict(_value(q, q.active), b, text).verdict == SAME
            ):
                out.append((min(a.start, b.start), max(a.end, b.end), tuple(sorted((i, j)))))
    return out


def _text_occurrences(
    raw: str, text: str, a: int, b: int
) -> list[tuple[int, int, tuple[int, ...]]]:
    """A figure without a number ("hundreds of thousands"), word for word in text[a:b]."""
    return [(a, b, ())] if _contains_words(normalize(text[a:b]), normalize(raw)) else []


def _contains_words(hay: str, needle: str) -> bool:
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", hay) is not None


def _same_order(q: Quantity, f: Found) -> bool:
    """Within a factor of _MAGNITUDE: a revised figure, not another quantity with the same unit."""
    a, b = q.numbers(), f.quantity.numbers()
    if not a or not b or a[0] == 0 or b[0] == 0:
        return bool(a and b) and a[0] == b[0]
    return abs(a[0]) / abs(b[0]) <= _MAGNITUDE and abs(b[0]) / abs(a[0]) <= _MAGNITUDE


def _weak(q: Quantity) -> bool:
    """A bare small whole number ("two", "28") or a figure without a number: it could be anything."""
    if not q.numbers():
        return True
    return (
        q.kind == "value"
        and q.unit is None
        and not q.counted
        and abs(float(q.value or 0)) < 1000
        and float(q.value or 0).is_integer()
    )


def _comparable(q: Quantity, f: Found, loose: bool, text: str = "") -> bool:
    """Could f be q with another value: it counts the same thing (or, loose, nothing says it differs)."""
    if f.quantity.kind == "text" or not f.quantity.numbers():
        return False
    measure = _verdict(q, f, text).measure
    return (
        measure == "agree"
        and bool(f.quantity.unit or f.quantity.counted)
        or (loose and measure == "unknown")
    )


# --- checking a passage ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Need:
    q: Quantity
    raw: str
    in_quote: bool
    rel: float  # where it stands in the quote (0..1); 0.5 when not in the quote


def _needs(quote: str | None, figures: list[Quantity]) -> list[_Need]:
    """The claim's figures, then the quote's other figures; marked when the quote contains them."""
    qfigs = scan(quote) if quote else []
    qlen = max(1, len(quote or ""))
    needs = []
    used: set[int] = set()
    for q in figures:
        if not q.numbers():
            needs.append(
                _Need(q, q.raw, _contains_words(normalize(quote or ""), normalize(q.raw)), 0.5)
            )
            continue
        hits = [
            (idxs[0], qfigs[idxs[0]]) for _, _, idxs in _occurrences(q, qfigs, quote or "") if idxs
        ]
        if hits:
            i, f = hits[0]
            used.update(i for i, _ in hits)
            needs.append(_Need(q, q.raw, True, f.start / qlen))
        else:
            needs.append(_Need(q, q.raw, False, 0.5))
    for i, f in enumerate(qfigs):
        if i not in used and f.quantity.numbers():
            needs.append(_Need(f.quantity, f.raw, True, f.start / qlen))
    return needs


def _where(
    page: _Page, need: _Need, figs: list[Found], a: int, b: int
) -> list[tuple[int, int, tuple[int, ...]]]:
    if not need.q.numbers():
        return _text_occurrences(need.raw, page.text, a, b)
    return _occurrences(need.q, figs, page.text)


_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def _check(
    page: _Page,
    needs: list[_Need],
    span: tuple[int, int],
    passage: tuple[int, int],
    anchor: tuple[int, int] | None = None,
) -> tuple[list[tuple[str, str]], list[str]]:
    """(changes, missing) for the needs: quote figures within `span`, the others within `passage`.
    A figure outside the quote is paired with a replacement only in the paragraph of `anchor` (the
    quote by default): the passage's context may reach into the next section, which says other things."""
    anchor = anchor or span
    pools = {True: _figures_in(page, *span), False: _figures_in(page, *passage)}
    used: set[Found] = set()
    absent: list[_Need] = []
    for need in needs:
        pool = pools[need.in_quote]
        a, b = span if need.in_quote else passage
        found = _where(page, need, pool, a, b)
        if found:
            used.update(pool[i] for i in found[0][2])
        else:
            absent.append(need)
    changes: list[tuple[str, str]] = []
    missing: list[str] = []
    for need in absent:
        a, b = span if need.in_quote else passage
        expected = a + need.rel * (b - a)
        pool = [
            f
            for f in pools[need.in_quote]
            if f not in used
            and _comparable(need.q, f, need.in_quote, page.text)
            and (
                need.in_quote
                or not _BLANK_LINE.search(page.text, min(f.end, anchor[0]), max(f.start, anchor[1]))
            )
        ]
        if not pool or not need.q.numbers():
            missing.append(need.raw)
            continue
        if not need.in_quote:
            pool = [
                f for f in pool if _same_order(need.q, f)
            ]  # paired by unit alone: "30T" is not "128K"
            if not pool:
                missing.append(need.raw)
                continue
        best = min(
            pool,
            key=lambda f: (not _comparable(need.q, f, False, page.text), abs(f.start - expected)),
        )
        used.add(best)
        changes.append((need.raw, best.raw))
    return changes, missing


_SPACE = re.compile(r"\s")


def _passage(text: str, a: int, b: int, size: int = PASSAGE_CHARS) -> tuple[int, int]:
    """text[a:b] widened to about `size` characters in all, on both sides, cut at whitespace."""
    budget = max(0, size - (b - a))
    left = max(0, a - budget // 2)
    right = min(len(text), b + budget - (a - left))
    left = max(0, a - (budget - (right - b)))  # what the right side could not use goes left
    if left > 0:
        m = _SPACE.search(text, left, a)
        left = m.end() if m else a
    if right < len(text):
        cut = max(text.rfind(" ", b, right), text.rfind("\n", b, right))
        right = cut if cut != -1 else b
    while left < a and text[left].isspace():
        left += 1
    while right > b and text[right - 1].isspace():
        right -= 1
    return left, right


# --- quote: exact, then fuzzy ------------------------------------------------------------------------------


_SPACES_CLASS = "[\\s\u00a0\u2007\u2009\u200a\u202f\u205f\u3000]+"
_CLASSES = {"-": f"[-{DASHES}]", "'": "['‘’‚‛′]", '"': '["“”„‟″]'}
_SOFT = "[\u00ad\u200b-\u200d\u2060\ufeff]*"


def _quote_pattern(needle: str) -> re.Pattern:
    """A normalised needle as a pattern over the original text: any case, any run of spaces, any dash or
    quote mark, soft hyphens and zero-width characters anywhere; word-bounded at alphanumeric ends."""
    parts = []
    for token in needle.split(" "):
        parts.append(_SOFT.join(_CLASSES.get(ch, re.escape(ch)) for ch in token))
    body = _SPACES_CLASS.join(parts)
    left = "(?<!\\w)" if needle[:1].isalnum() else ""
    right = "(?!\\w)" if needle[-1:].isalnum() else ""
    return re.compile(left + body + right, re.I)


def _exact_spans(page: _Page, needle: str) -> list[tuple[int, int]]:
    """Word-bounded occurrences of a normalised needle, as offsets in the page text."""
    out = []
    for m in _quote_pattern(needle).finditer(page.text):
        out.append((m.start(), m.end()))
        if len(out) >= _MAX_OCCURRENCES:
            break
    return out


def _region_words(text: str, a: int, b: int) -> tuple[list[str], list[int], list[int]]:
    """The normalised words of text[a:b] with their start and end offsets in text."""
    region = text[a:b].translate(_ONE_TO_ONE)
    words, starts, ends = [], [], []
    for m in _WORD.finditer(_DROP.sub(lambda d: " " * len(d.group(0)), region)):
        words.append(m.group(0).casefold())
        starts.append(a + m.start())
        ends.append(a + m.end())
    return words, starts, ends


def _fuzzy(page: _Page, quote_words: list[str]) -> tuple[float, int, int] | None:
    """(similarity, start, end) of the page passage most like the quote's words, or None.

    Candidate regions are where the quote's rarer words stand (a word found more than _COMMON times
    says nothing); only those regions are split into words, so the cost is one search per quote word
    over the page plus a few small comparisons, whatever the page's size."""
    n = len(quote_words)
    if n < _MIN_FUZZY_WORDS or not page.text:
        return None
    quote_len = sum(len(w) + 1 for w in quote_words)
    width = max(40, quote_len // 2)
    votes: dict[int, float] = defaultdict(float)
    offset = 0
    for w in quote_words:
        hits = []
        for m in re.finditer(rf"(?<!\w){re.escape(w)}(?!\w)", page.text, re.I):
            hits.append(m.start())
            if len(hits) > _COMMON:
                break
        if hits and len(hits) <= _COMMON:
            weight = 1.0 / len(hits)  # a rare word says more about where the quote is
            for p in hits:
                votes[(p - offset) // width] += weight
        offset += len(w) + 1
    smooth = {b: votes[b] + 0.5 * (votes.get(b - 1, 0.0) + votes.get(b + 1, 0.0)) for b in votes}
    best: tuple[float, int, int] | None = None
    for b in sorted(smooth, key=lambda k: (-smooth[k], k))[:_CANDIDATES]:
        lo = max(0, (b - 1) * width - quote_len)
        hi = min(len(page.text), (b + 2) * width + 2 * quote_len)
        region, starts, ends = _region_words(page.text, lo, hi)
        sm = SequenceMatcher(None, quote_words, region, autojunk=False)
        blocks = [blk for blk in sm.get_matching_blocks() if blk.size]
        if not blocks:
            continue
        first, last, big = blocks[0], blocks[-1], max(blocks, key=lambda blk: blk.size)
        windows = {
            # all matched words, widened by the quote words left unmatched at either end
            (first.b - first.a, last.b + last.size + (n - last.a - last.size)),
            # the quote laid over its longest matching run
            (big.b - big.a, big.b - big.a + n),
        }
        for s, e in windows:
            s, e = max(0, s), min(len(region), e)
            if e <= s:
                continue
            sm = SequenceMatcher(None, quote_words, region[s:e], autojunk=False)
            if sum(blk.size for blk in sm.get_matching_blocks()) < _MIN_FUZZY_WORDS:
                continue
            ratio = sm.ratio()
            if best is None or ratio > best[0]:
                best = (ratio, starts[s], ends[e - 1])
    return best


def _figures_only(quote: str) -> bool:
    """True if the quote has figures and no words besides them ("14.8T tokens", "2,048 H800")."""
    found = scan(quote)
    rest = quote
    for f in reversed(found):
        rest = rest[: f.start] + " " + rest[f.end :]
    return bool(found) and not [w for w in _WORD.findall(normalize(rest)) if w not in _STOP]


def _with_quote(page: _Page, quote: str, figures: list[Quantity], hint: str | None) -> Location:
    needs = _needs(quote, figures)
    every = tuple(q.raw for q in figures)
    nq = normalize(quote)
    first: Location | None = None
    for a, b in _exact_spans(page, nq) if nq else []:
        left, right = _passage(page.text, a, b)
        changes, missing = _check(page, needs, (a, b), (left, right))
        outcome = "figure-changed" if changes or missing else "confirmed"
        loc = Location(outcome, page.text[left:right], 1.0, tuple(changes), tuple(missing))
        if outcome == "confirmed":
            return loc
        first = first or loc
    if first is not None:
        return first
    if _figures_only(quote):
        # A quote that is only figures ("14.8T tokens") may be written differently on the page
        # ("14.8 trillion tokens"): look for its numbers as figures, as without a quote.
        loc = _without_quote(page, [need.q for need in needs], hint)
        return replace(loc, outcome="reworded") if loc.outcome == "confirmed" else loc
    found = _fuzzy(page, _WORD.findall(nq))
    if found is None or found[0] < FUZZY_THRESHOLD:
        return Location("not-found", None, round(found[0], 3) if found else 0.0, (), every)
    ratio, a, b = found
    left, right = _passage(page.text, a, b)
    changes, missing = _check(page, needs, (a, b), (left, right))
    outcome = "figure-changed" if changes or missing else "reworded"
    return Location(outcome, page.text[left:right], round(ratio, 3), tuple(changes), tuple(missing))


# --- no quote: the figures together ------------------------------------------------------------------------

_STOP = HINT_STOP_WORDS


def _stem(word: str) -> str:
    w = word.replace("-", "").replace("'", "")
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)][:8]
    return w[:8]


def _hint_stems(hint: str | None, figures: list[Quantity]) -> set[str]:
    if not hint:
        return set()
    own = {_stem(w) for q in figures for w in _WORD.findall(normalize(q.raw))}
    return {
        _stem(w)
        for w in _WORD.findall(normalize(hint))
        if w not in _STOP and not w[0].isdigit() and len(w) > 1
    } - own


def _stems_in(page: _Page, a: int, b: int) -> set[str]:
    return {_stem(w) for w in _region_words(page.text, a, b)[0]}


def _around(page: _Page, a: int, b: int) -> tuple[int, int]:
    """A window of WINDOW_CHARS centred on text[a:b] (or text[a:b] itself if longer)."""
    extra = max(0, WINDOW_CHARS - (b - a)) // 2
    return max(0, a - extra), min(len(page.text), b + extra)


# --- a large page: where to read -------------------------------------------------------------------------


def _digits(n: float) -> str:
    """The significant digits of a number: "148" for 14.8e12, "2048" for 2048."""
    mantissa = f"{abs(n):.12e}".split("e")[0].replace(".", "").rstrip("0")
    return mantissa or "0"


def _number_pattern(q: Quantity) -> re.Pattern:
    """Where a page may write one of q's numbers: its leading significant digits, with any separator."""
    alternatives = set()
    for n in q.numbers():
        digits = _digits(n)[:3]
        alternatives.add("(?<![\\d.])" + "[.,\\s\u2009\u202f]?0*".join(digits))
        if float(n).is_integer() and 0 <= n < 100:
            alternatives.add(f"(?<!\\w){_spelled(int(n))}(?!\\w)")
    return re.compile("|".join(sorted(alternatives)), re.I)


def _spelled(n: int) -> str:
    ones = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ]
    tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    if n < 20:
        return ones[n]
    return tens[n // 10 - 2] + (f"-{ones[n % 10]}" if n % 10 else "")


def _hint_positions(page: _Page, hints: set[str]) -> list[int]:
    if not hints:
        return []
    pattern = re.compile("(?<!\\w)(?:" + "|".join(re.escape(h) for h in sorted(hints)) + ")", re.I)
    out = []
    for m in pattern.finditer(page.text):
        out.append(m.start())
        if len(out) >= _MAX_HINT_POSITIONS:
            break
    return out


def _windows(page: _Page, positions: list[int], hint_at: list[int]) -> list[tuple[int, int]]:
    """At most _MAX_WINDOWS windows around `positions`, those nearest the hint words first, merged."""

    def distance(p: int) -> int:
        k = bisect_left(hint_at, p)
        near = [abs(hint_at[j] - p) for j in (k - 1, k) if 0 <= j < len(hint_at)]
        return min(near, default=0)

    chosen = sorted(positions, key=distance)[:_MAX_WINDOWS]
    spans = sorted(_around(page, p, p + 1) for p in chosen)
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _candidates(page: _Page, q: Quantity, hint_at: list[int]) -> list[Found]:
    """The page figures that may state q: every figure of a page read whole; on a large page, those in
    windows around where its digits (or its number words) stand."""
    if page.figures is not None:
        return list(page.figures.all)
    positions = []
    for m in _number_pattern(q).finditer(page.text):
        positions.append(m.start())
        if len(positions) >= _MAX_POSITIONS:
            break
    out: list[Found] = []
    for a, b in _windows(page, positions, hint_at):
        out.extend(_figures_in(page, a, b))
    return sorted(set(out), key=lambda f: f.start)


# --- no quote: each figure on its own ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Place:
    score: int  # hint words (and, twice, the figure's name) around it
    start: int
    end: int
    rounded: bool
    found: str


def _place(
    page: _Page, q: Quantity, name: str | None, hints: set[str], hint_at: list[int]
) -> _Place | None:
    """Where the page states figure q, preferring the place with the most hint words around it; a weak
    figure (a bare small number) needs half the hint words there, and hint words to begin with."""
    name_stems = _hint_stems(name, [q]) if name else set()
    if not q.numbers():
        spans = _exact_spans(page, normalize(q.raw))
        places = [(a, b, ()) for a, b in spans]
        figs: list[Found] = []
    else:
        figs = _candidates(page, q, hint_at)
        places = _occurrences(q, figs, page.text, name)
    best: _Place | None = None
    for a, b, idxs in places:
        around = _stems_in(page, *_around(page, a, b))
        score = len(hints & around) + 2 * len(name_stems & around)
        if best is None or score > best.score:
            used = [figs[i] for i in idxs]
            best = _Place(
                score,
                a,
                b,
                bool(used) and _rounded(q, used, page.text, name),
                " ".join(page.text[a:b].split()),
            )
    if best is None:
        return None
    if _weak(q):
        if not hints or len(
            hints & _stems_in(page, *_around(page, best.start, best.end))
        ) < math.ceil(_WEAK_SHARE * len(hints)):
            return None
    elif not (q.unit or q.counted) and (hints or name_stems) and best.score == 0:
        return (
            None  # a bare number ("> 4,000", "5.9T") counts only near the claim's words or its name
        )
    return best


def _without_quote(
    page: _Page, figures: list[Quantity], hint: str | None, names: list[str | None] | None = None
) -> Location:
    names = list(names or []) + [None] * (len(figures) - len(names or []))
    hints = _hint_stems(hint, figures)
    hint_at = _hint_positions(page, hints) if page.figures is None else []
    reports: list[FigureReport] = []
    places: list[_Place] = []
    for q, name in zip(figures, names):
        place = _place(page, q, name, hints, hint_at)
        if place is None:
            reports.append(FigureReport(q.raw, "missing"))
            continue
        places.append(place)
        left, right = _passage(page.text, place.start, place.end)
        reports.append(
            FigureReport(
                q.raw, "rounded" if place.rounded else "found", place.found, page.text[left:right]
            )
        )
    missing = tuple(r.figure for r in reports if r.status == "missing")
    if places:
        lo, hi = min(p.start for p in places), max(p.end for p in places)
        if hi - lo > PASSAGE_CHARS:
            top = max(places, key=lambda p: p.score)
            lo, hi = top.start, top.end
        left, right = _passage(page.text, lo, hi)
        anchor = (lo, hi)
        score = round(len(hints & _stems_in(page, left, right)) / len(hints), 3) if hints else 1.0
        changes: list[tuple[str, str]] = []
        if missing:
            outcome = "partial"
            # a missing figure may stand changed beside the found ones: "12,000 H100" for "16,000 H100"
            needs = [_Need(q, q.raw, False, 0.5) for q in figures if q.raw in missing]
            changes = _check(page, needs, (left, right), (left, right), anchor=anchor)[0]
        else:
            outcome = "rounded" if any(r.status == "rounded" for r in reports) else "confirmed"
        return Location(
            outcome, page.text[left:right], score, tuple(changes), missing, tuple(reports)
        )
    changed = _figure_changed(page, figures, hints, hint_at)
    if changed is not None:
        return replace(changed, figures=tuple(reports))
    return Location("not-found", None, 0.0, (), missing, tuple(reports))


def _figure_changed(
    page: _Page, figures: list[Quantity], hints: set[str], hint_at: list[int]
) -> Location | None:
    """A passage about the claim (most of its hint words) with a figure of the same measure and another
    value, within a factor of 10: the figure changed."""
    if not hints:
        return None
    need_hints = min(len(hints), max(2, math.ceil(_CHANGED_SHARE * len(hints))))
    if page.figures is not None:
        pool = list(page.figures.all)
    else:
        pool = []
        for a, b in _windows(page, hint_at, hint_at):
            pool.extend(_figures_in(page, a, b))
    top: tuple[int, int, int, Found] | None = None
    for f in pool:
        if not (f.quantity.unit or f.quantity.counted):
            continue  # a bare page number cannot show what changed
        if any(
            _same_order(q, f)
            and _comparable(q, f, False, page.text)
            and not _occurrences(q, [f], page.text)
            for q in figures
            if q.numbers()
        ):
            lo, hi = _around(page, f.start, f.end)
            n_hint = len(hints & _stems_in(page, lo, hi))
            if n_hint >= need_hints and (top is None or n_hint > top[0]):
                top = (n_hint, lo, hi, f)
    if top is None:
        return None
    n_hint, lo, hi, f = top
    needs = [_Need(q, q.raw, False, 0.5) for q in figures]
    changes, missing = _check(page, needs, (lo, hi), (lo, hi), anchor=(f.start, f.end))
    if not changes:
        return None
    left, right = _passage(page.text, lo, hi)
    return Location(
        "figure-changed",
        page.text[left:right],
        round(n_hint / len(hints), 3),
        tuple(changes),
        tuple(missing),
    )


# --- entry point -------------------------------------------------------------------------------------------


def locate(
    text: str,
    *,
    quote: str | None,
    figures: list[Quantity],
    hint: str | None = None,
    names: list[str | None] | None = None,
) -> Location:
    """Where the claim's quote and figures stand in `text`. See the module docstring for the rules.
    `names` are the figures' names in the data ("prefill unit"), which help find each one."""
    figures = list(figures or [])
    page = _page(text or "")
    if quote and quote.strip():
        return _with_quote(page, quote, figures, hint)
    if not figures:
        return Location("nothing-to-check", None, 0.0)
    return _without_quote(page, figures, hint, names)
