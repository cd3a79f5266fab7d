"""One typed claim view, read in sets.

`ClaimView` is a claim as every reader sees it: its columns, trust, figures, sources (the evidence
with each source), the latest verification of each source, its history and what the history says (why
the tag is what it is, whether a re-read still covers it, whether it is stale, any way it disagrees
with its history), and the competing values of its quantity. `to_json()` gives the stable JSON shape
`claims show --format json` prints.

`load(session, ids, events=...)` reads the views of a selection in batches of BATCH claims, each batch
with one query per table (claims, figures, events, evidence with their sources, verifications, and the
quantities and competitors of the few claims that have one), as plain rows, never an ORM object and
never a query per claim; a statement binds at most BATCH parameters, far under SQLite's and
PostgreSQL's limits. It yields the views in the order of `ids` as it reads them, so a caller that
writes as it goes holds one batch at a time. Every view is checked against its history in the same
pass (`history.problems`): the events' hashes, the cached tag, status and rank, the content and the
stored record; `integrity` lists what disagrees.

`select_ids(session, filters)` gives the ids a filter selects, in key order.

Domain code: no output.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, cast

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import definitions
from claimsdb import history as chain
from claimsdb.db import parameter_mark
from claimsdb.models import FIGURE_COLUMNS, Claim, Figure, MeasuredQuantity, aliases_of
from claimsdb.reasons import event_detail, outdated_reason, rank_reason, reread_check, tag_reason
from claimsdb.trust import people, prefetch, signatures

__all__ = ["BATCH", "ClaimView", "load", "select_ids", "tag_reason", "rank_reason"]

BATCH = 1000  # claims a batch; each statement binds at most this many parameters
# On PostgreSQL a batch's ids are one array parameter (_read): larger batches, fewer round trips.
ARRAY_BATCH = 5000


def _size(session: Session) -> int:
    """How many claims a whole-store read takes a batch on this session's engine."""
    return BATCH if parameter_mark(session.connection()) == "?" else ARRAY_BATCH


# A verified claim whose latest check found less than its figures is stale; "rounded" is not stale.
STALE_OUTCOMES = ("figure-changed", "not-found", "partial")

_CLAIM_COLUMNS = tuple(
    "id key subject stage statement tag basis section aliases status status_reason superseded_by "
    "quantity_id rank label observation".split()
)
_FIGURE_KEYS = FIGURE_COLUMNS
_EVENT_KEYS = ("id", *chain.EVENT_FIELDS, *chain.LATER_FIELDS, "sha256")
_SOURCE_KEYS = (
    "key",
    "title",
    "kind",
    "url",
    "cite_key",
    "publisher",
    "date",
    "authors",
    "accessed",
)


def _quoted(columns: Sequence[str], prefix: str = "") -> str:
    return ", ".join(
        f'{prefix}"{c}"' for c in columns
    )  # "end", "key": reserved words on one engine or both


# The set-based reads of a batch, as SQL both engines run as is ({ids}: the batch's ids, `_read`).
_SQL = {
    "claims": f"SELECT {_quoted(_CLAIM_COLUMNS)} FROM claim WHERE id {{ids}}",
    "figures": f"SELECT claim_id, {_quoted(_FIGURE_KEYS)} FROM figure WHERE claim_id {{ids}} "
    "ORDER BY claim_id, position",
    "events": f"SELECT claim_id, {_quoted(_EVENT_KEYS)} FROM event WHERE claim_id {{ids}} "
    "ORDER BY claim_id, id",
    "sources": "SELECT e.claim_id, e.locator, e.quote, e.event_id, "
    f"{_quoted(_SOURCE_KEYS, 's.')} FROM evidence e JOIN source s ON s.id = e.source_id "
    "WHERE e.claim_id {ids} ORDER BY e.claim_id, e.position",
    "evidence": "SELECT e.claim_id, s.key, e.locator, e.quote FROM evidence e JOIN source s ON s.id = e.source_id "
    "WHERE e.claim_id {ids} ORDER BY e.claim_id, e.position",
    "verifications": "SELECT v.claim_id, v.source_id, s.key, v.outcome, v.at, v.passage, v.score, v.detail "
    "FROM verification v JOIN source s ON s.id = v.source_id WHERE v.claim_id {ids} "
    "ORDER BY v.id",
}


