"""LaTeX tables that fit the page: booktabs rules, \\cite{} from the sources' citation keys, the manifest
as comments.

The list is a `longtable` (it breaks across pages, repeating its header) whose columns share the line
width. The grid (subjects by stages) is as wide as the text too: its stages are wrapped, GRID_STAGES to a
table, each table listing the subjects that have a claim in its stages. Both need
`\\usepackage{booktabs,longtable,array}`, and their bibliography (`--format bibtex`) `\\usepackage{url}`.

Both cite each claim's published sources (`export.references`): the list in its Source column, the grid
after the figures of a cell, once for a run of claims that cite the same sources. A note is cited only
when the export was asked to (`--cite-notes`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from claimsdb.escaping import bibtex_key, clause, latex_text
from claimsdb.export_rows import ExportRow, references
from claimsdb.exporters.common import manifest_comments
from claimsdb.paper_safe import NOT_REREAD, Export, cell_text, grids

DAGGER = r"$^{\dagger}$"  # the math dagger: \dag in text is a bitmap font without cm-super (see escaping)
PACKAGES = r"\usepackage{booktabs,longtable,array}"
BIBLIOGRAPHY_PACKAGES = r"\usepackage{url}"  # the .bib's howpublished = {\url{...}}
# The list's columns as shares of the line: subject, stage, statement, figure, source.
LIST_SHARES = (0.19, 0.13, 0.32, 0.2, 0.16)
GRID_STAGES = 4  # stages side by side in one grid table: about 2.7 cm each on an A4 or letter page
SUBJECT_SHARE = 0.19
FONT = "\\small"  # a table's cells are narrower than the text: one size down, as most papers set tables
LIST_CAPTION = (
    "Figures and the sources they come from"  # the list's caption unless --caption says one
)
_SLASH = re.compile(r"(?<=[^\W\d_])/(?=[^\W\d_])")  # a slash between two letters


def _text(text: str) -> str:
    """LaTeX text for a narrow cell: an identifier's underscores may end a line (max_staleness_steps),
    and so may a slash between words (placement/networking/sandbox), which TeX never breaks at."""
    escaped = latex_text(text).replace("\\_", "\\_\\allowbreak{}")
    return _SLASH.sub("/\\\\allowbreak{}", escaped)


def _mark(text: str, row: ExportRow) -> str:
    return _text(text) if row.paper_safe else f"{_text(text)}{DAGGER}"


def cite(row: ExportRow, cite_notes: bool = False) -> str:
    """`\\cite{KEYS}` for the row's references, or "" when it has none."""
    keys = [
        bibtex_key(c["cite_key"], f"the citation key of source {c['key']!r}")
        for c in references(row, cite_notes=cite_notes)
    ]
    return f"\\cite{{{','.join(keys)}}}" if keys else ""


def _cell(rows: list[ExportRow], cite_notes: bool) -> str:
    """A grid cell: each claim's text, marked when unsafe, then its citation (one for a run of claims that
    cite the same sources), joined by "; " without a full stop before it; "---" when empty."""
    pieces = [(_entry(r), cite(r, cite_notes)) for r in rows]
    return (
        "; ".join(
            f"{text}~{keys}"
            if keys and (i + 1 == len(pieces) or pieces[i + 1][1] != keys)
            else text
            for i, (text, keys) in enumerate(pieces)
        )
        or "---"
    )


def _columns(shares: tuple[float, ...]) -> str:
    """Ragged-right paragraph columns whose widths and gaps add up to the line width exactly. The
    \\hspace{0pt} lets TeX hyphenate a cell's first word, which it never does at a paragraph's start."""
    gaps = 2 * (len(shares) - 1)
    return (
        "@{}"
        + "".join(
            f">{{\\raggedright\\arraybackslash\\hspace{{0pt}}}}p{{\\dimexpr {share:.4f}\\linewidth-{gaps / len(shares):.4f}\\tabcolsep\\relax}}"
            for share in shares
        )
        + "@{}"
    )


