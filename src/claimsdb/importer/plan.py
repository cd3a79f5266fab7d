"""An import's plan: what it found and decided (`ImportPlan`, what `claims import` reports), and the
planning of each batch of claims (`plan_claims`): it reads the stored side it needs, checks each record
against what the store and the import know, and decides what changes, what stays a person's and who
vouches for what; it writes nothing (import_write applies a `ClaimBatch`).

A data file owns a claim's content and, until someone else records something, its tag, status and rank
(`ClaimState.set_by`). A person's tag, status or rank is kept and the difference reported; content that a
person's re-read covered is applied and reported, since the re-read no longer covers it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from claimsdb import history
from claimsdb.errors import AgentCannotVouch
from claimsdb.figures import as_quantity, figure_columns, figure_dict
from claimsdb.importer import kept
from claimsdb.importer.checks import check_claim, page_of
from claimsdb.importer.known import (
    CONTENT_FIELDS,
    DATA_FIELDS,
    FIGURE_COLUMNS,
    UNVERIFIED,
    VERIFIED,
    Known,
)
from claimsdb.importer.read import StoredClaims, read_stored
from claimsdb.models import Claim, Event, aliases_of
from claimsdb.records.types import ClaimRecord, FigureRecord
from claimsdb.trust.rule import RereadPage, reread_hint

# A piece of evidence as a claim's content holds it: (source key, locator, quote).
Cited = tuple[str, str | None, str | None]


@dataclass(frozen=True)
class Conflict:
    """A difference between the file and what a person recorded. `applied` is False when the person's
    value was kept (a tag, a status), True when the file's content was applied over a re-read.
    `registered`: a source's field, a quantity's or an alias was kept (importer.kept), which `claims
    import` exits 1 on; `kind` is what `key` names, `file` and `record` where the file says otherwise."""

    key: str
    field: str
    kept: Any
    offered: Any
    why: str
    applied: bool = False
    kind: str = "claim"  # or "source", "quantity"
    file: str | None = None
    record: str | None = None
    registered: bool = False


@dataclass(frozen=True)
class Vouched:
    """A claim this import admitted above unverified trust, and who vouches for it: the data file (a
    secondary tag it declares), or a person (a re-read; or a tag a person set)."""

    key: str
    tag: str
    trust: str
    by: str  # the data file's path, or the person's name
    how: str  # "data file", "re-read", or the kind of the person's event that set the tag
    at: str | None = None  # the day of the re-read


@dataclass(frozen=True)
class Reread:
    """A re-read a data file names, recorded by this import as the person's event."""

    key: str
    by: str
    at: str
    source: str
    locator: str
    quote: str
    file: str
    again: bool = False  # the claim already had a re-read: this is another one (the earlier stays)


@dataclass
class ImportPlan:
    files: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    updated: dict[str, list[str]] = field(default_factory=dict)  # claim key -> changed fields
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    tags_added: list[str] = field(default_factory=list)
    sources_added: list[str] = field(default_factory=list)
    sources_updated: list[str] = field(default_factory=list)
    quantities_added: list[str] = field(default_factory=list)
    quantities_updated: list[str] = field(default_factory=list)
    # only a data file can define these
    verified_tags_added: list[str] = field(default_factory=list)
    rereads: list[Reread] = field(default_factory=list)
    vouched: list[Vouched] = field(default_factory=list)
    dry_run: bool = False

    def kept_registered(self) -> list[Conflict]:
        """The conflicts over what a data file may not change (importer.kept): the import exits 1."""
        return [c for c in self.conflicts if c.registered]

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "unchanged": len(self.unchanged),
            "conflicts": len(self.conflicts),
            "tags_added": len(self.tags_added),
            "sources_added": len(self.sources_added),
            "sources_updated": len(self.sources_updated),
            "quantities_added": len(self.quantities_added),
            "quantities_updated": len(self.quantities_updated),
            "rereads": len(self.rereads),
            "vouched": len(self.vouched),
        }


@dataclass
class PendingReread:
    """A re-read to record once the batch's claims are written: the claim's record, and its evidence as
    the import leaves it (the file's, then what people added)."""

    rec: ClaimRecord
    evidence: list[Cited]
    again: bool = False

    def planned(self) -> Reread:
        r = self.rec.reread
        assert r is not None
        return Reread(
            self.rec.key, r.by, r.at, r.source, r.locator, r.quote, self.rec.file, again=self.again
        )