def _read(session: Session, what: str, ids: Sequence[int]) -> list[tuple]:
    """One set-based read through the driver itself (plain tuples: no row objects, no SQL compiled per
    batch); BATCH parameters at most."""
    connection = session.connection()
    cursor = connection.connection.dbapi_connection.cursor()
    if parameter_mark(connection) == "%s":  # PostgreSQL: one array (one text to parse and plan)
        ids_sql, params = "= ANY(%s)", (list(ids),)
    else:
        ids_sql, params = f"IN ({', '.join('?' * len(ids))})", tuple(ids)
    try:
        cursor.execute(_SQL[what].format(ids=ids_sql), params)
        return cursor.fetchall()
    finally:
        cursor.close()


class ClaimView(NamedTuple):
    """A claim as every reader sees it (see the module docstring). Immutable; the nested items are
    JSON-ready dicts: figures as `figures.figure_dict`, sources with their locator, quote and who added
    them, events and verifications as `claims show --format json` prints them."""

    id: int
    key: str
    subject: str
    stage: str | None
    statement: str
    tag: str
    trust: str | None
    basis: str
    section: str | None
    aliases: tuple[str, ...]
    status: str
    status_reason: str | None
    superseded_by: str | None
    quantity: dict[str, Any] | None
    quantity_id: int | None
    rank: str
    competitors: tuple[dict[str, Any], ...]
    figures: tuple[dict[str, Any], ...]
    sources: tuple[dict[str, Any], ...]
    events: tuple[dict[str, Any], ...]
    verifications: tuple[dict[str, Any], ...]
    stale: bool  # verified, and the latest verification found the figure changed or gone
    reread_outdated: bool  # verified, but the content changed since what vouched for it
    outdated_reason: str | None
    integrity: tuple[str, ...]  # every way it disagrees with its history (empty: it agrees)
    tag_event: dict[str, Any] | None  # the event that set the tag, as stored (its detail JSON text)
    rank_event: dict[str, Any] | None  # the event that set the rank, as stored
    label: str | None = None  # the short phrase its grid cell shows instead of the figures
    vouched_event: dict[str, Any] | None = None  # the event its verified tag stands on, as stored
    # why that event does not vouch once signatures are required (trust.signatures); None: it does
    unsigned: str | None = None
    observation: bool = False  # about no one system: never a row of a grid

    @property
    def tag_reason(self) -> str:
        return tag_reason(_shown(self.tag_event), self.basis)

    @property
    def reread_check(self) -> str | None:
        """How the re-read its verified tag stands on met the page: "checked" (the quote was found on the
        page), "attested" (a person said why the page could not be checked), "unchecked" (recorded by an
        earlier release, before re-reads were checked); None when no re-read vouches for it."""
        return reread_check(self.vouched_event)

    @property
    def attested(self) -> str | None:
        """The reason of the attestation its verified tag stands on (None: none does)."""
        if self.reread_check != "attested":
            return None
        return str(event_detail(self.vouched_event).get("attested"))

    @property
    def rank_reason(self) -> str | None:
        return rank_reason(_shown(self.rank_event))

    @property
    def primary_source(self) -> str | None:
        """The page a person should re-read: the first cited source that is not a note."""
        return next((s["key"] for s in self.sources if s["kind"] != "note"), None)

    @property
    def stale_outcome(self) -> str | None:
        return (
            next((v["outcome"] for v in self.verifications if v["outcome"] in STALE_OUTCOMES), None)
            if self.stale
            else None
        )

    def to_json(self) -> dict[str, Any]:
        # an import sets the tag and the rank in one event, nearly always: its detail decoded once
        shown = _shown(self.tag_event)
        ranked = shown if self.rank_event is self.tag_event else _shown(self.rank_event)
        return {
            "key": self.key,
            "subject": self.subject,
            "stage": self.stage,
            "statement": self.statement,
            "tag": self.tag,
            "trust": self.trust,
            "basis": self.basis,
            "section": self.section,
            "aliases": list(self.aliases),
            "label": self.label,
            "tag_reason": tag_reason(shown, self.basis),
            "status": self.status,
            "status_reason": self.status_reason,
            "superseded_by": self.superseded_by,
            "quantity": self.quantity,
            "rank": self.rank,
            "rank_reason": rank_reason(ranked),
            "competitors": list(self.competitors),
            "figures": list(self.figures),
            "sources": list(self.sources),
            "events": list(self.events),
            "verifications": list(self.verifications),
            "stale": self.stale,
            "reread_outdated": self.reread_outdated,
            "outdated_reason": self.outdated_reason,
            "integrity": list(self.integrity),
            "reread_check": self.reread_check,
            "attested": self.attested,
            "signed_by": signatures.fingerprint(self.vouched_event) if self.vouched_event else None,
            "unsigned": self.unsigned,
        }


