"""Applying what an import planned: the definitions (tags, sources, quantities) as they come, then each
batch of claims (import_plan.ClaimBatch): the new claims and their figures and evidence, the events
first (the database refuses a claim's new tag, status or rank before the event that sets it), then the
changed columns and rows, then the re-reads the batch records as the people's events."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from claimsdb import definitions, history, models
from claimsdb.db import insert_rows
from claimsdb.errors import InvalidRecord
from claimsdb.figures import Quantity, figure_columns, reach
from claimsdb.importer.known import DATA_FIELDS, DATA_FILE_ORIGIN, FIGURE_COLUMNS, Known
from claimsdb.importer.plan import Cited, ClaimBatch, PendingReread
from claimsdb.importer.read import chunks, claim_ids
from claimsdb.models import table_of
from claimsdb.records.types import (
    ClaimRecord,
    FigureRecord,
    QuantityRecord,
    SourceRecord,
    TagRecord,
)
from claimsdb.trust import signatures

# A figure row is its claim, its position, its name and these (figure_columns, without the first two).
FIGURE_ROW = ("claim_id", "position", "name", *FIGURE_COLUMNS[2:])
EVIDENCE_ROW = ("claim_id", "source_id", "position", "locator", "quote")
# The claim columns a record sets as they are.
CLAIM_FIELDS = (*DATA_FIELDS, "tag", "status", "status_reason", "superseded_by", "rank")


@dataclass
class Writer:
    """Writes one import in the caller's session: `now` and `actor` stamp its events; `detail` is added
    to the detail of every claim event (who the software agent was)."""

    session: Session
    known: Known
    now: str  # models.utcnow
    actor: str
    detail: dict[str, Any] = field(default_factory=dict)

    # --- definitions ---------------------------------------------------------------------------

    def add_tag(self, rec: TagRecord) -> None:
        self.session.execute(table_of(models.Tag).insert(), [vars(rec)])
        definitions.define_tag(self.session, rec.name, rec.trust, rec.description, self.actor)

    def add_source(self, rec: SourceRecord) -> None:
        table = table_of(models.Source)
        self.session.execute(table.insert(), [{**rec.fields(), "origin": DATA_FILE_ORIGIN}])
        definitions.define_sources(self.session, [rec.fields()], self.actor)
        self.known.sources[rec.key] = self.session.execute(
            select(table.c.id).where(table.c.key == rec.key)
        ).scalar_one()

    def update_source(self, rec: SourceRecord) -> None:
        table = table_of(models.Source)
        self.session.execute(
            table.update()
            .where(table.c.key == rec.key)
            .values(**rec.fields(), origin=DATA_FILE_ORIGIN)
        )
        definitions.define_sources(self.session, [rec.fields()], self.actor)

    def add_quantity(self, rec: QuantityRecord) -> None:
        table = table_of(models.MeasuredQuantity)
        self.session.execute(table.insert(), [rec.fields()])
        definitions.define_quantities(self.session, [rec.fields()], self.actor)
        self.known.quantities[rec.key] = self.session.execute(
            select(table.c.id).where(table.c.key == rec.key)
        ).scalar_one()

    def update_quantity(self, rec: QuantityRecord) -> None:
        table = table_of(models.MeasuredQuantity)
        self.session.execute(table.update().where(table.c.key == rec.key).values(**rec.fields()))
        definitions.define_quantities(self.session, [rec.fields()], self.actor)

    # --- claims ----------------------------------------------------------------------------------

    def claims(self, batch: ClaimBatch) -> None:
        """Apply a planned batch of claims."""
        new_ids = self._add_claims(batch)
        events = [self._imported(c, new_ids[c.key], batch) for c in batch.added]
        events += [self._updated(key, diff, batch) for key, diff in batch.changes.items()]
        history.append(self.session, events)
        for key, diff in batch.changes.items():
            self._change(batch.stored.claims[key], batch.recs[key], diff, batch)
        aliased: list[tuple[str, str | None]] = [
            (c.key, c.aliases) for c in batch.added if c.aliases
        ]
        aliased += [(k, batch.recs[k].aliases) for k, d in batch.changes.items() if "aliases" in d]
        definitions.define_aliases(self.session, aliased, self.actor)
        for key, digest in batch.refresh.items():
            self.session.execute(
                table_of(models.Claim)
                .update()
                .where(col(models.Claim.key) == key)
                .values(record_sha256=digest)
            )
        self._record_rereads(batch.rereads)

    def _add_claims(self, batch: ClaimBatch) -> dict[str, int]:
        if not batch.added:
            return {}
        now = self.now
        insert_rows(
            self.session,
            table_of(models.Claim),
            [
                {
                    "key": c.key,
                    **{name: getattr(c, name) for name in CLAIM_FIELDS},
                    "created_at": now,
                    "updated_at": now,
                    "quantity_id": self.known.quantities.get(c.quantity) if c.quantity else None,
                    "record_sha256": batch.digests.get(c.key),
                }
                for c in batch.added
            ],
        )
        new_ids = claim_ids(self.session, [c.key for c in batch.added])
        self._insert_children([(new_ids[c.key], c) for c in batch.added])
        return new_ids

    def _imported(self, c: ClaimRecord, claim_id: int, batch: ClaimBatch) -> dict[str, Any]:
        noted = (("record", c.record_name), ("rank_reason", c.rank_reason))
        return {
            "claim": c.key,
            "claim_id": claim_id,
            "at": self.now,
            "kind": "imported",
            "actor": self.actor,
            "tag_after": c.tag,
            "status_after": c.status,
            "origin": c.file,
            "rank_after": c.rank if c.quantity else None,
            "detail": json.dumps({**{k: v for k, v in noted if v is not None}, **self.detail}),
            "content_sha256": batch.contents[c.key],
            "stored_sha256": self._stored(c),
        }

    def _updated(
        self, key: str, diff: dict[str, tuple[Any, Any]], batch: ClaimBatch
    ) -> dict[str, Any]:
        rec = batch.recs[key]
        ranked = "rank" in diff and rec.rank_reason
        return {
            "claim": key,
            "claim_id": batch.stored.claims[key].id,
            "at": self.now,
            "kind": "updated",
            "actor": self.actor,
            "tag_before": diff["tag"][0] if "tag" in diff else None,
            "tag_after": rec.tag if "tag" in diff else None,
            "status_after": rec.status if "status" in diff else None,
            "rank_after": rec.rank if "rank" in diff else None,
            "origin": rec.file,
            "content_sha256": batch.contents[key],
            "stored_sha256": self._stored(rec),
            "detail": json.dumps(
                {
                    "record": rec.record_name,
                    "changes": {k: list(v) for k, v in diff.items()},
                    **({"rank_reason": rec.rank_reason} if ranked else {}),
                    **self.detail,
                },
                default=list,
            ),
        }

    def _change(
        self, claim: Any, rec: ClaimRecord, diff: dict[str, tuple[Any, Any]], batch: ClaimBatch
    ) -> None:
        """A stored claim's columns and rows, as the file has them where they differ."""
        session = self.session
        values: dict[str, Any] = {name: getattr(rec, name) for name in DATA_FIELDS if name in diff}
        if "tag" in diff:
            values["tag"] = rec.tag
        if "status" in diff:
            values.update(
                status=rec.status, status_reason=rec.status_reason, superseded_by=rec.superseded_by
            )
        if "rank" in diff:
            values["rank"] = rec.rank
        if "quantity" in diff:
            values["quantity_id"] = (
                self.known.quantities.get(rec.quantity) if rec.quantity else None
            )
        values.update(updated_at=self.now, record_sha256=batch.digests.get(rec.key))
        session.execute(
            table_of(models.Claim).update().where(col(models.Claim.id) == claim.id).values(**values)
        )
        if "figures" in diff:
            session.execute(
                table_of(models.Figure).delete().where(col(models.Figure.claim_id) == claim.id)
            )
            session.execute(
                table_of(models.FigureNumber)
                .delete()
                .where(col(models.FigureNumber.claim_id) == claim.id)
            )
        if "evidence" in diff:
            # The file's evidence comes first, then what people added (re-read pages), in their order.
            session.execute(
                table_of(models.Evidence).delete().where(col(models.Evidence.claim_id) == claim.id)
            )
        self._insert_children(
            [(claim.id, rec)], figures="figures" in diff, evidence="evidence" in diff
        )
        if "evidence" in diff:
            kept = [e for e in batch.stored.evidence.get(claim.id, []) if e.event_id is not None]
            rows = [
                (claim.id, e.source_id, len(rec.evidence) + i, e.locator, e.quote, e.event_id)
                for i, e in enumerate(kept)
            ]
            insert_rows(session, table_of(models.Evidence), rows, (*EVIDENCE_ROW, "event_id"))

    def _stored(self, rec: ClaimRecord) -> str:
        """The stored record (history.stored_digest) of the rows this import leaves for `rec`: every
        event it writes records them, so a row changed afterwards is found on read."""
        return history.stored_digest(
            rec.stage,
            rec.basis,
            rec.section,
            self.known.quantities.get(rec.quantity) if rec.quantity else None,
            [
                dict(zip(history.STORED_FIGURE_COLUMNS, (f.name, *_figure_values(f.quantity))))
                for f in rec.figures
            ],
            bool(rec.observation),
        )

    def _insert_children(
        self,
        pairs: list[tuple[int, ClaimRecord]],
        *,
        figures: bool = True,
        evidence: bool = True,
    ) -> None:
        session, sources = self.session, self.known.sources
        if figures:
            figure_rows = [
                (cid, i, f.name, *_figure_values(f.quantity))
                for cid, rec in pairs
                for i, f in enumerate(rec.figures)
            ]
            insert_rows(session, table_of(models.Figure), figure_rows, FIGURE_ROW)
            number_rows = [
                (cid, i, lo, hi, tier)
                for cid, rec in pairs
                for i, f in enumerate(rec.figures)
                for lo, hi, tier in _reach(f.quantity)
            ]
            insert_rows(
                session,
                table_of(models.FigureNumber),
                number_rows,
                ("claim_id", "position", "lo", "hi", "tier"),
            )
        if evidence:
            evidence_rows = [
                (cid, sources[e.source], i, e.locator, e.quote)
                for cid, rec in pairs
                for i, e in enumerate(rec.evidence)
            ]
            insert_rows(session, table_of(models.Evidence), evidence_rows, EVIDENCE_ROW)

    # --- re-reads --------------------------------------------------------------------------------

    def _record_rereads(self, rereads: list[PendingReread]) -> None:
        """Each re-read as `claims reread` records it: the person's event, then the page (with the
        locator and the quote) as evidence of the claim unless the claim cites it so already. Written in
        sets, after the batch's own events: an import may name thousands."""
        if not rereads:
            return
        session = self.session
        ids = claim_ids(session, [p.rec.key for p in rereads])
        pages = sorted({p.rec.reread.source for p in rereads if p.rec.reread})
        urls: dict[str, str | None] = {
            k: u
            for k, u in session.execute(
                select(col(models.Source.key), col(models.Source.url)).where(
                    col(models.Source.key).in_(pages)
                )
            ).all()
        }
        copies = _local_copies(session, pages)
        events, links = [], []
        for pending in rereads:
            assert pending.rec.reread is not None
            copy = copies.get(pending.rec.reread.source)
            checked = _checked_on_copy(pending.rec, copy) if copy is not None else None
            event, cited = _reread_event(pending, ids[pending.rec.key], urls, checked)
            events.append(event)
            if not cited:
                links.append(len(events) - 1)
        last = (
            session.execute(
                select(col(models.Event.id)).order_by(col(models.Event.id).desc()).limit(1)
            ).scalar()
            or 0
        )
        written = history.append(session, events)
        if links:
            self._link_pages(rereads, links, ids, written, last)

    def _link_pages(
        self,
        rereads: list[PendingReread],
        links: list[int],
        ids: dict[str, int],
        written: list[dict[str, Any]],
        last: int,
    ) -> None:
        """The page of each re-read the claim did not cite so, as evidence after the claim's own, tied
        to the re-read's event."""
        session = self.session
        # The events' ids, by their digests (each unique: it covers the one before it).
        event_ids = {
            sha: id_
            for id_, sha in session.execute(
                select(col(models.Event.id), col(models.Event.sha256)).where(
                    col(models.Event.id) > last
                )
            )
        }
        ends: dict[int, int] = {}
        for chunk in chunks([ids[rereads[i].rec.key] for i in links]):
            ends.update(
                session.execute(
                    select(col(models.Evidence.claim_id), func.max(col(models.Evidence.position)))
                    .where(col(models.Evidence.claim_id).in_(chunk))
                    .group_by(col(models.Evidence.claim_id))
                ).all()
            )
        rows = []
        for i in links:
            r, claim_id = rereads[i].rec.reread, ids[rereads[i].rec.key]
            assert r is not None
            ends[claim_id] = ends.get(claim_id, -1) + 1
            event_id = event_ids[written[i]["sha256"]]
            rows.append(
                (
                    claim_id,
                    self.known.sources[r.source],
                    ends[claim_id],
                    r.locator,
                    r.quote,
                    event_id,
                )
            )
        insert_rows(session, table_of(models.Evidence), rows, (*EVIDENCE_ROW, "event_id"))