@dataclass
class ClaimBatch:
    """What planning decided for a batch of claims, for import_write to apply: the claims to add, the
    fields to change (key -> field -> (stored, offered)), each claim's content digest as the import leaves
    it, the stored digests to refresh on unchanged claims, and the re-reads to record."""

    recs: dict[str, ClaimRecord]
    stored: StoredClaims
    digests: dict[str, str | None]
    added: list[ClaimRecord] = field(default_factory=list)
    changes: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)
    contents: dict[str, str] = field(default_factory=dict)
    refresh: dict[str, str] = field(default_factory=dict)
    rereads: list[PendingReread] = field(default_factory=list)

    def rereading(self, rec: ClaimRecord) -> PendingReread | None:
        """The re-read this batch records for `rec`, when it records one."""
        pending = self.rereads[-1] if self.rereads else None
        return pending if pending is not None and pending.rec is rec else None


@dataclass(frozen=True)
class _Compared:
    """A stored claim beside its record: the fields that differ, and the content digest as stored."""

    diff: dict[str, tuple[Any, Any]]
    person_evidence: list[Cited]  # what people added (re-read pages), kept after the file's
    new_evidence: list[Cited]
    old_content: str


def plan_claims(
    session: Session,
    todo: list[ClaimRecord],
    digests: dict[str, str | None],
    stored_keys: Collection[str],
    known: Known,
    plan: ImportPlan,
) -> ClaimBatch:
    """Check and plan a batch of claim records (reading, never writing), adding to `plan` what it
    reports. `digests`: each record's digest as read, stored with the claim; `stored_keys`: the keys
    among them the store holds."""
    for rec in todo:
        check_claim(rec, known)
    kept.check_agent_aliases(session, todo, known)
    batch = ClaimBatch(
        {r.key: r for r in todo},
        read_stored(
            session,
            [r.key for r in todo if r.key in stored_keys],
            {r.key for r in todo if r.reread},
            known.tags,
        ),
        digests,
    )
    source_keys = {v: k for k, v in known.sources.items()}
    quantity_keys = {v: k for k, v in known.quantities.items()}
    for rec in todo:
        claim = batch.stored.claims.get(rec.key)
        if claim is None:
            _plan_new(rec, batch, known, plan)
        else:
            rec = batch.recs[rec.key] = _keep_corrections(rec, claim, batch.stored, plan)
            compared = _compare(rec, claim, batch.stored, source_keys, quantity_keys)
            _plan_stored(rec, claim, compared, batch, known, plan)
    plan.conflicts += superseding_changed(
        session, {k for k, d in batch.changes.items() if set(d) & CONTENT_FIELDS}
    )
    plan.rereads += [p.planned() for p in batch.rereads]
    return batch


def _keep_corrections(
    rec: ClaimRecord, claim: Any, stored: StoredClaims, plan: ImportPlan
) -> ClaimRecord:
    """A claim whose figure a person corrected to what its page says keeps its statement and figures
    (the person's), whatever the file says; each difference is reported as a conflict."""
    corrected = stored.state(claim.id).corrected_event
    if corrected is None:
        return rec
    rows = stored.figures.get(claim.id, [])
    figures = tuple(FigureRecord(as_quantity(figure_dict(f)), f.name) for f in rows)
    why = f"corrected on its page by {_who(corrected)}"
    if rec.statement != claim.statement:
        plan.conflicts.append(Conflict(rec.key, "statement", claim.statement, rec.statement, why))
    offered = [f.quantity.raw for f in rec.figures]
    if offered != [f.quantity.raw for f in figures] or rec.figures != figures:
        plan.conflicts.append(
            Conflict(rec.key, "figures", [f.quantity.raw for f in figures], offered, why)
        )
    return replace(rec, statement=claim.statement, figures=figures)


def _plan_new(rec: ClaimRecord, batch: ClaimBatch, known: Known, plan: ImportPlan) -> None:
    plan.added.append(rec.key)
    batch.added.append(rec)
    batch.contents[rec.key] = content_of(rec, [])
    if rec.reread is not None:
        batch.rereads.append(
            PendingReread(rec, [(e.source, e.locator, e.quote) for e in rec.evidence])
        )
    _vouched(rec, rec.tag, None, batch, known, plan)


