"""Reading the store: trace a number to its claims, show a claim, list claims, sources and tags.

Functions return plain dicts (stable keys, JSON-ready); rendering is the CLI's business.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists, func, or_, select
from sqlmodel import Session

from claimsdb import definitions, halves, views
from claimsdb.errors import BadQuery, InvalidField, UnknownClaim
from claimsdb.figures import (
    FigureError,
    Quantity,
    as_quantity,
    figure_dict,
    fraction_value,
    parse,
)
from claimsdb.figures.matching import (
    CONTAINED,
    DIFFERENT,
    MAGNITUDE,
    REACH_TIERS,
    ROUNDED,
    SAME,
    SPAN,
    Context,
    match,
)
from claimsdb.models import (
    CLAIM_STATUSES,
    TRUST_LEVELS,
    Claim,
    Event,
    Evidence,
    Figure,
    FigureNumber,
    MeasuredQuantity,
    Source,
    SourceFields,
    Tag,
)
from claimsdb.trust.rule import Policy
from claimsdb.views import ClaimView

TRACE_EVENTS = 3  # how many of the latest history events `trace` shows per claim
TRACE_LIMIT = (
    100  # matches shown in full by default: a common figure in a large store has thousands
)


@dataclass(frozen=True)
class ClaimFilter:
    """Which claims a list, an export or a page selects; None: any. Validated once, when made: a trust
    or status that is none of the known ones raises InvalidField naming the field ("trust", "status"),
    which each door names its own way (the command line by its flag, the web by its form's label)."""

    tag: str | None = None
    trust: str | None = None
    subject: str | None = None
    stage: str | None = None
    source: str | None = None
    search: str | None = None
    status: str | None = None

    def __post_init__(self) -> None:
        for name, known in (("trust", TRUST_LEVELS), ("status", CLAIM_STATUSES)):
            if getattr(self, name) is not None and getattr(self, name) not in known:
                raise InvalidField(name, f"must be one of: {', '.join(known)}")

    def apply(self, stmt):
        """The SQL part of the filter (everything but `stale`, which needs each claim's history)."""
        if self.tag:
            stmt = stmt.where(Claim.tag == self.tag)
        if self.trust:
            stmt = stmt.where(Claim.tag.in_(select(Tag.name).where(Tag.trust == self.trust)))
        if self.subject:
            stmt = stmt.where(
                func.lower(Claim.subject).contains(self.subject.lower(), autoescape=True)
            )
        if self.stage:
            stmt = stmt.where(func.lower(Claim.stage) == self.stage.lower())
        if self.source:
            stmt = stmt.where(
                exists().where(
                    Evidence.claim_id == Claim.id,
                    Evidence.source_id == Source.id,
                    Source.key == self.source,
                )
            )
        if self.search:
            stmt = stmt.where(
                func.lower(Claim.statement).contains(self.search.lower(), autoescape=True)
            )
        if self.status:
            stmt = stmt.where(Claim.status == self.status)
        return stmt


def _event_dict(e: Event) -> dict[str, Any]:
    return {
        "at": e.at,
        "kind": e.kind,
        "actor": e.actor,
        "tag_before": e.tag_before,
        "tag_after": e.tag_after,
        "status_after": e.status_after,
        "rank_after": e.rank_after,
        "origin": e.origin,
        "detail": json.loads(e.detail) if e.detail else None,
        "content_sha256": e.content_sha256,  # the content after it: what a re-read vouches for and signs
    }


def claim_views(
    session: Session, claims: Sequence[Claim] | Sequence[int], *, events: int | None = TRACE_EVENTS
) -> list[ClaimView]:
    """The typed views of these claims (Claim rows or ids), in their order: see claimsdb.views."""
    ids = [c if isinstance(c, int) else c.id for c in claims]
    return list(views.load(session, ids, events=events))


TRACE_NEAREST = 5  # figures shown when nothing matches
# How a stored figure matches a traced number, in the order trace lists them: the figures that state it
# (as written, as one step of a change, or rounded: STATING), then the ranges that hold it or overlap it.
STATED, STEP, ROUNDED_TO, IN_RANGE = "stated", "step", "rounded", "inside range"
TRACE_KINDS = (STATED, STEP, ROUNDED_TO, IN_RANGE)
STATING = (STATED, STEP, ROUNDED_TO)


def _trace_kind(verdict) -> str | None:
    """The match kind of a stored figure's verdict against a traced number; None: it does not match."""
    if verdict.verdict == CONTAINED:
        return STEP if verdict.step else IN_RANGE
    return {SAME: STATED, ROUNDED: ROUNDED_TO}.get(verdict.verdict)


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
        raise BadQuery(
            f"trace takes a number, like 466, 2,048, 14.8T, 32–33T or 16K H100; {number!r} has none"
        )
    matches, nearest = [], []
    candidates = _within_reach(session, q)
    for fig in _figures(session, candidates):
        stored = as_quantity(fig)
        verdict = match(stored, q, Context.query())
        if (kind := _trace_kind(verdict)) is not None:
            matches.append((TRACE_KINDS.index(kind), verdict, fig))
        elif verdict.verdict == DIFFERENT or (
            verdict.value_agrees and verdict.measure == "conflict"
        ):
            nearest.append((0 if verdict.value_agrees else 1, _distance(stored, q), verdict, fig))
    if not matches:  # the closest stated numbers on either side, judged the same way
        for fig in _figures(session, _neighbours(session, q) - candidates):
            stored = as_quantity(fig)
            verdict = match(stored, q, Context.query())
            if verdict.verdict == DIFFERENT or (
                verdict.value_agrees and verdict.measure == "conflict"
            ):
                nearest.append(
                    (0 if verdict.value_agrees else 1, _distance(stored, q), verdict, fig)
                )
    matches.sort(key=lambda m: (m[0], m[2].claim_key, m[2].position))  # in TRACE_KINDS' order
    total = len(matches)
    counts = {kind: sum(TRACE_KINDS[m[0]] == kind for m in matches) for kind in TRACE_KINDS}
    if limit is not None:
        matches = matches[:limit]
    nearest = sorted(nearest, key=lambda m: m[:2])[:TRACE_NEAREST]
    shown = [(v, f) for _, v, f in matches] or [(v, f) for *_, v, f in nearest]
    # only the claims shown are read whole (a common figure in a large store has thousands of matches)
    ids = sorted({f.claim_id for _, f in shown})
    read = {v.key: v.to_json() for v in claim_views(session, ids)}

    def row(verdict, fig, label):
        return {
            "match": label,
            "reason": verdict.reason,
            "figure": figure_dict(fig),
            "claim": read[fig.claim_key],
        }

    return {
        "query": number,
        "parsed": {
            "kind": q.kind,
            "value": q.value,
            "low": q.low,
            "high": q.high,
            "steps": list(q.steps),
            "unit": q.unit,
            "counted": q.counted,
        },
        "matches": [row(v, f, TRACE_KINDS[rank]) for rank, v, f in matches],
        "total": total,  # every match; "matches" holds the first `limit` of them
        "counts": counts,  # every match by kind (TRACE_KINDS)
        "nearest": []
        if matches
        else [row(v, f, "same value" if v.value_agrees else "close value") for *_, v, f in nearest],
    }


NEIGHBOURS = (
    20  # stated numbers read on each side of a query number, per tier, when nothing matches
)


def _query_intervals(q: Quantity) -> list[tuple[float, float]]:
    """What a query covers, as intervals of magnitudes: each of its numbers, its span if a range, and its
    value if a fraction ("1/8": 0.125)."""
    numbers = q.numbers() if (value := fraction_value(q)) is None else (*q.numbers(), value)
    out = [(abs(float(n)) * (1 - 1e-9), abs(float(n)) * (1 + 1e-9)) for n in numbers]
    if q.kind == "range" and q.low is not None and q.high is not None:
        out.append(tuple(sorted((abs(float(q.low)), abs(float(q.high))))))
    return out


def _within_reach(session: Session, q: Quantity) -> set[tuple[int, int]]:
    """(claim id, position) of every stored figure whose reach (figures.reach) meets the query: two
    index range scans per query interval, on SQLite and PostgreSQL alike."""
    return _reaching(session, _query_intervals(q))


def _reaching(
    session: Session, intervals: Sequence[tuple[float, float]], *, subject: str | None = None
) -> set[tuple[int, int]]:
    """(claim id, position) of every stored figure whose reach meets one of these intervals of magnitudes;
    with `subject`, only the figures of the claims of that subject (in any case)."""
    n = FigureNumber
    found: set[tuple[int, int]] = set()
    base = select(n.claim_id, n.position)
    if subject is not None:
        # SQLite's lower() folds ASCII only: the subject as written always matches
        base = base.join(Claim, Claim.id == n.claim_id).where(
            or_(Claim.subject == subject, func.lower(Claim.subject) == subject.lower())
        )
    for lo, hi in intervals:
        # a point of tier t reaches at most w = REACH_TIERS[t] of its value: its low end is >= lo(1 - w)/(1 + w)
        points = [
            base.where(
                n.tier == t, n.lo >= lo * (1 - w) / (1 + w) * (1 - 1e-12), n.lo <= hi, n.hi >= lo
            )
            for t, w in enumerate(REACH_TIERS)
        ]
        spans = base.where(n.tier == SPAN, n.lo <= hi, n.hi >= lo)
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
                select(n.claim_id, n.position)
                .where(n.tier == tier, n.lo >= x, n.lo <= x * MAGNITUDE)
                .order_by(n.lo),
                select(n.claim_id, n.position)
                .where(n.tier == tier, n.lo < x, n.lo >= x / MAGNITUDE)
                .order_by(n.lo.desc()),
            ):
                found.update(
                    (r.claim_id, r.position) for r in session.execute(stmt.limit(NEIGHBOURS))
                )
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
            select(*columns)
            .join(Claim, Claim.id == Figure.claim_id)
            .where(Figure.claim_id.in_(ids[i : i + 500]))
        ).all()
        out += [r for r in rows if (r.claim_id, r.position) in where]
    return out


