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
locates many claims in one page. The parts: `page` (normalising, the page's figures, where to read a
large page), `figure_check` (when a page figure is the claim's, checking a passage), `quote` (the
quote found exactly or fuzzily); this module puts them together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from claimsdb.figures import Found, Quantity
from claimsdb.locating.figure_check import (
    PASSAGE_CHARS,
    _check,
    _comparable,
    _Need,
    _needs,
    _occurrences,
    _passage,
    _rounded,
    _same_order,
    _weak,
)
from claimsdb.locating.page import (  # the page's sizes and `normalize` are part of locate's API
    _WORD,
    FULL_SCAN_CHARS,
    WINDOW_CHARS,
    _around,
    _candidates,
    _figures_in,
    _hint_positions,
    _hint_stems,
    _Page,
    _page,
    _stems_in,
    _windows,
    normalize,
)
from claimsdb.locating.quote import _exact_spans, _figures_only, _fuzzy
from claimsdb.models import VERIFY_OUTCOMES

__all__ = [
    "FULL_SCAN_CHARS",
    "FUZZY_THRESHOLD",
    "OUTCOMES",
    "PASSAGE_CHARS",
    "WINDOW_CHARS",
    "FigureReport",
    "Location",
    "locate",
    "normalize",
]


OUTCOMES = VERIFY_OUTCOMES  # the verification table accepts these and no other
FUZZY_THRESHOLD = (
    0.6  # below this a "similar" passage is too often a different sentence on the same topic
)

# Without a quote, the share of the hint's words that must stand around a weak figure (a bare small number):
# "28" next to one generic word ("train") on another model's page is not the claim's.
_WEAK_SHARE = 1 / 2
_CHANGED_SHARE = (
    0.6  # and for "figure-changed" without a quote, where nothing else anchors the passage
)


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
