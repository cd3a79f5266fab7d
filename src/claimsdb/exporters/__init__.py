"""One module per output format. Each renders an `Export` whose rows carry their own paper-safe flag.

Every unsafe row a renderer receives must come out visibly marked: a dagger and a "not re-read"
footnote in Markdown and LaTeX, a `paper_safe` column and a marker in CSV and JSON, an "[unverified]"
mark in Quarto variables, and a LaTeX error unless the paper declares \\claimsdraft in the macros.
"""

from __future__ import annotations

from collections.abc import Callable

from claimsdb.exporters import bibtex, csvfile, html, jsonfile, latex, macros, markdown, quarto
from claimsdb.export import Export

RENDERERS: dict[str, Callable[[Export], str]] = {
    "markdown": markdown.render,
    "csv": csvfile.render,
    "json": jsonfile.render,
    "latex": latex.render,
    "bibtex": bibtex.render,
    "macros": macros.render,
    "quarto": quarto.render,
    "html": html.render,
}
FORMATS = tuple(RENDERERS)
# Formats that guard each unsafe figure themselves, so they may carry every claim ("guarded" mode).
GUARDING = ("macros",)


def render(export: Export, fmt: str) -> str:
    if export.mode == "guarded" and fmt not in GUARDING:
        raise ValueError(f"the {fmt} format does not guard unsafe figures; it cannot be exported in guarded mode")
    return RENDERERS[fmt](export)