def _compare(
    rec: ClaimRecord,
    claim: Any,
    stored: StoredClaims,
    source_keys: dict[int, str],
    quantity_keys: dict[int, str],
) -> _Compared:
    diff: dict[str, tuple[Any, Any]] = {}
    for name in DATA_FIELDS:
        if getattr(claim, name) != getattr(rec, name):
            diff[name] = (getattr(claim, name), getattr(rec, name))
    if quantity_keys.get(claim.quantity_id) != rec.quantity:
        diff["quantity"] = (quantity_keys.get(claim.quantity_id), rec.quantity)
    old_figs = [
        {k: getattr(f, k) for k in FIGURE_COLUMNS} for f in stored.figures.get(claim.id, [])
    ]
    new_figs = [figure_columns(i, f) for i, f in enumerate(rec.figures)]
    if old_figs != new_figs:
        diff["figures"] = ([f["raw"] for f in old_figs], [f["raw"] for f in new_figs])
    rows = stored.evidence.get(claim.id, [])
    person = [
        (source_keys[e.source_id], e.locator, e.quote) for e in rows if e.event_id is not None
    ]
    old_ev = [(source_keys[e.source_id], e.locator, e.quote) for e in rows if e.event_id is None]
    new_ev: list[Cited] = [(e.source, e.locator, e.quote) for e in rec.evidence]
    if old_ev != new_ev:
        diff["evidence"] = (old_ev, new_ev)
    old_content = history.content_digest(
        claim.subject,
        claim.statement,
        [(f["raw"], f["name"]) for f in old_figs],
        old_ev + person,
        claim.label,
    )
    return _Compared(diff, person, new_ev, old_content)


def _plan_stored(
    rec: ClaimRecord,
    claim: Any,
    compared: _Compared,
    batch: ClaimBatch,
    known: Known,
    plan: ImportPlan,
) -> None:
    key, diff = rec.key, compared.diff
    state = batch.stored.state(claim.id)
    _keep_persons(rec, claim, state, diff, plan)
    content = batch.contents[key] = content_of(rec, compared.person_evidence)
    _outdated_rereads(rec, state, diff, (content, compared.old_content), known, plan)
    tag_after = rec.tag if "tag" in diff else claim.tag
    if diff and known.agent(rec.file) and known.tags.get(tag_after) != UNVERIFIED:
        raise AgentCannotVouch(
            rec.file,
            rec.record_name,
            sorted(diff)[0],
            f"claim {key!r} is tagged {tag_after!r} ({known.tags.get(tag_after)} trust), "
            f"set by {_who(state.tag_event)}: an agent channel cannot change a claim that "
            "a person vouches for (change it in its data file)",
        )
    if rec.reread is not None:
        evidence = compared.new_evidence + compared.person_evidence
        recorded = batch.stored.rereads.get(claim.id, [])
        _plan_reread(rec, state, tag_after, evidence, recorded, batch, plan)
    _keep_aliases(rec, claim, state, diff, batch, known, plan)
    if diff or batch.rereading(rec) is not None:
        covered = state.vouched_by is not None and state.vouches_for(content)
        _vouched(rec, tag_after, state, batch, known, plan, covered=covered)
    if diff:
        plan.updated[key] = sorted(diff)
        batch.changes[key] = diff
    else:
        plan.unchanged.append(key)
        digest = batch.digests.get(key)
        if digest and claim.record_sha256 != digest:
            batch.refresh[key] = digest


def _keep_persons(
    rec: ClaimRecord,
    claim: Any,
    state: history.ClaimState,
    diff: dict[str, tuple[Any, Any]],
    plan: ImportPlan,
) -> None:
    """The tag, the rank and the status the file offers: changed when an import set them, kept and
    reported when someone else did."""
    offers = (
        ("tag", claim.tag, rec.tag, claim.tag, rec.tag),
        ("rank", claim.rank, rec.rank, claim.rank, rec.rank),
        (
            "status",
            claim.status,
            rec.status,
            (claim.status, claim.status_reason, claim.superseded_by),
            (rec.status, rec.status_reason, rec.superseded_by),
        ),
    )
    for name, held, offered, now, new in offers:
        if now == new:
            continue
        setter = state.set_by(name)
        if setter is not None:
            plan.conflicts.append(Conflict(rec.key, name, held, offered, f"set by {setter}"))
        else:
            diff[name] = (now, new)


def _keep_aliases(
    rec: ClaimRecord,
    claim: Any,
    state: history.ClaimState,
    diff: dict[str, tuple[Any, Any]],
    batch: ClaimBatch,
    known: Known,
    plan: ImportPlan,
) -> None:
    """Other aliases for a claim a person vouches for come only with the new re-read this record
    names (importer.kept); else they are kept and reported, and the record is read again next time."""
    if "aliases" not in diff or batch.rereading(rec) is not None:
        return
    person = kept.aliases_keeper(state, known.tags.get(claim.tag))
    if person is None:
        return
    stored, offered = diff.pop("aliases")
    plan.conflicts.append(
        Conflict(
            rec.key,
            "aliases",
            aliases_of(stored),
            aliases_of(offered),
            f"vouched for by {person}; other names come with a new re-read",
            file=rec.file,
            record=rec.record_name,
            registered=True,
        )
    )
    batch.digests[rec.key] = None  # not stored as imported: the next import reads it and says so