def subject_names(session: Session) -> dict[str, list[str]]:
    """Every subject of the store with the aliases its claims give it (one grouped query), once every
    claim's aliases are held against their definitions (TamperedDefinitions, exit 2, when one is not)."""
    definitions.ensure_aliases(session)
    out: dict[str, list[str]] = {}
    for subject, aliases in session.execute(
        select(Claim.subject, Claim.aliases).group_by(Claim.subject, Claim.aliases)
    ):
        names = out.setdefault(subject, [])
        names += [a for a in aliases_of(aliases) if a not in names]
    return out


def of_subjects(session: Session, subjects: Sequence[str]) -> list[int]:
    """The ids of the claims of these subjects, in key order (BATCH subjects a query)."""
    found: list[tuple[str, int]] = []
    for i in range(0, len(subjects), BATCH):
        found += session.execute(
            select(Claim.key, Claim.id).where(Claim.subject.in_(subjects[i : i + BATCH]))
        ).all()
    return [claim_id for _, claim_id in sorted(found)]


def select_ids(session: Session, filters: Any = None) -> list[int]:
    """The ids of the claims a filter (queries.ClaimFilter) selects, in key order."""
    stmt = select(Claim.id)
    if filters is not None:
        stmt = filters.apply(stmt)
    return list(session.scalars(stmt.order_by(Claim.key)))


def load(
    session: Session, ids: Sequence[int], *, events: int | None = 0, events_checked: bool = False
) -> Iterator[ClaimView]:
    """The views of these claims, in this order, read BATCH at a time (see the module docstring).
    `events`: how many of the latest history events each view lists (None: all; the check always reads
    all of them). `events_checked`: the caller has just checked every event's hash (`claims db check`
    walks the whole chain first), so the check here leaves that part out."""
    trust = definitions.trust_levels(session)  # as defined (exit 2 if a tag row was changed)
    registry = people.load(session)
    # many signatures to check: a worker checks them ahead on another core (trust.prefetch)
    ahead = (
        prefetch.Prefetch(session, registry, prefetch.VOUCHING, ids) if registry.required else None
    )
    try:
        size = _size(session)
        for i in range(0, len(ids), size):
            views = _batch(session, ids[i : i + size], trust, events, events_checked)
            for n, view in enumerate(views, i):
                yield _signed(view, registry, ahead, n)
    finally:
        if ahead is not None:
            ahead.close()


