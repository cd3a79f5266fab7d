"""Which claims a page of `claims serve` shows, chosen in SQL, so that a page reads only the claims it draws.

A page's filters become one WHERE clause over `claim` (`Selection.where`): the columns' filters
(queries.ClaimFilter.apply) and, for "stale only", the stale rule below. The counts a page prints
(claims, subjects, claims not paper-safe, the re-read queue's length) are `SELECT count(*)` under that
clause, and only the claims a page draws are read whole (views.load).

Paper-safety in SQL. `Policy.blockers` judges a claim's view; here the same rule is written over the
tables, for counting and for finding the queue's claims, and a test holds the two to the same verdict
on every claim of its stores:
- trust: the trust of the claim's tag (the tag table) does not pass the policy;
- stale (blocks under the strict policy only): a verified claim whose latest conclusive verification
  of one of its sources found less than its figures: per claim and source the latest verification
  that is not `unreachable` (views._latest_verifications), with an outcome in views.STALE_OUTCOMES;
- outdated: a verified claim whose content changed since what vouched for it (history.derive). Its
  latest tag-setting event decides: an import vouches for its own content and every later content of
  the data file, so the claim is outdated only when that event recorded no content and none came
  after; a re-read vouches for what it saw, so the claim is outdated when it recorded none or the content
  last recorded after it is another; after any other tag event (a retag between two verified tags keeps
  what was vouched before it) SQL cannot tell, and those claims' views decide (`outdated_ids`);
- attested (blocks under the strict policy only): a verified claim whose tag stands on a re-read that
  is an attestation (`attested`);
- unsigned (once the store requires signatures, under either policy): a verified claim whose latest
  tag event that vouches is not a re-read signed by the person it names (`unsigned_ids`: the signatures
  are checked in Python, trust.signatures, since SQL cannot);
- integrity (a claim that disagrees with its history): not in SQL, since it takes each event's hash.
  A page says that its counts leave those out; the re-read queue passes over them as it reads them.

The re-read queue's order (READINESS): by the outcome of each claim's latest conclusive verification
(an unreachable fetch never hides an earlier confirmed, reworded or figure-changed result), the located
claims first; a located claim whose cited locator names no place in the page ("the report") is not
ready, and waits after them.

Domain reads only: no HTTP, no output.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

from sqlalchemy import and_, bindparam, case, exists, false, func, literal, or_, select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from claimsdb import db, definitions, disputes, paper_safe, views
from claimsdb.history import IMPORT_KINDS, REREAD_KIND, VERIFIED, detail_key
from claimsdb.models import Claim, Event, Tag, Verification
from claimsdb.queries import ClaimFilter
from claimsdb.trust import people, signatures
from claimsdb.trust.rule import EXPORTABLE_STATUS, Policy
from claimsdb.trust.signatures import vouching_events

UNREACHABLE = "unreachable"  # a fetch that failed: it never hides an earlier verification's outcome
DECIDED_IN_SQL = (*IMPORT_KINDS, REREAD_KIND)  # tag events after which SQL tells an outdated claim


def trust_in(levels: Iterable[str]):
    """The claim's tag has one of these trust levels."""
    return Claim.tag.in_(select(Tag.name).where(Tag.trust.in_(tuple(levels))))


def stale_verification():
    """The latest conclusive verification of one of the claim's sources found less than its figures."""
    v, later = aliased(Verification), aliased(Verification)
    superseded = (
        select(later.id)
        .where(
            later.claim_id == v.claim_id,
            later.source_id == v.source_id,
            later.outcome != UNREACHABLE,
            later.id > v.id,
        )
        .exists()
    )
    return (
        select(v.id)
        .where(v.claim_id == Claim.id, v.outcome.in_(views.STALE_OUTCOMES), ~superseded)
        .exists()
    )


def stale():
    """What the views call stale: a verified claim with a stale verification (views.ClaimView.stale)."""
    return and_(trust_in([VERIFIED]), stale_verification())


