"""Prose: a rewritten copy of a manuscript that maps back to the original's offsets.

Each format module (tex, markup) turns a manuscript into a `Prose` whose `text` holds only what a reader
reads as prose, and whose `orig(p)` gives the original offset of prose offset p, so that a finding's
`line:col` points into the file as written. `headings` lists (original offset, heading text).
"""

from __future__ import annotations

import bisect
import heapq
import re

__all__ = ["BLANK_LINE", "Prose", "blank"]

BLANK_LINE = re.compile(r"\n[ \t]*\n")


def blank(s: str) -> str:
    """What a skipped region becomes: a space, a line break, or a paragraph break if it held one."""
    if "\n" not in s:
        return " "
    return "\n\n" if BLANK_LINE.search(s) else "\n"


class Prose:
    """`track=False` keeps only the text (no map back): a fetched page needs no line:col, and a large one
    would pay for the map in memory."""

    def __init__(self, src: str, track: bool = True):
        self.src = src
        self.track = track
        self.pos = 0  # the original is consumed up to here
        self._parts: list[str] = []
        self._pstart: list[int] = []
        self._ostart: list[int] = []
        self._verbatim: list[bool] = []
        self._plen = 0
        self._pending: list[tuple[int, int, str]] = []  # (original offset, length, replacement)
        self.text = ""
        self.headings: list[
            tuple[int, str]
        ] = []  # (original offset, text) of each heading, in order

    def _emit(self, ostart: int, oend: int, rep: str | None) -> None:
        s = self.src[ostart:oend] if rep is None else rep
        if not s:
            return
        self._parts.append(s)
        if self.track:
            self._pstart.append(self._plen)
            self._ostart.append(ostart)
            self._verbatim.append(rep is None)
        self._plen += len(s)

    def later(self, pos: int, length: int, rep: str) -> None:
        """Replace src[pos:pos+length] when the copy gets there (a heading's line end, say)."""
        heapq.heappush(self._pending, (pos, length, rep))

    def keep(self, end: int) -> None:
        while self._pending and self._pending[0][0] < end:
            p, n, rep = heapq.heappop(self._pending)
            if p < self.pos:
                continue  # inside something already skipped
            self._emit(self.pos, p, None)
            self._emit(p, p + n, rep)
            self.pos = p + n
        if end > self.pos:
            self._emit(self.pos, end, None)
            self.pos = end

    def replace(self, start: int, end: int, rep: str) -> None:
        self.keep(start)
        start = max(start, self.pos)
        if end > start:
            self._emit(start, end, rep)
            self.pos = end

    def skip(self, start: int, end: int) -> None:
        self.replace(start, end, blank(self.src[start:end]))

    def finish(self) -> Prose:
        self.keep(len(self.src))
        self.text = "".join(self._parts)
        return self

    def orig(self, p: int) -> int:
        k = bisect.bisect_right(self._pstart, p) - 1
        if k < 0:
            return 0
        return self._ostart[k] + (p - self._pstart[k] if self._verbatim[k] else 0)


def plain(src: str) -> Prose:
    """Plain text: everything is prose."""
    return Prose(src).finish()
