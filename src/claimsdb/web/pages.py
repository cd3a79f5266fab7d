"""What each page of `claims serve` shows, read through the domain functions (queries, policy,
provenance, verification). No HTTP here: app.py turns a request into one of these calls and the
result into a page; a domain error (UnknownClaim, BadQuery...) goes up to app.py unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import export, provenance, queries, verification
from claimsdb.errors import BadQuery
from claimsdb.models import CLAIM_STATUSES, TRUST_LEVELS, Claim, Source
from claimsdb.policy import Policy
from claimsdb.sources import get_source
from claimsdb.verify.snapshots import SnapshotStore
from claimsdb.views import ClaimView
from claimsdb.web.drawing import Drawn, highlight, http_url

QUOTE_CHARS = 300  # the longest quote prefilled from a passage
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*")  # "14.8T" has no space after its point: not an end


@dataclass(frozen=True)
class Filters:
    """The list's and the grid's filters, from the query string. Active claims unless told otherwise."""

    subject: str | None = None
    stage: str | None = None
    tag: str | None = None
    trust: str | None = None
    status: str | None = "active"
    stale: bool = False

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> Filters:
        def text(name: str) -> str | None:
            return (params.get(name) or "").strip() or None

        trust = text("trust")
        status = text("status") if "status" in params else "active"
        status = None if status == "any" else status
        if trust is not None and trust not in TRUST_LEVELS:
            raise BadQuery(f"trust must be one of: {', '.join(TRUST_LEVELS)}")
        if status is not None and status not in CLAIM_STATUSES:
            raise BadQuery(f"status must be one of: {', '.join(CLAIM_STATUSES)}, any")
        return cls(subject=text("subject"), stage=text("stage"), tag=text("tag"), trust=trust, status=status,
                   stale=params.get("stale") in ("1", "on", "true"))

    def claim_filter(self) -> queries.ClaimFilter:
        return queries.ClaimFilter(tag=self.tag, trust=self.trust, subject=self.subject, stage=self.stage,
                                   status=self.status)


@dataclass(frozen=True)
class Passage:
    """Where a claim stands in the latest snapshot of one page; `segments` None when there is no snapshot."""

    claim: str
    source: str
    url: str | None
    segments: list[tuple[str, bool]] | None = None
    fetched_at: str | None = None
    outcome: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Entered:
    """The re-read form's fields: prefilled, or as the person sent them back."""

    source: str = ""
    locator: str = ""
    quote: str = ""
    note: str = ""


def _in_import_order(read: list[ClaimView]) -> list[ClaimView]:
    """Claims in the order their data files list them, so the grid's rows follow the note's table."""
    return sorted(read, key=lambda v: v.id)


def choices(session: Session) -> dict[str, list[str]]:
    stages = [s for s in session.scalars(select(Claim.stage).distinct().order_by(Claim.stage)) if s]
    return {"stages": export.stage_order([SimpleNamespace(stage=s) for s in stages]),
            "tags": [t["name"] for t in queries.list_tags(session)],
            "trusts": list(TRUST_LEVELS), "statuses": list(CLAIM_STATUSES)}


def overview(session: Session, filters: Filters, policy: Policy) -> dict[str, Any]:
    """The filtered claims, drawn, and the same claims as the stage grid (subjects by stages)."""
    read = _in_import_order(list(queries.iter_claims(session, filters.claim_filter(), stale=filters.stale)))
    items = [Drawn.from_view(v, policy) for v in read]
    stages, subjects = export.grid(items)
    return {"items": items, "stages": stages, "subjects": subjects, "unsafe": sum(not i.safe for i in items),
            "choices": choices(session), "f": filters}


def passage(session: Session, claim: Claim, source: Source, store: SnapshotStore, figures: list[dict]) -> Passage:
    shown = verification.passage_for(session, claim, source, store)
    base = Passage(claim.key, source.key, http_url(source.url))
    if shown is None:
        return base
    if shown.get("error"):
        return Passage(claim.key, source.key, base.url, None, shown["fetched_at"], None, shown["error"])
    text = shown.get("passage")
    return Passage(claim.key, source.key, http_url(shown.get("url")) or base.url,
                   highlight(text, figures) if text else [], shown["fetched_at"], shown["outcome"])


