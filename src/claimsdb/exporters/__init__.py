"""One module per output format. Each renders an `Export` whose rows carry their own paper-safe flag.

Every unsafe row a renderer receives must come out visibly marked: a dagger and a "not re-read"
footnote in Markdown and LaTeX, a `paper_safe` column and a marker in CSV and JSON, an "[unverified]"
mark in Quarto variables, and a LaTeX error unless the paper declares \\claimsdraft in the macros.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from claimsdb.exporters import bibtex, csvfile, html, jsonfile, latex, macros, markdown, quarto
from claimsdb.paper_safe import Export

# Each renders the whole text, or (markdown, csv, json, latex) yields it in pieces as it reads the rows.
RENDERERS: dict[str, Callable[[Export], str | Iterable[str]]] = {
    "markdown": markdown.render,
    "csv": csvfile.render,
    "json": jsonfile.render,
    "latex": latex.render,
    "bibtex": bibtex.render,
    "biblatex": bibtex.render_biblatex,
    "macros": macros.render,
    "quarto": quarto.render,
    "html": html.render,
}
FORMATS = tuple(RENDERERS)
# Formats that guard each unsafe figure themselves, so they may carry every claim ("guarded" mode).
GUARDING = ("macros",)


def pieces(export: Export, fmt: str) -> Iterator[str]:
    """The export's text in pieces, to write as they come: a list of a million claims is never held."""
    if export.mode == "guarded" and fmt not in GUARDING:
        raise ValueError(
            f"the {fmt} format does not guard unsafe figures; it cannot be exported in guarded mode"
        )
    out = RENDERERS[fmt](export)
    if isinstance(out, str):
        yield out
    else:
        yield from out


def render(export: Export, fmt: str) -> str:
    """The export's whole text."""
    return "".join(pieces(export, fmt))
