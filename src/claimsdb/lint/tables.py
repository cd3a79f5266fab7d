"""The column headers of a manuscript's tables: the words that may say what a figure in a cell counts."""

from __future__ import annotations

import bisect
import re

from claimsdb.prose.tex import _TEX_ENV_ARGS, _skip_args, tex

_MD_ROW = re.compile(r"[ \t]*\|")
_MD_SEPARATOR = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")
_TEX_TABLE = re.compile(
    r"\\begin\{(tabular\*?|tabularx|tabulary|longtable|tblr|xtabular|supertabular|NiceTabular)\}"
)
_TEX_ROW_END = re.compile(r"\\\\(?:\[[^\]]*\])?")
_TEX_CELL = re.compile(r"(?<!\\)&")
_TEX_RULES = re.compile(
    r"\\(?:toprule|midrule|bottomrule|hline|endhead|endfirsthead|endfoot|endlastfoot)\b"
    r"|\\c(?:line|midrule)(?:\([^)]*\))?\{[^}]*\}"
)


class Tables:
    """Column headers of tables, by offset in the original: Markdown (pipe) and plain-text (tab) tables
    line by line, LaTeX tabulars row by row (rows end at \\\\, cells at &; the first row is the header)."""

    def __init__(self, src: str, lines: list[int], kind: str):
        self.lines = lines
        self.header: dict[int, list[str]] = {}  # line index -> header cells of its table
        self.sep: dict[int, str] = {}
        self.rows: list[
            tuple[int, int, list[int], list[str]]
        ] = []  # LaTeX: start, end, cell starts, header
        texts = src.split("\n")
        header: list[str] | None = None
        for i, line in enumerate(texts):
            if kind in ("md", "qmd") and _MD_ROW.match(line):
                if header is None:
                    header = [c.strip() for c in line.strip().strip("|").split("|")]
                elif not _MD_SEPARATOR.match(line):
                    self.header[i], self.sep[i] = header, "|"
            elif kind == "txt" and "\t" in line:
                if header is None:
                    header = [c.strip() for c in line.split("\t")]
                else:
                    self.header[i], self.sep[i] = header, "\t"
            else:
                header = None
        self.texts = texts
        if kind == "tex":
            self._tex(src)
        self._row_starts = [r[0] for r in self.rows]

    def _tex(self, src: str) -> None:
        for m in _TEX_TABLE.finditer(src):
            close = src.find(f"\\end{{{m.group(1)}}}", m.end())
            body_end = close if close >= 0 else len(src)
            header: list[str] | None = None
            pos = _skip_args(
                src, m.end(), _TEX_ENV_ARGS.get(m.group(1), 1), body_end
            )  # the column spec
            for row in _TEX_ROW_END.finditer(src, pos, body_end):
                self._tex_row(src, pos, row.start(), header)
                if header is None:
                    cells = _TEX_CELL.split(_TEX_RULES.sub(" ", src[pos : row.start()]))
                    if len(cells) > 1:
                        header = [" ".join(tex(c).text.split()) for c in cells]
                pos = row.end()

    def _tex_row(self, src: str, start: int, end: int, header: list[str] | None) -> None:
        if header is not None:
            cells = [start] + [c.end() for c in _TEX_CELL.finditer(src, start, end)]
            self.rows.append((start, end, cells, header))

    def column(self, offset: int) -> str:
        """The header of the column that the original's offset stands in, or ""."""
        i = bisect.bisect_right(self._row_starts, offset) - 1
        if i >= 0 and self.rows[i][0] <= offset < self.rows[i][1]:
            _, _, cells, header = self.rows[i]
            k = bisect.bisect_right(cells, offset) - 1
            return header[k] if 0 <= k < len(header) else ""
        line = bisect.bisect_right(self.lines, offset) - 1
        header_cells = self.header.get(line)
        if not header_cells:
            return ""
        text = self.texts[line]
        col = offset - self.lines[line]
        sep = self.sep[line]
        k = text[:col].count(sep) - (1 if sep == "|" and text.lstrip().startswith("|") else 0)
        return header_cells[k] if 0 <= k < len(header_cells) else ""
