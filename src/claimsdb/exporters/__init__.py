"""One module per output format. Each renders an `Export` whose rows carry their own paper-safe flag.

Every unsafe row a renderer receives (draft mode only) must come out visibly marked: a dagger and
a "not re-read" footnote in Markdown and LaTeX, a `paper_safe` column and a marker in CSV and JSON.
"""

from __future__ import annotations

from collections.abc import Callable

from claimsdb.exporters import bibtex, csvfile, jsonfile, latex, markdown
from claimsdb.export import Export

RENDERERS: dict[str, Callable[[Export], str]] = {
    "markdown": markdown.render,
    "csv": csvfile.render,
    "json": jsonfile.render,
    "latex": latex.render,
    "bibtex": bibtex.render,
}
FORMATS = tuple(RENDERERS)


def render(export: Export, fmt: str) -> str:
    return RENDERERS[fmt](export)
