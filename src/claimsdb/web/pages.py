"""What each page of `claims serve` shows, read through the domain functions (queries, policy,
provenance, verification). No HTTP here: app.py turns a request into one of these calls and the
result into a page; a domain error (UnknownClaim, BadQuery...) goes up to app.py unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from sqlmodel import Session

from claimsdb import disputes, paper_safe, queries, verification, views
from claimsdb.errors import BadQuery
from claimsdb.escaping import http_url
from claimsdb.fetching.snapshots import SnapshotStore
from claimsdb.models import CLAIM_STATUSES, TRUST_LEVELS, Claim, Source
from claimsdb.selection import Facts, Memo, Selection
from claimsdb.sources import get_source
from claimsdb.trust.rule import Policy
from claimsdb.views import ClaimView
from claimsdb.web.drawing import Drawn, highlight

_WHOLE = re.compile(r"[0-9]{1,9}")  # a page number or size as a query string gives it
# Claims a page of the list draws, and subjects a page of the grid (sizes: by default, at most).
LIST_SIZE, LIST_MOST = 50, 500
GRID_SIZE, GRID_MOST = 25, 200
GRID_CELL = 10  # claims drawn in one cell of the grid (a subject at a stage); the rest are counted and linked


@dataclass(frozen=True)
class Filters:
    """The list's and the grid's filters, from the query string. Active claims unless told otherwise."""

    subject: str | None = None
    stage: str | None = None
    tag: str | None = None
    trust: str | None = None
    status: str | None = "active"
    stale: bool = False

    def __post_init__(self) -> None:
        self.claim_filter()  # validates them: InvalidField names the field, app.py its form's label

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> Filters:
        def text(name: str) -> str | None:
            return (params.get(name) or "").strip() or None

        status = text("status") if "status" in params else "active"
        return cls(
            subject=text("subject"),
            stage=text("stage"),
            tag=text("tag"),
            trust=text("trust"),
            status=None if status == "any" else status,
            stale=params.get("stale") in ("1", "on", "true"),
        )

    def claim_filter(self) -> queries.ClaimFilter:
        return queries.ClaimFilter(
            tag=self.tag,
            trust=self.trust,
            subject=self.subject,
            stage=self.stage,
            status=self.status,
        )

    def params(self) -> list[tuple[str, str]]:
        """The filters as a query string gives them back (what is not the default), for links that keep them."""
        out = [
            (name, value)
            for name in ("subject", "stage", "tag", "trust")
            if (value := getattr(self, name))
        ]
        if self.status != "active":
            out.append(("status", self.status or "any"))
        if self.stale:
            out.append(("stale", "1"))
        return out

    def selection(self, session: Session, policy: Policy, facts: Facts) -> Selection:
        return Selection(
            session,
            self.claim_filter(),
            policy,
            outdated=facts.outdated,
            unsigned=facts.unsigned,
            stale=self.stale,
        )


def href(path: str, params: list[tuple[str, Any]]) -> str:
    return f"{path}?{urlencode(params)}" if params else path


@dataclass(frozen=True)
class Paging:
    """Which page (`?page=N`, from 1) of how many items (`?size=K`, at most `most`) a page shows."""

    number: int
    size: int
    default: int

    @classmethod
    def from_query(cls, params: Mapping[str, str], *, default: int, most: int) -> Paging:
        def whole(name: str, fallback: int, top: int | None) -> int:
            text = (params.get(name) or "").strip()
            if not text:
                return fallback
            value = int(text) if _WHOLE.fullmatch(text) else 0
            if value < 1 or (top is not None and value > top):
                upto = f"from 1 to {top}" if top is not None else "from 1 up"
                raise BadQuery(f"{name} must be a whole number {upto}, not {text[:20]!r}")
            return value

        return cls(whole("page", 1, None), whole("size", default, most), default)

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    def params(self, number: int) -> list[tuple[str, Any]]:
        return ([("size", self.size)] if self.size != self.default else []) + (
            [("page", number)] if number > 1 else []
        )


@dataclass(frozen=True)
class Pager:
    """Where a page stands among its pages, and the links to the others (None where there is none); each
    link keeps the filters and the page size."""

    number: int
    pages: int
    total: int  # items (claims, or the grid's subjects) under the filters
    shown: tuple[int, int]  # the first and last item on this page, from 1 (0, 0: none)
    first: str | None
    previous: str | None
    next: str | None
    last: str | None

    @classmethod
    def of(cls, path: str, filters: Filters, paging: Paging, total: int, on_page: int) -> Pager:
        pages = max(1, math.ceil(total / paging.size))
        n = paging.number

        def link(number: int) -> str:
            return href(path, filters.params() + paging.params(number))

        shown = (paging.offset + 1, paging.offset + on_page) if on_page else (0, 0)
        return cls(
            n,
            pages,
            total,
            shown,
            link(1) if n > 1 else None,
            link(min(n - 1, pages)) if n > 1 else None,
            link(n + 1) if n < pages else None,
            link(pages) if n < pages else None,
        )

    @property
    def past_the_end(self) -> bool:
        return self.number > self.pages


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


def choices(session: Session, facts: Facts) -> dict[str, list[str]]:
    return {
        "stages": list(facts.stages),
        "tags": [t["name"] for t in queries.list_tags(session)],
        "trusts": list(TRUST_LEVELS),
        "statuses": list(CLAIM_STATUSES),
    }


def drawn(session: Session, ids: list[int], policy: Policy) -> list[Drawn]:
    return [Drawn.from_view(v, policy) for v in views.load(session, ids)]


def claims_page(
    session: Session, memo: Memo, filters: Filters, paging: Paging, policy: Policy, path: str
) -> dict[str, Any]:
    """One page of the filtered claims as a list, in the order the data files list them (import order)."""
    facts = memo.facts(session)
    chosen = filters.selection(session, policy, facts)
    total, unsafe = chosen.counts()
    items = drawn(session, chosen.page(paging.offset, paging.size), policy)
    return {
        "items": items,
        "claims": total,
        "unsafe": unsafe,
        **_paged(
            session, facts, filters, paging, Pager.of(path, filters, paging, total, len(items))
        ),
    }


def grid_page(
    session: Session, memo: Memo, filters: Filters, paging: Paging, policy: Policy, path: str
) -> dict[str, Any]:
    """One page of the stage grid: the next subjects of the filtered claims (in the order of their first
    claim, as the grid has always run), each with its claims by stage, GRID_CELL at most in a cell; the
    others are counted, with a link to them in the list. The columns are the stages of the page's claims."""
    facts = memo.facts(session)
    chosen = filters.selection(session, policy, facts)
    subjects = chosen.subjects()
    on_page = subjects[paging.offset : paging.offset + paging.size]
    per_cell: dict[tuple[str, str | None], int] = {}
    ids = []
    for claim_id, subject, stage in chosen.of_subjects([s.name for s in on_page]):
        per_cell[subject, stage] = per_cell.get((subject, stage), 0) + 1
        if per_cell[subject, stage] <= GRID_CELL:
            ids.append(claim_id)
    items = drawn(session, ids, policy)
    more = {
        (subject, stage or paper_safe.NO_STAGE_COLUMN): (
            n - GRID_CELL,
            href("/claims", replace(filters, subject=subject, stage=stage).params())
            if stage
            else None,
        )
        for (subject, stage), n in per_cell.items()
        if n > GRID_CELL
    }
    return {
        "items": items,
        "grids": paper_safe.grids(items),
        "more": more,
        "claims": sum(s.claims for s in subjects),
        "unsafe": sum(s.unsafe for s in subjects),
        **_paged(
            session,
            facts,
            filters,
            paging,
            Pager.of(path, filters, paging, len(subjects), len(on_page)),
        ),
    }