def _local_copies(session: Session, pages: list[str]) -> dict[str, Any]:
    """The local copies (a source's `path`) of the pages re-read, read under `claims verify`'s rule for
    them: a regular file inside the database's folder (none for a server database), so that a data file
    cannot have any other file read. A copy that cannot be read is left out (its re-reads are then
    attestations)."""
    from claimsdb.db import sqlite_file
    from claimsdb.fetching.fetch import FetchLimits, FetchRequest, fetch_all
    from claimsdb.fetching.targets import FetchPolicy
    from claimsdb.fetching.text import UnsupportedContent, extract_text

    database = sqlite_file(str(session.get_bind().engine.url))
    if database is None or not pages:
        return {}
    paths = session.execute(
        select(col(models.Source.key), col(models.Source.path)).where(
            col(models.Source.key).in_(pages), col(models.Source.path).is_not(None)
        )
    ).all()
    if not paths:
        return {}
    limits = FetchLimits(policy=FetchPolicy(local_root=database.resolve().parent))
    fetched = fetch_all([FetchRequest(source=key, path=path) for key, path in paths], limits)
    out = {}
    for (key, path), result in zip(paths, fetched):
        if result.outcome != "fetched" or result.content is None:
            continue
        try:
            text = extract_text(result.content, result.content_type, path)
        except UnsupportedContent:
            continue
        sha = hashlib.sha256(result.content).hexdigest()
        out[key] = (text, {"how": "copy", "sha256": sha, "at": result.fetched_at, "where": path})
    return out


