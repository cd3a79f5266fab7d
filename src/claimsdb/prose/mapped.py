"""Prose: a rewritten copy of a manuscript that maps back to the original's offsets.

Each format module (tex, markup) turns a manuscript into a `Prose` whose `text` holds only what a reader
reads as prose, and whose `orig(p)` gives the original offset of prose offset p, so that a finding's
`line:col` points into the file as written. `headings` lists (original offset, heading text).
"""

from __future__ import annotations

import heapq
import re

from claimsdb.figures.mapped_text import MappedText, Rewriter

__all__ = ["BLANK_LINE", "INVISIBLE", "Prose", "blank"]

BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Characters that print as nothing (zero-width spaces and joiners, the soft hyphen, the byte order mark):
# a reader sees "100\u200b000" as 100000, so the prose drops them.
INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060-\u2064\ufeff]")


def blank(s: str) -> str:
    """What a skipped region becomes: a space, a line break, or a paragraph break if it held one."""
    if "\n" not in s:
        return " "
    return "\n\n" if BLANK_LINE.search(s) else "\n"


class Prose:
    """A manuscript's prose, built left to right by the format modules (`keep`, `replace`, `skip`,
    `later`), then `finish`ed: `text` and `mapped` (the shared `MappedText`) map back to `src`.
    `track=False` keeps only the text (no map back): a fetched page needs no line:col, and a large one
    would pay for the map in memory."""

    def __init__(self, src: str, track: bool = True):
        self.src = src
        self.track = track
        self._out = Rewriter(src, track)
        self._pending: list[tuple[int, int, str]] = []  # (original offset, length, replacement)
        self.mapped = MappedText("")
        self.text = ""
        self.headings: list[
            tuple[int, str]
        ] = []  # (original offset, text) of each heading, in order

    @property
    def pos(self) -> int:
        """The original is consumed up to here."""
        return self._out.pos

    def later(self, pos: int, length: int, rep: str) -> None:
        """Replace src[pos:pos+length] when the copy gets there (a heading's line end, say)."""
        heapq.heappush(self._pending, (pos, length, rep))

    def keep(self, end: int) -> None:
        while self._pending and self._pending[0][0] < end:
            p, n, rep = heapq.heappop(self._pending)
            if p < self.pos:
                continue  # inside something already skipped
            self._out.replace(p, p + n, rep)
        for m in INVISIBLE.finditer(self.src, self._out.pos, end):
            self._out.replace(m.start(), m.end(), "")
        self._out.keep(end)

    def replace(self, start: int, end: int, rep: str) -> None:
        self.keep(start)
        start = max(start, self.pos)
        if end > start:
            self._out.replace(start, end, rep)

    def skip(self, start: int, end: int) -> None:
        self.replace(start, end, blank(self.src[start:end]))

    def finish(self) -> Prose:
        self.keep(len(self.src))
        self.mapped = self._out.finish()
        self.text = self.mapped.text
        return self

    def orig(self, p: int) -> int:
        """The offset in `src` of prose offset p. The end of the prose maps from its last character:
        the start of what that one replaced, else just after it (not past a region dropped after it);
        an empty prose maps to 0."""
        n = len(self.text)
        if p < n:
            return self.mapped.start(p)
        if not n:
            return 0
        last = self.mapped.start(n - 1)
        return last if self.mapped.replaced(n - 1) else last + 1 + (p - n)


def plain(src: str) -> Prose:
    """Plain text: everything is prose."""
    return Prose(src).finish()