def attested():
    """What the views call attested: a verified claim whose latest tag event that vouches (an import's or
    a re-read's) is a re-read recorded as an attestation (views.ClaimView.attested; its detail holds the
    key "attested": history.detail_key)."""
    vouching, event = aliased(Event), aliased(Event)
    latest = (
        select(func.max(vouching.id))
        .where(
            vouching.claim_id == Claim.id,
            vouching.tag_after.is_not(None),
            vouching.kind.in_((*IMPORT_KINDS, REREAD_KIND)),
        )
        .correlate(Claim)
        .scalar_subquery()
    )
    return and_(
        trust_in([VERIFIED]),
        exists(
            select(event.id)
            .where(
                event.id == latest,
                event.kind == REREAD_KIND,
                event.detail.like(f"%{detail_key('attested')}%"),
            )
            .correlate(Claim)
        ),
    )


def unsigned_ids(session: Session, among: Sequence[int] | None = None) -> set[int]:
    """The ids of the verified claims (or of those `among` these ids) whose tag stands on an event that
    does not vouch once signatures are required (views.ClaimView.unsigned: trust.signatures.problem), each
    signature checked in process. Empty while the store does not require signatures."""
    registry = people.load(session)
    if not registry.required:
        return set()
    return {
        claim_id
        for claim_id, key, event in vouching_events(session, among)
        if signatures.problem(registry, key, event)
    }


def ids_in(ids: Iterable[int]):
    """claim.id IN (...), the ids written into the statement (integers only): no parameter limit."""
    ids = sorted(ids)
    if not ids:
        return false()
    return Claim.id.in_(bindparam("ids", ids, unique=True, expanding=True, literal_execute=True))


def outdated_ids(session: Session, among: Sequence[int] | None = None) -> set[int]:
    """The ids of the store's outdated claims (views.ClaimView.reread_outdated), or of those `among` these
    ids, as the module docstring says: SQL for a claim whose latest tag event is an import or a re-read, the
    views of the others (few: a retag between verified tags)."""
    if among is not None and len(among) > views.BATCH:
        chunks = (among[i : i + views.BATCH] for i in range(0, len(among), views.BATCH))
        return set().union(*(outdated_ids(session, chunk) for chunk in chunks))
    tag_event, content, latest = aliased(Event), aliased(Event), aliased(Event)
    latest_tag_event = (
        select(func.max(latest.id))
        .where(latest.claim_id == Claim.id, latest.tag_after.is_not(None))
        .scalar_subquery()
    )
    later_content = select(content.content_sha256).where(
        content.claim_id == Claim.id, content.id > tag_event.id, content.content_sha256.is_not(None)
    )
    now = (
        later_content.order_by(content.id.desc()).limit(1).scalar_subquery()
    )  # the content as last recorded
    recorded_none = tag_event.content_sha256.is_(None)
    outdated = or_(
        and_(
            tag_event.kind == REREAD_KIND,
            or_(
                recorded_none,
                and_(later_content.exists(), now.is_distinct_from(tag_event.content_sha256)),
            ),
        ),
        and_(tag_event.kind.in_(IMPORT_KINDS), recorded_none, ~later_content.exists()),
        tag_event.kind.not_in(DECIDED_IN_SQL),
    )
    stmt = (
        select(Claim.id, tag_event.kind)
        .join(tag_event, tag_event.id == latest_tag_event)
        .where(trust_in([VERIFIED]), outdated)
    )
    if among is not None:
        stmt = stmt.where(Claim.id.in_(among))
    found = session.execute(stmt).all()
    sure = {claim_id for claim_id, kind in found if kind in DECIDED_IN_SQL}
    undecided = [claim_id for claim_id, kind in found if kind not in DECIDED_IN_SQL]
    return sure | {v.id for v in views.load(session, undecided) if v.reread_outdated}


