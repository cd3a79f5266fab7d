"""One import, streamed: entries come in one at a time (`feed`); definitions (tags, sources, quantities)
are checked and written as they come, claims in batches that import_plan plans and import_write applies;
`finish` checks what only the whole import can (superseding claims that exist, one preferred value a
quantity) and returns the plan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from claimsdb import db, definitions, history
from claimsdb.errors import AgentCannotVouch, InvalidRecord
from claimsdb.importer import kept
from claimsdb.importer.known import VERIFIED, Known
from claimsdb.importer.plan import Conflict, ImportPlan, plan_claims
from claimsdb.importer.read import as_declared, existing_keys, stored_digests
from claimsdb.importer.write import Writer
from claimsdb.models import Claim, MeasuredQuantity, Source, table_of, utcnow
from claimsdb.records.stated import with_stated_figures
from claimsdb.records.types import ClaimRecord, QuantityRecord, SourceRecord, TagRecord
from claimsdb.trust.channels import Channel

BATCH = 5000  # claims read, checked and written at a time


class Importer:
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
        self.session, self.progress = session, progress
        self.plan = ImportPlan(files=files, dry_run=dry_run)
        stored_sources = session.execute(
            select(col(Source.key), col(Source.id), col(Source.kind))
        ).all()
        self.known = Known(
            tags=definitions.trust_levels(
                session
            ),  # as defined: never a row changed outside claims
            sources={key: id_ for key, id_, _kind in stored_sources if id_ is not None},
            source_kinds={key: kind for key, _id, kind in stored_sources},
            quantities={
                k: i
                for k, i in session.execute(
                    select(col(MeasuredQuantity.key), col(MeasuredQuantity.id))
                )
                if i is not None
            },
            channels=channels,
        )
        self.writer = Writer(session, self.known, utcnow(), actor, detail or {})
        self.tags_defined: dict[str, TagRecord] = {}
        self.sources_defined: dict[str, tuple[SourceRecord, str]] = {}  # key -> (record, file)
        self.quantities_defined: dict[str, QuantityRecord] = {}
        self.seen: dict[str, str] = {}  # claim key -> the file it came from
        self.supersedes: list[tuple[str, str, str]] = []  # (file, label, target) checked at the end
        self.batch: list[Any] = []
        # PostgreSQL's planner statistics are refreshed inside a large import as it doubles (db.analyze).
        self.written, self.analyze_at = 0, db.STATISTICS_AFTER

    # --- definitions ---------------------------------------------------------------------------

    def feed(self, entry: Any) -> None:
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

    def _tag(self, entry: Any, rec: TagRecord) -> None:
        tags = self.known.tags
        if self.known.agent(entry.file):
            raise AgentCannotVouch(
                entry.file,
                entry.label,
                "tag",
                f"an agent channel cannot define tags ({rec.name!r}, {rec.trust}): tags are "
                "defined by a data file read from a path, and an agent's claims use a tag of "
                f"unverified trust ({self.known.unverified_tags()})",
            )
        if rec.name in self.tags_defined and self.tags_defined[rec.name] != rec:
            raise InvalidRecord(
                entry.file, repr(rec.name), "trust", "tag defined twice with different fields"
            )
        self.tags_defined[rec.name] = rec
        if rec.name not in tags:
            self.writer.add_tag(rec)
            tags[rec.name] = rec.trust
            self.plan.tags_added.append(rec.name)
            if rec.trust == VERIFIED:
                self.plan.verified_tags_added.append(rec.name)
        elif tags[rec.name] != rec.trust:
            # Changing what a tag is trusted for is policy, not data: an import must not do it.
            raise InvalidRecord(
                entry.file,
                repr(rec.name),
                "trust",
                f"tag {rec.name!r} exists with trust {tags[rec.name]!r}; "
                "an import cannot change a tag's trust",
            )

    def _source(self, entry: Any, rec: SourceRecord) -> None:
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
        if rec.key not in self.known.sources:
            self.known.source_kinds[rec.key] = rec.kind
            self.writer.add_source(rec)
            self.plan.sources_added.append(rec.key)
        elif self._may_change(entry, "source", rec):
            self.known.source_kinds[rec.key] = rec.kind
            self.writer.update_source(rec)
            self.plan.sources_updated.append(rec.key)

    def _quantity(self, entry: Any, rec: QuantityRecord) -> None:
        if rec.key in self.quantities_defined:
            if self.quantities_defined[rec.key] != rec:
                raise InvalidRecord(
                    entry.file, repr(rec.key), "key", "quantity defined twice with different fields"
                )
            return
        self.quantities_defined[rec.key] = rec
        if rec.key not in self.known.quantities:
            self.writer.add_quantity(rec)
            self.plan.quantities_added.append(rec.key)
        elif self._may_change(entry, "quantity", rec):
            self.writer.update_quantity(rec)
            self.plan.quantities_updated.append(rec.key)

    def _may_change(self, entry: Any, kind: str, rec: SourceRecord | QuantityRecord) -> bool:
        """Whether the stored source or quantity takes `rec`'s fields: not when they are the same, nor
        when it is someone else's (importer.kept: each difference is then a conflict). An agent channel
        may add one, never change one: a source is what a re-read names and a paper cites, a quantity
        says what its values (and the one preferred) are values of."""
        stored = _stored_row(
            self.session, Source if kind == "source" else MeasuredQuantity, rec.key
        )
        offered = rec.fields()
        changed = [name for name, value in offered.items() if stored[name] != value]
        if not changed:
            return False
        if self.known.agent(entry.file):
            raise AgentCannotVouch(
                entry.file,
                entry.label,
                changed[0],
                f"{kind} {rec.key!r} is registered with another {changed[0]}: an agent channel "
                f"may add a {kind}, never change one (change it in its data file)",
            )
        if kind == "source":
            why = kept.source_keeper(self.session, rec.key, stored["origin"])
        else:
            why = kept.quantity_keeper(self.session, self.known.quantities[rec.key])
        if why is None:
            return True
        # a source field the file leaves empty claims nothing: the registered one stays, unreported
        if kind == "source":
            changed = [name for name in changed if offered[name] is not None]
        self.plan.conflicts += [
            Conflict(
                rec.key,
                name,
                stored[name],
                offered[name],
                why,
                kind=kind,
                file=entry.file,
                record=entry.label,
                registered=True,
            )
            for name in changed
        ]
        return False

    # --- claims ----------------------------------------------------------------------------------

    def _claims(self) -> None:
        """Plan and write the batch of claims read so far."""
        if not self.batch:
            return
        batch, self.batch = self.batch, []
        keyed = [(e, e.key) for e in batch]
        stored = stored_digests(self.session, [k for _, k in keyed if k])
        todo: list[ClaimRecord] = []
        digests: dict[str, str | None] = {}
        for entry, key in keyed:
            digest = entry.digest()
            if (
                digest is not None
                and key in stored
                and stored[key][0] == digest
                and as_declared(stored[key], entry.raw)
            ):
                # read and written before, unchanged: nothing to check again
                if self.known.agent(entry.file):  # the record as stored, sent again
                    self.known.check_agent_tag(entry.file, entry.label, key, stored[key][1])
                self._seen(entry, key)
                self.plan.unchanged.append(key)
                continue
            rec = entry.record()
            if self.known.agent(entry.file):  # an agent's claim states only its words' figures
                rec = with_stated_figures(rec)
            self._seen(entry, rec.key)
            todo.append(rec)
            digests[rec.key] = digest
        if todo:
            self._plan_and_write(todo, digests, stored.keys())
        if self.progress is not None:
            self.progress(len(batch))

    def _plan_and_write(
        self, todo: list[ClaimRecord], digests: dict[str, str | None], stored: Any
    ) -> None:
        planned = plan_claims(self.session, todo, digests, stored, self.known, self.plan)
        self.supersedes += [
            (r.file, r.record_name, r.superseded_by) for r in todo if r.superseded_by is not None
        ]
        self.writer.claims(planned)
        self.written += len(todo)
        if self.written >= self.analyze_at and not self.plan.dry_run:
            db.analyze(self.session.connection())
            self.analyze_at = 2 * self.written

    def _seen(self, entry: Any, key: str) -> None:
        first = self.seen.get(key)
        if first is not None:
            where = "earlier in this file" if first == entry.file else f"also in {first}"
            raise InvalidRecord(entry.file, entry.label, "key", f"duplicate claim key ({where})")
        self.seen[key] = entry.file

    # --- the end ---------------------------------------------------------------------------------

    def finish(self) -> ImportPlan:
        self._claims()
        targets = sorted({t for _, _, t in self.supersedes if t not in self.seen})
        known = existing_keys(self.session, targets)
        for file, label, target in self.supersedes:
            if target not in self.seen and target not in known:
                raise InvalidRecord(file, label, "superseded_by", f"unknown claim {target!r}")
        self._one_preferred()
        return self.plan

    def _one_preferred(self) -> None:
        """A quantity has at most one preferred value, counting the store's claims as the import leaves them."""
        rows = self.session.execute(
            select(col(MeasuredQuantity.key), col(Claim.key))
            .join(Claim, col(Claim.quantity_id) == col(MeasuredQuantity.id))
            .where(col(Claim.rank) == "preferred")
            .order_by(col(MeasuredQuantity.key), col(Claim.key))
        ).all()
        preferred: dict[str, list[str]] = {}
        for quantity, key in rows:
            preferred.setdefault(quantity, []).append(key)
        for quantity, keys in preferred.items():
            if len(keys) > 1:
                mine = next((k for k in keys if k in self.seen), None)
                raise InvalidRecord(
                    self.seen.get(mine, "import") if mine else "import",
                    repr(mine) if mine else None,
                    "rank",
                    f"quantity {quantity!r} would have {len(keys)} preferred values "
                    f"({', '.join(keys)}): prefer one",
                )


def _stored_row(session: Session, model: Any, key: str) -> Any:
    """The stored row of `model` with `key`, by column name."""
    table = table_of(model)
    return session.execute(select(table).where(table.c.key == key)).one()._mapping
