"""Whether a page figure is the claim's (`claimsdb.figures.match`'s verdict, with the page's words
before the figure as what it counts), where a claim figure stands among page figures, and checking a
passage: which of the claim's figures it holds, which changed, which are missing.

Pure functions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from claimsdb.figures import REL_TOLERANCE, Context, Found, Quantity, Verdict, match, scan
from claimsdb.figures.matching import ROUNDED, SAME
from claimsdb.figures.parser import precision
from claimsdb.locating.page import _figures_in, _Page, normalize

PASSAGE_CHARS = 400
_PAIR_CHARS = 150  # how far apart a MoE size's total and active counts may be
_RUN_GAP_CHARS = 40  # the most text between consecutive figures of one transition
_MAGNITUDE = 10.0  # a figure paired by unit alone must be within this factor of the claim's

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
