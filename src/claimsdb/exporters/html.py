"""A self-contained HTML page of the selection, for a person's own site: the grids and the list,
each figure drawn with its tag as `claims serve` draws it (web/drawing.py) and linking to its source.

Inline CSS, no script, nothing fetched (a Content-Security-Policy in the page says so), so it opens from
a file:// URL. Unsafe rows reach it only in drafts, dashed and marked "unverified" or "not re-read",
under a DRAFT banner; the gate in export.prepare decides which rows it gets, as for every format.
"""

from __future__ import annotations

from pathlib import Path

from claimsdb.errors import InvalidField
from claimsdb.paper_safe import Export, grids

PAGE = "index.html"


def page_path(folder: Path) -> Path:
    """The output named is a folder: the page is DIR/index.html. A file is refused, naming the field
    ("output"), which the door names its own way (the command line: -o)."""
    if folder.is_file():
        raise InvalidField(
            "output", f"{folder}: an HTML export writes a folder (DIR/{PAGE}), and this is a file"
        )
    return folder / PAGE


def render(export: Export) -> str:
    from markupsafe import Markup

    from claimsdb.web import drawing

    items = [drawing.Drawn.from_row(r) for r in export.rows]
    return drawing.render(
        "export.html",
        items=items,
        grids=grids(items),
        draft=export.draft,
        policy=export.policy.describe(),
        manifest=export.manifest,
        href=_href,
        css=Markup(
            drawing.stylesheet()
        ),  # our own file, inside <style>, where entities are not decoded
    )


def _href(item) -> str:
    """A figure links to its first source with a web address, else to its row in the list."""
    return item.link.url if item.link is not None else f"#claim-{item.key}"
