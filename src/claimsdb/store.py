"""Importing data files into the store: all or nothing, idempotent, and never over a person's word.

`import_files` validates every record of every file against the database, builds a plan (added,
updated, unchanged, conflicts), and applies it in the caller's transaction unless it is a dry run.

A data file owns a claim's content (subject, statement, figures, its own evidence) and, until a person
records something, its tag and status. A person's tag or status is kept and the difference reported.
When the file changes the content of a claim whose verified tag rests on a person's re-read, the
change is applied, the re-read stays in the history, and the claim is reported: that re-read no longer
covers what the claim says, so it is not paper-safe until it is re-read again (history.derive).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import history
from claimsdb.errors import BadQuery, InvalidRecord
from claimsdb.models import Claim, Event, Evidence, Figure, FigureNumber, MeasuredQuantity, Source, Tag, utcnow
from claimsdb.figures import Quantity, figure_columns, reach
from claimsdb.records import (
    ClaimRecord, DataFile, FigureRecord, QuantityRecord, SourceRecord, TagRecord, claim_record, load,
)

IMPORT_ACTOR = "import"
# Claim fields an import owns outright; tag and status are handled apart, because a person may own them.
DATA_FIELDS = ("subject", "stage", "statement", "basis", "section")
# What a person reads when re-reading a claim (history.content_digest covers these).
CONTENT_FIELDS = {"subject", "statement", "figures", "evidence"}
CHUNK = 500


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
        }


FIGURE_COLUMNS = tuple(figure_columns(0, FigureRecord(Quantity(raw="", kind="text"))).keys())


def _chunks(items: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def import_files(session: Session, paths: Sequence[str], *, dry_run: bool = False) -> ImportPlan:
    return import_data(session, [load(p) for p in paths], dry_run=dry_run)


def import_data(
    session: Session, files: Sequence[DataFile], *, dry_run: bool = False, actor: str = IMPORT_ACTOR,
) -> ImportPlan:
    """Validate `files` against the database, plan, and (unless a dry run) apply in the caller's transaction."""
    files = list(files)
    history.begin_write(session)
    tags, sources, quantities, claims = _collect(files)
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

    known_quantities = {q.key: q for q in session.scalars(select(MeasuredQuantity))}
    for rec in quantities.values():
        existing = known_quantities.get(rec.key)
        if existing is None:
            plan.quantities_added.append(rec.key)
        elif {k: getattr(existing, k) for k in rec.fields()} != rec.fields():
            plan.quantities_updated.append(rec.key)
    quantity_keys = set(known_quantities) | set(quantities)
    quantity_key_by_id = {q.id: q.key for q in known_quantities.values()}

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
        if rec.quantity is not None and rec.quantity not in quantity_keys:
            raise InvalidRecord(rec.file, rec.label, "quantity", f"unknown quantity {rec.quantity!r} (declare it under quantities)")
        if rec.rank != "normal" and rec.quantity is None:
            raise InvalidRecord(rec.file, rec.label, "rank", "a rank orders the competing values of a quantity: name the quantity")

    trust = {t.name: t.trust for t in known_tags.values()} | {t.name: t.trust for t in tags.values()}
    states, person_status = _states(session, [c.id for c in existing_claims.values()], trust)
    stored_figures = _children(session, Figure, existing_claims)
    stored_evidence = _children(session, Evidence, existing_claims)
    source_key_by_id = {s.id: s.key for s in known_sources.values()}

    changes: dict[str, dict[str, tuple[Any, Any]]] = {}
    contents: dict[str, str] = {}
    for key, rec in claims.items():
        claim = existing_claims.get(key)
        if claim is None:
            plan.added.append(key)
            contents[key] = _content(rec, [])
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
        person_evidence = [(source_key_by_id[e.source_id], e.locator, e.quote) for e in evidence_rows if e.event_id is not None]
        old_ev = [(source_key_by_id[e.source_id], e.locator, e.quote) for e in evidence_rows if e.event_id is None]
        new_ev = [(e.source, e.locator, e.quote) for e in rec.evidence]
        if old_ev != new_ev:
            diff["evidence"] = (old_ev, new_ev)
        state = states.get(claim.id, history.ClaimState())
        owner = _who(state.tag_event)
        if rec.tag != claim.tag:
            if state.tag_is_persons:
                plan.conflicts.append(Conflict(key, "tag", claim.tag, rec.tag, f"set by {owner}"))
            else:
                diff["tag"] = (claim.tag, rec.tag)
        if rec.rank != claim.rank:
            if state.rank_event is not None and state.rank_event["kind"] == "ranked":
                plan.conflicts.append(Conflict(key, "rank", claim.rank, rec.rank, f"set by {_who(state.rank_event)}"))
            else:
                diff["rank"] = (claim.rank, rec.rank)
        status_now = (claim.status, claim.status_reason, claim.superseded_by)
        status_new = (rec.status, rec.status_reason, rec.superseded_by)
        if status_now != status_new:
            if claim.id in person_status:
                plan.conflicts.append(Conflict(key, "status", claim.status, rec.status, f"set by {person_status[claim.id]}"))
            else:
                diff["status"] = (status_now, status_new)
        contents[key] = _content(rec, person_evidence)
        old_content = history.content_digest(
            claim.subject, claim.statement, [(f["raw"], f["name"]) for f in old_figs], old_ev + person_evidence)
        reread = state.vouched_by if state.vouched_by is not None and state.vouched_by["kind"] == history.REREAD_KIND else None
        if reread is not None and contents[key] != old_content and state.vouches_for(old_content):
            why = (f"the re-read by {_who(reread)} covered the old value; not paper-safe until re-read again: "
                   f"claims reread {key}")
            for name in ("subject", "statement", "figures", "evidence"):
                if name in diff:
                    plan.conflicts.append(Conflict(key, name, diff[name][0], diff[name][1], why, applied=True))
        if diff:
            plan.updated[key] = sorted(diff)
            changes[key] = diff
        else:
            plan.unchanged.append(key)
    plan.conflicts += _superseding_changed(session, {k for k, d in changes.items() if set(d) & CONTENT_FIELDS})
    _one_preferred(session, claims, existing_claims, changes, quantity_key_by_id)

    if not dry_run:
        _apply(session, plan, tags, sources, quantities, claims, existing_claims, changes, contents, stored_evidence,
               actor)
    return plan


