"""Figures by reference: what the exporters let a manuscript insert by a claim's key, found where the
manuscript uses them, so that lint checks them as it checks the figures typed by hand.

- LaTeX (`claims export --format macros`): `\\claim{KEY}` (the first figure), `\\claim[2]{KEY}` (the
  second), `\\claim[NAME]{KEY}` (the figure of that name); not in `%` comments or verbatim text. A key
  of the store in braces after any other macro is a use too (`\\fig{KEY}`, `\\def\\k{KEY}`), and a
  `\\claim` lint cannot follow to a key (`\\let\\cl\\claim`, `\\expandafter\\claim`) is one with no key.
- Markdown and Quarto (`claims export --format quarto`): `{{< var KEY.fig >}}` (the first figure; also
  `{{< meta KEY.fig >}}`, where the variables are read as metadata),
  `KEY.fig2` (the second), `KEY.NAME` (the figure of that name, its spaces written as underscores);
  not in code or HTML comments.

What a TeX document does with its macros is not lint's to trust: `\\claimsdraft` or a redefined guard
prints an unsafe figure without stopping the build. A manuscript is a draft for lint only when it
says so in a line of its own, a comment that TeX and Markdown both leave out of the output:
`% claims: draft` (LaTeX) or `<!-- claims: draft -->` (Markdown, Quarto, HTML). Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimsdb.figures import Quantity

__all__ = [
    "MD_HIDDEN",
    "TEX_HIDDEN",
    "Reference",
    "blanked",
    "draft_marked",
    "references",
    "resolve",
]


@dataclass(frozen=True)
class Reference:
    start: int  # offset in the manuscript as written
    raw: str  # the use as written: "\\claim[2]{KEY}", "{{< var KEY.fig2 >}}"
    path: str  # the claim's key (LaTeX), or the key and the figure's name (Quarto): "KEY.fig2"
    selector: str | None  # LaTeX's optional argument; None for Quarto (its path holds it)
    # a key in braces after another macro ("\\let\\cl\\claim ... \\cl{KEY}", "\\def\\k{KEY}"):
    # a use only when the braces hold a key of the store (lint drops the others)
    indirect: bool = False


# A key and a figure's name are short: bounded, a line of unclosed "\claim[" is searched in linear time.
_CLAIM = re.compile(
    r"\\claim(?![A-Za-z@])[ \t]*(?:\[([^\]\n]{0,200})\][ \t]*)?\{([^{}#\n]{1,300})\}"
)
# Braces holding one key-shaped word, after any macro and optional argument: TeX lets a document call
# \claim by another name (\let, \newcommand, \csname claim\endcsname, \expandafter), so every such
# key of the store is a use, whatever macro stands before it.
# (Spaces only ever follow something matched: two quantifiers of spaces side by side would try every
# split of a long run of spaces, at every start in it.)
_KEYED = re.compile(
    r"(?:(?:\\[A-Za-z@]+|\\csname[ \t]*[A-Za-z@]{1,100}[ \t]*\\endcsname)[ \t]*)?"
    r"(?:\[([^\]\n\\\[{}]{0,200})\][ \t]*)?\{[ \t]*([A-Za-z0-9][\w.:/\-]{0,299})[ \t]*\}"
)
# \claim where lint cannot read the figure it prints: under another name ("\let\cl\claim"), its
# argument expanded first ("\expandafter\claim"). Not its definition ("\renewcommand{\claim}") nor a
# macro passing its own parameter on ("\newcommand{\fig}[1]{\claim{#1}}": each "\fig{KEY}" is read).
_ANY_CLAIM = re.compile(r"\\claim(?![A-Za-z@])|\\csname[ \t]*claim[ \t]*\\endcsname")
_DEFINED = re.compile(
    r"(?:\\(?:re)?newcommand\*?|\\providecommand\*?|\\DeclareRobustCommand\*?)[ \t]*(?:\{[ \t]*)?\Z"
    r"|\\[gex]?def[ \t]*\Z|\\let[ \t]*\Z"
)
_PASSED_ON = re.compile(r"[ \t]*(?:\[[^\]\n]{0,200}\][ \t]*)?\{[ \t]*#[1-9][ \t]*\}")
_VAR = re.compile(r"\{\{<[ \t]*(?:var|meta)[ \t]+([^\s>]{1,500})[ \t]*>\}\}")
# What the exporters' uses never stand in: TeX comments and verbatim text; Markdown code and comments.
# An opener ("open") hides up to its closer, found by one search from it; an unclosed one hides the rest
# of the text, as TeX and Markdown read it. So each character is searched a bounded number of times: a
# pattern that looked for the closer from every opener took minutes on a page of unclosed ones.
TEX_HIDDEN = re.compile(
    r"(?<!\\)%[^\n]*"
    r"|\\begin\{(?P<open>verbatim\*?|Verbatim|lstlisting|minted|comment)\}"
    r"|\\verb\*?([^\w\s])[^\n]*?\2"
)
MD_HIDDEN = re.compile(
    r"(?P<open><!--)|^[ \t]*(?P<fence>```+|~~~+)[^\n]*$|(`+)(?!`)[^\n]+?(?<!`)\3(?!`)", re.M
)
_DRAFT = re.compile(r"^[ \t]*(?:%+|<!--)[ \t]*claims:[ \t]*draft\b[^\n]*$", re.I | re.M)


def _closer(m: re.Match[str]) -> re.Pattern[str] | None:
    """What ends the hidden region an opener starts, or None when the match is the whole region."""
    if m.group("open") == "<!--":
        return re.compile("-->")
    if m.group("open"):
        return re.compile(re.escape(f"\\end{{{m.group('open')}}}"))
    fence = m.groupdict().get("fence")
    if fence:
        return re.compile(rf"^[ \t]*{re.escape(fence)}[ \t]*$", re.M)
    return None


def blanked(text: str, hidden: re.Pattern[str]) -> str:
    """The text with what `hidden` finds blanked (offsets kept)."""
    out: list[str] = []
    pos = done = 0
    while (m := hidden.search(text, pos)) is not None:
        closer = _closer(m)
        end = m.end()
        if closer is not None:
            close = closer.search(text, end)
            end = close.end() if close else len(text)
        out += [text[done : m.start()], re.sub(r"[^\n]", " ", text[m.start() : end])]
        done = end
        pos = max(end, m.start() + 1)
    return "".join(out) + text[done:]


def references(text: str, kind: str) -> list[Reference]:
    """Every use of a figure by reference in the manuscript, in order."""
    if kind == "tex":
        seen = blanked(text, TEX_HIDDEN)
        direct = [
            Reference(m.start(), m.group(0), m.group(2).strip(), (m.group(1) or "").strip())
            for m in _CLAIM.finditer(seen)
        ]
        taken = {r.start for r in direct}
        indirect = [
            Reference(m.start(), m.group(0).strip(), m.group(2), (m.group(1) or "").strip(), True)
            for m in _KEYED.finditer(seen)
            if not m.group(0).startswith("\\claim") and m.start() not in taken
        ]
        taken |= {r.start for r in indirect}
        unread = [
            Reference(m.start(), m.group(0), "", "")
            for m in _ANY_CLAIM.finditer(seen)
            if m.start() not in taken
            and not _DEFINED.search(seen, max(0, m.start() - 40), m.start())
            and not _PASSED_ON.match(seen, m.end())
        ]
        return sorted(direct + indirect + unread, key=lambda r: r.start)
    if kind in ("md", "qmd"):
        seen = blanked(text, MD_HIDDEN)
        return [Reference(m.start(), m.group(0), m.group(1), None) for m in _VAR.finditer(seen)]
    return []


def draft_marked(text: str) -> bool:
    """The manuscript says it is a draft, in the comment line lint reads (see the module docstring)."""
    return _DRAFT.search(text) is not None


Figures = tuple[tuple[str | None, Quantity], ...]  # a claim's figures in order: (name, quantity)


def _figure(figures: Figures, selector: str, first: str, nth: re.Pattern[str]) -> int | None:
    """The index of the figure a selector names: the first, a position, or a name."""
    if selector == first:
        return 0 if figures else None
    m = nth.fullmatch(selector)
    if m and 1 <= int(m.group(1)) <= len(figures):
        return int(m.group(1)) - 1
    for i, (name, _) in enumerate(figures):
        if name and (name == selector or re.sub(r"\s+", "_", name.strip()) == selector):
            return i
    return None


_TEX_NTH = re.compile(r"(\d+)")
_VAR_NTH = re.compile(r"fig(\d+)")


def resolve(ref: Reference, keys: dict[str, Figures]) -> tuple[str, int] | str:
    """(the claim's key, the index of its figure), or why the reference names no figure."""
    if ref.selector is not None:
        key, selector, first, nth = ref.path, ref.selector, "", _TEX_NTH
    else:
        key, _, selector = ref.path.rpartition(".")
        first, nth = "fig", _VAR_NTH
    if not ref.path:
        return (
            "used without a key lint can read (under another name, or its argument expanded first): "
            "write \\claim{KEY}"
        )
    if ref.path in keys and key not in keys:
        return f"names claim {ref.path}, not one of its figures: write {ref.path}.fig"
    if key not in keys:
        return f"unknown claim {key or ref.path!r}: no claim in the store has this key"
    i = _figure(keys[key], selector, first, nth)
    if i is None:
        return f"claim {key} has no figure {selector!r}"
    return key, i