def _table(
    shares: tuple[float, ...],
    header: list[str],
    rows: Iterable[str],
    caption: str | None = None,
    label: str | None = None,
) -> Iterator[str]:
    """A longtable: its caption and label (when given) above the first page's header, and on every
    later page the header again under "(continued)", so that a reader knows where they are."""
    head = " & ".join(header) + r" \\"
    if caption is not None:
        named = f"\\label{{{label}}}" if label else ""
        first = [f"\\caption{{{latex_text(caption)}}}{named} \\\\"]
        again = f"\\caption[]{{{latex_text(caption)} (continued)}} \\\\"
    else:
        first = []
        again = f"\\multicolumn{{{len(shares)}}}{{@{{}}l}}{{\\emph{{(continued)}}}} \\\\"
    yield from (
        f"\\begingroup{FONT}\\setlength{{\\tabcolsep}}{{4pt}}",
        f"\\begin{{longtable}}{{{_columns(shares)}}}",
        *first,
        "\\toprule",
        head,
        "\\midrule",
        "\\endfirsthead",
        again,
        "\\toprule",
        head,
        "\\midrule",
        "\\endhead",
        "\\bottomrule",
        "\\endlastfoot",
    )
    yield from rows
    yield "\\end{longtable}"
    if (
        caption is None
    ):  # every longtable steps the table counter: one without a caption gives it back
        yield "\\addtocounter{table}{-1}"
    yield "\\endgroup"


def _list(export: Export) -> Iterator[str]:
    """The list's lines, a row at a time (a list of a million claims is written as it is read)."""

    def rows() -> Iterator[str]:
        for r in export.rows:
            figure = ", ".join(r.figures)
            figure_cell = _mark(figure, r) if figure else ("" if r.paper_safe else DAGGER)
            yield (
                f"{_text(r.subject)} & {_text(r.stage or '')} & {_mark(r.statement, r)} & "
                f"{figure_cell} & {cite(r, export.cite_notes)} \\\\"
            )

    header = ["Subject", "Stage", "Statement", "Figure", "Source"]
    return _table(LIST_SHARES, header, rows(), export.caption or LIST_CAPTION, export.label)


def _entry(row: ExportRow) -> str:
    """A grid cell's entry for one claim: its label or figures; a claim with neither is a footnote mark,
    its statement in the footnote (longtable sets a cell's footnotes at the foot of the page)."""
    if row.label:  # a phrase's slashes may end a line too (DeepEP/DeepGEMM/EPLB open: _text)
        return _mark(clause(row.label), row)
    text = cell_text(row)
    if text is not None:
        return _mark(clause(text), row)
    return f"\\footnote{{{_mark(row.statement, row)}}}" + ("" if row.paper_safe else DAGGER)


def _grid(export: Export) -> list[str]:
    """Each grid under its title: its columns wrapped GRID_STAGES at most to a table, in tables of
    even widths (six stages: two tables of three), each listing the subjects that have a claim in it."""
    lines: list[str] = []
    captioned = (export.caption, export.label)
    for g in grids(export.rows):
        if lines:
            lines.append("\\bigskip")
        lines.append(f"\\par\\noindent\\textbf{{{_text(g.title)}}}\\par\\nopagebreak")
        tables = -(-len(g.columns) // GRID_STAGES)
        size = -(-len(g.columns) // tables)
        for start in range(0, len(g.columns), size):
            part = g.columns[start : start + size]
            shares = (
                (SUBJECT_SHARE, *[(1 - SUBJECT_SHARE) / len(part)] * len(part))
                if len(part) > 1
                else (0.3, 0.7)
            )
            rows = [
                f"{_text(subject)} & "
                + " & ".join(_cell(cells.get(c, []), export.cite_notes) for c in part)
                + r" \\"
                for subject, cells in g.rows
                if any(cells.get(c) for c in part)
            ]
            if start:
                lines.append("\\medskip")
            header = ["Subject", *[_text(c) for c in part]]
            lines += _table(shares, header, rows, *captioned)
            captioned = (None, None)  # the caption and label name the first table
    return lines or list(_table((0.3, 0.7), ["Subject", "Claims"], []))


def render(export: Export) -> Iterator[str]:
    lines = manifest_comments(export, "% claimsdb export: ")
    lines.append(
        f"% needs {PACKAGES}; its bibliography (claims export --format bibtex) {BIBLIOGRAPHY_PACKAGES}"
    )
    if export.draft:
        lines.append(f"% DRAFT: figures marked with a dagger are {NOT_REREAD}; not for a paper")
        lines.append(f"\\noindent\\textbf{{DRAFT}}: figures marked {DAGGER} are {NOT_REREAD}.\\par")
    yield from (line + "\n" for line in lines)
    yield from (
        line + "\n" for line in (_grid(export) if export.layout == "grid" else _list(export))
    )
    if export.rows.not_re_read:
        yield (
            f"\\par\\noindent{{\\footnotesize {DAGGER} {NOT_REREAD}: the figure's tag is not "
            f"paper-safe under the {latex_text(export.policy.name)} policy.}}\n"
        )
