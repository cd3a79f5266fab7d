"""How every page draws a claim, and the templates that do it.

One look per trust level, shared by the server's pages and the static HTML export, so the two cannot
disagree:
- verified: a solid border; secondary: a double border (distinct, and paper-safe by default);
- not paper-safe: dashed, and marked in words: "unverified" for an unverified tag, "not re-read" for
  any other (a secondary tag under the strict policy, a verified one changed since its re-read);
- "stale" when the latest verification no longer finds the figure, "tampered" when the claim
  disagrees with its history.
The marks are text in the page, not only a style, so they survive copying, printing and screen readers.

Everything user-controlled (statements, subjects, quotes, titles: they come from agents and the open
web) reaches HTML through Jinja2's autoescape; a URL becomes a link only when `escaping.http_url` takes it.
Imports Jinja2 and escaping only, never the web server, so `claims export --format html` stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from claimsdb import paper_safe
from claimsdb.escaping import http_url

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STYLESHEET = HERE / "static" / "claims.css"

UNVERIFIED = "unverified"
NOT_REREAD = "not re-read"
STALE = "stale"
TAMPERED = "tampered"
LEFT_OUT = (
    "left out"  # a competing value an export does not write: deprecated, or another preferred
)
SEE_CLAIM = "see claim"  # a grid cell's text for a claim with neither label nor figures


@dataclass(frozen=True)
class Link:
    key: str
    title: str
    url: str | None  # http(s) only


def links(sources: list[dict[str, Any]]) -> tuple[Link, ...]:
    """Each source once, in order, as a link where it has an http(s) URL."""
    seen: dict[str, Link] = {}
    for s in sources:
        seen.setdefault(
            s["key"], Link(s["key"], s.get("title") or s["key"], http_url(s.get("url")))
        )
    return tuple(seen.values())


@dataclass(frozen=True)
class Drawn:
    """A claim as the pages draw it: its figures (or, without figures, its statement) in its tag's look."""

    key: str
    subject: str
    stage: str | None
    statement: str
    figures: tuple[str, ...]
    tag: str
    trust: str | None
    safe: bool
    stale: bool = False
    outdated: str | None = None
    tampered: bool = False
    sources: tuple[Link, ...] = ()
    label: str | None = None  # what its grid cell shows instead of the figures
    left_out: str | None = (
        None  # why an export leaves this competing value out (paper_safe._Chooser)
    )

    @classmethod
    def from_view(cls, view, policy) -> Drawn:
        """From a views.ClaimView; paper-safe as `policy` (policy.Policy) decides."""
        return cls(
            key=view.key,
            subject=view.subject,
            stage=view.stage,
            statement=view.statement,
            figures=tuple(f["raw"] for f in view.figures),
            tag=view.tag,
            trust=view.trust,
            safe=policy.allows(view),
            stale=view.stale,
            outdated=view.outdated_reason,
            tampered=bool(view.integrity),
            sources=links(view.sources),
            label=view.label,
            left_out=paper_safe.left_out(view),
        )

    @classmethod
    def from_row(cls, row) -> Drawn:
        """From an export.ExportRow: the export decided paper-safety; the sources are its citations."""
        return cls(
            key=row.key,
            subject=row.subject,
            stage=row.stage,
            statement=row.statement,
            figures=tuple(row.figures),
            tag=row.tag,
            trust=row.trust,
            safe=row.paper_safe,
            stale=row.stale,
            outdated=row.outdated,
            sources=links(row.citations),
            label=row.label,
        )

    @property
    def marks(self) -> tuple[str, ...]:
        out = []
        if not self.safe:
            out.append(UNVERIFIED if self.trust == "unverified" else NOT_REREAD)
        if self.stale:
            out.append(STALE)
        if self.tampered:
            out.append(TAMPERED)
        if self.left_out:
            out.append(LEFT_OUT)
        return tuple(out)

    @property
    def css(self) -> str:
        classes = ["fig", f"trust-{self.trust or 'unknown'}"]
        if not self.safe:
            classes.append("unsafe")
        if self.stale:
            classes.append("stale")
        if self.left_out:
            classes.append("left-out")
        return " ".join(classes)

    @property
    def title(self) -> str:
        """The tooltip: the tag, its trust, and why it is not paper-safe."""
        parts = [f"{self.tag} ({self.trust or 'unknown trust'})"]
        if self.outdated:
            parts.append(self.outdated)
        if self.stale:
            parts.append("the latest verification no longer finds it")
        if self.tampered:
            parts.append("disagrees with its history: run `claims db check`")
        if not self.safe:
            parts.append("not paper-safe")
        if self.left_out:
            parts.append(self.left_out)
        return "; ".join(parts)

    @property
    def cell(self) -> tuple[str, ...]:
        """What its grid cell draws: its label, else each figure as written; empty when it has neither
        (the cell then draws SEE_CLAIM, the statement in its hover, never in the cell)."""
        return (self.label,) if self.label else self.figures

    @property
    def link(self) -> Link | None:
        """The first source with an http(s) URL."""
        return next((s for s in self.sources if s.url), None)


def legend(items) -> tuple[str, ...]:
    """The looks the legend explains, only those some drawn claim has: "verified" and "secondary" for a
    paper-safe figure of that trust, then each mark (UNVERIFIED, NOT_REREAD, STALE, TAMPERED) in use."""
    items = list(items)
    safe = {item.trust for item in items if item.safe}
    marks = {m for item in items for m in item.marks}
    return tuple(t for t in ("verified", "secondary") if t in safe) + tuple(
        m for m in (UNVERIFIED, NOT_REREAD, STALE, TAMPERED, LEFT_OUT) if m in marks
    )


def highlight(passage: str, figures: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    """The passage cut into (text, is one of the claim's figures) pieces. A figure of the page is the
    claim's when the one matcher says it states one of them (the same, or a more precise reading)."""
    from claimsdb.figures import Context, FigureError, as_quantity, match, scan

    stored = []
    for f in figures:
        try:
            stored.append(as_quantity(f))
        except FigureError:
            continue
    near = Context(subject=True, open_measure=True)  # the passage was located for this claim
    pieces: list[tuple[str, bool]] = []
    at = 0
    for found in scan(passage):
        if any(match(q, found.quantity, near).states for q in stored):
            pieces += [(passage[at : found.start], False), (passage[found.start : found.end], True)]
            at = found.end
    pieces.append((passage[at:], False))
    return [p for p in pieces if p[0]]


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["http_url"] = http_url
    env.filters["legend"] = legend
    env.globals["see_claim"] = SEE_CLAIM
    return env


def compile_templates() -> None:
    """Compile every template now (a server at its start), so that no page waits for it."""
    for path in TEMPLATES.glob("*.html"):
        environment().get_template(path.name)


@lru_cache(maxsize=1)
def stylesheet() -> str:
    return STYLESHEET.read_text(encoding="utf-8")


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
