"""The pages tests re-read claims in, as the domain takes them (`reread_page.PageRead`): a re-read is
checked against the page's text, so a test names the page's words, and the quote and the claim's
figures must be in them. For the command line, the `page` fixture writes such words to a local copy
(--copy)."""

from __future__ import annotations

import hashlib
from typing import Any

from claimsdb.reread_page import PageRead

# The widget report's sections that state the SAMPLE's claims (tests/conftest.py): a heading and a paragraph.
WIDGET = ("## 3.1 Compute", "Widget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens.")
CONTEXT = ("## 4.2 Long context", "Widget-7's context grew from 8K to 256K tokens in midtraining.")
GADGET = ("## Table 2: Sandboxes", "Gadget runs 40–60K sandboxes at once.")

# Where each SAMPLE claim stands in the widget report, and the report's words there.
PLACES = {
    "widget.pretrain": ("§3.1", "3,072 H100 GPUs"),
    "widget.context": ("§4.2", "grew from 8K to 256K tokens"),
    "gadget.fleet": ("Table 2", "40–60K sandboxes"),
}


def read(*paragraphs: str, page: str = "widget-report") -> PageRead:
    """The page `page` as a local copy holding these paragraphs (Markdown)."""
    text = "\n\n".join(paragraphs) + "\n"
    digest = hashlib.sha256(text.encode()).hexdigest()
    return PageRead(page, "copy", text, digest, where=f"pages/{page}.md")


def widget_report() -> PageRead:
    """The widget report, every section the SAMPLE's claims cite."""
    return read(*WIDGET, *CONTEXT, *GADGET)


def reread_of(key: str) -> dict[str, Any]:
    """What a re-read of a SAMPLE claim in the widget report names, with the page's text, as
    `provenance.reread` and `preview_reread` take it."""
    locator, quote = PLACES[key]
    return {"source": "widget-report", "locator": locator, "quote": quote, "read": widget_report()}
