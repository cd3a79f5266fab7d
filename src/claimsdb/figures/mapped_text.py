"""A rewritten text that maps its offsets back to the original's: `MappedText`, built by `Rewriter`.

Three readers rewrite a text before reading it and must point back into the text as written: the figure
parser (canonical spellings: "3.8 × 10^25" read as "3.8e25"), prose (a manuscript's markup dropped) and
verify's locate (a page folded to one case and one space). Each builds its copy with a `Rewriter`:
stretches kept as they are (or rewritten character for character, such as a case fold) shift by a
constant, and each replaced span maps as a whole to the original span it replaced.

`start(p)` is the original offset of the character at p (a replaced piece's start for a character inside
it, and past a deletion at p); `end(p)` is the original offset just after the text before p (a replaced
piece's end for a p inside or at the end of it, a deletion at p included); `span(a, b)` maps text[a:b]
to the original's span. Standard library only.
"""

from __future__ import annotations

import bisect

__all__ = ["MappedText", "Rewriter"]


class MappedText:
    """`text` and the map back to the original's offsets: the replaced pieces, in order, each as its
    span in `text` and the original span it stands for; everything between them shifts by a constant."""

    __slots__ = ("text", "_starts", "_ends", "_orig")

    def __init__(
        self,
        text: str,
        starts: list[int] | None = None,
        ends: list[int] | None = None,
        orig: list[tuple[int, int]] | None = None,
    ) -> None:
        self.text = text
        self._starts = starts or []  # start in `text` of each replaced piece
        self._ends = ends or []  # end in `text` of each replaced piece
        self._orig = orig or []  # original span of each replaced piece

    @property
    def rewritten(self) -> bool:
        """True if any span was replaced (else every offset maps to itself)."""
        return bool(self._starts)

    def replaced(self, p: int) -> bool:
        """True if the character at p is part of a replacement (not kept or folded)."""
        k = bisect.bisect_right(self._starts, p) - 1
        return k >= 0 and p < self._ends[k]

    def _shift(self, k: int) -> int:
        return self._orig[k][1] - self._ends[k] if k >= 0 else 0

    def start(self, p: int) -> int:
        """The original offset of the character at p: a replaced piece's start for one inside it."""
        k = bisect.bisect_right(self._starts, p) - 1
        if k >= 0 and p < self._ends[k]:
            return self._orig[k][0]
        return p + self._shift(k)

    def end(self, p: int) -> int:
        """The original offset just after text[:p]: a replaced piece's end for a p inside or after it."""
        k = bisect.bisect_left(self._ends, p)
        if k < len(self._starts) and self._starts[k] < p <= self._ends[k]:
            return self._orig[k][1]
        return p + self._shift(bisect.bisect_right(self._ends, p) - 1)

    def span(self, a: int, b: int) -> tuple[int, int]:
        """The original span that text[a:b] stands for."""
        return self.start(a), self.end(b)


class Rewriter:
    """Builds a `MappedText` of `src` left to right: `keep` copies, `fold` rewrites character for
    character, `replace` puts other text in place of a span. Each call starts where the last ended (or
    later: what lies between is kept). `track=False` builds the text alone (no map, less memory)."""

    def __init__(self, src: str, track: bool = True) -> None:
        self.src = src
        self.track = track
        self.pos = 0  # the original is consumed up to here
        self._parts: list[str] = []
        self._length = 0  # of the text built so far
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._orig: list[tuple[int, int]] = []

    def keep(self, end: int) -> None:
        """Copy src[pos:end] as it is."""
        if end > self.pos:
            self._parts.append(self.src[self.pos : end])
            self._length += end - self.pos
            self.pos = end

    def fold(self, start: int, rep: str) -> None:
        """Put `rep` for src[start:start + len(rep)], character for character (a case fold)."""
        self.keep(start)
        self._parts.append(rep)
        self._length += len(rep)
        self.pos = start + len(rep)

    def replace(self, start: int, end: int, rep: str) -> None:
        """Put `rep` for src[start:end]; every offset inside `rep` maps to that span as a whole."""
        self.keep(start)
        if rep:
            self._parts.append(rep)
        if self.track:
            self._starts.append(self._length)
            self._ends.append(self._length + len(rep))
            self._orig.append((start, end))
        self._length += len(rep)
        self.pos = end

    def finish(self) -> MappedText:
        """The text built, the rest of `src` kept."""
        self.keep(len(self.src))
        return MappedText("".join(self._parts), self._starts, self._ends, self._orig)