def stages(session: Session) -> list[str]:
    """Every stage the claims name, in the grid's order (paper_safe.stage_order: the note's columns first)."""
    named = [s for s in session.scalars(select(Claim.stage).distinct().order_by(Claim.stage)) if s]
    return paper_safe.stage_order([SimpleNamespace(stage=s) for s in named])


@dataclass(frozen=True)
class Facts:
    """What the pages need of the whole store that only a new event can change, as of one event (the
    history's head: its id and digest)."""

    head: tuple[int, str] | None
    outdated: frozenset[int]
    stages: tuple[str, ...]
    vague: frozenset[int] = frozenset()  # claims whose cited locators name no place (vague_ids)
    unsigned: frozenset[int] = (
        frozenset()
    )  # claims whose re-read does not vouch as signed (unsigned_ids)
    people: str | None = None  # the people registry's head when they were taken
    # in a contradiction an agent's claim is part of (disputes); None: more than RANKED_DISPUTES, not kept
    disputed: frozenset[int] | None = frozenset()


class Memo:
    """The store's Facts, kept between requests and brought up to date from the events appended since.

    A claim's tag and status change only with an event (the database's triggers), its content and stage
    only through claims, which records one (anything else is tampering, which each claim's view reports);
    writers append one transaction at a time under a lock (history.begin_write), and events are never
    changed: so only the claims of the new events need judging again. When the event the facts were taken at is no longer there as it was (another
    database, a rewritten history), everything is read again. Verifications are not events: nothing
    here depends on them."""

    def __init__(self) -> None:
        self._facts: Facts | None = None
        # A large store's disputes, judged by a worker from the first read on (disputes.Pending): until
        # its answer is in, the facts hold the disputes of the claims touched since, and no others.
        self._disputes: disputes.Pending | None = None

    def facts(self, session: Session) -> Facts:
        head = session.execute(
            select(Event.id, Event.sha256).order_by(Event.id.desc()).limit(1)
        ).first()
        head = tuple(head) if head is not None else None
        definitions.trust_levels(session)  # the tag table's trust levels, as defined (else exit 2)
        registry = people.load(session).head
        self._take_disputes(session)
        known = self._facts
        if known is not None and known.head == head and known.people == registry:
            return known
        if (
            known is None
            or known.head is None
            or head is None
            or known.people != registry
            or not self._extends(session, known.head)
        ):
            facts = Facts(
                head,
                frozenset(outdated_ids(session)),
                tuple(stages(session)),
                frozenset(vague_ids(session)),
                frozenset(unsigned_ids(session)),
                registry,
                self._store_disputes(session),
            )
        else:
            new = session.execute(
                select(Event.claim_id, Event.kind).where(Event.id > known.head[0])
            ).all()
            touched = sorted({claim_id for claim_id, _ in new})
            outdated = (known.outdated - set(touched)) | outdated_ids(session, touched)
            vague = (known.vague - set(touched)) | vague_ids(session, touched)
            unsigned = (known.unsigned - set(touched)) | unsigned_ids(session, touched)
            imported = any(kind in IMPORT_KINDS for _, kind in new)  # only an import sets a stage
            facts = Facts(
                head,
                frozenset(outdated),
                tuple(stages(session)) if imported else known.stages,
                frozenset(vague),
                frozenset(unsigned),
                registry,
                _disputed(session, known.disputed, touched),
            )
        self._facts = facts
        return facts

    def _store_disputes(self, session: Session) -> frozenset[int] | None:
        """The store's disputed claims judged here (a small store), or none yet while a worker judges
        them (`_take_disputes` takes its answer in)."""
        active = session.execute(
            select(func.count()).select_from(Claim).where(Claim.status == EXPORTABLE_STATUS)
        ).scalar_one()
        if active >= disputes.WORKER_FROM:
            if self._disputes is not None:
                self._disputes.close()
            self._disputes = disputes.Pending(session, RANKED_DISPUTES)
            if self._disputes.proc is not None:
                return frozenset()
            self._disputes = None
        return _bounded(disputes.contested_ids(session))

    def _take_disputes(self, session: Session) -> None:
        """The worker's disputes, once in, brought up to date with the events since the head it judged
        at, into the facts kept (dropped when that head is no longer in the chain as it was)."""
        pending = self._disputes
        if pending is None or pending.running:
            return
        self._disputes = None
        found = pending.answer()
        known = self._facts
        if found is None or known is None or known.head is None:
            return
        then, ids = found
        if not self._extends(session, then):
            return
        touched = sorted(
            set(
                session.scalars(
                    select(Event.claim_id).where(Event.id > then[0], Event.id <= known.head[0])
                )
            )
        )
        self._facts = replace(known, disputed=_disputed(session, _bounded(ids), touched))

    @staticmethod
    def _extends(session: Session, then: tuple[int, str]) -> bool:
        return session.execute(select(Event.sha256).where(Event.id == then[0])).scalar() == then[1]


