"""The page as locate reads it: its text normalised (`normalize`, mapped back by `normalized`), its
figures (read whole once for a page up to FULL_SCAN_CHARS, else in windows), the claim's hint words
around a place, and on a large page the windows worth reading (around the claim's digits and words).

Pure functions; the few most recent pages' figures are cached.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

from claimsdb.figures import Found, Quantity, scan
from claimsdb.figures.mapped_text import MappedText, Rewriter
from claimsdb.figures.vocabulary import DASHES, HINT_STOP_WORDS, ONES, TENS

FULL_SCAN_CHARS = (
    1_000_000  # a page up to this size is read whole; a larger one in windows (bounded memory)
)
WINDOW_CHARS = 300
_MAX_POSITIONS = 20_000  # places where a figure's digits stand, examined on a large page
_MAX_HINT_POSITIONS = 20_000  # places where the claim's words stand, examined on a large page
_MAX_WINDOWS = 200  # windows read per figure on a large page, those nearest the claim's words first

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
    return normalized(text, track=False).text


def normalized(text: str, track: bool = True) -> MappedText:
    """normalize(text), mapped back to `text`'s offsets: a span found in the normalised text maps to
    the characters of `text` it came from ("ß" from "ss", a run of spaces from " ")."""
    t = text.translate(_ONE_TO_ONE)  # one character for one: offsets still match `text`
    out = Rewriter(t, track)
    first = True
    for m in _NONSPACE.finditer(t):
        tok, start = m.group(0), m.start()
        folded = tok.casefold()
        plain = len(folded) == len(tok) and not _DROP.search(tok)
        if not plain and all(_DROP.match(ch) for ch in tok):
            continue  # nothing of it is kept: it is part of the space around it
        if first:
            out.replace(0, start, "")  # leading whitespace
            first = False
        elif start - out.pos == 1:
            out.fold(out.pos, " ")  # one white space character: " " in its place
        else:
            out.replace(out.pos, start, " ")
        if plain:
            out.fold(start, folded)
        else:  # "ß" -> "ss", "ﬁ" -> "fi", or characters to drop: map each one
            _fold_each(out, tok, start)
    out.replace(out.pos, len(t), "")  # trailing whitespace (all of it, on a blank text)
    return out.finish()


def _fold_each(out: Rewriter, tok: str, start: int) -> None:
    for k, ch in enumerate(tok):
        if _DROP.match(ch):
            out.replace(start + k, start + k + 1, "")
            continue
        f = ch.casefold()
        if len(f) == 1:
            out.fold(start + k, f)
        else:
            out.replace(start + k, start + k + 1, f)


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


def _region_words(text: str, a: int, b: int) -> tuple[list[str], list[int], list[int]]:
    """The normalised words of text[a:b] with their start and end offsets in text."""
    region = text[a:b].translate(_ONE_TO_ONE)
    words, starts, ends = [], [], []
    for m in _WORD.finditer(_DROP.sub(lambda d: " " * len(d.group(0)), region)):
        words.append(m.group(0).casefold())
        starts.append(a + m.start())
        ends.append(a + m.end())
    return words, starts, ends


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
    """A whole number under 100 in words: "seven", "twenty-eight"."""
    if n < 20:
        return ONES[n]
    return TENS[n // 10 - 2] + (f"-{ONES[n % 10]}" if n % 10 else "")


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