def _signed(
    view: ClaimView, registry: people.Registry, ahead: prefetch.Prefetch | None, position: int
) -> ClaimView:
    """The view with why its verified tag's re-read does not vouch, once signatures are required
    (the worker's verdicts up to now taken first, see trust.prefetch)."""
    if not registry.required or view.trust != "verified" or view.integrity:
        return view
    if ahead is not None:
        ahead.merge(position)
    why = signatures.problem(registry, view.key, view.vouched_event)
    return view._replace(unsigned=why) if why else view


def _batch(
    session: Session,
    ids: Sequence[int],
    trust: dict[str, str],
    events: int | None,
    events_checked: bool,
) -> Iterator[ClaimView]:
    claims = {r[0]: r for r in _read(session, "claims", ids)}
    figures = _figure_rows(_read(session, "figures", ids))
    history: dict[int, list[dict[str, Any]]] = {}
    for r in _read(session, "events", ids):
        history.setdefault(r[0], []).append(dict(zip(_EVENT_KEYS, r[1:])))
    sources: dict[int, list[dict[str, Any]]] = {}
    for r in _read(session, "sources", ids):
        claim_id, locator, quote, event_id = r[:4]
        s = dict(zip(_SOURCE_KEYS, r[4:]))
        s["locator"], s["quote"] = locator, quote
        s["added_by"] = (
            _actor(history.get(claim_id, ()), event_id) if event_id is not None else None
        )
        sources.setdefault(claim_id, []).append(s)
    checks = _latest_verifications(_read(session, "verifications", ids))
    quantity_ids = {r[12] for r in claims.values() if r[12] is not None}
    keys = {s["key"] for cited in sources.values() for s in cited}
    aliased = {c[1]: c[8] for c in claims.values() if c[8]}
    outside = definitions.outside_claims(session, keys, quantity_ids, aliased)
    quantities, competitors = (
        _competition(session, quantity_ids, trust) if quantity_ids else ({}, {})
    )
    for claim_id in ids:
        c = claims.get(claim_id)
        if c is None:
            continue
        yield _view(
            c,
            trust,
            figures.get(claim_id, []),
            sources.get(claim_id, []),
            history.get(claim_id, []),
            checks.get(claim_id, []),
            quantities,
            competitors,
            events,
            events_checked,
            outside,
        )


def problems_of(
    session: Session, ids: Sequence[int], *, events_checked: bool = False
) -> Iterator[tuple[str, list[str]]]:
    """(key, every way the claim disagrees with its history) for these claims, BATCH at a time: the check
    every view runs (see `load`), without building the views (`claims db check` reads every claim;
    it reports definitions that do not verify on their own: here they define nothing)."""
    trust = definitions.load(session).trust
    size = _size(session)
    for i in range(0, len(ids), size):
        batch = ids[i : i + size]
        figures = _figure_rows(_read(session, "figures", batch))
        history: dict[int, list[dict[str, Any]]] = {}
        for r in _read(session, "events", batch):
            history.setdefault(r[0], []).append(dict(zip(_EVENT_KEYS, r[1:])))
        evidence: dict[int, list[tuple]] = {}
        for r in _read(session, "evidence", batch):
            evidence.setdefault(r[0], []).append(r[1:])
        claims, keys = _read(session, "claims", batch), {e[0] for s in evidence.values() for e in s}
        aliased = {c[1]: c[8] for c in claims if c[8]}
        outside = definitions.outside_claims(
            session, keys, {c[12] for c in claims} - {None}, aliased
        )
        for c in claims:
            claim_id = c[0]
            evs = history.get(claim_id, [])
            figs, said = figures.get(claim_id, []), evidence.get(claim_id, [])
            yield c[1], _checked(c, trust, figs, said, evs, events_checked, outside)[2]


def _figure_rows(rows: Sequence[tuple]) -> dict[int, list[tuple]]:
    """Each claim's figure rows as read (_FIGURE_KEYS values, `steps` JSON text), hashed as they are."""
    out: dict[int, list[tuple]] = {}
    for r in rows:
        out.setdefault(r[0], []).append(r[1:])
    return out