def claim_page(session: Session, key: str, policy: Policy, store: SnapshotStore) -> dict[str, Any]:
    claim = queries.get_claim(session, key)
    (view,) = queries.claim_views(session, [claim.id], events=None)
    primary = [s["key"] for s in view.sources if s["kind"] != "note"]
    passages = [passage(session, claim, get_source(session, k), store, list(view.figures))
                for k in dict.fromkeys(primary)]
    return {"item": Drawn.from_view(view, policy), "view": view, "passages": passages,
            "competing": competing(session, view, policy)}


def competing(session: Session, view: ClaimView, policy: Policy) -> list[Drawn]:
    """The other claims on the same quantity (its competing values, each drawn with its tag)."""
    others = [queries.get_claim(session, c["key"]).id for c in view.competitors]
    return [Drawn.from_view(v, policy) for v in queries.claim_views(session, others, events=0)]


def pending(session: Session, policy: Policy) -> tuple[list[dict[str, Any]], int]:
    """The re-read queue: active claims the export gate would block, in key order; and how many of those
    disagree with their history (a re-read is refused on them, so they are left to `claims db check`)."""
    blocked = [v for v in queries.iter_claims(session, queries.ClaimFilter(status="active")) if not policy.allows(v)]
    readable = [v for v in blocked if not v.integrity]
    return readable, len(blocked) - len(readable)


def _sentence_with_figure(segments: list[tuple[str, bool]]) -> str:
    """The sentence of the passage around its first highlighted figure, as a quote to start from."""
    text, start = "", None
    for piece, is_figure in segments:
        if is_figure and start is None:
            start = len(text)
        text += piece
    if start is None:
        return ""
    begin = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    end = next((m.start() for m in _SENTENCE_END.finditer(text, start)), len(text))
    return " ".join(text[begin:end].split())[:QUOTE_CHARS]


def queue_item(session: Session, policy: Policy, store: SnapshotStore, *, key: str | None = None,
               after: str | None = None, entered: Entered | None = None) -> dict[str, Any]:
    """One claim of the queue beside its located passage, with the form's fields prefilled: the claim
    named by `key`, else the first after `after` (wrapping round), else the first."""
    waiting, skipped = pending(session, policy)
    keys = [v.key for v in waiting]
    page: dict[str, Any] = {"item": None, "total": len(keys), "skipped": skipped, "position": 0}
    if not keys:
        return page
    if key is not None and key in keys:
        at = keys.index(key)
    else:
        at = next((n for n, k in enumerate(keys) if after is not None and k > after), 0)
    view = waiting[at]
    claim = queries.get_claim(session, view.key)
    source = get_source(session, view.primary_source) if view.primary_source else None
    shown = passage(session, claim, source, store, list(view.figures)) if source is not None else None
    if entered is None:
        cited = next((s for s in view.sources if source is not None and s["key"] == source.key), None) or {}
        from_passage = _sentence_with_figure(shown.segments or []) if shown is not None else ""
        entered = Entered(source=source.key if source is not None else "", locator=cited.get("locator") or "",
                          quote=from_passage or cited.get("quote") or "")
    pages = [s for s in queries.list_sources(session) if s["kind"] != "note"]
    return {**page, "item": Drawn.from_view(view, policy), "view": view, "passage": shown, "entered": entered,
            "position": at + 1, "pages": pages}


def record_reread(session: Session, key: str, reader: str, entered: Entered) -> dict[str, Any]:
    """Record the re-read under every rule of `claims reread` (provenance.reread)."""
    return provenance.reread(session, key, actor=reader, source=entered.source.strip() or None,
                             locator=entered.locator, quote=entered.quote, note=entered.note.strip() or None)


def recorded(session: Session, key: str) -> dict[str, str]:
    """What the latest re-read recorded, in the words `claims show` uses."""
    return {"key": key, "reason": queries.show(session, key)["tag_reason"]}