def _checked_on_copy(rec: ClaimRecord, copy: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A data file's re-read checked against its page's local copy, as `claims reread` checks one;
    a page that does not hold it refuses the record (the import writes nothing)."""
    from claimsdb.locating.reread import check_page

    r = rec.reread
    assert r is not None
    text, read = copy
    check = check_page(
        text, r.quote, [f.quantity for f in rec.figures], f"{rec.subject} {rec.statement}"
    )
    if not check.holds:
        raise InvalidRecord(
            rec.file,
            rec.record_name,
            "reread.quote",
            f"checked against the local copy {read['where']} of {r.source}: "
            + "; ".join(check.findings),
        )
    return {**read, "outcome": check.outcome}


def _reread_event(
    pending: PendingReread,
    claim_id: int,
    urls: dict[str, str | None],
    checked: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], bool]:
    """The event of a re-read a data file names, and whether the claim cites its page so already:
    `checked` against the page's local copy, else an attestation (nothing read the page)."""
    rec, r = pending.rec, pending.rec.reread
    assert r is not None
    page: Cited = (r.source, r.locator, r.quote)
    cited = page in pending.evidence
    evidence = pending.evidence if cited else [*pending.evidence, page]
    detail = {
        "source": r.source,
        "url": urls.get(r.source),
        "locator": r.locator,
        "quote": r.quote,
        "linked": not cited,
        "data_file": rec.file,
        "record": rec.record_name,
        "checked": checked,
        # unless its local copy was read: the data file says a person read the page; an attestation
        "attested": None if checked is not None else DATA_FILE_ATTESTATION,
        "signature": signatures.stored(r.signature) if r.signature else None,
    }
    event = {
        "claim": rec.key,
        "claim_id": claim_id,
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
    return event, cited


DATA_FILE_ATTESTATION = "recorded in a data file; the page was not checked"


@lru_cache(maxsize=4096)
def _figure_values(q: Quantity) -> tuple:
    """The columns of a parsed figure, once per distinct figure (data sets repeat them)."""
    columns = figure_columns(0, FigureRecord(q))
    return tuple(columns[c] for c in FIGURE_COLUMNS[2:])


_reach = lru_cache(maxsize=4096)(reach)
