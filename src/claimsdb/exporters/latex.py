"""LaTeX tables with booktabs, \\cite{} from the sources' citation keys, and the manifest as comments."""

from __future__ import annotations

from claimsdb.escaping import bibtex_key, latex_text
from claimsdb.export import NOT_REREAD, Export, ExportRow, cell_text, grid
from claimsdb.exporters.common import manifest_comments

DAGGER = r"\textsuperscript{\dag}"


def _mark(text: str, row: ExportRow) -> str:
    return latex_text(text) if row.paper_safe else f"{latex_text(text)}{DAGGER}"


def cite(row: ExportRow) -> str:
    keys = [bibtex_key(c["cite_key"], f"the citation key of source {c['key']!r}") for c in row.citations]
    return f"\\cite{{{','.join(keys)}}}" if keys else ""


def render(export: Export) -> str:
    lines = manifest_comments(export, "% claimsdb export: ")
    lines.append("% needs \\usepackage{booktabs}")
    if export.draft:
        lines.append(f"% DRAFT: figures marked with a dagger are {NOT_REREAD}; not for a paper")
        lines.append(f"\\noindent\\textbf{{DRAFT}}: figures marked {DAGGER} are {NOT_REREAD}.\\par")
    if export.layout == "grid":
        stages, subjects = grid(export.rows)
        lines.append("\\begin{tabular}{l" + "p{2.6cm}" * len(stages) + "}")
        lines.append("\\toprule")
        lines.append("Subject & " + " & ".join(latex_text(s or "(no stage)") for s in stages) + " \\\\")
        lines.append("\\midrule")
        for subject, cells in subjects:
            parts = ["; ".join(_mark(cell_text(r), r) for r in cells.get(s, [])) or "---" for s in stages]
            lines.append(f"{latex_text(subject)} & " + " & ".join(parts) + " \\\\")
    else:
        lines.append("\\begin{tabular}{llp{6cm}ll}")
        lines.append("\\toprule")
        lines.append("Subject & Stage & Statement & Figure & Source \\\\")
        lines.append("\\midrule")
        for r in export.rows:
            figure = ", ".join(r.figures)
            figure_cell = _mark(figure, r) if figure else ("" if r.paper_safe else DAGGER)
            lines.append(
                f"{latex_text(r.subject)} & {latex_text(r.stage or '')} & {_mark(r.statement, r)} & {figure_cell} & {cite(r)} \\\\"
            )
    lines.append("\\bottomrule")
    lines.append("\\end{tabular}")
    if any(not r.paper_safe for r in export.rows):
        lines.append(f"\\par\\noindent{{\\footnotesize {DAGGER} {NOT_REREAD}: the figure's tag is not "
                     f"paper-safe under the {latex_text(export.policy.name)} policy.}}")
    return "\n".join(lines) + "\n"