def _distance(stored: Quantity, written: Quantity) -> float:
    """How far apart two figures' first numbers are, as a ratio's logarithm (0 for equal)."""
    a, b = abs(stored.numbers()[0]), abs(written.numbers()[0])
    return abs(math.log(a / b)) if a and b else math.inf


DUPLICATE, CONTRADICTION = "duplicate", "contradiction"
_SUBJECT_VERDICTS = {
    SAME: DUPLICATE,
    ROUNDED: DUPLICATE,
    CONTAINED: DUPLICATE,
    DIFFERENT: CONTRADICTION,
}


def same_subject(
    session: Session, subject: str, figures: Sequence[Quantity], *, exclude: str | None = None
) -> list[dict[str, Any]]:
    """The claims of this subject (in any case) that state one of these figures, round to it or overlap it
    (`duplicate`), or state another value of what it measures (`contradiction`: the same unit or counted
    thing on both sides, within a factor of 10), each judged by `figures.match` with the subject named.

    Candidates come from the trace index (the subject's stored numbers within a factor of 10 of one of
    the figures' numbers), so a large store is not read whole. `exclude`: a claim key to leave out (the
    claim just added). One entry per (figure, stored figure) pair, duplicates first."""
    intervals = [
        (lo / MAGNITUDE, hi * MAGNITUDE) for q in figures for lo, hi in _query_intervals(q)
    ]
    candidates = _reaching(session, intervals, subject=subject) if intervals else set()
    found = []
    for fig in _figures(session, candidates):
        if fig.claim_key == exclude:
            continue
        stored = as_quantity(fig)
        for q in figures:
            verdict = match(stored, q, Context(subject=True))
            if verdict.verdict in _SUBJECT_VERDICTS:
                found.append((_SUBJECT_VERDICTS[verdict.verdict], q.raw, verdict, fig))
    found.sort(key=lambda f: (f[0] != DUPLICATE, f[3].claim_key, f[3].position, f[1]))
    read = {
        v.key: v.to_json() for v in claim_views(session, sorted({f.claim_id for *_, f in found}))
    }
    return [
        {
            "relation": relation,
            "figure": raw,
            "match": verdict.verdict,
            "reason": verdict.reason,
            "stored": figure_dict(fig),
            "claim": read[fig.claim_key],
        }
        for relation, raw, verdict, fig in found
    ]