def _outdated_rereads(
    rec: ClaimRecord,
    state: history.ClaimState,
    diff: dict[str, tuple[Any, Any]],
    contents: tuple[str, str],
    known: Known,
    plan: ImportPlan,
) -> None:
    """Content applied over a person's re-read that covered the old content (`contents`: new, old):
    reported, with the page to re-read, since the claim is not paper-safe until re-read again."""
    content, old_content = contents
    reread = state.vouched_by
    if reread is None or reread["kind"] != history.REREAD_KIND:
        return
    if content == old_content or not state.vouches_for(old_content):
        return
    why = (
        f"the re-read by {_who(reread)} covered the old value; not paper-safe until "
        + reread_hint(rec.key, page_of(rec, known))
    )
    for name in ("subject", "statement", "label", "figures", "evidence"):
        if name in diff:
            plan.conflicts.append(
                Conflict(rec.key, name, diff[name][0], diff[name][1], why, applied=True)
            )


def _plan_reread(
    rec: ClaimRecord,
    state: history.ClaimState,
    tag_after: str,
    evidence: list[Cited],
    recorded: list[Any],
    batch: ClaimBatch,
    plan: ImportPlan,
) -> None:
    """The re-read a data file names for a stored claim: recorded once (the same re-read again is
    already in the history), another one when the file names a new re-read (the earlier one stays:
    the history is append-only), never over a tag that someone set otherwise."""
    r = rec.reread
    assert r is not None
    if (r.by, r.at, r.source, r.locator, r.quote, r.signature) in recorded:
        return
    setter = state.set_by("tag")
    if setter is not None and tag_after != rec.tag:
        plan.conflicts.append(
            Conflict(
                rec.key,
                "reread",
                None,
                f"{r.by} ({r.at})",
                f"not recorded: the tag {tag_after!r} was set by {setter}; if the re-read stands, "
                + reread_hint(rec.key, RereadPage(r.source, locator=r.locator)),
            )
        )
        return
    batch.rereads.append(PendingReread(rec, evidence, again=bool(recorded)))


def _vouched(
    rec: ClaimRecord,
    tag: str,
    state: history.ClaimState | None,
    batch: ClaimBatch,
    known: Known,
    plan: ImportPlan,
    *,
    covered: bool = False,
) -> None:
    """Report a claim this import admits above unverified trust, with who vouches for it. `state`: the
    stored claim's (None for a new one); `covered`: whether the re-read it records still covers the
    claim as this import leaves it."""
    trust = known.tags[tag]
    if trust == UNVERIFIED:
        return
    setter = state.set_by("tag") if state is not None else None
    pending = batch.rereading(rec)
    if pending is not None:
        r = pending.rec.reread
        assert r is not None
        plan.vouched.append(Vouched(rec.key, tag, trust, r.by, "re-read", r.at))
    elif trust == VERIFIED:
        # no new re-read: admitted only while a recorded one still covers the claim (else it is a conflict)
        event = state.vouched_by if state is not None and setter is not None else None
        if covered and event is not None and event["kind"] == history.REREAD_KIND:
            by = history.SetBy.of(event)
            plan.vouched.append(Vouched(rec.key, tag, trust, by.actor, "re-read", by.day))
    elif setter is not None:
        plan.vouched.append(Vouched(rec.key, tag, trust, setter.actor, setter.kind, setter.day))
    else:
        plan.vouched.append(Vouched(rec.key, tag, trust, rec.file, "data file"))


def superseding_changed(session: Session, changed: set[str]) -> list[Conflict]:
    """A person who superseded a claim by another vouched that the other replaces it: when the file
    changes the replacement's content, say so (the person's status stays)."""
    if not changed:
        return []
    rows = session.execute(
        select(col(Claim.key), col(Claim.superseded_by), col(Event.actor), col(Event.at))
        .join(Event, col(Event.claim_id) == col(Claim.id))
        .where(
            col(Claim.superseded_by).in_(sorted(changed)),
            col(Claim.status) == "superseded",
            col(Event.kind) == "status",
        )
        .order_by(col(Claim.key))
    )
    return [
        Conflict(
            new,
            "replaces",
            old,
            None,
            f"{actor} superseded {old} by {new} ({str(at)[:10]}) before this change; "
            f"check that {new} still replaces it",
            applied=True,
        )
        for old, new, actor, at in rows
    ]


def content_of(rec: ClaimRecord, person_evidence: list[Cited]) -> str:
    """The content digest a claim will have once `rec` is applied (a person's evidence follows the file's)."""
    return history.content_digest(
        rec.subject,
        rec.statement,
        [(f.quantity.raw, f.name) for f in rec.figures],
        [(e.source, e.locator, e.quote) for e in rec.evidence] + person_evidence,
        rec.label,
    )


def _who(event: Mapping[str, Any] | None) -> str:
    return "nobody" if event is None else str(history.SetBy.of(event))
