"""Importing data files into the store: all or nothing, idempotent, and never over a person's word.

`import_files` validates every record of every file against the database, builds a plan (added,
updated, unchanged, conflicts), and applies it in the caller's transaction unless it is a dry run.

A data file owns a claim's content (subject, statement, figures, its own evidence) and, until a person
records something, its tag and status. A person's tag or status is kept and the difference reported.
When the file changes the content of a claim whose verified tag rests on a person's re-read, the
change is applied, the re-read stays in the history, and the claim is reported: that re-read no longer
covers what the claim says, so it is not paper-safe until it is re-read again (history.derive).

Records come in through a channel (`Channel`), which decides what they may vouch for. An agent channel
(`claims add`, JSON Lines on standard input or in a .jsonl file, any later agent interface such as an MCP
server: pass `AGENT`) records what was reported, nothing more: tags of unverified trust only, no tag
definitions, no re-reads, no preferred value, no change to a source, nor to a claim whose tag a person set
above unverified.
A data file read from a path (JSON or CSV) may declare secondary tags and define tags of any trust, but a
claim with a verified tag must name the person who re-read it (`reread`), and the import records that
re-read as the person's event, as `claims reread` would.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from claimsdb import db, history, records
from claimsdb.db import insert_rows, parameter_mark
from claimsdb.errors import AgentCannotVouch, BadQuery, InvalidRecord
from claimsdb.figures import Quantity, figure_columns, reach
from claimsdb.identity import TOOL_ACTOR
from claimsdb.models import (
    Claim,
    Event,
    Evidence,
    Figure,
    FigureNumber,
    MeasuredQuantity,
    Source,
    Tag,
    utcnow,
)
from claimsdb.records import (
    ClaimRecord,
    DataFile,
    FigureRecord,
    QuantityRecord,
    SourceRecord,
    TagRecord,
    claim_record,
)

IMPORT_ACTOR = TOOL_ACTOR  # the tool, never a person (identity.person_name refuses it)
# Claim fields an import owns outright; tag and status are handled apart, because a person may own them.
DATA_FIELDS = ("subject", "stage", "statement", "basis", "section", "aliases", "label")
# What a person reads when re-reading a claim (history.content_digest covers these).
CONTENT_FIELDS = {"subject", "statement", "figures", "evidence"}
CHUNK = 500
BATCH = 5000  # claims read, checked and written at a time
# source.origin of the sources a data file (or JSON Lines) registers or changes (models.SOURCE_ORIGINS)
DATA_FILE_ORIGIN = "data-file"
UNVERIFIED, VERIFIED = "unverified", history.VERIFIED


@dataclass(frozen=True)
class Channel:
    """How records come in, and so what they may vouch for. `agent`: only what was reported (tags of
    unverified trust, no tag definitions, no re-reads, no preferred value, no change to a source or to a
    claim a person vouches for); otherwise a data file read from a path, which vouches for its secondary
    tags and records the re-reads it names."""

    name: str
    agent: bool


AGENT = Channel("agent channel", agent=True)
DATA_FILE = Channel("data file", agent=False)


def channel_of(path: str) -> Channel:
    """JSON Lines (standard input or a .jsonl file) is what agents write, so it is an agent channel: a
    sweep's output piped in and the same output saved to a file first must get the same rules. A JSON or
    CSV data file read from a path is a data file."""
    return AGENT if records.json_lines(path) else DATA_FILE


@dataclass(frozen=True)
class Conflict:
    """A difference between the file and what a person recorded. `applied` is False when the person's
    value was kept (a tag, a status), True when the file's content was applied over a re-read."""

    key: str
    field: str
    kept: Any
    offered: Any
    why: str
    applied: bool = False


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
    verified_tags_added: list[str] = field(
        default_factory=list
    )  # only a data file can define these
    rereads: list[Reread] = field(default_factory=list)
    vouched: list[Vouched] = field(default_factory=list)
    dry_run: bool = False

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


FIGURE_COLUMNS = tuple(figure_columns(0, FigureRecord(Quantity(raw="", kind="text"))).keys())


