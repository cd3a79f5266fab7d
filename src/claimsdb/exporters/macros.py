"""LaTeX macros: figures by reference with `\\claim{KEY}` in a paper.

`\\input{claims.tex}` in the preamble, then `\\claim{KEY}` prints the claim's first figure as written,
`\\claim[2]{KEY}` its second, `\\claim[NAME]{KEY}` the figure with that name. An unknown key is a LaTeX
error. A claim that is not paper-safe is a LaTeX error too, unless the document says `\\claimsdraft`,
in which case the figure is printed with a red "unverified" mark. So the file can hold every selected
claim: the guard travels with the figure into the paper.
"""

from __future__ import annotations

from claimsdb.export import Export, ExportRow
from claimsdb.exporters.latex import escape

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
    return f"\\@namedef{{claims@fig@{key}@{selector}}}{{{value}}}"


def _value(row: ExportRow, raw: str) -> str:
    text = escape(raw)
    return text if row.paper_safe else f"\\claims@unsafe{{{row.key}}}{{{text}}}"


def render(export: Export) -> str:
    lines = [f"% claimsdb export: {k}: {v}" for k, v in export.manifest.items()]
    lines += ["% Use: \\input{this file} in the preamble; \\claim{KEY}, \\claim[2]{KEY}, \\claim[NAME]{KEY}.",
              "% Claims that are not paper-safe stop the build unless the document says \\claimsdraft.",
              PREAMBLE.rstrip("\n")]
    for row in export.rows:
        if not row.figures:
            continue
        safety = "paper-safe" if row.paper_safe else "NOT paper-safe"
        lines.append(f"% {row.key}: {row.tag} ({row.trust}), {safety}")
        lines.append(_define(row.key, "", _value(row, row.figures[0])))
        for i, raw in enumerate(row.figures, start=1):
            lines.append(_define(row.key, str(i), _value(row, raw)))
            name = row.figure_names[i - 1] if i - 1 < len(row.figure_names) else None
            if name:
                lines.append(_define(row.key, name, _value(row, raw)))
    lines.append("\\makeatother")
    return "\n".join(lines) + "\n"
