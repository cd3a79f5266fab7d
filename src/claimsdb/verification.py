"""Re-verify claims against their sources: fetch each source once, keep a snapshot, locate each claim's
evidence in it, and store one verification record per claim and source.

Three steps, so that no database lock is held while the network is slow:
`plan` (read the database), `fetch` (network or snapshot folder only), `record` (write the results).
A verification never changes a tag: it only adds evidence for the person who re-reads. An unreachable
source adds an `unreachable` record and never hides an earlier conclusive one
(see queries.latest_verifications). Imported only by `claims verify` and `claims reread`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import Select, select
from sqlmodel import Session

from claimsdb import integrity
from claimsdb.errors import BadQuery, InvalidField, UnknownClaim
from claimsdb.fetching.snapshots import SnapshotStore
from claimsdb.fetching.text import UnsupportedContent, extract_text
from claimsdb.figures import Quantity, as_quantity, figure_dict
from claimsdb.history import REREAD_KIND, detail_key
from claimsdb.locating.locate import Location, locate
from claimsdb.models import (
    Claim,
    Event,
    Evidence,
    Figure,
    Snapshot,
    Source,
    Verification,
    utcnow,
)
from claimsdb.queries import claim_views

# What a check may find without failing: the figures are there (rounded: more precisely), or the claim
# has nothing to check. partial, figure-changed, not-found and unreachable fail the command.
GOOD_OUTCOMES = ("confirmed", "reworded", "rounded", "nothing-to-check")


@dataclass(frozen=True)
class Pair:
    """One thing to check: a claim's evidence in one source."""

    claim_id: int
    claim: str
    subject: str
    statement: str
    source_id: int
    source: str
    quote: str | None


@dataclass(frozen=True)
class SourceInfo:
    id: int
    key: str
    url: str | None
    path: str | None
    previous: (
        dict[str, Any] | None
    )  # the newest snapshot with a body: id, sha, etag, last_modified, ...


@dataclass
class Plan:
    pairs: list[Pair]
    skipped: list[dict[str, str]]
    sources: dict[int, SourceInfo]
    figures: dict[int, list[Quantity]]
    names: dict[int, list[str | None]] = field(default_factory=dict)