def get_claim(session: Session, key: str) -> Claim:
    claim = session.scalars(select(Claim).where(Claim.key == key)).first()
    if claim is None:
        from claimsdb.suggest import close_keys

        raise UnknownClaim(key, close_keys(session, key))
    return claim


def show(session: Session, key: str) -> dict[str, Any]:
    """One claim whole, with the claims of its subject it disagrees with or repeats (disputes)."""
    from claimsdb import disputes

    view = claim_views(session, [get_claim(session, key)], events=None)[0].to_json()
    return {**view, **disputes.summary(disputes.of_claim(session, key))}


def iter_claims(
    session: Session, filters: ClaimFilter, *, stale: bool = False
) -> Iterator[ClaimView]:
    """Claims matching the filters, in key order, read in sets as they are consumed; with `stale`, only
    those whose verified tag no longer holds: changed since their re-read, or no longer found by the
    latest verification."""
    yield from _stale_only(views.load(session, views.select_ids(session, filters)), stale)


def json_items(
    session: Session, filters: ClaimFilter, tampered: Any, *, stale: bool = False
) -> Iterator[Any]:
    """iter_claims as JSON items, each claim noted by `tampered` (integrity.Tampered); from
    halves.SPLIT_FROM claims on, the second half is one halves.Encoded piece: its JSON lines, read by a
    worker on another core meanwhile (or here, when the worker's answer cannot be used)."""
    ids = views.select_ids(session, filters)
    mine, half = halves.start(session, "list", ids, {"stale": stale})
    try:
        before = halves.head(session) if half is not None else None
        for v in _stale_only(views.load(session, mine), stale):
            yield tampered.note(v).to_json()
        rest = half.result(session, before) if half is not None else None
        if rest is None or half is None:
            for v in _stale_only(views.load(session, ids[len(mine) :]), stale):
                yield tampered.note(v).to_json()
            return
        first_key, first_reason = rest["tampered_first"] or (None, "")
        tampered.add(rest["tampered"], first_key, first_reason)
        if rest["count"]:
            yield halves.Encoded(half.folder / "lines", half)
    finally:
        if half is not None:
            half.close()