def _figure_dict(row: tuple) -> dict[str, Any]:
    """A view's figure: its columns by name, `steps` as a list."""
    f = dict(zip(_FIGURE_KEYS, row))
    f["steps"] = json.loads(f["steps"]) if f["steps"] else []
    return f


def _actor(events: Sequence[dict[str, Any]], event_id: int) -> str | None:
    return next((e["actor"] for e in events if e["id"] == event_id), None)


def _checked(
    c: tuple, trust, figures: list, evidence: list, evs: list, events_checked: bool, outside: dict
) -> tuple[chain.ClaimState, str, list[str]]:
    """A claim's row against its history: the state its events imply, its content digest, and every way
    it disagrees with them (`chain.problems`), and with the definitions of the sources and quantity it
    uses (`outside`: definitions.outside_claims): the check every view runs and `problems_of` alone.
    `figures`: the claim's figure rows as read (_figure_rows), hashed as they are."""
    _, key, subject, stage, statement, tag, basis, section = c[:8]
    status, quantity_id, rank, label = c[9], c[12], c[13], c[14]
    state = chain.derive(evs, trust)
    content = chain.content_digest(subject, statement, [f[1::-1] for f in figures], evidence, label)
    stored = chain.stored_rows_digest(stage, basis, section, quantity_id, figures, bool(c[15]))
    problems = chain.problems(
        key,
        tag,
        status,
        content,
        evs,
        state,
        rank,
        stored_sha256=stored,
        events_checked=events_checked,
    )
    if outside:  # its aliases, a source or quantity it uses disagree with their definitions (rare)
        used = [("source", k) for k in dict.fromkeys(e[0] for e in evidence)]
        used += [("quantity", quantity_id), ("aliases", key)]
        problems += [outside[u] for u in used if u in outside]
    return state, content, problems


def _view(
    c, trust, figures, sources, evs, checks, quantities, competitors, events, checked, outside
) -> ClaimView:
    (
        claim_id,
        key,
        subject,
        stage,
        statement,
        tag,
        basis,
        section,
        aliases,
        status,
        status_reason,
        superseded_by,
        quantity_id,
        rank,
        label,
        observation,
    ) = c
    evidence = [(s["key"], s["locator"], s["quote"]) for s in sources]
    state, content, problems = _checked(c, trust, figures, evidence, evs, checked, outside)
    verified = trust.get(tag) == "verified"
    shown = evs if events is None else evs[-events:] if events else []
    tag_event = cast(dict[str, Any] | None, state.tag_event)  # the latest to set each (derive)
    rank_event = cast(dict[str, Any] | None, state.rank_event)
    # A claim that disagrees with its history is reported as that, not as "changed since re-read".
    outdated = (
        outdated_reason(state.vouched_by, tag_event, sources, state.vouches_for(content))
        if verified and not problems
        else None
    )
    return ClaimView(
        claim_id,
        key,
        subject,
        stage,
        statement,
        tag,
        trust.get(tag),
        basis,
        section,
        tuple(aliases_of(aliases)),
        status,
        status_reason,
        superseded_by,
        quantities.get(quantity_id),
        quantity_id,
        rank,
        tuple(o for o in competitors.get(quantity_id, ()) if o["key"] != key)
        if quantity_id is not None
        else (),
        tuple(map(_figure_dict, figures)),
        tuple(sources),
        tuple(_shown(e) for e in shown),
        tuple(checks),
        verified and any(v["outcome"] in STALE_OUTCOMES for v in checks),
        outdated is not None,
        outdated,
        tuple(problems),
        tag_event,
        rank_event,
        label,
        dict(state.vouched_by) if verified and state.vouched_by is not None else None,
        observation=bool(observation),
    )