def _bounded(ids: Iterable[int] | None) -> frozenset[int] | None:
    """The disputed claims as the facts keep them: None past RANKED_DISPUTES (the queue does not rank
    them, and a million ids are not held for nothing)."""
    if ids is None:
        return None
    found = frozenset(ids)
    return found if len(found) <= RANKED_DISPUTES else None


def _disputed(
    session: Session, known: frozenset[int] | None, touched: Sequence[int]
) -> frozenset[int] | None:
    """The disputed claims after events on `touched`: judged again over the subjects of the touched
    claims (a new claim can dispute an old one of its subject), the others' as they were (None stays
    None: too many to rank)."""
    if not touched or known is None:
        return known
    subjects = disputes.subjects_of(session, touched)
    ordered = sorted(subjects)
    again = {
        claim_id
        for i in range(0, len(ordered), 500)
        for claim_id in session.scalars(
            select(col(Claim.id)).where(func.lower(col(Claim.subject)).in_(ordered[i : i + 500]))
        )
    }
    return _bounded((known - again - set(touched)) | disputes.contested_ids(session, subjects))


RANKED_DISPUTES = 10_000  # contested claims the queue ranks after the uncontested (see Queue._rank)


@dataclass(frozen=True)
class Subject:
    """One row of the grid: a subject, its first claim's id (the grid's order), its claims under the filters."""

    name: str
    first: int
    claims: int
    unsafe: int