ADD_ORIGIN = "claims add"


def add_claim(session: Session, fields: dict[str, Any], *, source: str, actor: str) -> dict[str, Any]:
    """Record one claim from the command line (an agent's or a script's), with the same validation and
    history as an import. The source is a key or a URL (registered on the spot); the tag may not be a
    verified one: a figure becomes verified only when a person re-reads it."""
    from claimsdb import sources as registry

    tag = session.get(Tag, fields["tag"])
    if tag is None:
        known = ", ".join(sorted(session.scalars(select(Tag.name))))
        raise BadQuery(f"unknown tag {fields['tag']!r} (known: {known})")
    if tag.trust == "verified":
        raise BadQuery(f"claims add records what was reported, not what was checked: tag {tag.name!r} is verified; "
                       "add the claim with an unverified or secondary tag, then `claims reread KEY` once a person has read the page")
    src, registered = registry.resolve(session, source)
    key = fields.get("key") or derive_claim_key(fields["subject"], fields["statement"])
    record = {**{k: v for k, v in fields.items() if v not in (None, [], "")}, "key": key,
              "evidence": [{"source": src.key, "locator": fields.get("locator"), "quote": fields.get("quote")}]}
    record.pop("locator", None)
    record.pop("quote", None)
    rec = claim_record(record, file=ADD_ORIGIN, label=repr(key))
    if session.scalars(select(Claim.id).where(Claim.key == key)).first() is not None:
        raise BadQuery(f"a claim with key {key!r} exists: change it in its data file and import that again")
    import_data(session, [DataFile(ADD_ORIGIN, (), (), (rec,))], actor=actor)
    return {"key": key, "tag": rec.tag, "source": src.key, "source_registered": registered,
            "figures": [f.quantity.raw for f in rec.figures]}


def derive_claim_key(subject: str, statement: str) -> str:
    """A stable key for a claim added without one: the subject's words and a hash of the statement."""
    words = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")[:40].rstrip("-") or "claim"
    return f"{words}.{hashlib.sha256(statement.encode('utf-8')).hexdigest()[:8]}"


def _one_preferred(session: Session, claims: dict[str, ClaimRecord], existing: dict[str, Any],
                   changes: dict[str, dict[str, tuple[Any, Any]]], quantity_key_by_id: dict[int, str]) -> None:
    """A quantity has at most one preferred value, counting the store's claims as the import leaves them."""
    final: dict[str, tuple[str | None, str]] = {}
    for row in session.execute(select(Claim.key, Claim.quantity_id, Claim.rank).where(Claim.rank == "preferred")):
        final[row.key] = (quantity_key_by_id.get(row.quantity_id), row.rank)
    for key, rec in claims.items():
        claim = existing.get(key)
        if claim is None:
            final[key] = (rec.quantity, rec.rank)
        else:
            diff = changes.get(key, {})
            rank = rec.rank if "rank" in diff else claim.rank
            quantity = rec.quantity if "quantity" in diff else quantity_key_by_id.get(claim.quantity_id)
            final[key] = (quantity, rank)
    preferred: dict[str, list[str]] = {}
    for key, (quantity, rank) in final.items():
        if rank == "preferred" and quantity is not None:
            preferred.setdefault(quantity, []).append(key)
    for quantity, keys in sorted(preferred.items()):
        if len(keys) > 1:
            mine = next((claims[k] for k in sorted(keys) if k in claims), None)
            raise InvalidRecord(mine.file if mine else "import", mine.label if mine else None, "rank",
                                f"quantity {quantity!r} would have {len(keys)} preferred values "
                                f"({', '.join(sorted(keys))}): prefer one")


