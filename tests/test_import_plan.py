"""Planning an import decides and writes nothing; writing applies exactly what was planned."""

from __future__ import annotations

from sqlalchemy import func, select

from claimsdb import db, provenance
from claimsdb.importer.plan import plan_claims
from claimsdb.importer.stream import Importer
from claimsdb.models import Claim, Event
from claimsdb.records.validation import claim_record
from claimsdb.trust.channels import DATA_FILE


def counts(session):
    return (
        session.scalar(select(func.count()).select_from(Event)),
        session.scalar(select(Claim.statement).where(Claim.key == "gadget.fleet")),
        session.scalar(select(Claim.status).where(Claim.key == "gadget.fleet")),
    )


def test_a_plan_writes_nothing_and_keeps_a_persons_status_and_the_writer_applies_it(engine, sample):
    with db.session_scope(engine) as session:
        provenance.withdraw(session, "gadget.fleet", actor="grace", reason="a typo in the sweep")
    record = {**sample["claims"][2], "statement": "Gadget runs 50K sandboxes at once."}
    record["figures"] = ["50K sandboxes"]
    with db.session_scope(engine) as session:
        before = counts(session)
        importer = Importer(
            session, ["data.json"], {"data.json": DATA_FILE}, dry_run=False, actor="x"
        )
        rec = claim_record(record, file="data.json")
        batch = plan_claims(
            session, [rec], {rec.key: None}, {rec.key}, importer.known, importer.plan
        )
        assert counts(session) == before  # planned: nothing written
        assert set(batch.changes["gadget.fleet"]) == {"statement", "figures"}
        assert [(c.field, c.kept, c.offered) for c in importer.plan.conflicts] == [
            ("status", "withdrawn", "active")
        ]
        assert importer.plan.conflicts[0].why.startswith("set by grace (status, ")
        assert importer.plan.updated == {"gadget.fleet": ["figures", "statement"]}

        importer.writer.claims(batch)
        events, statement, status = counts(session)
        assert (events, statement, status) == (
            before[0] + 1,
            "Gadget runs 50K sandboxes at once.",
            "withdrawn",  # the person's status stays
        )