class Selection:
    """The claims a page's filters select, as SQL: `where` for any statement over `claim`, the counts,
    a page of ids. `stale`: only stale or outdated claims (what `claims list --stale` lists)."""

    def __init__(
        self,
        session: Session,
        filters: ClaimFilter,
        policy: Policy,
        *,
        outdated: Iterable[int],
        unsigned: Iterable[int] = (),
        stale: bool = False,
    ):
        # the SQL below reads the tag table's trust levels: they must be the ones defined
        definitions.trust_levels(session)
        self.session, self.filters, self.policy, self.stale = session, filters, policy, stale
        self.outdated = frozenset(outdated)  # the store's outdated claims (Memo.facts)
        self.unsigned = frozenset(unsigned)  # its claims whose re-read is not signed, when required

    def where(self, stmt):
        stmt = self.filters.apply(stmt)
        if self.stale:
            stmt = stmt.where(
                trust_in([VERIFIED]), or_(stale_verification(), ids_in(self.outdated))
            )
        return stmt

    def unsafe(self):
        """Not paper-safe under the policy, integrity aside (see the module docstring)."""
        blocked = [~trust_in(self.policy.passing), ids_in(self.outdated | self.unsigned)]
        if self.policy.strict:
            blocked += [stale(), attested()]
        return or_(*blocked)

    def counts(self) -> tuple[int, int]:
        """How many claims, and how many of them are not paper-safe."""
        total, unsafe = self.session.execute(
            self.where(select(func.count(), self._unsafe_sum()))
        ).one()
        return total, unsafe or 0

    def _unsafe_sum(self):
        return func.sum(case((self.unsafe(), 1), else_=0))

    def page(self, offset: int, limit: int) -> list[int]:
        """One page of the claims' ids, in the order the data files list them (import order)."""
        return list(
            self.session.scalars(
                self.where(select(Claim.id)).order_by(Claim.id).offset(offset).limit(limit)
            )
        )

    def subjects(self) -> list[Subject]:
        """The subjects of the claims, each once, in the order the grid draws them (by first claim): the
        grid's rows, so an observation (about no one system) is not counted (paper_safe.grids)."""
        first = func.min(Claim.id)
        stmt = (
            self.where(select(Claim.subject, first, func.count(), self._unsafe_sum()))
            .where(col(Claim.observation).is_(False))
            .group_by(Claim.subject)
        )
        return [
            Subject(name, first_id, claims, unsafe or 0)
            for name, first_id, claims, unsafe in self.session.execute(stmt.order_by(first))
        ]

    def of_subjects(self, subjects: Sequence[str]) -> list[tuple[int, str, str | None]]:
        """(id, subject, stage) of the claims of these subjects, in import order."""
        if not subjects:
            return []
        stmt = self.where(select(Claim.id, Claim.subject, Claim.stage)).where(
            Claim.subject.in_(subjects), col(Claim.observation).is_(False)
        )
        return [tuple(r) for r in self.session.execute(stmt.order_by(Claim.id))]


QUEUE_BATCHES = (20, 200, views.BATCH)  # views read at a time while looking for the queue's claim
NOT_READY = "vague-locator"  # a located claim whose cited locator names no place in the page
# The queue's readiness groups, by the claim's latest conclusive verification (whatever its source; an
# unreachable fetch never hides an earlier result): the passage located with its figures first, then
# the rest by how much a person can still read off the page.
READINESS = (
    ("confirmed",),  # the quote and every figure are on the page
    (
        "reworded",
        "rounded",
        "partial",
    ),  # the figures are there, in other words, more precisely, or some
    ("figure-changed",),  # the passage is there, a figure differs: the page's value is shown
    (NOT_READY,),  # located, but the locator it cites ("the report") says not where: not ready
    (
        None,
        "nothing-to-check",
    ),  # never verified (no snapshot yet), or nothing on a page could confirm it
    ("not-found", "unreachable"),  # the page was read and has none of it, or could not be read
)
VAGUE_RANK = next(rank for rank, outcomes in enumerate(READINESS) if NOT_READY in outcomes)
NEVER_VERIFIED = next(rank for rank, outcomes in enumerate(READINESS) if None in outcomes)


def latest_outcome():
    """The outcome of the claim's latest conclusive verification (any source), else `unreachable` when
    every fetch failed, else NULL (never verified): views._latest_verifications' rule, per claim."""
    return (
        select(Verification.outcome)
        .where(Verification.claim_id == Claim.id)
        .order_by(
            case((col(Verification.outcome) == UNREACHABLE, 1), else_=0), Verification.id.desc()
        )
        .limit(1)
        .scalar_subquery()
    )


def readiness(vague: Iterable[int] = ()):
    """The claim's readiness group (READINESS), 0 first: one CASE over its latest conclusive outcome; a
    claim of `vague` (its cited locator names no place: `vague_ids`) is not ready, never located-first."""

    def ranks(not_ready: bool):
        return case(
            {
                outcome: VAGUE_RANK if not_ready and rank < VAGUE_RANK else rank
                for rank, outcomes in enumerate(READINESS)
                for outcome in outcomes
                if outcome and outcome != NOT_READY
            },
            value=latest_outcome(),
            else_=NEVER_VERIFIED,
        )

    vague = frozenset(vague)
    if not vague:
        return ranks(False)
    return case((ids_in(vague), ranks(True)), else_=ranks(False))


