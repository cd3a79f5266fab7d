"""Find a claim's evidence in a page's text, checking its figures as numbers, never as strings.

`locate(text, quote=..., figures=..., hint=...)` returns a `Location` with one of four outcomes:

- "confirmed": the quote is in the page (after `normalize`) and every figure is in the passage;
  without a quote: all the claim's figures stand together in one window of the page.
- "reworded": the quote is not in the page word for word, but a passage similar enough is
  (word-level similarity >= FUZZY_THRESHOLD) and every figure is in it.
- "figure-changed": the passage is there but a figure is not: `changes` pairs the claim's figure
  with the page figure found in its place, `missing` lists figures with no counterpart.
- "not-found": no passage (or, without a quote, no window with the figures or the claim's words).

Decisions:
- A figure is present when `scan` finds a page figure equal to it: every number equal within a
  relative 1e-9 (so "2,048" = "2048", "14.8T" = "14.8 trillion", "20s" = "20 s", and "16,000" is
  never "10,000"). A value matches a value, or a step of a transition, ratio or MoE size, never a
  range end; a range only the same range; a transition the same transition, an "X to Y" range, or
  consecutive figures with the same numbers ("from 4K to 128K and then 200K"); a ratio the same ratio;
  a MoE size the same size, or its total and active counts within 150 characters. A figure without a
  number ("hundreds of thousands") must appear word for word. The comparator ("~", "up to") is not
  compared: a page that states the number supports a claim that qualifies it.
- Units: a claim figure with a unit needs a page figure with the same unit (`same_unit`). Where
  scan's unit is not a unit word, the noun phrase after the number may end in the claim's unit
  ("14.8T diverse and high-quality tokens"); a page number without a unit counts only when labelled
  with the claim's unit or counted thing right before it (tables: "GPUs: 2,048", "| H800 | 2,048"),
  so "Figure 16" is never "16 GPUs". Stricter than "same unit when both have one", on purpose: a
  bare number near the quote is too often a footnote, a year or a section. Both naming what they
  count ("H800", "H100") must name the same thing, and a claim's label ("max_off_policy_steps = 8",
  "MFU ~38%") must stand just before the page's number: a bare "8" is not that setting.
- A quote made only of figures ("14.8T tokens") that is not in the page word for word is looked
  for as figures, as without a quote; found so, it is "reworded" (written differently), never
  "confirmed".
- With a quote, the figures the quote itself contains (the claim's and any other number in it) must
  be in the matched words; the claim's other figures may be anywhere in the passage (the match with
  some context, at most PASSAGE_CHARS). An exact match is word-bounded, so "8 GPUs" is not found in
  "128 GPUs"; when the quote occurs several times, the first occurrence with all figures is used.
- The fuzzy match compares words (difflib, autojunk off) in a few candidate regions chosen by
  where the quote's rarer words occur, so its cost does not grow with the square of the page. It
  needs at least _MIN_FUZZY_WORDS words in common: "SFT, CISPO RL" against "SFT and RL" is two words
  of three, which says nothing; a quote that short must be found word for word.
- Without a quote, a window of WINDOW_CHARS holding all the figures must also hold a third of the
  hint's words (the claim's subject and statement, less stop words and the figures' own words), or
  half of them when every figure is weak (a bare small whole number such as "two" or "28", which any
  page has); windows with more hint words win. Weak figures with no hint words are never confirmed.
  "figure-changed" needs a window with 60 % of the hint words and a figure of the same unit or
  counted thing, within a factor of 10 of the claim's value, but not equal to it.
- A replacement found by unit alone (figures outside the quote, or without a quote) must be within
  a factor of 10 of the claim's value and in the same paragraph: "22.4T tokens" is not replaced by
  the "128K tokens" of the next section.
- `score` is the word similarity of quote and passage (1.0 for an exact match); without a quote, or
  for a figures-only quote found as figures, it is the share of hint words in the window (1.0 with
  no hint words).
Pure functions; the page's scan and word index are cached for the few most recent pages, since
`claims verify` locates many claims in one page.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import lru_cache

from claimsdb.figures import REL_TOLERANCE, Found, Quantity, same_unit, scan
from claimsdb.figures.vocabulary import ACCELERATOR, HINT_STOP_WORDS, KNOWN_UNITS

__all__ = ["FUZZY_THRESHOLD", "OUTCOMES", "PASSAGE_CHARS", "WINDOW_CHARS", "Location", "locate", "normalize"]

OUTCOMES = ("confirmed", "reworded", "figure-changed", "not-found")
FUZZY_THRESHOLD = 0.6  # below this a "similar" passage is too often a different sentence on the same topic
PASSAGE_CHARS = 400
WINDOW_CHARS = 300
_PAIR_CHARS = 150  # how far apart a MoE size's total and active counts may be
_RUN_GAP_CHARS = 40  # the most text between consecutive figures of one transition
_MAX_OCCURRENCES = 20  # exact occurrences of a quote examined
_CANDIDATES = 12  # fuzzy candidate regions examined
_MIN_FUZZY_WORDS = 4  # a fuzzy match shares at least this many words with the quote: shorter quotes match exactly
_COMMON = 2000  # a word occurring more often than this says nothing about where the quote is
# Without a quote, the share of the hint's words a window must hold: a third, or a half when every figure
# is weak (a bare small number); calibrated so that "28" or "18T tokens" next to one generic word
# ("train") on another model's page is not confirmed, while a window naming the subject and its stage is.
_CONFIRM_SHARE = 1 / 3
_WEAK_SHARE = 1 / 2
_CHANGED_SHARE = 0.6  # and for "figure-changed" without a quote, where nothing else anchors the passage
_MAGNITUDE = 10.0  # a figure paired by unit alone must be within this factor of the claim's


@dataclass(frozen=True)
class Location:
    """Where a claim's evidence stands in a page. See the module docstring for each field."""

    outcome: str  # "confirmed" | "reworded" | "figure-changed" | "not-found"
    passage: str | None
    score: float
    changes: tuple[tuple[str, str], ...] = ()
    missing: tuple[str, ...] = ()