def _paged(
    session: Session, facts: Facts, filters: Filters, paging: Paging, pager: Pager
) -> dict[str, Any]:
    """What every paged page shows besides its items: where it stands, and the filters' form."""
    return {"pager": pager, "choices": choices(session, facts), "f": filters, "paging": paging}


def passage(
    session: Session, claim: Claim, source: Source, store: SnapshotStore, figures: list[dict]
) -> Passage:
    shown = verification.passage_for(session, claim, source, store)
    base = Passage(claim.key, source.key, http_url(source.url))
    if shown is None:
        return base
    if shown.get("error"):
        return Passage(
            claim.key, source.key, base.url, None, shown["fetched_at"], None, shown["error"]
        )
    text = shown.get("passage")
    return Passage(
        claim.key,
        source.key,
        http_url(shown.get("url")) or base.url,
        highlight(text, figures) if text else [],
        shown["fetched_at"],
        shown["outcome"],
    )


def claim_page(session: Session, key: str, policy: Policy, store: SnapshotStore) -> dict[str, Any]:
    claim = queries.get_claim(session, key)
    (view,) = queries.claim_views(session, [claim.id], events=None)
    primary = [s["key"] for s in view.sources if s["kind"] != "note"]
    passages = [
        passage(session, claim, get_source(session, k), store, list(view.figures))
        for k in dict.fromkeys(primary)
    ]
    return {
        "item": Drawn.from_view(view, policy),
        "view": view,
        "passages": passages,
        "competing": competing(session, view, policy),
        "disputes": disputes.summary(disputes.of_claim(session, key)),
    }


def competing(session: Session, view: ClaimView, policy: Policy) -> list[Drawn]:
    """The other claims on the same quantity (its competing values, each drawn with its tag)."""
    others = [queries.get_claim(session, c["key"]).id for c in view.competitors]
    return [Drawn.from_view(v, policy) for v in queries.claim_views(session, others, events=0)]