def vague_ids(session: Session, among: Sequence[int] | None = None) -> set[int]:
    """The claims (of the store, or `among` these ids) whose cited locators on their primary pages all
    name no place a reader can turn to (locating.reread.vague_locator: "the report", "opening
    paragraph"), judged on the locators alone; a claim citing no locator there is not among them. The
    claim's own evidence only: a person's re-read links a locator of its own, which leaves the claim's
    place in the queue as it was (what "after" it means)."""
    from claimsdb.locating.reread import vague_locator
    from claimsdb.models import Evidence, Source

    if among is not None and len(among) > views.BATCH:
        chunks = (among[i : i + views.BATCH] for i in range(0, len(among), views.BATCH))
        return set().union(*(vague_ids(session, chunk) for chunk in chunks))
    stmt = (
        select(col(Evidence.claim_id), col(Evidence.locator))
        .join(Source, col(Source.id) == col(Evidence.source_id))
        .where(
            col(Source.kind) != "note",
            col(Evidence.locator).is_not(None),
            col(Evidence.event_id).is_(None),  # the claim's own, not a person's re-read's
        )
    )
    rows: Iterable[Any]
    if among is not None:
        rows = session.execute(stmt.where(col(Evidence.claim_id).in_(sorted(among))))
    else:  # the whole store: through the driver a batch at a time, never all its rows at once
        rows = db.stream_rows(
            session,
            "SELECT e.claim_id, e.locator FROM evidence e JOIN source s ON s.id = e.source_id "
            "WHERE s.kind <> 'note' AND e.locator IS NOT NULL AND e.event_id IS NULL",
        )
    vague, precise = set(), set()
    judged: dict[str, bool] = {}  # each distinct locator judged once: a store repeats its few forms
    for claim_id, locator in rows:
        if not locator.strip():
            continue
        if (is_vague := judged.get(locator)) is None:
            is_vague = judged[locator] = vague_locator(locator)
        (vague if is_vague else precise).add(claim_id)
    return vague - precise


@dataclass(frozen=True)
class Found:
    """The queue's claim, where it stands, and the claims passed over on the way (they disagree with their
    history: a re-read is refused on them); `total`: the claims waiting, when counted on the way."""

    view: views.ClaimView | None
    position: int
    passed_over: int
    total: int | None = None


def queued_ids(session: Session, policy: Policy, filters: ClaimFilter | None = None):
    """A SELECT of the ids of the claims the re-read queue holds under `policy` (what `claims verify
    --unverified` checks)."""
    queue = Queue(
        session,
        filters or ClaimFilter(),
        policy,
        outdated=outdated_ids(session),
        unsigned=unsigned_ids(session),
    )
    return queue.waiting(select(Claim.id))


