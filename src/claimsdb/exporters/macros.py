"""LaTeX macros: figures by reference with `\\claim{KEY}` in a paper.

`\\input{claims.tex}` in the preamble, then `\\claim{KEY}` prints the claim's first figure as written,
`\\claim[2]{KEY}` its second, `\\claim[NAME]{KEY}` the figure with that name. An unknown key is a LaTeX
error. A claim that is not paper-safe is a LaTeX error too, unless the document says `\\claimsdraft`,
in which case the figure is printed with a red "unverified" mark. So the file can hold every selected
claim: the guard travels with the figure into the paper. Exported with --draft, the file says
`\\claimsdraft` itself; with --skip-unsafe it holds the paper-safe claims only (an unsafe key is unknown).
"""

from __future__ import annotations

from claimsdb.escaping import comment, latex_name, latex_text
from claimsdb.exporters.common import manifest_comments, named_figures
from claimsdb.paper_safe import Export, ExportRow

PREAMBLE = r"""\RequirePackage{xcolor}
\makeatletter
\newif\ifclaims@draft
\providecommand{\claimsdraft}{\claims@drafttrue}
\newcommand{\claims@unsafe}[2]{%
  \ifclaims@draft#2\textcolor{red}{\textsuperscript{unverified}}%
  \else\PackageError{claims}{claim #1 is not paper-safe (not re-read)}%
    {Re-read it (claims reread #1), or put \string\claimsdraft\space in the preamble of a draft.}%
  \fi}
\newcommand{\claim}[2][]{%
  \@ifundefined{claims@fig@#2@#1}%
    {\PackageError{claims}{unknown claim or figure: \detokenize{#2} [\detokenize{#1}]}%
      {Export the macros again (claims export --format macros), or check the key.}}%
    {\@nameuse{claims@fig@#2@#1}}}
"""


def _define(key: str, selector: str, value: str) -> str:
    # Both names go into \csname verbatim: refused unless inert there, so that no key or figure name
    # can close the definition and redefine the guard (\claims@unsafe) or anything else.
    name = latex_name(selector, f"the figure name {selector!r} of claim {key!r}")
    return f"\\@namedef{{claims@fig@{key}@{name}}}{{{value}}}"


def _value(row: ExportRow, raw: str) -> str:
    text = latex_text(raw)
    return text if row.paper_safe else f"\\claims@unsafe{{{row.key}}}{{{text}}}"


def render(export: Export) -> str:
    lines = manifest_comments(export, "% claimsdb export: ")
    lines += [
        "% Use: \\input{this file} in the preamble; \\claim{KEY}, \\claim[2]{KEY}, \\claim[NAME]{KEY}.",
        "% Claims that are not paper-safe stop the build unless the document says \\claimsdraft.",
        PREAMBLE.rstrip("\n"),
    ]
    if (
        export.mode == "draft"
    ):  # --draft: the file itself declares the draft, so unsafe figures print marked
        lines += [
            '% DRAFT (claims export --draft): figures that are not paper-safe print with a red "unverified"',
            "\\claimsdraft",
        ]
    for row in export.rows:
        if not row.figures:
            continue
        latex_name(row.key, "the claim key")
        safety = "paper-safe" if row.paper_safe else "NOT paper-safe"
        lines.append("% " + comment(f"{row.key}: {row.tag} ({row.trust}), {safety}"))
        for selector, raw in named_figures(row, "", str):
            lines.append(_define(row.key, selector, _value(row, raw)))
    lines.append("\\makeatother")
    return "\n".join(lines) + "\n"