def _chunks(items: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def import_files(
    session: Session,
    paths: Sequence[str],
    *,
    dry_run: bool = False,
    actor: str = IMPORT_ACTOR,
    progress: Callable[[int], None] | None = None,
) -> ImportPlan:
    """Import data files in the caller's transaction, streamed: records are read, checked and written
    in batches, so a JSON Lines file of any length takes bounded memory. A bad record raises
    InvalidRecord; the caller's transaction then rolls back whatever was written (all or nothing). A
    dry run plans and writes like a real one; the caller rolls it back. `progress(n)` is told of each
    batch of n claims done."""
    names = [records.STDIN_NAME if str(p) == records.STDIN else str(p) for p in paths]
    channels = {name: channel_of(str(p)) for name, p in zip(names, paths)}
    importer = _Importer(session, names, channels, dry_run=dry_run, actor=actor, progress=progress)
    with _no_cycle_collection():
        for path in paths:
            for entry in records.entries(path):
                importer.feed(entry)
        return importer.finish()


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """An import makes millions of small objects and no reference cycles: Python's cycle collector
    would walk them all again and again (a third of the time at 100,000 claims). Reference counting
    still frees everything as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def import_data(
    session: Session,
    files: Sequence[DataFile],
    *,
    channel: Channel,
    dry_run: bool = False,
    actor: str = IMPORT_ACTOR,
    detail: dict[str, Any] | None = None,
) -> ImportPlan:
    """Import records already read and validated (`claims add`; an agent interface passes AGENT), with
    the same rules and history. `detail`: more the claims' events record (who the software agent was)."""
    channels = {
        name: channel
        for f in files
        for name in (f.path, *(r.file for r in (*f.claims, *f.tags, *f.sources)))
    }
    importer = _Importer(
        session, [f.path for f in files], channels, dry_run=dry_run, actor=actor, detail=detail
    )
    for f in files:
        for kind, recs in (
            ("tag", f.tags),
            ("source", f.sources),
            ("quantity", f.quantities),
            ("claim", f.claims),
        ):
            for i, rec in enumerate(recs):
                importer.feed(
                    _Validated(
                        kind, f.path, i, getattr(rec, "record_name", "") or repr(_key_of(rec)), rec
                    )
                )
    return importer.finish()


@dataclass(frozen=True)
class _Validated:
    """An entry whose record is already validated (it has no stored digest to skip by)."""

    kind: str
    file: str
    index: int
    label: str
    rec: Any

    @property
    def key(self) -> str | None:
        return _key_of(self.rec)

    def record(self) -> Any:
        return self.rec

    def digest(self) -> str | None:
        return None


def _key_of(rec: Any) -> str:
    return getattr(rec, "key", None) or getattr(rec, "name", "")


class _Importer:
    """One import: definitions (tags, sources, quantities) as they come, claims in batches."""

    def __init__(
        self,
        session: Session,
        files: list[str],
        channels: dict[str, Channel],
        *,
        dry_run: bool,
        actor: str,
        progress: Callable[[int], None] | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        history.begin_write(session)
        self.session, self.actor, self.progress, self.channels = session, actor, progress, channels
        self.detail = detail or {}  # recorded in the detail of every claim event this import writes
        self.plan = ImportPlan(files=files, dry_run=dry_run)
        self.now = utcnow()
        self.tags = {t.name: t.trust for t in session.scalars(select(Tag))}
        self.tags_defined: dict[str, Any] = {}
        stored_sources = session.execute(select(Source.key, Source.id, Source.kind)).all()
        self.sources = {key: id_ for key, id_, _kind in stored_sources}
        self.source_kinds = {key: kind for key, _id, kind in stored_sources}
        self.sources_defined: dict[str, tuple[Any, str]] = {}  # key -> (record, file)
        self.quantities = dict(
            session.execute(select(MeasuredQuantity.key, MeasuredQuantity.id)).all()
        )
        self.quantities_defined: dict[str, Any] = {}
        self.seen: dict[str, str] = {}  # claim key -> the file it came from
        self.supersedes: list[tuple[str, str, str]] = []  # (file, label, target) checked at the end
        self.batch: list[Any] = []
        # PostgreSQL's planner statistics are refreshed inside a large import as it doubles (db.analyze).
        self.written, self.analyze_at = 0, db.STATISTICS_AFTER

    # --- definitions ---------------------------------------------------------------------------

    def feed(self, entry) -> None:
        if entry.kind == "claim":
            self.batch.append(entry)
            if len(self.batch) >= BATCH:
                self._claims()
            return
        self._claims()  # claims read so far go first: a definition may come after them in JSON Lines
        rec = entry.record()
        if entry.kind == "tag":
            self._tag(entry, rec)
        elif entry.kind == "source":
            self._source(entry, rec)
        else:
            self._quantity(entry, rec)

    def _agent(self, file: str) -> bool:
        return self.channels.get(
            file, AGENT
        ).agent  # a record from nowhere known vouches for nothing

    def _tag(self, entry, rec: TagRecord) -> None:
        if self._agent(entry.file):
            raise AgentCannotVouch(
                entry.file,
                entry.label,
                "tag",
                f"an agent channel cannot define tags ({rec.name!r}, {rec.trust}): tags are "
                "defined by a data file read from a path, and an agent's claims use a tag of "
                f"unverified trust ({self._unverified_tags()})",
            )
        if rec.name in self.tags_defined and self.tags_defined[rec.name] != rec:
            raise InvalidRecord(
                entry.file, repr(rec.name), "trust", "tag defined twice with different fields"
            )
        self.tags_defined[rec.name] = rec
        if rec.name not in self.tags:
            self.session.execute(Tag.__table__.insert(), [vars(rec)])
            self.tags[rec.name] = rec.trust
            self.plan.tags_added.append(rec.name)
            if rec.trust == VERIFIED:
                self.plan.verified_tags_added.append(rec.name)
        elif self.tags[rec.name] != rec.trust:
            # Changing what a tag is trusted for is policy, not data: an import must not do it.
            raise InvalidRecord(
                entry.file,
                repr(rec.name),
                "trust",
                f"tag {rec.name!r} exists with trust {self.tags[rec.name]!r}; "
                "an import cannot change a tag's trust",
            )

    def _source(self, entry, rec: SourceRecord) -> None:
        earlier = self.sources_defined.get(rec.key)
        if earlier is not None:
            if earlier[1] == entry.file:
                raise InvalidRecord(
                    entry.file, repr(rec.key), "key", "duplicate source key in this file"
                )
            if earlier[0] != rec:
                raise InvalidRecord(
                    entry.file, repr(rec.key), "key", f"source defined differently in {earlier[1]}"
                )
            return
        self.sources_defined[rec.key] = (rec, entry.file)
        table = Source.__table__
        self.source_kinds[rec.key] = rec.kind
        if rec.key not in self.sources:
            self.session.execute(table.insert(), [{**rec.fields(), "origin": DATA_FILE_ORIGIN}])
            self.sources[rec.key] = self.session.execute(
                select(table.c.id).where(table.c.key == rec.key)
            ).scalar()
            self.plan.sources_added.append(rec.key)
            return
        stored = self.session.execute(select(table).where(table.c.key == rec.key)).one()
        if {k: stored._mapping[k] for k in rec.fields()} != rec.fields():
            if self._agent(entry.file):
                # A source is what a re-read names and what a paper cites: an agent may add one, never change one.
                changed = next(k for k, v in rec.fields().items() if stored._mapping[k] != v)
                raise AgentCannotVouch(
                    entry.file,
                    entry.label,
                    changed,
                    f"source {rec.key!r} is registered with another {changed}: an agent channel "
                    "may add a source, never change one (change it in its data file)",
                )
            self.session.execute(
                table.update()
                .where(table.c.key == rec.key)
                .values(**rec.fields(), origin=DATA_FILE_ORIGIN)
            )
            self.plan.sources_updated.append(rec.key)

    def _quantity(self, entry, rec: QuantityRecord) -> None:
        if rec.key in self.quantities_defined:
            if self.quantities_defined[rec.key] != rec:
                raise InvalidRecord(
                    entry.file, repr(rec.key), "key", "quantity defined twice with different fields"
                )
            return
        self.quantities_defined[rec.key] = rec
        table = MeasuredQuantity.__table__
        if rec.key not in self.quantities:
            self.session.execute(table.insert(), [rec.fields()])
            self.quantities[rec.key] = self.session.execute(
                select(table.c.id).where(table.c.key == rec.key)
            ).scalar()
            self.plan.quantities_added.append(rec.key)
            return
        stored = self.session.execute(select(table).where(table.c.key == rec.key)).one()
        if {k: stored._mapping[k] for k in rec.fields()} != rec.fields():
            self.session.execute(
                table.update().where(table.c.key == rec.key).values(**rec.fields())
            )
            self.plan.quantities_updated.append(rec.key)

    # --- claims ----------------------------------------------------------------------------------

    def _claims(self) -> None:
        """Plan and write the batch of claims read so far."""
        if not self.batch:
            return
        batch, self.batch = self.batch, []
        keyed = [(e, e.key) for e in batch]
        stored = _stored_digests(self.session, [k for _, k in keyed if k])
        todo: list[ClaimRecord] = []
        digests: dict[str, str | None] = {}
        refresh: dict[str, str] = {}  # unchanged claims whose stored digest is missing or stale
        for entry, key in keyed:
            digest = entry.digest()
            if (
                digest is not None
                and key in stored
                and stored[key][0] == digest
                and _as_declared(stored[key], entry.raw)
            ):
                if self._agent(
                    entry.file
                ):  # the record as stored, sent again: its tag is the stored one
                    self._agent_tag(entry.file, entry.label, key, stored[key][1])
                self._seen(entry, key)
                self.plan.unchanged.append(
                    key
                )  # read and written before, unchanged: nothing to check again
                continue
            rec = entry.record()
            self._seen(entry, rec.key)
            todo.append(rec)
            digests[rec.key] = digest
        if todo:
            existing = _load_claims(self.session, [r.key for r in todo if r.key in stored])
            self._plan_and_write(todo, existing, digests, refresh)
            self.written += len(todo)
            if self.written >= self.analyze_at and not self.plan.dry_run:
                db.analyze(self.session.connection())
                self.analyze_at = 2 * self.written
        if self.progress is not None:
            self.progress(len(batch))

    def _seen(self, entry, key: str) -> None:
        first = self.seen.get(key)
        if first is not None:
            where = "earlier in this file" if first == entry.file else f"also in {first}"
            raise InvalidRecord(entry.file, entry.label, "key", f"duplicate claim key ({where})")
        self.seen[key] = entry.file

    def _unverified_tags(self) -> str:
        return ", ".join(sorted(t for t, trust in self.tags.items() if trust == UNVERIFIED))

    def _agent_tag(self, file: str, label: str, key: str, tag: str) -> None:
        """The rule of agent channels for a claim's tag: unverified trust only."""
        trust = self.tags.get(tag)
        if trust is not None and trust != UNVERIFIED:
            raise AgentCannotVouch(
                file,
                label,
                "tag",
                f"tag {tag!r} is of {trust} trust: an agent channel records what was reported, "
                f"so only tags of unverified trust ({self._unverified_tags()}); only a person's "
                "re-read raises a claim above that",
                key=key,
            )

    def _check(self, rec: ClaimRecord) -> None:
        if rec.tag not in self.tags:
            raise InvalidRecord(
                rec.file,
                rec.record_name,
                "tag",
                f"unknown tag {rec.tag!r} (known: {', '.join(sorted(self.tags))})",
            )
        trust = self.tags[rec.tag]
        if self._agent(rec.file):
            self._agent_tag(rec.file, rec.record_name, rec.key, rec.tag)
            if rec.reread is not None:
                raise AgentCannotVouch(
                    rec.file,
                    rec.record_name,
                    "reread",
                    "an agent channel cannot record a re-read: "
                    "the person who re-read the page records it",
                    key=rec.key,
                )
            if (
                rec.rank == "preferred"
            ):  # it would stand in exports for the quantity's other values, checked or not
                raise AgentCannotVouch(
                    rec.file,
                    rec.record_name,
                    "rank",
                    "an agent channel cannot prefer a value: which "
                    "value of a quantity to use is a person's call, or a data file's",
                )
        elif trust == VERIFIED and rec.reread is None:
            how = (
                "a CSV row cannot hold one: give the claim in a JSON data file"
                if rec.file.lower().endswith(".csv")
                else f"give it as {{{', '.join(records.REREAD_FIELDS)}}}"
            )
            raise InvalidRecord(
                rec.file,
                rec.record_name,
                "reread",
                f"is required: tag {rec.tag!r} is of verified trust, which only a person's re-read "
                "gives; name who re-read the primary page, when, where in it and what they saw "
                f"({how})",
            )
        if rec.reread is not None:
            if trust != VERIFIED:
                raise InvalidRecord(
                    rec.file,
                    rec.record_name,
                    "reread",
                    f"a re-read makes a claim verified, and tag {rec.tag!r} is of {trust} trust: "
                    "give the claim a verified tag, or leave the re-read out",
                )
            page = rec.reread.source
            if page not in self.sources:
                raise InvalidRecord(
                    rec.file, rec.record_name, "reread.source", f"unknown source {page!r}"
                )
            if self.source_kinds.get(page) == "note":
                raise InvalidRecord(
                    rec.file,
                    rec.record_name,
                    "reread.source",
                    f"{page!r} is a note, not a primary "
                    "page: a re-read checks the page the figure comes from",
                )
        for i, ev in enumerate(rec.evidence):
            if ev.source not in self.sources:
                raise InvalidRecord(
                    rec.file,
                    rec.record_name,
                    f"evidence[{i}].source",
                    f"unknown source {ev.source!r}",
                )
        if rec.superseded_by is not None:
            self.supersedes.append((rec.file, rec.record_name, rec.superseded_by))
        if rec.quantity is not None and rec.quantity not in self.quantities:
            raise InvalidRecord(
                rec.file,
                rec.record_name,
                "quantity",
                f"unknown quantity {rec.quantity!r} (declare it under quantities)",
            )
        if rec.rank != "normal" and rec.quantity is None:
            raise InvalidRecord(
                rec.file,
                rec.record_name,
                "rank",
                "a rank orders the competing values of a quantity: name the quantity",
            )

    def _plan_and_write(
        self,
        todo: list[ClaimRecord],
        existing: dict[str, Any],
        digests: dict[str, str | None],
        refresh: dict[str, str],
    ) -> None:
        session, plan = self.session, self.plan
        for rec in todo:
            self._check(rec)
        mine = {rec.key: existing[rec.key] for rec in todo if rec.key in existing}
        states, person_status = _states(session, [c.id for c in mine.values()], self.tags)
        stored_figures = _children(session, Figure, mine)
        stored_evidence = _children(session, Evidence, mine)
        source_key_by_id = {v: k for k, v in self.sources.items()}
        quantity_key_by_id = {v: k for k, v in self.quantities.items()}
        changes: dict[str, dict[str, tuple[Any, Any]]] = {}
        contents: dict[str, str] = {}
        added: list[ClaimRecord] = []
        recorded_rereads = _reread_events(
            session, [mine[r.key].id for r in todo if r.reread and r.key in mine]
        )
        rereads: list[_PendingReread] = []
        for rec in todo:
            key, claim = rec.key, mine.get(rec.key)
            if claim is None:
                plan.added.append(key)
                added.append(rec)
                contents[key] = _content(rec, [])
                if rec.reread is not None:
                    rereads.append(
                        _PendingReread(rec, [(e.source, e.locator, e.quote) for e in rec.evidence])
                    )
                self._vouched(rec, rec.tag, None, rereads)
                continue
            diff: dict[str, tuple[Any, Any]] = {}
            for name in DATA_FIELDS:
                if getattr(claim, name) != getattr(rec, name):
                    diff[name] = (getattr(claim, name), getattr(rec, name))
            if quantity_key_by_id.get(claim.quantity_id) != rec.quantity:
                diff["quantity"] = (quantity_key_by_id.get(claim.quantity_id), rec.quantity)
            old_figs = [_row_figure(f) for f in stored_figures.get(claim.id, [])]
            new_figs = [figure_columns(i, f) for i, f in enumerate(rec.figures)]
            if old_figs != new_figs:
                diff["figures"] = ([f["raw"] for f in old_figs], [f["raw"] for f in new_figs])
            evidence_rows = stored_evidence.get(claim.id, [])
            person_evidence = [
                (source_key_by_id[e.source_id], e.locator, e.quote)
                for e in evidence_rows
                if e.event_id is not None
            ]
            old_ev = [
                (source_key_by_id[e.source_id], e.locator, e.quote)
                for e in evidence_rows
                if e.event_id is None
            ]
            new_ev = [(e.source, e.locator, e.quote) for e in rec.evidence]
            if old_ev != new_ev:
                diff["evidence"] = (old_ev, new_ev)
            state = states.get(claim.id, history.ClaimState())
            if rec.tag != claim.tag:
                if state.tag_is_persons:
                    plan.conflicts.append(
                        Conflict(key, "tag", claim.tag, rec.tag, f"set by {_who(state.tag_event)}")
                    )
                else:
                    diff["tag"] = (claim.tag, rec.tag)
            if rec.rank != claim.rank:
                if state.rank_event is not None and state.rank_event["kind"] == "ranked":
                    plan.conflicts.append(
                        Conflict(
                            key, "rank", claim.rank, rec.rank, f"set by {_who(state.rank_event)}"
                        )
                    )
                else:
                    diff["rank"] = (claim.rank, rec.rank)
            status_now = (claim.status, claim.status_reason, claim.superseded_by)
            status_new = (rec.status, rec.status_reason, rec.superseded_by)
            if status_now != status_new:
                if claim.id in person_status:
                    plan.conflicts.append(
                        Conflict(
                            key,
                            "status",
                            claim.status,
                            rec.status,
                            f"set by {person_status[claim.id]}",
                        )
                    )
                else:
                    diff["status"] = (status_now, status_new)
            contents[key] = _content(rec, person_evidence)
            old_content = history.content_digest(
                claim.subject,
                claim.statement,
                [(f["raw"], f["name"]) for f in old_figs],
                old_ev + person_evidence,
                claim.label,
            )
            reread = (
                state.vouched_by
                if state.vouched_by is not None and state.vouched_by["kind"] == history.REREAD_KIND
                else None
            )
            if (
                reread is not None
                and contents[key] != old_content
                and state.vouches_for(old_content)
            ):
                why = (
                    f"the re-read by {_who(reread)} covered the old value; not paper-safe until re-read again: "
                    f"claims reread {key}"
                )
                for name in ("subject", "statement", "label", "figures", "evidence"):
                    if name in diff:
                        plan.conflicts.append(
                            Conflict(key, name, diff[name][0], diff[name][1], why, applied=True)
                        )
            tag_after = rec.tag if "tag" in diff else claim.tag
            if diff and self._agent(rec.file) and self.tags.get(tag_after) != UNVERIFIED:
                raise AgentCannotVouch(
                    rec.file,
                    rec.record_name,
                    sorted(diff)[0],
                    f"claim {key!r} is tagged {tag_after!r} ({self.tags.get(tag_after)} trust), "
                    f"set by {_who(state.tag_event)}: an agent channel cannot change a claim that "
                    "a person vouches for (change it in its data file)",
                )
            if rec.reread is not None:
                self._plan_reread(
                    rec,
                    state,
                    tag_after,
                    new_ev + person_evidence,
                    recorded_rereads.get(claim.id, []),
                    rereads,
                )
            if diff or (rereads and rereads[-1].rec is rec):
                self._vouched(
                    rec,
                    tag_after,
                    state if state.tag_is_persons else None,
                    rereads,
                    covered=state.vouched_by is not None and state.vouches_for(contents[key]),
                )
            if diff:
                plan.updated[key] = sorted(diff)
                changes[key] = diff
            else:
                plan.unchanged.append(key)
                if digests.get(key) and claim.record_sha256 != digests[key]:
                    refresh[key] = digests[key]
        plan.conflicts += _superseding_changed(
            session, {k for k, d in changes.items() if set(d) & CONTENT_FIELDS}
        )
        self._write(
            added,
            changes,
            {r.key: r for r in todo},
            mine,
            contents,
            stored_evidence,
            digests,
            refresh,
        )
        self._record_rereads(rereads)

    def _plan_reread(
        self,
        rec: ClaimRecord,
        state: history.ClaimState,
        tag_after: str,
        evidence: list[tuple[str, str | None, str | None]],
        recorded: list[tuple],
        rereads: list[_PendingReread],
    ) -> None:
        """The re-read a data file names for a stored claim: recorded once (the same re-read again is
        already in the history), another one when the file names a new re-read (the earlier one stays:
        the history is append-only), never over a tag that a person set otherwise."""
        r = rec.reread
        assert r is not None
        if (r.by, r.at, r.source, r.locator, r.quote) in recorded:
            return
        if state.tag_is_persons and tag_after != rec.tag:
            self.plan.conflicts.append(
                Conflict(
                    rec.key,
                    "reread",
                    None,
                    f"{r.by} ({r.at})",
                    f"not recorded: the tag {tag_after!r} was set by {_who(state.tag_event)}; if the re-read stands, "
                    f"record it: claims reread {rec.key}",
                )
            )
            return
        rereads.append(_PendingReread(rec, evidence, again=bool(recorded)))

    def _vouched(
        self,
        rec: ClaimRecord,
        tag: str,
        persons: history.ClaimState | None,
        rereads: list[_PendingReread],
        *,
        covered: bool = False,
    ) -> None:
        """Report a claim this import admits above unverified trust, with who vouches for it. `persons`:
        the claim's state when a person set its tag; `covered`: whether the re-read it records still
        covers the claim as this import leaves it."""
        trust = self.tags[tag]
        if trust == UNVERIFIED:
            return
        pending = rereads[-1] if rereads and rereads[-1].rec is rec else None
        if pending is not None:
            r = pending.rec.reread
            assert r is not None
            self.plan.vouched.append(Vouched(rec.key, tag, trust, r.by, "re-read", r.at))
        elif trust == VERIFIED:
            # no new re-read: admitted only while a recorded one still covers the claim (else it is a conflict)
            event = persons.vouched_by if persons is not None else None
            if covered and event is not None and event["kind"] == history.REREAD_KIND:
                self.plan.vouched.append(
                    Vouched(rec.key, tag, trust, event["actor"], "re-read", str(event["at"])[:10])
                )
        elif persons is not None and persons.tag_event is not None:
            event = persons.tag_event
            self.plan.vouched.append(
                Vouched(rec.key, tag, trust, event["actor"], event["kind"], str(event["at"])[:10])
            )
        else:
            self.plan.vouched.append(Vouched(rec.key, tag, trust, rec.file, "data file"))

    def _record_rereads(self, rereads: list[_PendingReread]) -> None:
        """Each re-read as `claims reread` records it: the person's event, then the page (with the
        locator and the quote) as evidence of the claim unless the claim cites it so already. Written in
        sets, after the batch's own events: an import may name thousands."""
        if not rereads:
            return
        session = self.session
        keys = [p.rec.key for p in rereads]
        ids = {k: row[0] for k, row in _claim_columns(session, ("id",), keys).items()}
        urls = dict(
            session.execute(
                select(Source.key, Source.url).where(
                    Source.key.in_(sorted({p.rec.reread.source for p in rereads if p.rec.reread}))
                )
            ).all()
        )
        events, links = [], []
        for pending in rereads:
            rec, r = pending.rec, pending.rec.reread
            assert r is not None
            cited = (r.source, r.locator, r.quote) in pending.evidence
            evidence = (
                pending.evidence if cited else [*pending.evidence, (r.source, r.locator, r.quote)]
            )
            detail = {
                "source": r.source,
                "url": urls.get(r.source),
                "locator": r.locator,
                "quote": r.quote,
                "linked": not cited,
                "data_file": rec.file,
                "record": rec.record_name,
            }
            events.append(
                {
                    "claim": rec.key,
                    "claim_id": ids[rec.key],
                    "at": f"{r.at}T00:00:00.000000+00:00",
                    "kind": history.REREAD_KIND,
                    "actor": r.by,
                    "tag_before": rec.tag,
                    "tag_after": rec.tag,
                    "origin": r.source,
                    "content_sha256": history.content_digest(
                        rec.subject,
                        rec.statement,
                        [(f.quantity.raw, f.name) for f in rec.figures],
                        evidence,
                        rec.label,
                    ),
                    "detail": json.dumps(
                        {k: v for k, v in detail.items() if v is not None}, ensure_ascii=False
                    ),
                }
            )
            if not cited:
                links.append(len(events) - 1)
            self.plan.rereads.append(
                Reread(
                    rec.key, r.by, r.at, r.source, r.locator, r.quote, rec.file, again=pending.again
                )
            )
        last = session.execute(select(Event.id).order_by(Event.id.desc()).limit(1)).scalar() or 0
        written = history.append(session, events)
        if not links:
            return
        # The events' ids, by their digests (each unique: it covers the one before it), for the evidence rows.
        event_ids = {
            sha: id_
            for id_, sha in session.execute(select(Event.id, Event.sha256).where(Event.id > last))
        }
        linked_ids = [ids[rereads[i].rec.key] for i in links]
        ends: dict[int, int] = {}
        for chunk in _chunks(linked_ids):
            ends.update(
                session.execute(
                    select(Evidence.claim_id, func.max(Evidence.position))
                    .where(Evidence.claim_id.in_(chunk))
                    .group_by(Evidence.claim_id)
                ).all()
            )
        rows = []
        for i in links:
            r, claim_id = rereads[i].rec.reread, ids[rereads[i].rec.key]
            assert r is not None
            ends[claim_id] = ends.get(claim_id, -1) + 1
            rows.append(
                (
                    claim_id,
                    self.sources[r.source],
                    ends[claim_id],
                    r.locator,
                    r.quote,
                    event_ids[written[i]["sha256"]],
                )
            )
        insert_rows(
            session,
            Evidence.__table__,
            rows,
            ("claim_id", "source_id", "position", "locator", "quote", "event_id"),
        )

    def _write(
        self,
        added: list[ClaimRecord],
        changes: dict[str, dict[str, tuple[Any, Any]]],
        recs: dict[str, ClaimRecord],
        existing: dict[str, Any],
        contents: dict[str, str],
        stored_evidence: dict[int, list],
        digests: dict[str, str | None],
        refresh: dict[str, str],
    ) -> None:
        session, now, actor = self.session, self.now, self.actor
        new_ids: dict[str, int] = {}
        if added:
            insert_rows(
                session,
                Claim.__table__,
                [
                    {
                        "key": c.key,
                        "subject": c.subject,
                        "stage": c.stage,
                        "statement": c.statement,
                        "tag": c.tag,
                        "basis": c.basis,
                        "section": c.section,
                        "aliases": c.aliases,
                        "label": c.label,
                        "status": c.status,
                        "status_reason": c.status_reason,
                        "superseded_by": c.superseded_by,
                        "created_at": now,
                        "updated_at": now,
                        "quantity_id": self.quantities.get(c.quantity),
                        "rank": c.rank,
                        "record_sha256": digests.get(c.key),
                    }
                    for c in added
                ],
            )
            new_ids = {
                k: row[0]
                for k, row in _claim_columns(session, ("id",), [c.key for c in added]).items()
            }
            _insert_children(session, [(new_ids[c.key], c) for c in added], self.sources)
        # Events first: the database refuses a claim's new tag, status or rank before the event that sets it.
        events = [
            {
                "claim": c.key,
                "claim_id": new_ids[c.key],
                "at": now,
                "kind": "imported",
                "actor": actor,
                "tag_after": c.tag,
                "status_after": c.status,
                "origin": c.file,
                "rank_after": c.rank if c.quantity else None,
                "detail": json.dumps(
                    {
                        **{
                            k: v
                            for k, v in (("record", c.record_name), ("rank_reason", c.rank_reason))
                            if v is not None
                        },
                        **self.detail,
                    }
                ),
                "content_sha256": contents[c.key],
                "stored_sha256": self._stored(c),
            }
            for c in added
        ]
        for key, diff in changes.items():
            rec = recs[key]
            events.append(
                {
                    "claim": key,
                    "claim_id": existing[key].id,
                    "at": now,
                    "kind": "updated",
                    "actor": actor,
                    "tag_before": diff["tag"][0] if "tag" in diff else None,
                    "tag_after": rec.tag if "tag" in diff else None,
                    "status_after": rec.status if "status" in diff else None,
                    "rank_after": rec.rank if "rank" in diff else None,
                    "origin": rec.file,
                    "content_sha256": contents[key],
                    "stored_sha256": self._stored(rec),
                    "detail": json.dumps(
                        {
                            "record": rec.record_name,
                            "changes": {k: list(v) for k, v in diff.items()},
                            **(
                                {"rank_reason": rec.rank_reason}
                                if "rank" in diff and rec.rank_reason
                                else {}
                            ),
                            **self.detail,
                        },
                        default=list,
                    ),
                }
            )
        history.append(session, events)
        for key, diff in changes.items():
            claim, rec = existing[key], recs[key]
            values: dict[str, Any] = {
                name: getattr(rec, name) for name in DATA_FIELDS if name in diff
            }
            if "tag" in diff:
                values["tag"] = rec.tag
            if "status" in diff:
                values.update(
                    status=rec.status,
                    status_reason=rec.status_reason,
                    superseded_by=rec.superseded_by,
                )
            if "rank" in diff:
                values["rank"] = rec.rank
            if "quantity" in diff:
                values["quantity_id"] = self.quantities.get(rec.quantity)
            values.update(updated_at=now, record_sha256=digests.get(key))
            session.execute(Claim.__table__.update().where(Claim.id == claim.id).values(**values))
            if "figures" in diff:
                session.execute(Figure.__table__.delete().where(Figure.claim_id == claim.id))
                session.execute(
                    FigureNumber.__table__.delete().where(FigureNumber.claim_id == claim.id)
                )
            if "evidence" in diff:
                # The file's evidence comes first, then what people added (re-read pages), in their order.
                session.execute(Evidence.__table__.delete().where(Evidence.claim_id == claim.id))
            _insert_children(
                session,
                [(claim.id, rec)],
                self.sources,
                figures="figures" in diff,
                evidence="evidence" in diff,
            )
            if "evidence" in diff:
                kept = [e for e in stored_evidence.get(claim.id, []) if e.event_id is not None]
                if kept:
                    session.execute(
                        Evidence.__table__.insert(),
                        [
                            {
                                "claim_id": claim.id,
                                "source_id": e.source_id,
                                "position": len(rec.evidence) + i,
                                "locator": e.locator,
                                "quote": e.quote,
                                "event_id": e.event_id,
                            }
                            for i, e in enumerate(kept)
                        ],
                    )
        for key, digest in refresh.items():
            session.execute(
                Claim.__table__.update().where(Claim.key == key).values(record_sha256=digest)
            )

    def _stored(self, rec: ClaimRecord) -> str:
        """The stored record (history.stored_digest) of the rows this import leaves for `rec`: every
        event it writes records them, so a row changed afterwards is found on read."""
        return history.stored_digest(
            rec.stage,
            rec.basis,
            rec.section,
            self.quantities.get(rec.quantity),
            [
                dict(zip(history.STORED_FIGURE_COLUMNS, (f.name, *_figure_values(f.quantity))))
                for f in rec.figures
            ],
        )

    # --- the end ---------------------------------------------------------------------------------

    def finish(self) -> ImportPlan:
        self._claims()
        targets = sorted({t for _, _, t in self.supersedes if t not in self.seen})
        known = _existing_keys(self.session, targets)
        for file, label, target in self.supersedes:
            if target not in self.seen and target not in known:
                raise InvalidRecord(file, label, "superseded_by", f"unknown claim {target!r}")
        self._one_preferred()
        return self.plan

    def _one_preferred(self) -> None:
        """A quantity has at most one preferred value, counting the store's claims as the import leaves them."""
        rows = self.session.execute(
            select(MeasuredQuantity.key, Claim.key)
            .join(Claim, Claim.quantity_id == MeasuredQuantity.id)
            .where(Claim.rank == "preferred")
            .order_by(MeasuredQuantity.key, Claim.key)
        ).all()
        preferred: dict[str, list[str]] = {}
        for quantity, key in rows:
            preferred.setdefault(quantity, []).append(key)
        for quantity, keys in preferred.items():
            if len(keys) > 1:
                mine = next((k for k in keys if k in self.seen), None)
                raise InvalidRecord(
                    self.seen.get(mine, "import"),
                    repr(mine) if mine else None,
                    "rank",
                    f"quantity {quantity!r} would have {len(keys)} preferred values "
                    f"({', '.join(keys)}): prefer one",
                )


@dataclass
class _PendingReread:
    """A re-read to record once the batch's claims are written: the claim's record, and its evidence as
    the import leaves it (the file's, then what people added)."""

    rec: ClaimRecord
    evidence: list[tuple[str, str | None, str | None]]
    again: bool = False


def _reread_events(session: Session, claim_ids: list[int]) -> dict[int, list[tuple]]:
    """claim id -> the re-reads recorded of it, each as a data file names one: (by, day, page, locator, quote)."""
    out: dict[int, list[tuple]] = {}
    for chunk in _chunks(claim_ids):
        rows = session.execute(
            select(Event.claim_id, Event.actor, Event.at, Event.detail)
            .where(Event.claim_id.in_(chunk), Event.kind == history.REREAD_KIND)
            .order_by(Event.id)
        )
        for claim_id, actor, at, detail in rows:
            seen = json.loads(detail) if detail else {}
            out.setdefault(claim_id, []).append(
                (actor, str(at)[:10], seen.get("source"), seen.get("locator"), seen.get("quote"))
            )
    return out


def _as_declared(stored: tuple, raw: Any) -> bool:
    """Whether a stored claim's tag, status and rank are still what its record declares (a person may
    have changed them since: then the import reads the record in full and reports the difference)."""
    _digest, tag, status, rank = stored
    return isinstance(raw, dict) and (tag, status, rank) == (
        raw.get("tag"),
        raw.get("status") or "active",
        raw.get("rank") or "normal",
    )


def _stored_digests(session: Session, keys: list[str]) -> dict[str, tuple]:
    """key -> (record digest, tag, status, rank) of the claims already stored."""
    return _claim_columns(session, ("record_sha256", "tag", "status", "rank"), keys)


def _claim_columns(session: Session, columns: Sequence[str], keys: list[str]) -> dict[str, tuple]:
    """key -> the named columns of each stored claim with one of `keys`, by plain DB-API queries: this
    runs for every record of every import, where building SQL per chunk would cost more than the query."""
    connection = session.connection()
    mark = parameter_mark(connection)
    out: dict[str, tuple] = {}
    for chunk in _chunks(keys, 900):
        rows = connection.exec_driver_sql(
            f"SELECT key, {', '.join(columns)} FROM claim WHERE key IN ({', '.join([mark] * len(chunk))})",
            tuple(chunk),
        )
        out.update((r[0], tuple(r[1:])) for r in rows)
    return out


ADD_ORIGIN = "claims add"


def add_claim(
    session: Session,
    fields: dict[str, Any],
    *,
    source: str,
    actor: str,
    origin: str = ADD_ORIGIN,
    detail: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Record one claim from the command line (an agent's or a script's), or from another agent door
    (`origin`: "claims mcp"), with the same validation and history as an import. It is an agent channel
    (AGENT): the tag must be of unverified trust, since a figure rises above that only when a person
    re-reads it. The source is a key or a URL (registered on the spot). `detail`: more the claim's event
    records (the software agent that reported it)."""
    from claimsdb import sources as registry

    tag = session.get(Tag, fields["tag"])
    if tag is None:
        known = ", ".join(sorted(session.scalars(select(Tag.name))))
        raise BadQuery(f"unknown tag {fields['tag']!r} (known: {known})")
    src, registered = registry.resolve(session, source)
    key = fields.get("key") or derive_claim_key(fields["subject"], fields["statement"])
    record = {
        **{k: v for k, v in fields.items() if v not in (None, [], "")},
        "key": key,
        "evidence": [
            {"source": src.key, "locator": fields.get("locator"), "quote": fields.get("quote")}
        ],
    }
    record.pop("locator", None)
    record.pop("quote", None)
    rec = claim_record(record, file=origin, label=repr(key))
    if session.scalars(select(Claim.id).where(Claim.key == key)).first() is not None:
        raise _stored_already(key, derived=not fields.get("key"))
    import_data(
        session, [DataFile(origin, (), (), (rec,))], channel=AGENT, actor=actor, detail=detail
    )
    return {
        "key": key,
        "tag": rec.tag,
        "source": src.key,
        "source_registered": registered,
        "figures": [f.quantity.raw for f in rec.figures],
    }


def _stored_already(key: str, *, derived: bool) -> BadQuery:
    """The refusal of a claim added under a key the store holds, in words for every agent door (the
    command line, MCP): none of them has a data file, and adding never changes a stored claim."""
    if derived:  # the key comes from the subject and the statement: the same claim was added before
        return BadQuery(
            f"the store holds this claim already, as {key!r} (the same subject and statement): nothing "
            "was added; show that claim for its tag and sources, and state a different figure in a "
            "statement of its own"
        )
    return BadQuery(
        f"a claim with key {key!r} exists, and adding never changes a stored claim: nothing was added; "
        "give this claim another key, or none to have one derived from its subject and statement"
    )


def derive_claim_key(subject: str, statement: str) -> str:
    """A stable key for a claim added without one: the subject's words and a hash of the statement."""
    words = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")[:40].rstrip("-") or "claim"
    return f"{words}.{hashlib.sha256(statement.encode('utf-8')).hexdigest()[:8]}"


def _superseding_changed(session: Session, changed: set[str]) -> list[Conflict]:
    """A person who superseded a claim by another vouched that the other replaces it: when the file
    changes the replacement's content, say so (the person's status stays)."""
    if not changed:
        return []
    out = []
    rows = session.execute(
        select(Claim.key, Claim.superseded_by, Event.actor, Event.at)
        .join(Event, Event.claim_id == Claim.id)
        .where(
            Claim.superseded_by.in_(sorted(changed)),
            Claim.status == "superseded",
            Event.kind == "status",
        )
        .order_by(Claim.key)
    )
    for old, new, actor, at in rows:
        out.append(
            Conflict(
                new,
                "replaces",
                old,
                None,
                f"{actor} superseded {old} by {new} ({str(at)[:10]}) before this change; "
                f"check that {new} still replaces it",
                applied=True,
            )
        )
    return out


def _content(rec: ClaimRecord, person_evidence: list[tuple[str, str | None, str | None]]) -> str:
    """The content digest a claim will have once `rec` is applied (a person's evidence follows the file's)."""
    return history.content_digest(
        rec.subject,
        rec.statement,
        [(f.quantity.raw, f.name) for f in rec.figures],
        [(e.source, e.locator, e.quote) for e in rec.evidence] + person_evidence,
        rec.label,
    )


def _who(event) -> str:
    if event is None:
        return "nobody"
    return f"{event['actor']} ({event['kind']}, {str(event['at'])[:19]}Z)"


def _row_figure(f) -> dict[str, Any]:
    return {k: getattr(f, k) for k in FIGURE_COLUMNS}


def _load_claims(session: Session, keys: list[str]) -> dict[str, Any]:
    """Existing claims as plain rows (attribute access by column name): ORM objects cost too much at 100k."""
    out: dict[str, Any] = {}
    table = Claim.__table__
    for chunk in _chunks(keys):
        for row in session.execute(select(table).where(table.c.key.in_(chunk))):
            out[row.key] = row
    return out


def _existing_keys(session: Session, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for chunk in _chunks(keys):
        found.update(session.scalars(select(Claim.key).where(Claim.key.in_(chunk))))
    return found


def _children(session: Session, model, claims: dict[str, Any]) -> dict[int, list]:
    out: dict[int, list] = {}
    ids = [c.id for c in claims.values()]
    table = model.__table__
    for chunk in _chunks(ids):
        rows = session.execute(
            select(table)
            .where(table.c.claim_id.in_(chunk))
            .order_by(table.c.claim_id, table.c.position)
        )
        for row in rows:
            out.setdefault(row.claim_id, []).append(row)
    return out


def _states(
    session: Session, claim_ids: list[int], trust: dict[str, str]
) -> tuple[dict[int, history.ClaimState], dict[int, str]]:
    """For each claim, the state its history implies; and the claims whose status a person changed (by whom).

    "Latest" is insertion order (the id), never the clock.
    """
    events: dict[int, list] = {}
    table = Event.__table__
    columns = [
        table.c[n]
        for n in (
            "claim_id",
            "kind",
            "actor",
            "at",
            "tag_after",
            "status_after",
            "rank_after",
            "content_sha256",
        )
    ]
    for chunk in _chunks(claim_ids):
        for row in session.execute(
            select(*columns)
            .where(table.c.claim_id.in_(chunk))
            .order_by(table.c.claim_id, table.c.id)
        ):
            events.setdefault(row.claim_id, []).append(row._mapping)
    states = {cid: history.derive(evs, trust) for cid, evs in events.items()}
    person_status = {}
    for cid, evs in events.items():
        last = next((e for e in reversed(evs) if e["kind"] == "status"), None)
        if last is not None:
            person_status[cid] = _who(last)
    return states, person_status


def _insert_children(
    session: Session,
    pairs: list[tuple[int, ClaimRecord]],
    source_ids: dict[str, int],
    *,
    figures: bool = True,
    evidence: bool = True,
) -> None:
    if figures:
        insert_rows(
            session,
            Figure.__table__,
            [
                (cid, i, f.name, *_figure_values(f.quantity))
                for cid, rec in pairs
                for i, f in enumerate(rec.figures)
            ],
            FIGURE_ROW,
        )
        insert_rows(
            session,
            FigureNumber.__table__,
            [
                (cid, i, lo, hi, tier)
                for cid, rec in pairs
                for i, f in enumerate(rec.figures)
                for lo, hi, tier in _reach(f.quantity)
            ],
            ("claim_id", "position", "lo", "hi", "tier"),
        )
    if evidence:
        insert_rows(
            session,
            Evidence.__table__,
            [
                (cid, source_ids[e.source], i, e.locator, e.quote)
                for cid, rec in pairs
                for i, e in enumerate(rec.evidence)
            ],
            ("claim_id", "source_id", "position", "locator", "quote"),
        )


# A figure row is its claim, its position, its name and these (figure_columns, without the first two).
FIGURE_ROW = ("claim_id", "position", "name", *FIGURE_COLUMNS[2:])


@lru_cache(maxsize=4096)
def _figure_values(q: Quantity) -> tuple:
    """The columns of a parsed figure, once per distinct figure (data sets repeat them)."""
    columns = figure_columns(0, FigureRecord(q))
    return tuple(columns[c] for c in FIGURE_COLUMNS[2:])


_reach = lru_cache(maxsize=4096)(reach)