def _superseding_changed(session: Session, changed: set[str]) -> list[Conflict]:
    """A person who superseded a claim by another vouched that the other replaces it: when the file
    changes the replacement's content, say so (the person's status stays)."""
    if not changed:
        return []
    out = []
    rows = session.execute(
        select(Claim.key, Claim.superseded_by, Event.actor, Event.at).join(Event, Event.claim_id == Claim.id)
        .where(Claim.superseded_by.in_(sorted(changed)), Claim.status == "superseded", Event.kind == "status")
        .order_by(Claim.key)
    )
    for old, new, actor, at in rows:
        out.append(Conflict(new, "replaces", old, None,
                            f"{actor} superseded {old} by {new} ({str(at)[:10]}) before this change; "
                            f"check that {new} still replaces it", applied=True))
    return out


def _content(rec: ClaimRecord, person_evidence: list[tuple[str, str | None, str | None]]) -> str:
    """The content digest a claim will have once `rec` is applied (a person's evidence follows the file's)."""
    return history.content_digest(
        rec.subject, rec.statement, [(f.quantity.raw, f.name) for f in rec.figures],
        [(e.source, e.locator, e.quote) for e in rec.evidence] + person_evidence,
    )


def _who(event) -> str:
    if event is None:
        return "nobody"
    return f"{event['actor']} ({event['kind']}, {str(event['at'])[:19]}Z)"


def _file_defining_tag(files: list[DataFile], tag: str) -> str:
    return next(f.path for f in files if any(t.name == tag for t in f.tags))


def _collect(files: list[DataFile]) -> tuple[
    dict[str, TagRecord], dict[str, SourceRecord], dict[str, QuantityRecord], dict[str, ClaimRecord]
]:
    tags: dict[str, TagRecord] = {}
    sources: dict[str, SourceRecord] = {}
    quantities: dict[str, QuantityRecord] = {}
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
        for q in f.quantities:
            if q.key in quantities and quantities[q.key] != q:
                raise InvalidRecord(f.path, repr(q.key), "key", "quantity defined twice with different fields")
            quantities[q.key] = q
        for c in f.claims:
            if c.key in claims:
                first = claims[c.key]
                where = "earlier in this file" if first.file == f.path else f"also in {first.file}"
                raise InvalidRecord(f.path, c.label, "key", f"duplicate claim key ({where})")
            claims[c.key] = c
    return tags, sources, quantities, claims


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


def _states(session: Session, claim_ids: list[int], trust: dict[str, str]) -> tuple[dict[int, history.ClaimState], dict[int, str]]:
    """For each claim, the state its history implies; and the claims whose status a person changed (by whom).

    "Latest" is insertion order (the id), never the clock.
    """
    events: dict[int, list] = {}
    table = Event.__table__
    columns = [table.c[n] for n in (
        "claim_id", "kind", "actor", "at", "tag_after", "status_after", "rank_after", "content_sha256")]
    for chunk in _chunks(claim_ids):
        for row in session.execute(select(*columns).where(table.c.claim_id.in_(chunk)).order_by(table.c.claim_id, table.c.id)):
            events.setdefault(row.claim_id, []).append(row._mapping)
    states = {cid: history.derive(evs, trust) for cid, evs in events.items()}
    person_status = {}
    for cid, evs in events.items():
        last = next((e for e in reversed(evs) if e["kind"] == "status"), None)
        if last is not None:
            person_status[cid] = _who(last)
    return states, person_status


