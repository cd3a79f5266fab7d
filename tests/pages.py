"""The pages tests re-read claims in. A re-read is checked against the page's own words (issue 32), so
a test names the page's words, and the quote and every figure of its claim must be in or around them.
The domain takes a page as a `reread_page.PageRead` (`read`, `reread_of`); the command line as a local
copy that the `page` fixture of tests/conftest.py writes, with the flags of a re-read that quotes it:

    claims("reread", KEY, *WIDGET_PRETRAIN.flags(page), "--yes")
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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


# --- the command line: a local copy and the flags that quote it ----------------------------------


@dataclass(frozen=True)
class Reread:
    """A page (a source key, or a URL) with the place a claim stands in it and its words there."""

    source: str
    locator: str
    quote: str
    paragraphs: tuple[str, ...]  # the page's text, as the `page` fixture writes it (Markdown)

    def flags(self, page: Callable[..., Path], source: str | None = None) -> tuple[str, ...]:
        """--source, --locator, --quote, and --copy naming a local copy of the page written now
        (`source`: the page under another key or URL than this one's)."""
        copy = page(*self.paragraphs)
        return (
            *("--source", source or self.source),
            *("--locator", self.locator, "--quote", self.quote, "--copy", str(copy)),
        )


# SAMPLE's claims (tests/conftest.py), in the widget report and the Gadget paper.
WIDGET_PRETRAIN = Reread(
    "widget-report",
    "§3.1",
    "pretrained on 3,072 H100 GPUs for 21.5T tokens",
    ("## 3.1 Compute", "Widget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens."),
)
WIDGET_CONTEXT = Reread(
    "widget-report",
    "§4",
    "grew from 8K to 256K tokens",
    ("## 4 Context", "The context window of Widget-7 grew from 8K to 256K tokens."),
)
GADGET_FLEET = Reread(
    "gadget-paper",
    "§4.2",
    "between 40K and 60K sandboxes",
    ("## 4.2 Sandboxes", "Gadget keeps between 40K and 60K sandboxes running at once."),
)

# The bundled data's claims (data/*.json), in the pages they come from.
LLAMA3_PRETRAIN = Reread(  # pipelines.llama3.pretrain: 16K H100, 4D (stored as 4 dimensions)
    "llama3-report",
    "§3.3.1",
    "trained on up to 16K H100 GPUs with parallelism in 4 dimensions",
    (
        "## 3.3.1 Compute",
        "Llama 3 is trained on up to 16K H100 GPUs with parallelism in 4 dimensions (4D parallelism).",
    ),
)
LLAMA3_FAILURES = Reread(  # pipelines.obs.llama3-failures: 466 interruptions, 54 days, > 90%
    "llama3-report",
    "§3.3.4",
    "we experienced a total of 466 job interruptions",
    (
        "### 3.3.4 Reliability and Operational Challenges",
        "During a 54-day snapshot period of pre-training, we experienced a total of 466 job "
        "interruptions. Despite them, we achieved higher than 90% effective training time.",
    ),
)
OPEN_ATHENA_TOKENS = Reread(  # pipelines.marin.open-athena.tokens: 18T tokens
    "open-athena-535b-launch",
    "§2",
    "pretrained on 18T tokens",
    ("## 2 Training", "Open Athena 535B was pretrained on 18T tokens."),
)
LONGCAT_ENVIRONMENTS = Reread(  # rl.fleet.longcat-environments: 32,000 environments
    "longcat-report",
    "§4.1",
    "32,000 environments",
    ("## 4.1 Environments", "For RL, LongCat runs 32,000 environments at once."),
)
KIMI_TASKS = Reread(  # rl.fleet.kimi-k25-tasks: up to 100,000 tasks
    "https://example.org/kimi",
    "§5.1",
    "up to 100,000 concurrent tasks",
    ("## 5.1 Agent swarm", "Kimi K2.5 runs up to 100,000 concurrent tasks in its sandboxes."),
)
