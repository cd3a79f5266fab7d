"""Reading the store: trace a number to its claims, show a claim, list claims, sources and tags.

Functions return plain dicts (stable keys, JSON-ready); rendering is the CLI's business.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists, func, select
from sqlmodel import Session

from claimsdb import history as chain
from claimsdb.errors import BadQuery, UnknownClaim
from claimsdb.models import (
    Claim, Event, Evidence, Figure, FigureNumber, MeasuredQuantity, Source, Tag, Verification, aliases_of,
)
from claimsdb.policy import Policy
from claimsdb.figures import FigureError, Quantity, as_quantity, figure_dict, parse
from claimsdb.figures.matching import (
    CONTAINED, DIFFERENT, MAGNITUDE, REACH_TIERS, ROUNDED, SAME, SPAN, Context, match,
)

TRACE_EVENTS = 3  # how many of the latest history events `trace` shows per claim
TRACE_LIMIT = 100  # matches shown in full by default: a common figure in a large store has thousands
# A verified claim whose latest check found less than its figures is stale; "rounded" is not stale.
STALE_OUTCOMES = ("figure-changed", "not-found", "partial")


@dataclass(frozen=True)
class ClaimFilter:
    tag: str | None = None
    trust: str | None = None
    subject: str | None = None
    stage: str | None = None
    source: str | None = None
    search: str | None = None
    status: str | None = None

    def apply(self, stmt):
        """The SQL part of the filter (everything but `stale`, which needs each claim's history)."""
        if self.tag:
            stmt = stmt.where(Claim.tag == self.tag)
        if self.trust:
            stmt = stmt.where(Claim.tag.in_(select(Tag.name).where(Tag.trust == self.trust)))
        if self.subject:
            stmt = stmt.where(func.lower(Claim.subject).contains(self.subject.lower(), autoescape=True))
        if self.stage:
            stmt = stmt.where(func.lower(Claim.stage) == self.stage.lower())
        if self.source:
            stmt = stmt.where(
                exists().where(
                    Evidence.claim_id == Claim.id, Evidence.source_id == Source.id, Source.key == self.source
                )
            )
        if self.search:
            stmt = stmt.where(func.lower(Claim.statement).contains(self.search.lower(), autoescape=True))
        if self.status:
            stmt = stmt.where(Claim.status == self.status)
        return stmt


def _event_dict(e: Event) -> dict[str, Any]:
    return {
        "at": e.at, "kind": e.kind, "actor": e.actor, "tag_before": e.tag_before, "tag_after": e.tag_after,
        "status_after": e.status_after, "rank_after": e.rank_after, "origin": e.origin,
        "detail": json.loads(e.detail) if e.detail else None,
    }


def _hashed_fields(e: Event) -> dict[str, Any]:
    """An event as chain.derive and chain.problems read it (the detail as stored text)."""
    return {k: getattr(e, k) for k in (*chain.EVENT_FIELDS, *chain.LATER_FIELDS, "sha256")}


def rank_reason(event: dict[str, Any] | None) -> str | None:
    """Why the claim has its rank, from the event that set it (None while it is merely normal)."""
    if event is None:
        return None
    detail = event.get("detail") or {}
    if event["kind"] == "ranked":
        why = f"{event['actor']} on {event['at'][:10]}: {detail.get('reason', '')}"
        return why + (f" ({detail['because']})" if detail.get("because") else "")
    return f"from the data file {event['origin']}" + (f": {detail['rank_reason']}" if detail.get("rank_reason") else "")


def competing_values(session: Session, claims: list[Claim]) -> dict[int, list[dict[str, Any]]]:
    """For each claim that states a quantity, the other claims on it (their figures, tag and rank)."""
    quantity_ids = {c.quantity_id for c in claims if c.quantity_id is not None}
    if not quantity_ids:
        return {}
    others = list(session.scalars(select(Claim).where(Claim.quantity_id.in_(quantity_ids)).order_by(Claim.key)))
    trust = dict(session.execute(select(Tag.name, Tag.trust)).all())
    raws: dict[int, list[str]] = {}
    for f in session.scalars(select(Figure).where(Figure.claim_id.in_([o.id for o in others])).order_by(Figure.position)):
        raws.setdefault(f.claim_id, []).append(f.raw)
    out = {}
    for c in claims:
        if c.quantity_id is not None:
            out[c.id] = [{"key": o.key, "figures": raws.get(o.id, []), "tag": o.tag, "trust": trust.get(o.tag),
                          "rank": o.rank, "status": o.status}
                         for o in others if o.quantity_id == c.quantity_id and o.id != c.id]
    return out


def tag_reason(event: dict[str, Any] | None, basis: str) -> str:
    """Why the claim has its current tag, from the event that set it."""
    if event is None:
        return basis
    when = f"{event['at'][:10]}"
    detail = event.get("detail") or {}
    if event["kind"] == "reread":
        where = detail.get("source", event.get("origin"))
        if detail.get("locator"):
            where += f", {detail['locator']}"
        seen = f": “{detail['quote']}”" if detail.get("quote") else ""
        return f"re-read by {event['actor']} on {when} in {where}{seen}"
    if event["kind"] == "retagged":
        return f"retagged by {event['actor']} on {when}: {detail.get('reason', '')}".rstrip(": ")
    return f"from the data file {event['origin']}: {basis}" if event.get("origin") else basis


def claim_views(session: Session, claims: list[Claim], *, events: int | None = TRACE_EVENTS) -> list[dict[str, Any]]:
    """Claims with their trust, figures, sources, (the latest `events`, or all) history, and what the
    history says: why the tag is what it is, whether a re-read still covers the claim, and any way the
    claim disagrees with its history (`integrity`)."""
    if not claims:
        return []
    ids = [c.id for c in claims]
    trust = dict(session.execute(select(Tag.name, Tag.trust)).all())
    figures: dict[int, list] = {}
    for f in session.scalars(select(Figure).where(Figure.claim_id.in_(ids)).order_by(Figure.claim_id, Figure.position)):
        figures.setdefault(f.claim_id, []).append(figure_dict(f))
    history_rows: dict[int, list[Event]] = {}
    for e in session.scalars(select(Event).where(Event.claim_id.in_(ids)).order_by(Event.claim_id, Event.id)):
        history_rows.setdefault(e.claim_id, []).append(e)
    actor_of = {e.id: e.actor for evs in history_rows.values() for e in evs}
    sources: dict[int, list] = {}
    rows = session.execute(
        select(Evidence, Source)
        .join(Source, Source.id == Evidence.source_id)
        .where(Evidence.claim_id.in_(ids))
        .order_by(Evidence.claim_id, Evidence.position)
    )
    for ev, src in rows:
        sources.setdefault(ev.claim_id, []).append({
            "key": src.key, "title": src.title, "kind": src.kind, "url": src.url, "cite_key": src.cite_key,
            "publisher": src.publisher, "date": src.date, "authors": src.authors, "accessed": src.accessed,
            "locator": ev.locator, "quote": ev.quote,
            "added_by": actor_of.get(ev.event_id) if ev.event_id is not None else None,
        })
    checks = latest_verifications(session, ids)
    quantities = {q.id: q for q in session.scalars(select(MeasuredQuantity).where(
        MeasuredQuantity.id.in_({c.quantity_id for c in claims if c.quantity_id is not None})))}
    competitors = competing_values(session, claims)
    out = []
    for c in claims:
        evs = history_rows.get(c.id, [])
        hashed = [_hashed_fields(e) for e in evs]
        state = chain.derive(hashed, trust)
        content = chain.content_digest(
            c.subject, c.statement, [(f["raw"], f["name"]) for f in figures.get(c.id, [])],
            [(s["key"], s["locator"], s["quote"]) for s in sources.get(c.id, [])],
        )
        hist = [_event_dict(e) for e in evs]
        tag_event = next((h for e, h in zip(reversed(evs), reversed(hist)) if e.tag_after is not None), None)
        rank_event = next((h for e, h in zip(reversed(evs), reversed(hist)) if e.rank_after is not None), None)
        quantity = quantities.get(c.quantity_id)
        stored = chain.stored_digest(c.stage, c.basis, c.section, c.quantity_id, figures.get(c.id, []))
        problems = chain.problems(c.key, c.tag, c.status, content, hashed, state, c.rank, stored_sha256=stored)
        # A claim that disagrees with its history is reported as that, not as "changed since re-read".
        outdated = trust.get(c.tag) == "verified" and not state.vouches_for(content) and not problems
        vouched_by = state.vouched_by
        out.append({
            "key": c.key, "subject": c.subject, "stage": c.stage, "statement": c.statement,
            "tag": c.tag, "trust": trust.get(c.tag), "basis": c.basis, "section": c.section,
            "aliases": aliases_of(c.aliases),
            "tag_reason": tag_reason(tag_event, c.basis),
            "status": c.status, "status_reason": c.status_reason, "superseded_by": c.superseded_by,
            "quantity": {"key": quantity.key, "subject": quantity.subject, "measure": quantity.measure}
            if quantity else None,
            "rank": c.rank, "rank_reason": rank_reason(rank_event),
            "competitors": competitors.get(c.id, []),
            "figures": figures.get(c.id, []),
            "sources": sources.get(c.id, []),
            "events": hist if events is None else hist[-events:] if events else [],
            "verifications": checks.get(c.id, []),
            "stale": trust.get(c.tag) == "verified" and any(v["outcome"] in STALE_OUTCOMES for v in checks.get(c.id, [])),
            "reread_outdated": outdated,
            "outdated_reason": (
                f"changed since the re-read by {vouched_by['actor']} on {str(vouched_by['at'])[:10]}"
                if outdated and vouched_by is not None and vouched_by["kind"] == "reread"
                else "its content changed since it was last re-read" if outdated else None
            ),
            "integrity": problems,
        })
    return out


def latest_verifications(session: Session, claim_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Per claim, per source: the latest conclusive verification, and the latest attempt when that was
    an unreachable fetch after it. An unreachable source never hides an earlier result."""
    out: dict[int, list[dict[str, Any]]] = {}
    if not claim_ids:
        return out
    latest: dict[tuple[int, int], dict[str, Any]] = {}
    rows = session.execute(
        select(Verification, Source.key)
        .join(Source, Source.id == Verification.source_id)
        .where(Verification.claim_id.in_(claim_ids))
        .order_by(Verification.id)
    )
    for v, source_key in rows:
        entry = latest.setdefault((v.claim_id, v.source_id), {"source": source_key, "outcome": None, "at": None,
                                                              "passage": None, "detail": None, "last_attempt": None})
        if v.outcome == "unreachable":
            entry["last_attempt"] = {"outcome": v.outcome, "at": v.at, "detail": json.loads(v.detail) if v.detail else None}
        else:
            entry.update(outcome=v.outcome, at=v.at, passage=v.passage, score=v.score,
                         detail=json.loads(v.detail) if v.detail else None, last_attempt=None)
    for (claim_id, _source_id), entry in latest.items():
        if entry["outcome"] is None:  # only unreachable attempts so far
            entry.update(outcome="unreachable", at=entry["last_attempt"]["at"], detail=entry["last_attempt"]["detail"])
            entry["last_attempt"] = None
        out.setdefault(claim_id, []).append(entry)
    return out


TRACE_NEAREST = 5  # figures shown when nothing matches
_TRACE_LABELS = {SAME: "stated", ROUNDED: "rounded", CONTAINED: "inside range"}


def trace(session: Session, number: str, *, limit: int | None = TRACE_LIMIT) -> dict[str, Any]:
    """Every stored figure that states `number`, rounds to it or overlaps it, with its claim.

    `number` is a figure as written: a value, a range or a transition ("32–33T", "4K → 128K"); a unit or
    counted thing narrows the match. Each stored figure is judged by `figures.match` as a person's query
    (`Context.query()`). With no match, `nearest` lists up to TRACE_NEAREST figures that come close: the
    same value with another unit or thing, or the same thing with another value (closest first).
    """
    try:
        q = parse(number)
    except FigureError as exc:
        raise BadQuery(f"cannot read {number!r} as a number: {exc.reason}") from None
    if not q.numbers():
        raise BadQuery(f"trace takes a number, like 466, 2,048, 14.8T, 32–33T or 16K H100; {number!r} has none")
    rank = {SAME: 0, ROUNDED: 1, CONTAINED: 2}
    matches, nearest = [], []
    candidates = _within_reach(session, q)
    for fig in _figures(session, candidates):
        stored = as_quantity(fig)
        verdict = match(stored, q, Context.query())
        if verdict.verdict in rank:
            matches.append((rank[verdict.verdict], verdict, fig))
        elif verdict.verdict == DIFFERENT or (verdict.value_agrees and verdict.measure == "conflict"):
            nearest.append((0 if verdict.value_agrees else 1, _distance(stored, q), verdict, fig))
    if not matches:  # the closest stated numbers on either side, judged the same way
        for fig in _figures(session, _neighbours(session, q) - candidates):
            stored = as_quantity(fig)
            verdict = match(stored, q, Context.query())
            if verdict.verdict == DIFFERENT or (verdict.value_agrees and verdict.measure == "conflict"):
                nearest.append((0 if verdict.value_agrees else 1, _distance(stored, q), verdict, fig))
    matches.sort(key=lambda m: (m[0], m[2].claim_key, m[2].position))  # stated, then roundings, then ranges that hold it
    total = len(matches)
    if limit is not None:
        matches = matches[:limit]
    nearest = sorted(nearest, key=lambda m: m[:2])[:TRACE_NEAREST]
    shown = [(v, f) for _, v, f in matches] or [(v, f) for *_, v, f in nearest]
    # only the claims shown are read whole (a common figure in a large store has thousands of matches)
    ids = sorted({f.claim_id for _, f in shown})
    claims = list(session.scalars(select(Claim).where(Claim.id.in_(ids)))) if ids else []
    views = {v["key"]: v for v in claim_views(session, claims)}

    def row(verdict, fig, label):
        return {"match": label, "reason": verdict.reason, "figure": figure_dict(fig), "claim": views[fig.claim_key]}

    return {
        "query": number,
        "parsed": {"kind": q.kind, "value": q.value, "low": q.low, "high": q.high, "steps": list(q.steps),
                   "unit": q.unit, "counted": q.counted},
        "matches": [row(v, f, _TRACE_LABELS[v.verdict]) for _, v, f in matches],
        "total": total,  # every match; "matches" holds the first `limit` of them
        "nearest": [] if matches else [row(v, f, "same value" if v.value_agrees else "close value")
                                       for *_, v, f in nearest],
    }


NEIGHBOURS = 20  # stated numbers read on each side of a query number, per tier, when nothing matches


def _query_intervals(q: Quantity) -> list[tuple[float, float]]:
    """What a query covers, as intervals of magnitudes: each of its numbers, and its span if a range."""
    out = [(abs(float(n)) * (1 - 1e-9), abs(float(n)) * (1 + 1e-9)) for n in q.numbers()]
    if q.kind == "range" and q.low is not None and q.high is not None:
        out.append(tuple(sorted((abs(float(q.low)), abs(float(q.high))))))
    return out


def _within_reach(session: Session, q: Quantity) -> set[tuple[int, int]]:
    """(claim id, position) of every stored figure whose reach (figures.reach) meets the query: two
    index range scans per query interval, on SQLite and PostgreSQL alike."""
    n = FigureNumber
    found: set[tuple[int, int]] = set()
    for lo, hi in _query_intervals(q):
        # a point of tier t reaches at most w = REACH_TIERS[t] of its value: its low end is >= lo(1 - w)/(1 + w)
        points = [select(n.claim_id, n.position).where(n.tier == t, n.lo >= lo * (1 - w) / (1 + w) * (1 - 1e-12),
                                                        n.lo <= hi, n.hi >= lo)
                  for t, w in enumerate(REACH_TIERS)]
        spans = select(n.claim_id, n.position).where(n.tier == SPAN, n.lo <= hi, n.hi >= lo)
        for stmt in (*points, spans):
            found.update((r.claim_id, r.position) for r in session.execute(stmt))
    return found


def _neighbours(session: Session, q: Quantity) -> set[tuple[int, int]]:
    """The stated numbers closest to each of the query's, below and above: an index walk each way in
    each tier (figures.REACH_TIERS), so that no query sorts more than NEIGHBOURS rows."""
    n = FigureNumber
    found: set[tuple[int, int]] = set()
    for x in {abs(float(v)) for v in q.numbers()}:
        for tier in range(len(REACH_TIERS)):
            for stmt in (
                select(n.claim_id, n.position).where(n.tier == tier, n.lo >= x, n.lo <= x * MAGNITUDE).order_by(n.lo),
                select(n.claim_id, n.position).where(n.tier == tier, n.lo < x, n.lo >= x / MAGNITUDE)
                .order_by(n.lo.desc()),
            ):
                found.update((r.claim_id, r.position) for r in session.execute(stmt.limit(NEIGHBOURS)))
    return found


def _figures(session: Session, where: set[tuple[int, int]]) -> list[Any]:
    """The figure rows at these (claim id, position) places, each with its claim's key (`claim_key`):
    plain rows, not ORM objects, since a common figure has thousands."""
    out = []
    ids = sorted({claim_id for claim_id, _ in where})
    columns = (*Figure.__table__.c, Claim.key.label("claim_key"))
    for i in range(0, len(ids), 500):
        # by claim id, the index's first column: a (claim_id, position) row-value IN scans on SQLite
        rows = session.execute(
            select(*columns).join(Claim, Claim.id == Figure.claim_id).where(Figure.claim_id.in_(ids[i : i + 500]))
        ).all()
        out += [r for r in rows if (r.claim_id, r.position) in where]
    return out


def _distance(stored: Quantity, written: Quantity) -> float:
    """How far apart two figures' first numbers are, as a ratio's logarithm (0 for equal)."""
    a, b = abs(stored.numbers()[0]), abs(written.numbers()[0])
    return abs(math.log(a / b)) if a and b else math.inf


def get_claim(session: Session, key: str) -> Claim:
    claim = session.scalars(select(Claim).where(Claim.key == key)).first()
    if claim is None:
        raise UnknownClaim(key)
    return claim


def show(session: Session, key: str) -> dict[str, Any]:
    return claim_views(session, [get_claim(session, key)], events=None)[0]


def list_claims(session: Session, filters: ClaimFilter, *, stale: bool = False) -> list[dict[str, Any]]:
    """Claims matching the filters; with `stale`, only those whose verified tag no longer holds: changed
    since their re-read, or no longer found by the latest verification."""
    claims = list(session.scalars(filters.apply(select(Claim)).order_by(Claim.key)))
    views = claim_views(session, claims, events=0)
    return [v for v in views if v["stale"] or v["reread_outdated"]] if stale else views


def list_sources(session: Session) -> list[dict[str, Any]]:
    counts = dict(
        session.execute(select(Evidence.source_id, func.count(func.distinct(Evidence.claim_id))).group_by(Evidence.source_id)).all()
    )
    return [
        {
            "key": s.key, "title": s.title, "kind": s.kind, "url": s.url, "publisher": s.publisher,
            "date": s.date, "path": s.path, "cite_key": s.cite_key, "authors": s.authors, "accessed": s.accessed,
            "claims": counts.get(s.id, 0),
        }
        for s in session.scalars(select(Source).order_by(Source.key))
    ]


def list_tags(session: Session) -> list[dict[str, Any]]:
    counts = dict(session.execute(select(Claim.tag, func.count()).group_by(Claim.tag)).all())
    order = {"verified": 0, "secondary": 1, "unverified": 2}
    tags = sorted(session.scalars(select(Tag)), key=lambda t: (order.get(t.trust, 9), t.name))
    default, strict = Policy(), Policy(strict=True)
    return [
        {"name": t.name, "trust": t.trust, "passes": default.passes(t.trust), "passes_strict": strict.passes(t.trust),
         "description": t.description, "claims": counts.get(t.name, 0)}
        for t in tags
    ]


def history(session: Session, key: str) -> dict[str, Any]:
    """Every event of a claim, oldest first (insertion order)."""
    claim = get_claim(session, key)
    events = session.scalars(select(Event).where(Event.claim_id == claim.id).order_by(Event.id))
    view = claim_views(session, [claim], events=0)[0]
    return {"key": claim.key, "tag": claim.tag, "status": claim.status, "tag_reason": view["tag_reason"],
            "reread_outdated": view["outdated_reason"], "integrity": view["integrity"],
            "events": [{**_event_dict(e), "sha256": e.sha256} for e in events]}


def values(session: Session, quantity: str | None = None) -> list[dict[str, Any]]:
    """Every quantity (or the one named) with its competing values: figure, tag, sources, rank and why."""
    stmt = select(MeasuredQuantity).order_by(MeasuredQuantity.key)
    if quantity is not None:
        stmt = stmt.where(MeasuredQuantity.key == quantity)
    found = list(session.scalars(stmt))
    if quantity is not None and not found:
        known = ", ".join(session.scalars(select(MeasuredQuantity.key).order_by(MeasuredQuantity.key))) or "none yet"
        raise BadQuery(f"no quantity {quantity!r} (known: {known})")
    out = []
    for q in found:
        claims = list(session.scalars(select(Claim).where(Claim.quantity_id == q.id).order_by(Claim.key)))
        order = {"preferred": 0, "normal": 1, "deprecated": 2}
        views = sorted(claim_views(session, claims, events=0), key=lambda v: (order[v["rank"]], v["key"]))
        preferred = next((v["key"] for v in views if v["rank"] == "preferred"), None)
        out.append({"key": q.key, "subject": q.subject, "measure": q.measure, "description": q.description,
                    "preferred": preferred, "values": views})
    return out