def _apply(
    session: Session,
    plan: ImportPlan,
    tags: dict[str, TagRecord],
    sources: dict[str, SourceRecord],
    quantities: dict[str, QuantityRecord],
    claims: dict[str, ClaimRecord],
    existing: dict[str, Any],
    changes: dict[str, dict[str, tuple[Any, Any]]],
    contents: dict[str, str],
    stored_evidence: dict[int, list],
    actor: str,
) -> None:
    now = utcnow()
    if plan.tags_added:
        session.execute(Tag.__table__.insert(), [vars(tags[n]) for n in plan.tags_added])
    if plan.sources_added:
        session.execute(Source.__table__.insert(), [sources[k].fields() for k in plan.sources_added])
    for key in plan.sources_updated:
        session.execute(Source.__table__.update().where(Source.key == key).values(**sources[key].fields()))
    source_ids = dict(session.execute(select(Source.key, Source.id)).all())
    table = MeasuredQuantity.__table__
    if plan.quantities_added:
        session.execute(table.insert(), [quantities[k].fields() for k in plan.quantities_added])
    for key in plan.quantities_updated:
        session.execute(table.update().where(table.c.key == key).values(**quantities[key].fields()))
    quantity_ids = dict(session.execute(select(table.c.key, table.c.id)).all())

    new_ids: dict[str, int] = {}
    if plan.added:
        session.execute(
            Claim.__table__.insert(),
            [
                {
                    "key": k, "subject": c.subject, "stage": c.stage, "statement": c.statement, "tag": c.tag,
                    "basis": c.basis, "section": c.section, "status": c.status, "status_reason": c.status_reason,
                    "superseded_by": c.superseded_by, "created_at": now, "updated_at": now,
                    "quantity_id": quantity_ids.get(c.quantity), "rank": c.rank,
                }
                for k in plan.added
                for c in (claims[k],)
            ],
        )
        for chunk in _chunks(plan.added):
            new_ids.update(session.execute(select(Claim.key, Claim.id).where(Claim.key.in_(chunk))).all())
        _insert_children(session, [(new_ids[k], claims[k]) for k in plan.added], source_ids)

    # Events first: the database refuses a claim's new tag or status before the event that sets it.
    events = [
        {
            "claim": k, "claim_id": new_ids[k], "at": now, "kind": "imported", "actor": actor,
            "tag_after": claims[k].tag, "status_after": claims[k].status, "origin": claims[k].file,
            "rank_after": claims[k].rank if claims[k].quantity else None,
            "detail": json.dumps({k2: v for k2, v in (("record", claims[k].label), ("rank_reason", claims[k].rank_reason))
                                  if v is not None}), "content_sha256": contents[k],
        }
        for k in plan.added
    ]
    for key, diff in changes.items():
        rec = claims[key]
        events.append({
            "claim": key, "claim_id": existing[key].id, "at": now, "kind": "updated", "actor": actor,
            "tag_before": diff["tag"][0] if "tag" in diff else None,
            "tag_after": rec.tag if "tag" in diff else None,
            "status_after": rec.status if "status" in diff else None,
            "rank_after": rec.rank if "rank" in diff else None,
            "origin": rec.file, "content_sha256": contents[key],
            "detail": json.dumps({"record": rec.label, "changes": {k: list(v) for k, v in diff.items()},
                                  **({"rank_reason": rec.rank_reason} if "rank" in diff and rec.rank_reason else {})},
                                 default=list),
        })
    history.append(session, events)

    for key, diff in changes.items():
        claim, rec = existing[key], claims[key]
        values: dict[str, Any] = {name: getattr(rec, name) for name in DATA_FIELDS if name in diff}
        if "tag" in diff:
            values["tag"] = rec.tag
        if "status" in diff:
            values.update(status=rec.status, status_reason=rec.status_reason, superseded_by=rec.superseded_by)
        if "rank" in diff:
            values["rank"] = rec.rank
        if "quantity" in diff:
            values["quantity_id"] = quantity_ids.get(rec.quantity)
        values["updated_at"] = now
        session.execute(Claim.__table__.update().where(Claim.id == claim.id).values(**values))
        if "figures" in diff:
            session.execute(Figure.__table__.delete().where(Figure.claim_id == claim.id))
            session.execute(FigureNumber.__table__.delete().where(FigureNumber.claim_id == claim.id))
        if "evidence" in diff:
            # The file's evidence comes first, then what people added (re-read pages), in their order.
            session.execute(Evidence.__table__.delete().where(Evidence.claim_id == claim.id))
        _insert_children(
            session, [(claim.id, rec)], source_ids,
            figures="figures" in diff, evidence="evidence" in diff,
        )
        if "evidence" in diff:
            kept = [e for e in stored_evidence.get(claim.id, []) if e.event_id is not None]
            if kept:
                session.execute(Evidence.__table__.insert(), [
                    {"claim_id": claim.id, "source_id": e.source_id, "position": len(rec.evidence) + i,
                     "locator": e.locator, "quote": e.quote, "event_id": e.event_id}
                    for i, e in enumerate(kept)
                ])


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
        session.execute(FigureNumber.__table__.insert(), [
            {"claim_id": cid, "position": i, "lo": lo, "hi": hi, "span": span}
            for cid, rec in pairs for i, f in enumerate(rec.figures) for lo, hi, span in reach(f.quantity)
        ])
    if ev_rows:
        session.execute(Evidence.__table__.insert(), ev_rows)
