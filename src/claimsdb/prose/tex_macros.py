"""A LaTeX document's own macros without parameters (`\\newcommand{\\gpus}{2,048}`, `\\def\\gpus{2,048}`),
so that the prose reads what TeX prints where each is used: "\\gpus{} GPUs" is "2,048 GPUs", and a
figure kept in the preamble is judged where the text prints it.

A use reads the definition in force where it stands (the last one before it, those of a file that brings
this one in included: `in_force`); a macro with parameters
is not expanded (its name is dropped, as any other command's). Expansion is bounded: a body of at most
MAX_BODY characters, at most MAX_DEPTH macros deep, at most MAX_EXPANDED characters in all, so that a
document of macros defined by each other ("\\def\\b{\\a\\a}\\def\\c{\\b\\b}...") reads in linear time.
Standard library only.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable

__all__ = ["Macros", "brace_end"]

MAX_BODY = 2_000
MAX_DEPTH = 8
MAX_EXPANDED = 200_000


def brace_end(src: str, i: int, limit: int, cap: int = 20000) -> int | None:
    """Offset after the brace group opening at src[i] == "{", or None if it does not close."""
    depth = 0
    j = i
    stop = min(limit, i + cap)
    while j < stop:
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None


# A definition without parameters, up to its body's opening brace: "\newcommand{\gpus}{",
# "\renewcommand*\gpus[0]{", "\def\gpus{" (not "\newcommand{\f}[1]{" nor "\def\f#1{").
_DEFINE = re.compile(
    r"\\(?:(?:re|provide)?newcommand|DeclareRobustCommand)\*?[ \t]*"
    r"(?:\{[ \t]*\\(?P<a>[A-Za-z@]+)[ \t]*\}|\\(?P<b>[A-Za-z@]+))[ \t]*(?:\[[ \t]*0[ \t]*\][ \t]*)?(?=\{)"
    r"|\\[gex]?def[ \t]*\\(?P<c>[A-Za-z@]+)[ \t]*(?=\{)"
)
# "\def\name<parameters>{": a definition in the body, which prints nothing
DEF = re.compile(r"[ \t]*\\[A-Za-z@]+(?![A-Za-z@])[^{}\n]{0,50}(?=\{)")


class Macros:
    """The definitions of `src` (before `limit`), and expansion of a use to the prose of its body."""

    def __init__(self, src: str, limit: int, inherited: Iterable[tuple[str, str]] = ()) -> None:
        # `inherited`: the definitions in force where a file that brings this one in names it
        self._defs: dict[str, list[tuple[int, str]]] = {}
        for name, body in inherited:
            self._defs.setdefault(name, []).append((-1, body))
        for m in _DEFINE.finditer(src, 0, limit):
            end = brace_end(src, m.end(), limit, cap=MAX_BODY)
            if end is not None:
                name = m.group("a") or m.group("b") or m.group("c")
                self._defs.setdefault(name, []).append((m.start(), src[m.end() + 1 : end - 1]))
        self._depth = self._at = 0
        self._left = MAX_EXPANDED
        self._starts = sorted(pos for defs in self._defs.values() for pos, _ in defs)
        self._read: dict[tuple[str, int], str] = {}  # (name, definitions before the use): its prose

    def in_force(self, at: int) -> list[tuple[str, str]]:
        """(name, body) of each definition in force at offset `at`: what a file brought in there sees."""
        out = []
        for name, defs in self._defs.items():
            before = [body for pos, body in defs if pos < at]
            if before:
                out.append((name, before[-1]))
        return out

    def expand(self, name: str, at: int, read: Callable[[str], str]) -> str | None:
        """What a use of `name` at offset `at` prints, as prose (`read` reads a body, expanding the
        macros in it); None if the document defines no such macro before it, or a bound is reached."""
        if self._depth:
            at = (
                self._at
            )  # a use inside a body: the definitions in force where the outermost stands
        body = None
        for pos, text in self._defs.get(name, ()):
            if pos < at:
                body = text
        if body is None or self._depth >= MAX_DEPTH or self._left <= 0:
            return None
        # uses after the same definitions read the same: the body is read once for all of them
        key = (name, bisect.bisect_left(self._starts, at))
        text = self._read.get(key)
        if text is None:
            self._depth, self._at = self._depth + 1, at
            try:
                text = self._read[key] = read(body)
            finally:
                self._depth -= 1
        self._left -= len(text) + 1
        return text if self._left >= 0 else None