def _stale_only(read: Iterator[ClaimView], stale: bool) -> Iterator[ClaimView]:
    return (v for v in read if not stale or v.stale or v.reread_outdated)


def list_claims(
    session: Session, filters: ClaimFilter, *, stale: bool = False
) -> list[dict[str, Any]]:
    """iter_claims, as JSON."""
    return [v.to_json() for v in iter_claims(session, filters, stale=stale)]


def list_sources(session: Session) -> list[dict[str, Any]]:
    counts = dict(
        session.execute(
            select(Evidence.source_id, func.count(func.distinct(Evidence.claim_id))).group_by(
                Evidence.source_id
            )
        ).all()
    )
    rows = list(session.scalars(select(Source).order_by(Source.key)))
    definitions.ensure_registered(session, "source", [s.key for s in rows])  # none printed changed
    return [
        {**{f: getattr(s, f) for f in SourceFields.model_fields}, "claims": counts.get(s.id, 0)}
        for s in rows
    ]


def list_tags(session: Session) -> list[dict[str, Any]]:
    definitions.trust_levels(session)  # each row's trust as defined (else exit 2)
    counts = dict(session.execute(select(Claim.tag, func.count()).group_by(Claim.tag)).all())
    order = {"verified": 0, "secondary": 1, "unverified": 2}
    tags = sorted(session.scalars(select(Tag)), key=lambda t: (order.get(t.trust, 9), t.name))
    default, strict = Policy(), Policy(strict=True)
    return [
        {
            "name": t.name,
            "trust": t.trust,
            "passes": default.passes(t.trust),
            "passes_strict": strict.passes(t.trust),
            "description": t.description,
            "claims": counts.get(t.name, 0),
        }
        for t in tags
    ]


def history(session: Session, key: str) -> dict[str, Any]:
    """Every event of a claim, oldest first (insertion order)."""
    claim = get_claim(session, key)
    events = session.scalars(select(Event).where(Event.claim_id == claim.id).order_by(Event.id))
    view = claim_views(session, [claim], events=0)[0]
    return {
        "key": claim.key,
        "tag": claim.tag,
        "status": claim.status,
        "tag_reason": view.tag_reason,
        "reread_outdated": view.outdated_reason,
        "integrity": list(view.integrity),
        "events": [{**_event_dict(e), "sha256": e.sha256} for e in events],
    }


def values(session: Session, quantity: str | None = None) -> list[dict[str, Any]]:
    """Every quantity (or the one named) with its competing values: figure, tag, sources, rank and why."""
    stmt = select(MeasuredQuantity).order_by(MeasuredQuantity.key)
    if quantity is not None:
        stmt = stmt.where(MeasuredQuantity.key == quantity)
    found = list(session.scalars(stmt))
    if quantity is not None and not found:
        known = (
            ", ".join(session.scalars(select(MeasuredQuantity.key).order_by(MeasuredQuantity.key)))
            or "none yet"
        )
        raise BadQuery(f"no quantity {quantity!r} (known: {known})")
    definitions.ensure_registered(session, "quantity", [q.key for q in found])
    out = []
    for q in found:
        claims = list(
            session.scalars(select(Claim.id).where(Claim.quantity_id == q.id).order_by(Claim.key))
        )
        order = {"preferred": 0, "normal": 1, "deprecated": 2}
        read = sorted(claim_views(session, claims, events=0), key=lambda v: (order[v.rank], v.key))
        preferred = next((v.key for v in read if v.rank == "preferred"), None)
        out.append(
            {
                "key": q.key,
                "subject": q.subject,
                "measure": q.measure,
                "description": q.description,
                "preferred": preferred,
                "values": [v.to_json() for v in read],
            }
        )
    return out
