"""Importing data files into the store: all or nothing, idempotent, and never over a person's word.

`import_files` validates every record of every file against the database, builds a plan (added,
updated, unchanged, conflicts), and applies it in the caller's transaction unless it is a dry run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb.errors import InvalidRecord
from claimsdb.models import PERSON_EVENT_KINDS, Claim, Event, Evidence, Figure, Source, Tag, utcnow
from claimsdb.figures import Quantity, figure_columns
from claimsdb.records import ClaimRecord, DataFile, FigureRecord, SourceRecord, TagRecord, load

IMPORT_ACTOR = "import"
# Claim fields an import owns outright; tag and status are handled apart, because a person may own them.
DATA_FIELDS = ("subject", "stage", "statement", "basis", "section")
CHUNK = 500


@dataclass(frozen=True)
class Conflict:
    key: str
    field: str
    kept: str | None
    offered: str | None
    why: str


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
        }


FIGURE_COLUMNS = tuple(figure_columns(0, FigureRecord(Quantity(raw="", kind="text"))).keys())


def _chunks(items: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def import_files(session: Session, paths: Sequence[str], *, dry_run: bool = False) -> ImportPlan:
    files = [load(p) for p in paths]
    tags, sources, claims = _collect(files)
    plan = ImportPlan(files=[f.path for f in files], dry_run=dry_run)

    known_tags = {t.name: t for t in session.scalars(select(Tag))}
    for rec in tags.values():
        existing = known_tags.get(rec.name)
        if existing is None:
            plan.tags_added.append(rec.name)
        elif existing.trust != rec.trust:
            # Changing what a tag is trusted for is policy, not data: an import must not do it.
            raise InvalidRecord(
                _file_defining_tag(files, rec.name), repr(rec.name), "trust",
                f"tag {rec.name!r} exists with trust {existing.trust!r}; an import cannot change a tag's trust",
            )
    tag_names = set(known_tags) | set(tags)

    known_sources = {s.key: s for s in session.scalars(select(Source))}
    for rec in sources.values():
        existing = known_sources.get(rec.key)
        if existing is None:
            plan.sources_added.append(rec.key)
        elif _source_fields(existing) != rec.fields():
            plan.sources_updated.append(rec.key)
    source_keys = set(known_sources) | set(sources)

    existing_claims = _load_claims(session, list(claims))
    all_claim_keys = set(claims) | set(existing_claims) | _existing_keys(session, [
        c.superseded_by for c in claims.values() if c.superseded_by and c.superseded_by not in claims
    ])
    for rec in claims.values():
        if rec.tag not in tag_names:
            raise InvalidRecord(rec.file, rec.label, "tag", f"unknown tag {rec.tag!r} (known: {', '.join(sorted(tag_names))})")
        for i, ev in enumerate(rec.evidence):
            if ev.source not in source_keys:
                raise InvalidRecord(rec.file, rec.label, f"evidence[{i}].source", f"unknown source {ev.source!r}")
        if rec.superseded_by is not None and rec.superseded_by not in all_claim_keys:
            raise InvalidRecord(rec.file, rec.label, "superseded_by", f"unknown claim {rec.superseded_by!r}")

    person_owned = _person_owned(session, [c.id for c in existing_claims.values()])
    stored_figures = _children(session, Figure, existing_claims)
    stored_evidence = _children(session, Evidence, existing_claims)
    source_key_by_id = {s.id: s.key for s in known_sources.values()}

    changes: dict[str, dict[str, tuple[Any, Any]]] = {}
    for key, rec in claims.items():
        claim = existing_claims.get(key)
        if claim is None:
            plan.added.append(key)
            continue
        diff: dict[str, tuple[Any, Any]] = {}
        for name in DATA_FIELDS:
            if getattr(claim, name) != getattr(rec, name):
                diff[name] = (getattr(claim, name), getattr(rec, name))
        old_figs = [_row_figure(f) for f in stored_figures.get(claim.id, [])]
        new_figs = [figure_columns(i, f) for i, f in enumerate(rec.figures)]
        if old_figs != new_figs:
            diff["figures"] = ([f["raw"] for f in old_figs], [f["raw"] for f in new_figs])
        old_ev = [(source_key_by_id.get(e.source_id), e.locator, e.quote) for e in stored_evidence.get(claim.id, [])]
        new_ev = [(e.source, e.locator, e.quote) for e in rec.evidence]
        if old_ev != new_ev:
            diff["evidence"] = (old_ev, new_ev)
        owned = person_owned.get(claim.id, {})
        if rec.tag != claim.tag:
            if "tag" in owned:
                plan.conflicts.append(Conflict(key, "tag", claim.tag, rec.tag, f"set by {owned['tag']}"))
            else:
                diff["tag"] = (claim.tag, rec.tag)
        status_now = (claim.status, claim.status_reason, claim.superseded_by)
        status_new = (rec.status, rec.status_reason, rec.superseded_by)
        if status_now != status_new:
            if "status" in owned:
                plan.conflicts.append(Conflict(key, "status", claim.status, rec.status, f"set by {owned['status']}"))
            else:
                diff["status"] = (status_now, status_new)
        if diff:
            plan.updated[key] = sorted(diff)
            changes[key] = diff
        else:
            plan.unchanged.append(key)

    if not dry_run:
        _apply(session, plan, tags, sources, known_sources, claims, existing_claims, changes)
    return plan


def _file_defining_tag(files: list[DataFile], tag: str) -> str:
    return next(f.path for f in files if any(t.name == tag for t in f.tags))


def _collect(files: list[DataFile]) -> tuple[dict[str, TagRecord], dict[str, SourceRecord], dict[str, ClaimRecord]]:
    tags: dict[str, TagRecord] = {}
    sources: dict[str, SourceRecord] = {}
    claims: dict[str, ClaimRecord] = {}
    source_origin: dict[str, str] = {}
    for f in files:
        for t in f.tags:
            if t.name in tags and tags[t.name] != t:
                raise InvalidRecord(f.path, repr(t.name), "trust", "tag defined twice with different fields")
            tags[t.name] = t
        seen_here: set[str] = set()
        for s in f.sources:
            if s.key in seen_here:
                raise InvalidRecord(f.path, repr(s.key), "key", "duplicate source key in this file")
            seen_here.add(s.key)
            if s.key in sources and sources[s.key] != s:
                raise InvalidRecord(
                    f.path, repr(s.key), "key", f"source defined differently in {source_origin[s.key]}"
                )
            sources[s.key] = s
            source_origin.setdefault(s.key, f.path)
        for c in f.claims:
            if c.key in claims:
                first = claims[c.key]
                where = "earlier in this file" if first.file == f.path else f"also in {first.file}"
                raise InvalidRecord(f.path, c.label, "key", f"duplicate claim key ({where})")
            claims[c.key] = c
    return tags, sources, claims


def _source_fields(s) -> dict[str, Any]:
    return {k: getattr(s, k) for k in SourceRecord.__dataclass_fields__}


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
            select(table).where(table.c.claim_id.in_(chunk)).order_by(table.c.claim_id, table.c.position)
        )
        for row in rows:
            out.setdefault(row.claim_id, []).append(row)
    return out


def _person_owned(session: Session, claim_ids: list[int]) -> dict[int, dict[str, str]]:
    """For each claim, which of tag/status a person set, and by whom ("alice, reread at ...").

    A person owns the tag when the latest tag-changing event is a person's; the status when any
    person ever changed it. "Latest" is insertion order (the id), never the clock.
    """
    owned: dict[int, dict[str, str]] = {}
    for chunk in _chunks(claim_ids):
        rows = session.execute(
            select(Event.claim_id, Event.kind, Event.actor, Event.at, Event.tag_after)
            .where(Event.claim_id.in_(chunk))
            .order_by(Event.claim_id, Event.id)
        )
        for claim_id, kind, actor, at, tag_after in rows:
            mine = owned.setdefault(claim_id, {})
            who = f"{actor} ({kind}, {at[:19]}Z)"
            if tag_after is not None:
                if kind in PERSON_EVENT_KINDS:
                    mine["tag"] = who
                else:
                    mine.pop("tag", None)
            if kind == "status":
                mine["status"] = who
    return {k: v for k, v in owned.items() if v}


def _apply(
    session: Session,
    plan: ImportPlan,
    tags: dict[str, TagRecord],
    sources: dict[str, SourceRecord],
    known_sources: dict[str, Source],
    claims: dict[str, ClaimRecord],
    existing: dict[str, Any],
    changes: dict[str, dict[str, tuple[Any, Any]]],
) -> None:
    now = utcnow()
    if plan.tags_added:
        session.execute(Tag.__table__.insert(), [vars(tags[n]) for n in plan.tags_added])
    if plan.sources_added:
        session.execute(Source.__table__.insert(), [sources[k].fields() for k in plan.sources_added])
    for key in plan.sources_updated:
        session.execute(Source.__table__.update().where(Source.key == key).values(**sources[key].fields()))
    source_ids = dict(session.execute(select(Source.key, Source.id)).all())

    if plan.added:
        session.execute(
            Claim.__table__.insert(),
            [
                {
                    "key": k, "subject": c.subject, "stage": c.stage, "statement": c.statement, "tag": c.tag,
                    "basis": c.basis, "section": c.section, "status": c.status, "status_reason": c.status_reason,
                    "superseded_by": c.superseded_by, "created_at": now, "updated_at": now,
                }
                for k in plan.added
                for c in (claims[k],)
            ],
        )
        new_ids: dict[str, int] = {}
        for chunk in _chunks(plan.added):
            new_ids.update(session.execute(select(Claim.key, Claim.id).where(Claim.key.in_(chunk))).all())
        _insert_children(session, [(new_ids[k], claims[k]) for k in plan.added], source_ids)
        session.execute(
            Event.__table__.insert(),
            [
                {
                    "claim_id": new_ids[k], "at": now, "kind": "imported", "actor": IMPORT_ACTOR,
                    "tag_before": None, "tag_after": claims[k].tag, "origin": claims[k].file,
                    "detail": json.dumps({"record": claims[k].label}),
                }
                for k in plan.added
            ],
        )

    for key, diff in changes.items():
        claim, rec = existing[key], claims[key]
        values: dict[str, Any] = {name: getattr(rec, name) for name in DATA_FIELDS if name in diff}
        if "tag" in diff:
            values["tag"] = rec.tag
        if "status" in diff:
            values.update(status=rec.status, status_reason=rec.status_reason, superseded_by=rec.superseded_by)
        values["updated_at"] = now
        session.execute(Claim.__table__.update().where(Claim.id == claim.id).values(**values))
        if "figures" in diff:
            session.execute(Figure.__table__.delete().where(Figure.claim_id == claim.id))
        if "evidence" in diff:
            session.execute(Evidence.__table__.delete().where(Evidence.claim_id == claim.id))
        _insert_children(
            session, [(claim.id, rec)], source_ids,
            figures="figures" in diff, evidence="evidence" in diff,
        )
        session.execute(
            Event.__table__.insert(),
            [{
                "claim_id": claim.id, "at": now, "kind": "updated", "actor": IMPORT_ACTOR,
                "tag_before": diff["tag"][0] if "tag" in diff else None,
                "tag_after": rec.tag if "tag" in diff else None,
                "origin": rec.file,
                "detail": json.dumps({"record": rec.label, "changes": {k: list(v) for k, v in diff.items()}}, default=list),
            }],
        )


def _insert_children(
    session: Session,
    pairs: list[tuple[int, ClaimRecord]],
    source_ids: dict[str, int],
    *,
    figures: bool = True,
    evidence: bool = True,
) -> None:
    fig_rows = [
        {"claim_id": cid, **figure_columns(i, f)} for cid, rec in pairs for i, f in enumerate(rec.figures)
    ] if figures else []
    ev_rows = [
        {"claim_id": cid, "source_id": source_ids[e.source], "position": i, "locator": e.locator, "quote": e.quote}
        for cid, rec in pairs
        for i, e in enumerate(rec.evidence)
    ] if evidence else []
    if fig_rows:
        session.execute(Figure.__table__.insert(), fig_rows)
    if ev_rows:
        session.execute(Evidence.__table__.insert(), ev_rows)