def _shown(e: dict[str, Any] | None) -> dict[str, Any] | None:
    """An event as a view shows it: its fields for people, the detail decoded."""
    if e is None:
        return None
    return {
        "at": e["at"],
        "kind": e["kind"],
        "actor": e["actor"],
        "tag_before": e["tag_before"],
        "tag_after": e["tag_after"],
        "status_after": e["status_after"],
        "rank_after": e.get("rank_after"),
        "origin": e["origin"],
        "detail": json.loads(e["detail"]) if e["detail"] else None,
    }


def _latest_verifications(rows: Sequence[tuple]) -> dict[int, list[dict[str, Any]]]:
    """Per claim, per source: the latest conclusive verification, and the latest attempt when that was
    an unreachable fetch after it. An unreachable source never hides an earlier result. `rows`: the
    "verifications" read, oldest first."""
    latest: dict[tuple[int, int], dict[str, Any]] = {}
    for claim_id, source_id, source_key, outcome, at, passage, score, detail in rows:
        entry = latest.setdefault(
            (claim_id, source_id),
            {
                "source": source_key,
                "outcome": None,
                "at": None,
                "passage": None,
                "detail": None,
                "last_attempt": None,
            },
        )
        if outcome == "unreachable":
            entry["last_attempt"] = {
                "outcome": outcome,
                "at": at,
                "detail": json.loads(detail) if detail else None,
            }
        else:
            entry.update(
                outcome=outcome,
                at=at,
                passage=passage,
                score=score,
                detail=json.loads(detail) if detail else None,
                last_attempt=None,
            )
    out: dict[int, list[dict[str, Any]]] = {}
    for (claim_id, _source_id), entry in latest.items():
        if entry["outcome"] is None:  # only unreachable attempts so far
            entry.update(
                outcome="unreachable",
                at=entry["last_attempt"]["at"],
                detail=entry["last_attempt"]["detail"],
            )
            entry["last_attempt"] = None
        out.setdefault(claim_id, []).append(entry)
    return out


def latest_verifications(session: Session, ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    """_latest_verifications of any number of claims, BATCH at a time."""
    out: dict[int, list[dict[str, Any]]] = {}
    for i in range(0, len(ids), BATCH):
        out.update(_latest_verifications(_read(session, "verifications", ids[i : i + BATCH])))
    return out


def _competition(
    session: Session, quantity_ids: set[int], trust: dict[str, str]
) -> tuple[dict[int, dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    """The quantities these claims state, and every claim on each (its figures, tag and rank), in key order."""
    quantities = {
        q[0]: {"key": q[1], "subject": q[2], "measure": q[3]}
        for q in session.execute(
            select(
                MeasuredQuantity.id,
                MeasuredQuantity.key,
                MeasuredQuantity.subject,
                MeasuredQuantity.measure,
            ).where(MeasuredQuantity.id.in_(quantity_ids))
        )
    }
    others = list(
        session.execute(
            select(Claim.id, Claim.key, Claim.tag, Claim.rank, Claim.status, Claim.quantity_id)
            .where(Claim.quantity_id.in_(quantity_ids))
            .order_by(Claim.key)
        )
    )
    raws: dict[int, list[str]] = {}
    for i in range(0, len(others), BATCH):
        for claim_id, raw in session.execute(
            select(Figure.claim_id, Figure.raw)
            .where(Figure.claim_id.in_([o[0] for o in others[i : i + BATCH]]))
            .order_by(Figure.claim_id, Figure.position)
        ):
            raws.setdefault(claim_id, []).append(raw)
    competitors: dict[int, list[dict[str, Any]]] = {}
    for claim_id, key, tag, rank, status, quantity_id in others:
        competitors.setdefault(quantity_id, []).append(
            {
                "key": key,
                "figures": raws.get(claim_id, []),
                "tag": tag,
                "trust": trust.get(tag),
                "rank": rank,
                "status": status,
            }
        )
    return quantities, competitors