class Queue:
    """The re-read queue in SQL: the active claims the filters select that the export gate would block
    (trust, outdated, and under the strict policy stale), by readiness (READINESS: the claims whose page
    was read and whose figures were found there first), in key order within each group. A claim's place
    is (readiness, key): `after` a claim means after its place as its verifications stand now."""

    def __init__(
        self,
        session: Session,
        filters: ClaimFilter,
        policy: Policy,
        *,
        vague: Iterable[int] = (),
        disputed: Iterable[int] | None = (),
        **among: Any,
    ):
        """`among`: the Selection's `outdated` and `stale`, over the active claims the filters select;
        `vague`: the claims not ready for their vague locators (Facts.vague); `disputed`: the claims
        an agent's contradicts (Facts.disputed), each after the uncontested ones of its readiness."""
        active = replace(filters, status=EXPORTABLE_STATUS)
        self.selection = Selection(session, active, policy, **among)
        self.session, self.policy = session, policy
        self.vague = frozenset(vague)
        self.disputed = frozenset(disputed or ())

    def _rank(self):
        """A claim's place before its key: its readiness, then uncontested before contradicted (while
        RANKED_DISPUTES claims or fewer are: past that the ids would be most of the statement, and a
        queue where most claims are contested is ranked by readiness alone)."""
        contested = case((ids_in(self.disputed), 1), else_=0) if self.disputed else literal(0)
        return readiness(self.vague) * 2 + contested

    def waiting(self, stmt):
        return self.selection.where(stmt).where(self.selection.unsafe())

    def total(self) -> int:
        return self.session.execute(self.waiting(select(func.count()))).scalar_one()

    def place(self, key: str) -> tuple[int, str] | None:
        """Where the claim named `key` stands in the queue's order (whether it waits or not); None: no such claim."""
        rank = self.session.execute(select(self._rank()).where(Claim.key == key)).first()
        return (rank[0], key) if rank is not None else None

    def find(self, *, key: str | None = None, after: str | None = None) -> Found:
        """The claim named by `key` when it waits, else the first after `after` (wrapping round), else the
        first: the first whose view the gate blocks and which agrees with its history."""
        passed = 0
        if key is not None:
            ids = list(self.session.scalars(self.waiting(select(Claim.id)).where(Claim.key == key)))
            view = next((v for v in views.load(self.session, ids) if self._readable(v)), None)
            if view is not None:  # then, and only then, its place: a pass over every waiting claim
                n = self._numbered()
                position, total = self.session.execute(
                    select(n.c.position, n.c.total).where(n.c.id == view.id)
                ).one()
                return Found(view, position, 0, total)
        start = self.place(after) if after is not None else None
        ranges = [(start, None), (None, start)] if start is not None else [(None, None)]
        for above, upto in ranges:
            found = self._walk(above, upto)
            passed += found.passed_over
            if found.view is not None:
                return replace(found, passed_over=passed)
        return Found(None, 0, passed)

    def _readable(self, view: views.ClaimView) -> bool:
        return not view.integrity and not self.policy.allows(view)

    def _numbered(self):
        """The waiting claims with their readiness, their place in the queue's order (from 1) and how many
        wait: one pass over them, the readiness of each computed once (a window over a subquery)."""
        ready = self._rank().label("ready")
        q = self.waiting(select(Claim.id, Claim.key, ready)).subquery("ranked")
        return select(
            q.c.id,
            q.c.key,
            q.c.ready,
            func.row_number().over(order_by=(q.c.ready, q.c.key)).label("position"),
            func.count().over().label("total"),
        ).subquery("numbered")

    def _walk(self, above: tuple[int, str] | None, upto: tuple[int, str] | None) -> Found:
        """The first readable claim placed after `above` and up to `upto`, reading views in growing
        batches; and how many claims it passed over."""
        passed, batch = 0, 0
        while True:
            n = self._numbered()
            stmt = select(n.c.id, n.c.key, n.c.ready, n.c.position, n.c.total)
            if above is not None:
                stmt = stmt.where(
                    or_(n.c.ready > above[0], and_(n.c.ready == above[0], n.c.key > above[1]))
                )
            if upto is not None:
                stmt = stmt.where(
                    or_(n.c.ready < upto[0], and_(n.c.ready == upto[0], n.c.key <= upto[1]))
                )
            size = QUEUE_BATCHES[min(batch, len(QUEUE_BATCHES) - 1)]
            rows = self.session.execute(stmt.order_by(n.c.position).limit(size)).all()
            at = {row[0]: row for row in rows}
            for view in views.load(self.session, [row[0] for row in rows]):
                if self._readable(view):
                    row = at[view.id]
                    return Found(view, row[3], passed, row[4])
                passed += bool(view.integrity)
            if len(rows) < size:
                return Found(None, 0, passed)
            above, batch = (rows[-1][2], rows[-1][1]), batch + 1