# --- normalisation ------------------------------------------------------------------------------------

_ONE_TO_ONE = str.maketrans({
    **{c: "-" for c in "‐‑‒–—―−﹘﹣－"},
    **{c: "'" for c in "‘’‚‛′"},
    **{c: '"' for c in "“”„‟″"},
    **{c: " " for c in "\u00a0\u2007\u2009\u200a\u202f\u205f\u3000"},
})
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


@dataclass
class _Page:
    text: str
    norm: str
    where: list[int]  # norm offset -> text offset
    words: list[str]  # normalised words, in order
    starts: list[int]  # text offset where each word starts
    ends: list[int]  # text offset where each word ends
    index: dict[str, list[int]]  # word -> its positions in `words`


@lru_cache(maxsize=4)
def _page(text: str) -> _Page:
    norm, where = _normalize_map(text)
    words, starts, ends = [], [], []
    index: dict[str, list[int]] = defaultdict(list)
    for m in _WORD.finditer(norm):
        index[m.group(0)].append(len(words))
        words.append(m.group(0))
        starts.append(where[m.start()])
        ends.append(where[m.end() - 1] + 1)
    return _Page(text, norm, where, words, starts, ends, dict(index))


@dataclass(frozen=True)
class _Figures:
    """A page's figures (from scan) with their start and end offsets, for bisecting."""

    all: tuple[Found, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def between(self, a: int, b: int) -> list[Found]:
        """The figures overlapping text[a:b]; figures do not overlap, so ends are sorted too."""
        return list(self.all[bisect_right(self.ends, a): bisect_left(self.starts, b)])


@lru_cache(maxsize=4)
def _page_figures(text: str) -> _Figures:
    figs = tuple(scan(text))
    return _Figures(figs, tuple(f.start for f in figs), tuple(f.end for f in figs))


# --- figures: when a page figure is the claim's --------------------------------------------------------

_KNOWN_UNITS = KNOWN_UNITS


def _same(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=REL_TOLERANCE)


def _same_seq(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


def _unit_ok(q: Quantity, f: Found, text: str) -> bool:
    """Can page figure f count what claim figure q counts? See the module docstring."""
    fq = f.quantity
    if q.counted and fq.counted and q.counted.casefold() != fq.counted.casefold():
        return False
    if q.counted and not fq.counted and not _ACCEL.fullmatch(q.counted) and not _labelled(text, f, q.counted):
        return False  # "max_off_policy_steps = 8", "MFU ~38%": the page must name it too
    if q.unit is None or (fq.unit is not None and same_unit(q.unit, fq.unit)):
        return True
    if fq.unit is not None:
        if any(same_unit(fq.unit, k) for k in _KNOWN_UNITS):
            return False  # the page says what it counts, and it is something else
        head = _head_after(text, f)  # "14.8T diverse and high-quality tokens": scan stopped at "and"
        return head is not None and same_unit(q.unit, head)
    label = _label_before(text, f.start)  # "GPUs: 2,048", "| H800 | 2,048"
    if label is None:
        return False
    return same_unit(q.unit, label) or bool(q.counted and label.casefold() == q.counted.casefold())


_ACCEL = re.compile(ACCELERATOR)  # what a figure may count without naming it: "2,048 GPUs"


def _labelled(text: str, f: Found, label: str) -> bool:
    """The label stands just before the page figure ("batch size: 2,048", "MFU of 38%")."""
    return normalize(label) in normalize(text[max(0, f.start - len(label) - 20): f.start])


_HEAD_STOP = re.compile(r"[,;:.!?()\[\]{}\"“”]")


def _head_after(text: str, f: Found) -> str | None:
    """The last word of the noun phrase after f's number ("and"/"or" allowed inside), or None."""
    tokens = text[f.start: f.end + 80].split()
    while tokens and not any(ch.isdigit() for ch in tokens[0]):
        tokens.pop(0)  # qualifiers before the number
    head = None
    for tok in tokens[1:7]:
        word = _HEAD_STOP.split(tok, 1)[0]
        low = word.casefold()
        if not word[:1].isalpha() or any(ch.isdigit() for ch in word) or (low in _STOP and low not in ("and", "or")):
            break
        if low not in ("and", "or"):
            head = word
        if word != tok:
            break  # punctuation ends the phrase
    return head


_LABEL = re.compile(r"([^\W\d_][\w\-/'’]*)[\s:|=(]*\Z")


def _label_before(text: str, start: int) -> str | None:
    m = _LABEL.search(text, max(0, start - 30), start)
    return m.group(1) if m else None


def _steps(q: Quantity) -> tuple[float, ...]:
    return tuple(float(s) for s in q.steps) or tuple(n for n in (q.start, q.end) if n is not None)


def _occurrences(q: Quantity, figs: list[Found], text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """Where claim figure q stands among page figures `figs`: (start, end, indices of figs used)."""
    out: list[tuple[int, int, tuple[int, ...]]] = []
    kind = q.kind
    for i, f in enumerate(figs):
        fq = f.quantity
        if fq.kind == "text":
            continue
        hit = False
        if kind == "value":
            hit = fq.kind != "range" and any(_same(q.value, n) for n in fq.numbers())
        elif kind == "range":
            hit = fq.kind == "range" and _same(q.low, fq.low) and _same(q.high, fq.high)
        elif kind == "transition":
            hit = (fq.kind == "transition" and _same_seq(_steps(q), _steps(fq))) or (
                fq.kind == "range" and re.search(r"\sto\s", f.raw, re.I) is not None
                and _same_seq(_steps(q), (float(fq.low), float(fq.high)))  # type: ignore[arg-type]
            )
        elif kind == "ratio":
            hit = fq.kind == "ratio" and _same_seq(tuple(float(s) for s in q.steps), tuple(float(s) for s in fq.steps))
        elif kind == "moe":
            hit = fq.kind == "moe" and _same(q.value, fq.value) and _same(q.active, fq.active)
        if hit and _unit_ok(q, f, text):
            out.append((f.start, f.end, (i,)))
    if kind == "transition":
        out.extend(_runs(q, figs, text))
    elif kind == "range":
        out.extend(_to_ranges(q, figs, text))
    elif kind == "moe":
        out.extend(_moe_pairs(q, figs, text))
    return sorted(set(out))


def _runs(q: Quantity, figs: list[Found], text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """Consecutive value/transition figures whose numbers, in order, are the transition's steps."""
    want = _steps(q)
    out = []
    for i in range(len(figs)):
        got: tuple[float, ...] = ()
        j = i
        while j < len(figs) and len(got) < len(want):
            f = figs[j]
            if f.quantity.kind not in ("value", "transition") or not _unit_ok(q, f, text):
                break
            if j > i and f.start - figs[j - 1].end > _RUN_GAP_CHARS:
                break
            got += f.quantity.numbers()
            j += 1
        if j - i > 1 and _same_seq(got, want):
            out.append((figs[i].start, figs[j - 1].end, tuple(range(i, j))))
    return out


def _to_ranges(q: Quantity, figs: list[Found], text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """"from 10 to 20 GPUs", which scan reads as two figures, as the range 10-20."""
    out = []
    for i in range(len(figs) - 1):
        a, b = figs[i], figs[i + 1]
        if (a.quantity.kind == b.quantity.kind == "value" and re.fullmatch(r"\s+to\s+", text[a.end:b.start], re.I)
                and _same(q.low, a.quantity.value) and _same(q.high, b.quantity.value)
                and _unit_ok(q, a, text) and _unit_ok(q, b, text)):
            out.append((a.start, b.end, (i, i + 1)))
    return out


def _moe_pairs(q: Quantity, figs: list[Found], text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """A MoE size written out: "355B total parameters, 32B of them active"."""
    out = []
    for i, a in enumerate(figs):
        if a.quantity.kind != "value" or not _same(q.value, a.quantity.value) or not _unit_ok(q, a, text):
            continue
        for j, b in enumerate(figs):
            if (j != i and b.quantity.kind == "value" and _same(q.active, b.quantity.value)
                    and abs(b.start - a.start) <= _PAIR_CHARS and _unit_ok(q, b, text)):
                out.append((min(a.start, b.start), max(a.end, b.end), tuple(sorted((i, j)))))
    return out


def _text_occurrences(raw: str, text: str, a: int, b: int) -> list[tuple[int, int, tuple[int, ...]]]:
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
    return (q.kind == "value" and q.unit is None and not q.counted and abs(float(q.value or 0)) < 1000
            and float(q.value or 0).is_integer())


def _comparable(q: Quantity, f: Found, loose: bool) -> bool:
    """Could f be q with another value: same unit or same counted thing (or, loose, no unit to differ)."""
    fq = f.quantity
    if fq.kind == "text":
        return False
    if q.unit is not None and fq.unit is not None and same_unit(q.unit, fq.unit):
        return True
    if q.counted and fq.counted and q.counted.casefold() == fq.counted.casefold():
        return True
    return loose and (q.unit is None or fq.unit is None)


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
            needs.append(_Need(q, q.raw, _contains_words(normalize(quote or ""), normalize(q.raw)), 0.5))
            continue
        hits = [(idxs[0], qfigs[idxs[0]]) for _, _, idxs in _occurrences(q, qfigs, quote or "") if idxs]
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


def _where(page: _Page, need: _Need, figs: list[Found], a: int, b: int) -> list[tuple[int, int, tuple[int, ...]]]:
    if not need.q.numbers():
        return _text_occurrences(need.raw, page.text, a, b)
    return _occurrences(need.q, figs, page.text)


_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def _check(page: _Page, needs: list[_Need], span: tuple[int, int], passage: tuple[int, int],
           anchor: tuple[int, int] | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """(changes, missing) for the needs: quote figures within `span`, the others within `passage`.
    A figure outside the quote is paired with a replacement only in the paragraph of `anchor` (the
    quote by default): the passage's context may reach into the next section, which says other things."""
    anchor = anchor or span
    figs = _page_figures(page.text)
    pools = {True: figs.between(*span), False: figs.between(*passage)}
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
        pool = [f for f in pools[need.in_quote] if f not in used and _comparable(need.q, f, need.in_quote)
                and (need.in_quote or not _BLANK_LINE.search(page.text, min(f.end, anchor[0]),
                                                              max(f.start, anchor[1])))]
        if not pool or not need.q.numbers():
            missing.append(need.raw)
            continue
        if not need.in_quote:
            pool = [f for f in pool if _same_order(need.q, f)]  # paired by unit alone: "30T" is not "128K"
            if not pool:
                missing.append(need.raw)
                continue
        best = min(pool, key=lambda f: (not _comparable(need.q, f, False), abs(f.start - expected)))
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


def _exact_spans(page: _Page, needle: str) -> list[tuple[int, int]]:
    """Word-bounded occurrences of a normalised needle, as offsets in the page text."""
    norm, out = page.norm, []
    i = norm.find(needle)
    while i != -1 and len(out) < _MAX_OCCURRENCES:
        j = i + len(needle)
        if not ((needle[0].isalnum() and i > 0 and norm[i - 1].isalnum())
                or (needle[-1].isalnum() and j < len(norm) and norm[j].isalnum())):
            out.append((page.where[i], page.where[j - 1] + 1))
        i = norm.find(needle, i + 1)
    return out


def _fuzzy(page: _Page, quote_words: list[str]) -> tuple[float, int, int] | None:
    """(similarity, first word, end word) of the page words most like the quote's, or None."""
    n = len(quote_words)
    if n < _MIN_FUZZY_WORDS or not page.words:
        return None
    width = max(4, n // 2)
    votes: dict[int, float] = defaultdict(float)
    for qi, w in enumerate(quote_words):
        where = page.index.get(w)
        if not where or len(where) > _COMMON:
            continue
        weight = 1.0 / len(where)  # a rare word says more about where the quote is
        for p in where:
            votes[(p - qi) // width] += weight
    smooth = {b: votes[b] + 0.5 * (votes.get(b - 1, 0.0) + votes.get(b + 1, 0.0)) for b in votes}
    best: tuple[float, int, int] | None = None
    for b in sorted(smooth, key=lambda k: (-smooth[k], k))[:_CANDIDATES]:
        lo = max(0, (b - 1) * width - n // 2)
        hi = min(len(page.words), (b + 2) * width + n + n // 2)
        region = page.words[lo:hi]
        sm = SequenceMatcher(None, quote_words, region, autojunk=False)
        blocks = [blk for blk in sm.get_matching_blocks() if blk.size]
        if not blocks:
            continue
        first, last, big = blocks[0], blocks[-1], max(blocks, key=lambda blk: blk.size)
        windows = {
            # all matched words, widened by the quote words left unmatched at either end
            (lo + first.b - first.a, lo + last.b + last.size + (n - last.a - last.size)),
            # the quote laid over its longest matching run
            (lo + big.b - big.a, lo + big.b - big.a + n),
        }
        for s, e in windows:
            s, e = max(0, s), min(len(page.words), e)
            if e <= s:
                continue
            sm = SequenceMatcher(None, quote_words, page.words[s:e], autojunk=False)
            if sum(blk.size for blk in sm.get_matching_blocks()) < _MIN_FUZZY_WORDS:
                continue
            ratio = sm.ratio()
            if best is None or ratio > best[0]:
                best = (ratio, s, e)
    return best


def _figures_only(quote: str) -> bool:
    """True if the quote has figures and no words besides them ("14.8T tokens", "2,048 H800")."""
    found = scan(quote)
    rest = quote
    for f in reversed(found):
        rest = rest[: f.start] + " " + rest[f.end:]
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
    ratio, s, e = found
    a, b = page.starts[s], page.ends[e - 1]
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
    return {_stem(w) for w in _WORD.findall(normalize(hint))
            if w not in _STOP and not w[0].isdigit() and len(w) > 1} - own


def _stems_in(page: _Page, a: int, b: int) -> set[str]:
    i, j = bisect_left(page.starts, a), bisect_right(page.starts, b)
    return {_stem(w) for w in page.words[i:j]}


def _around(page: _Page, a: int, b: int) -> tuple[int, int]:
    """A window of WINDOW_CHARS centred on text[a:b] (or text[a:b] itself if longer)."""
    extra = max(0, WINDOW_CHARS - (b - a)) // 2
    return max(0, a - extra), min(len(page.text), b + extra)


def _without_quote(page: _Page, figures: list[Quantity], hint: str | None) -> Location:
    every = tuple(q.raw for q in figures)
    figs = list(_page_figures(page.text).all)
    needs = [_Need(q, q.raw, False, 0.5) for q in figures]
    hints = _hint_stems(hint, figures)
    places = [_occurrences(q, figs, page.text) if q.numbers()
              else [(a, b, ()) for a, b in _exact_spans(page, normalize(q.raw))] for q in figures]

    best: tuple[tuple[int, int, int], int, int] | None = None  # ((hint words, -width, -start), start, end)
    if all(places):
        starts = [[p[0] for p in ps] for ps in places]
        for ps in places:
            for s0, e0, _ in ps:
                lo, hi = s0, e0
                for k, others in enumerate(places):
                    # the occurrence of each other figure nearest to this one
                    i = bisect_left(starts[k], s0)
                    near = min(others[max(0, i - 1): i + 1], key=lambda p: abs(p[0] - s0))
                    lo, hi = min(lo, near[0]), max(hi, near[1])
                if hi - lo > WINDOW_CHARS:
                    continue
                key = (len(hints & _stems_in(page, *_around(page, lo, hi))), lo - hi, -lo)
                if best is None or key > best[0]:
                    best = (key, lo, hi)
    weak = all(_weak(q) for q in figures)
    enough = math.ceil((_WEAK_SHARE if weak else _CONFIRM_SHARE) * len(hints)) if hints else 0
    if best is not None and best[0][0] >= max(enough, 1 if hints else 0) and not (weak and not hints):
        (n_hint, _, _), lo, hi = best
        left, right = _passage(page.text, lo, hi)
        return Location("confirmed", page.text[left:right], round(n_hint / len(hints), 3) if hints else 1.0)

    # The figures are not together: is there a passage about the claim with other values?
    if hints:
        need_hints = min(len(hints), max(2, math.ceil(_CHANGED_SHARE * len(hints))))
        top: tuple[int, int, int, Found] | None = None
        for f in figs:
            if any(_comparable(q, f, False) and _same_order(q, f) and not _occurrences(q, [f], page.text)
                   for q in figures if q.numbers()):
                lo, hi = _around(page, f.start, f.end)
                n_hint = len(hints & _stems_in(page, lo, hi))
                if n_hint >= need_hints and (top is None or n_hint > top[0]):
                    top = (n_hint, lo, hi, f)
        if top is not None:
            n_hint, lo, hi, f = top
            changes, missing = _check(page, needs, (lo, hi), (lo, hi), anchor=(f.start, f.end))
            if changes:
                left, right = _passage(page.text, lo, hi)
                return Location("figure-changed", page.text[left:right], round(n_hint / len(hints), 3),
                                tuple(changes), tuple(missing))
    return Location("not-found", None, 0.0, (), every)


# --- entry point -------------------------------------------------------------------------------------------


def locate(text: str, *, quote: str | None, figures: list[Quantity], hint: str | None = None) -> Location:
    """Where the claim's quote and figures stand in `text`. See the module docstring for the rules."""
    figures = list(figures or [])
    page = _page(text or "")
    if quote and quote.strip():
        return _with_quote(page, quote, figures, hint)
    if not figures:
        return Location("not-found", None, 0.0)
    return _without_quote(page, figures, hint)