@dataclass
class PairResult:
    claim: str
    subject: str
    source: str
    outcome: str
    passage: str | None = None
    score: float | None = None
    changes: list[list[str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    error: str | None = None
    snapshot: str | None = None
    figures: list[dict[str, Any]] = field(
        default_factory=list
    )  # without a quote: each figure found or missing


def plan(
    session: Session,
    keys: list[str],
    *,
    source: str | None = None,
    everything: bool = False,
    among: Select | None = None,
) -> Plan:
    """The (claim, source) pairs to check, and the claims skipped because nothing can be fetched.

    By default a claim is checked against its primary pages (sources that are not notes) that have a
    URL or a local copy; `source` checks the claims citing that one source, whatever its kind. `among`
    (a SELECT of claim ids, such as the re-read queue's) checks the active claims it selects.
    """
    if not keys and source is None and not everything and among is None:
        raise InvalidField(
            "selection", "is empty: name claim keys, a source, the re-read queue or every claim"
        )
    claims = _claims(session, keys, among)
    integrity.ensure_intact(claim_views(session, [c.id for c in claims], events=0))
    if (
        source is not None
        and session.scalars(select(Source).where(Source.key == source)).first() is None
    ):
        raise BadQuery(f"unknown source {source!r} (see `claims sources`)")
    by_claim: dict[int, list[tuple[Evidence, Source]]] = {}
    for ev, src in session.execute(
        select(Evidence, Source)
        .join(Source, Source.id == Evidence.source_id)
        .where(Evidence.claim_id.in_([c.id for c in claims]))
        .order_by(Evidence.claim_id, Evidence.position)
    ):
        by_claim.setdefault(ev.claim_id, []).append((ev, src))
    corrected = _correcting(
        session, [ev.event_id for evs in by_claim.values() for ev, _ in evs if ev.event_id]
    )
    pairs: list[Pair] = []
    skipped: list[dict[str, str]] = []
    sources: dict[int, SourceInfo] = {}
    for claim in claims:
        cited = by_claim.get(claim.id, [])
        if source is not None and not any(src.key == source for _, src in cited):
            continue
        chosen = sorted(  # a page's words a correcting re-read linked first: the claim's are older
            (
                (ev, src)
                for ev, src in cited
                if (src.key == source if source is not None else src.kind != "note")
                and (src.url or src.path)
            ),
            key=lambda pair: pair[0].event_id not in corrected,
        )
        if not chosen:
            skipped.append(
                {"claim": claim.key, "reason": "cites no primary page with a URL or a local copy"}
            )
            continue
        for ev, src in chosen:
            if any(p.claim_id == claim.id and p.source_id == src.id for p in pairs):
                continue
            pairs.append(
                Pair(claim.id, claim.key, claim.subject, claim.statement, src.id, src.key, ev.quote)
            )
            if src.id not in sources:
                prev = latest_snapshot(session, src.id)
                sources[src.id] = SourceInfo(
                    src.id, src.key, src.url, src.path, _snapshot_info(prev)
                )
    ids = [p.claim_id for p in pairs]
    return Plan(
        pairs=pairs,
        skipped=skipped,
        sources=sources,
        figures=quantities(session, ids),
        names=figure_names(session, ids),
    )


def _correcting(session: Session, event_ids: list[int]) -> set[int]:
    """Those of these events (the re-reads that linked evidence) that corrected a figure to what the
    page says: their quote, not the claim's earlier one for the same page, is what verify checks."""
    found: set[int] = set()
    for i in range(0, len(event_ids), 500):
        found.update(
            session.scalars(
                select(Event.id).where(
                    Event.id.in_(event_ids[i : i + 500]),
                    Event.kind == REREAD_KIND,
                    Event.detail.like(f"%{detail_key('corrected')}%"),
                )
            )
        )
    return found


def _claims(session: Session, keys: list[str], among: Select | None) -> list[Claim]:
    """The claims named (every one must exist), else the active ones; within `among` when given."""
    stmt = select(Claim).order_by(Claim.id)
    if among is not None:
        stmt = stmt.where(Claim.id.in_(among))
    if not keys:
        return list(session.scalars(stmt.where(Claim.status == "active")))
    claims = list(session.scalars(stmt.where(Claim.key.in_(keys))))
    missing = sorted(set(keys) - {c.key for c in claims})
    if missing:
        from claimsdb.suggest import close_keys

        raise UnknownClaim(missing[0], close_keys(session, missing[0]))
    return claims


@dataclass
class Run:
    """What one verification run did: its plan, each check's result, and each fetch."""

    plan: Plan
    results: list[PairResult]
    fetches: list[dict[str, Any]]

    @property
    def ok(self) -> bool:
        return all(r.outcome in GOOD_OUTCOMES for r in self.results)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.results:
            counts[r.outcome] = counts.get(r.outcome, 0) + 1
        return counts


def run(
    engine,
    keys: list[str],
    store: SnapshotStore,
    limits=None,
    *,
    source: str | None = None,
    everything: bool = False,
    queued=None,
    offline: bool = False,
    on_planned: Callable[[Plan], None] | None = None,
    on_fetched: Callable | None = None,
) -> Run:
    """One verification run, as `claims verify` and the queue's "Fetch the page now" make it: plan in one
    session, fetch with no session open (the network may be slow; no lock is held meanwhile), record in
    another. `queued` (a Policy) selects the claims the re-read queue holds under that policy.
    A run records verifications only: it never changes a tag."""
    from claimsdb import db

    with db.session_scope(engine) as session:
        among = None
        if queued is not None:
            from claimsdb.selection import queued_ids

            among = queued_ids(session, queued)
        the_plan = plan(session, keys, source=source, everything=everything, among=among)
    if on_planned is not None:
        on_planned(the_plan)
    fetched = fetch(the_plan, limits, offline=offline, on_fetched=on_fetched)
    with db.session_scope(engine) as session:
        results, log = record(session, the_plan, fetched, store, offline=offline)
    return Run(the_plan, results, log)


def _snapshot_info(snap: Snapshot | None) -> dict[str, Any] | None:
    if snap is None:
        return None
    return {
        "id": snap.id,
        "sha": snap.content_sha256,
        "etag": snap.etag,
        "last_modified": snap.last_modified,
        "content_type": snap.content_type,
        "size": snap.size,
        "url": snap.url,
        "fetched_at": snap.fetched_at,
    }


def quantities(session: Session, claim_ids: list[int]) -> dict[int, list[Quantity]]:
    out: dict[int, list[Quantity]] = {}
    for f in session.scalars(
        select(Figure)
        .where(Figure.claim_id.in_(set(claim_ids)))
        .order_by(Figure.claim_id, Figure.position)
    ):
        out.setdefault(f.claim_id, []).append(as_quantity(figure_dict(f)))
    return out


def figure_names(session: Session, claim_ids: list[int]) -> dict[int, list[str | None]]:
    """Each claim's figure names in the data ("prefill unit"), in figure order: they help find the figure."""
    out: dict[int, list[str | None]] = {}
    for claim_id, name in session.execute(
        select(Figure.claim_id, Figure.name)
        .where(Figure.claim_id.in_(set(claim_ids)))
        .order_by(Figure.claim_id, Figure.position)
    ):
        out.setdefault(claim_id, []).append(name)
    return out


def latest_snapshot(session: Session, source_id: int) -> Snapshot | None:
    """The newest snapshot of a source that holds a body."""
    return session.scalars(
        select(Snapshot)
        .where(Snapshot.source_id == source_id, Snapshot.content_sha256.is_not(None))
        .order_by(Snapshot.id.desc())
    ).first()


def fetch(
    the_plan: Plan, limits=None, *, offline: bool = False, on_fetched: Callable | None = None
) -> dict[int, Any]:
    """Fetch every source of the plan once (none when offline). No database access here."""
    if offline or not the_plan.sources:
        return {}
    from claimsdb.fetching.fetch import (  # httpx: only when fetching
        FetchLimits,
        FetchRequest,
        fetch_all,
    )

    order = list(the_plan.sources)
    requests = []
    for sid in order:
        info = the_plan.sources[sid]
        prev = info.previous or {}
        requests.append(
            FetchRequest(
                source=info.key,
                url=info.url,
                path=info.path,
                etag=prev.get("etag"),
                last_modified=prev.get("last_modified"),
            )
        )
    results = fetch_all(requests, limits or FetchLimits(), on_result=on_fetched)
    return dict(zip(order, results))


@dataclass(frozen=True)
class _Read:
    """A source's body as one run read it: its snapshot, and its visible text or why there is none."""

    snapshot_id: int | None
    sha: str | None
    text: str | None
    error: str | None
    log: dict[str, Any]


def record(
    session: Session,
    the_plan: Plan,
    fetched: dict[int, Any],
    store: SnapshotStore,
    *,
    offline: bool = False,
) -> tuple[list[PairResult], list[dict[str, Any]]]:
    """Store the snapshots and one verification per pair; return the results and a fetch log."""
    now = utcnow()
    read = {
        sid: _read_offline(store, info)
        if offline
        else _read_fetched(session, store, info, fetched[sid])
        for sid, info in the_plan.sources.items()
    }
    results = [_check(the_plan, p, read[p.source_id]) for p in the_plan.pairs]
    rows = [
        _verification_row(p, r, read[p.source_id].snapshot_id, now, offline)
        for p, r in zip(the_plan.pairs, results)
    ]
    if rows:
        session.execute(Verification.__table__.insert(), rows)
    return results, [r.log for r in read.values()]


def _read_offline(store: SnapshotStore, info: SourceInfo) -> _Read:
    """The latest snapshot of a source, when its body is in the snapshot folder (`--offline`)."""
    prev = info.previous
    if prev and prev["sha"] and store.has(prev["sha"]):
        text, error = _text(store, prev["sha"], prev["content_type"], prev["url"] or info.key)
        log = {
            "source": info.key,
            "outcome": "offline",
            "snapshot": prev["sha"],
            "fetched_at": prev["fetched_at"],
        }
        return _Read(prev["id"], prev["sha"], text, error, log)
    error = "no snapshot to verify against offline"
    return _Read(
        None, None, None, error, {"source": info.key, "outcome": "unreachable", "error": error}
    )


def _read_fetched(session: Session, store: SnapshotStore, info: SourceInfo, result: Any) -> _Read:
    """Keep what a fetch brought as a snapshot (a 304 keeps the previous body) and read its text."""
    prev = info.previous
    sha = size = None
    content_type = result.content_type
    if result.outcome == "fetched" and result.content is not None:
        sha, size = store.put(result.content), len(result.content)
    elif result.outcome == "not-modified" and prev:
        sha, size = prev["sha"], prev["size"]
        content_type = content_type or prev["content_type"]
    snap = snapshot_row(
        info.id,
        result,
        sha,
        size,
        content_type,
        etag=result.etag or (prev["etag"] if prev and result.outcome == "not-modified" else None),
    )
    session.add(snap)
    session.flush()
    text, error = (
        _text(store, sha, content_type, result.url or info.key)
        if sha
        else (None, result.error or "nothing fetched")
    )
    log = {
        "source": info.key,
        "outcome": result.outcome,
        "status": result.status,
        "url": result.url,
        "error": result.error,
        "snapshot": sha,
    }
    return _Read(snap.id, sha, text, error, log)


def snapshot_row(
    source_id: int,
    result: Any,
    sha: str | None,
    size: int | None,
    content_type: str | None,
    *,
    etag: str | None,
) -> Snapshot:
    """The snapshot row of one fetch (fetching.fetch.FetchResult) whose body, if any, is kept as `sha`."""
    return Snapshot(
        source_id=source_id,
        fetched_at=result.fetched_at,
        url=result.url,
        status=result.status,
        outcome=result.outcome,
        content_sha256=sha,
        size=size,
        content_type=content_type,
        etag=etag,
        last_modified=result.last_modified,
        error=result.error,
    )


def _check(the_plan: Plan, p: Pair, read: _Read) -> PairResult:
    """Where one claim's evidence stands in the text its source was read as."""
    if read.text is None:
        return PairResult(
            p.claim, p.subject, p.source, "unreachable", error=read.error, snapshot=read.sha
        )
    found = locate(
        read.text,
        quote=p.quote,
        figures=the_plan.figures.get(p.claim_id, []),
        hint=f"{p.subject} {p.statement}",
        names=the_plan.names.get(p.claim_id),
    )
    return PairResult(
        p.claim,
        p.subject,
        p.source,
        found.outcome,
        passage=found.passage,
        score=found.score,
        changes=[list(c) for c in found.changes],
        missing=list(found.missing),
        snapshot=read.sha,
        figures=[asdict(f) for f in found.figures],
    )


def _verification_row(
    p: Pair, r: PairResult, snapshot_id: int | None, now: str, offline: bool
) -> dict[str, Any]:
    detail = {
        "quote": p.quote,
        "changes": r.changes,
        "missing": r.missing,
        "error": r.error,
        "figures": r.figures,
        "offline": True if offline else None,
    }
    return {
        "claim_id": p.claim_id,
        "source_id": p.source_id,
        "snapshot_id": snapshot_id,
        "at": now,
        "outcome": r.outcome,
        "passage": r.passage,
        "score": r.score,
        "content_sha256": r.snapshot,
        "detail": json.dumps({k: v for k, v in detail.items() if v}, ensure_ascii=False),
    }


def _text(
    store: SnapshotStore, sha: str, content_type: str | None, name: str
) -> tuple[str | None, str | None]:
    """The visible text of a stored body, or (None, why not)."""
    try:
        content = store.get(sha)
    except KeyError:
        return None, f"snapshot {sha[:12]} is missing from the snapshot folder"
    except ValueError:
        return None, f"snapshot {sha[:12]} no longer matches its hash (the file was changed)"
    try:
        return extract_text(content, content_type, name), None
    except UnsupportedContent as exc:
        return None, f"unsupported content: {exc.reason}"


def locate_claim(
    session: Session, claim: Claim, source_id: int | None, text: str, *, cited: bool = True
) -> Location:
    """Where the claim's evidence (the quote it cites from the page, and its figures) stands in a page's
    text, as `claims verify` locates it; `cited` False: its figures alone, whatever quote it cites."""
    quote = session.scalars(
        select(Evidence.quote).where(Evidence.claim_id == claim.id, Evidence.source_id == source_id)
    ).first()
    return locate(
        text,
        quote=quote if cited else None,
        figures=quantities(session, [claim.id]).get(claim.id, []),
        hint=f"{claim.subject} {claim.statement}",
        names=figure_names(session, [claim.id]).get(claim.id),
    )


def passage_for(
    session: Session, claim: Claim, source: Source, store: SnapshotStore
) -> dict[str, Any] | None:
    """Where the claim's evidence stands in the latest snapshot of `source` (shown by `claims reread`)."""
    snap = latest_snapshot(session, source.id)
    if snap is None:
        return None
    text, error = _text(store, snap.content_sha256, snap.content_type, snap.url or source.key)
    if text is None:
        return {"snapshot": snap.content_sha256, "fetched_at": snap.fetched_at, "error": error}
    found = locate_claim(session, claim, source.id, text)
    return {
        "snapshot": snap.content_sha256,
        "fetched_at": snap.fetched_at,
        "url": snap.url,
        "outcome": found.outcome,
        "passage": found.passage,
    }
