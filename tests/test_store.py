"""Import: all or nothing, idempotent, updates with events, never over a person's tag."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from claimsdb import db, provenance, store
from claimsdb.errors import InvalidRecord
from claimsdb.importer import stream as importer
from claimsdb.models import Claim, Event, Figure
from claimsdb.records import reading
from tests.conftest import show_json, store_digest
from tests.pages import reread_of


@pytest.fixture
def engine(store):
    return db.open_engine(store)


def run_import(engine, *paths, dry_run=False):
    with db.session_scope(engine) as session:
        plan = store.import_files(session, [str(p) for p in paths], dry_run=dry_run)
        if dry_run:
            session.rollback()
    return plan


def events(engine, key):
    with db.session_scope(engine) as session:
        claim = session.scalars(select(Claim).where(Claim.key == key)).one()
        return [
            (e.kind, e.actor, e.tag_before, e.tag_after)
            for e in session.scalars(
                select(Event).where(Event.claim_id == claim.id).order_by(Event.id)
            )
        ]


def claim_row(engine, key):
    with db.session_scope(engine) as session:
        return session.scalars(select(Claim).where(Claim.key == key)).one()


def test_first_import_adds_everything_with_an_imported_event(engine, write_json, sample):
    plan = run_import(engine, write_json(sample))
    assert plan.added == ["widget.pretrain", "widget.context", "gadget.fleet"]
    assert plan.tags_added == ["note-2026-10-04"] and set(plan.sources_added) == {
        "lab-notes",
        "widget-report",
    }
    assert events(engine, "widget.context") == [("imported", "import", None, "note-2026-10-04")]
    with db.session_scope(engine) as session:
        raws = session.scalars(select(Figure.raw).order_by(Figure.id)).all()
    assert raws == ["3,072 H100", "21.5T tokens", "8K → 256K", "40–60K sandboxes"]


def test_importing_the_same_file_again_changes_nothing(engine, write_json, sample, store):
    path = write_json(sample)
    run_import(engine, path)
    before = store_digest(store)
    plan = run_import(engine, path)
    assert plan.added == [] and plan.updated == {} and len(plan.unchanged) == 3
    assert plan.sources_added == plan.sources_updated == plan.tags_added == []
    engine.dispose()
    assert store_digest(store) == before


def test_a_changed_record_updates_its_claim_and_writes_an_event(engine, write_json, sample):
    run_import(engine, write_json(sample))
    sample["claims"][0]["statement"] = "Widget-7 used 3,072 H100 GPUs and saw 21.5T tokens."
    sample["claims"][0]["figures"] = ["3,072 H100", "21.5T tokens", "~90 days"]
    plan = run_import(engine, write_json(sample))
    assert plan.updated == {"widget.pretrain": ["figures", "statement"]}
    assert claim_row(engine, "widget.pretrain").statement.startswith("Widget-7 used")
    kinds = events(engine, "widget.pretrain")
    assert kinds == [
        ("imported", "import", None, "spot-checked"),
        ("reread", "Grace Hopper", "spot-checked", "spot-checked"),
        ("updated", "import", None, None),
    ]
    with db.session_scope(engine) as session:
        figs = session.scalars(
            select(Figure.raw)
            .join(Claim)
            .where(Claim.key == "widget.pretrain")
            .order_by(Figure.position)
        ).all()
    assert figs == ["3,072 H100", "21.5T tokens", "~90 days"]


def test_aliases_are_the_files_and_a_change_is_an_update(engine, write_json, sample, claims):
    """widget.context's tag is the file's own (secondary, nobody's word on it): so are its aliases
    (a person's claim keeps its own: tests/cli/test_kept_fields.py)."""
    sample["claims"][1]["aliases"] = ["Widget"]
    run_import(engine, write_json(sample))
    assert claim_row(engine, "widget.context").aliases == "Widget"
    sample["claims"][1]["aliases"] = ["Widget", "W7"]
    plan = run_import(engine, write_json(sample))
    assert plan.updated == {"widget.context": ["aliases"]}
    assert claim_row(engine, "widget.context").aliases == "Widget\nW7"
    assert [k for k, *_ in events(engine, "widget.context")] == ["imported", "updated"]
    shown = claims("show", "widget.context")
    assert shown.exit_code == 0 and "Widget-7 (also Widget, W7)" in shown.stdout
    assert show_json(claims, "widget.context")["aliases"] == ["Widget", "W7"]


def test_an_import_may_change_a_tag_that_only_imports_set(engine, write_json, sample):
    run_import(engine, write_json(sample))
    sample["claims"][2]["tag"] = "prior-note"
    plan = run_import(engine, write_json(sample))
    assert plan.updated == {"gadget.fleet": ["tag"]} and plan.conflicts == []
    assert claim_row(engine, "gadget.fleet").tag == "prior-note"
    assert events(engine, "gadget.fleet")[-1] == (
        "updated",
        "import",
        "agent-reported",
        "prior-note",
    )


def record_person_reread(engine, key, actor="ada"):
    """A person's re-read of the claim in the widget report (which becomes evidence of it), checked
    against the report's words."""
    with db.session_scope(engine) as session:
        provenance.reread(session, key, actor=actor, note="seen on the page", **reread_of(key))


def test_an_import_never_overrides_a_tag_a_person_set(engine, write_json, sample):
    path = write_json(sample)
    run_import(engine, path)
    record_person_reread(engine, "gadget.fleet")
    plan = run_import(engine, path)
    assert claim_row(engine, "gadget.fleet").tag == "spot-checked"
    (conflict,) = plan.conflicts
    assert (conflict.key, conflict.field, conflict.kept, conflict.offered) == (
        "gadget.fleet",
        "tag",
        "spot-checked",
        "agent-reported",
    )
    assert "ada" in conflict.why
    assert "gadget.fleet" in plan.unchanged
    assert [e[0] for e in events(engine, "gadget.fleet")] == ["imported", "reread"]


def test_a_person_owned_tag_survives_a_data_change_while_the_data_still_updates(
    engine, write_json, sample
):
    run_import(engine, write_json(sample))
    record_person_reread(engine, "gadget.fleet")
    sample["claims"][2]["statement"] = "Gadget runs 40–60K sandboxes concurrently."
    plan = run_import(engine, write_json(sample))
    assert plan.updated == {"gadget.fleet": ["statement"]}
    assert [(c.field, c.applied) for c in plan.conflicts] == [("tag", False), ("statement", True)]
    assert (
        "re-read by ada" in plan.conflicts[1].why
        and "claims reread gadget.fleet" in plan.conflicts[1].why
    )
    row = claim_row(engine, "gadget.fleet")
    assert (row.tag, row.statement) == (
        "spot-checked",
        "Gadget runs 40–60K sandboxes concurrently.",
    )


def test_dry_run_plans_but_writes_nothing(engine, write_json, sample, store):
    run_import(engine, write_json(sample))
    sample["claims"][1]["basis"] = "Changed basis."
    sample["claims"].append({**sample["claims"][2], "key": "gadget.extra"})
    engine.dispose()
    before = store_digest(store)
    plan = run_import(engine, write_json(sample), dry_run=True)
    assert plan.added == ["gadget.extra"] and plan.updated == {"widget.context": ["basis"]}
    engine.dispose()
    assert store_digest(store) == before


BAD_CASES = {
    "unknown tag": (lambda d: d["claims"][0].update(tag="hearsay"), "tag", "unknown tag 'hearsay'"),
    "unknown source": (
        lambda d: d["claims"][0]["evidence"][0].update(source="nowhere"),
        "evidence[0].source",
        "unknown source",
    ),
    "duplicate key": (
        lambda d: d["claims"].append(dict(d["claims"][0])),
        "key",
        "duplicate claim key",
    ),
    "unparseable figure": (
        lambda d: d["claims"][1].update(figures=["12..5K"]),
        "figures[0]",
        "cannot parse",
    ),
    "retrust a tag": (
        lambda d: d["tags"].append({"name": "agent-reported", "trust": "verified"}),
        "trust",
        "cannot change",
    ),
    "unknown superseding claim": (
        lambda d: d["claims"][0].update(status="superseded", superseded_by="no.such"),
        "superseded_by",
        "unknown claim",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", BAD_CASES)
def test_a_bad_record_aborts_the_whole_import_and_leaves_the_file_unchanged(
    engine, write_json, sample, store, case
):
    run_import(engine, write_json(sample, "good.json"))
    # A good file in the same call, whose new claim must not land either.
    good_too = {"claims": [{**sample["claims"][2], "key": "gadget.second"}]}
    mutate, field, reason = BAD_CASES[case]
    mutate(sample)
    engine.dispose()
    before = store_digest(store)
    with pytest.raises(InvalidRecord) as info:
        run_import(engine, write_json(good_too, "other.json"), write_json(sample, "bad.json"))
    assert info.value.field == field and reason in info.value.reason
    assert info.value.file.endswith("bad.json")
    engine.dispose()
    assert store_digest(store) == before


def test_duplicate_key_across_two_files_names_both(engine, write_json, sample):
    first = write_json(sample, "a.json")
    second = write_json({"claims": [sample["claims"][0]]}, "b.json")
    with pytest.raises(
        InvalidRecord,
        match=r"b\.json, record 'widget\.pretrain', field 'key': duplicate claim key \(also in .*a\.json\)",
    ):
        run_import(engine, first, second)


def test_claims_may_cite_sources_and_tags_already_in_the_database(engine, write_json, sample):
    run_import(engine, write_json(sample))
    later = {"claims": [{**sample["claims"][1], "key": "widget.context.v2"}]}
    plan = run_import(engine, write_json(later, "later.json"))
    assert plan.added == ["widget.context.v2"]


def test_superseded_status_from_data_is_stored(engine, write_json, sample):
    sample["claims"][1].update(
        status="superseded", superseded_by="widget.pretrain", status_reason="merged"
    )
    run_import(engine, write_json(sample))
    row = claim_row(engine, "widget.context")
    assert (row.status, row.superseded_by, row.status_reason) == (
        "superseded",
        "widget.pretrain",
        "merged",
    )


# --- streamed imports: batches, digests of unchanged records --------------------------------------


def write_lines(tmp_path, records, name="claims.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def numbered(i, **extra):
    return {
        "key": f"c.{i:03d}",
        "subject": "S",
        "statement": f"S used {i + 1} GPUs.",
        "tag": "agent-reported",
        "basis": "b",
        "figures": [f"{i + 1} GPUs"],
        "evidence": [{"source": "widget-report"}],
        **extra,
    }


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(importer, "BATCH", 3)  # so that a few records span several batches


@pytest.mark.slow
@pytest.mark.usefixtures("small_batches")
def test_a_bad_record_in_a_later_batch_leaves_the_database_as_it_was(
    engine, write_json, sample, tmp_path, store
):
    run_import(engine, write_json(sample))
    engine.dispose()
    before = store_digest(store)
    lines = [numbered(i) for i in range(10)] + [numbered(10, tag="gossip")]
    with pytest.raises(InvalidRecord, match=r"record 'c.010' \(line 11\), field 'tag'"):
        run_import(engine, write_lines(tmp_path, lines))
    engine.dispose()
    assert store_digest(store) == before


@pytest.mark.usefixtures("small_batches")
def test_checks_that_span_batches(engine, write_json, sample, tmp_path):
    run_import(engine, write_json(sample))
    # a claim may be superseded by one that comes batches later
    lines = [numbered(0, status="superseded", superseded_by="c.009")] + [
        numbered(i) for i in range(1, 10)
    ]
    plan = run_import(engine, write_lines(tmp_path, lines))
    assert len(plan.added) == 10 and claim_row(engine, "c.000").superseded_by == "c.009"
    with pytest.raises(InvalidRecord, match="duplicate claim key"):
        run_import(
            engine,
            write_lines(tmp_path, [numbered(i) for i in range(5)] + [numbered(1)], "dup.jsonl"),
        )
    with pytest.raises(InvalidRecord, match="unknown claim 'c.999'"):
        run_import(
            engine,
            write_lines(
                tmp_path, [numbered(20, status="superseded", superseded_by="c.999")], "s.jsonl"
            ),
        )


def test_an_unchanged_record_is_not_read_again_unless_the_rules_or_a_person_changed(
    engine, write_json, sample, monkeypatch
):
    path = write_json(sample)
    run_import(engine, path)
    with db.session_scope(engine) as session:
        digests = dict(session.execute(select(Claim.key, Claim.record_sha256)).all())
    assert all(digests.values())
    validated = []
    original = store.records.Entry.record
    monkeypatch.setattr(
        store.records.Entry,
        "record",
        lambda self: (self.kind == "claim" and validated.append(self.key)) or original(self),
    )
    plan = run_import(engine, path)
    assert validated == [] and sorted(plan.unchanged) == sorted(digests)  # nothing read again
    with db.session_scope(
        engine
    ) as session:  # a person lowers a tag: the next import reads that record
        provenance.retag(
            session, "widget.pretrain", "prior-note", actor="bo", reason="the March note"
        )
    plan = run_import(engine, path)
    assert validated == ["widget.pretrain"] and [c.field for c in plan.conflicts] == ["tag"]
    monkeypatch.setattr(reading, "_rules_digest", lambda: "rules-of-a-newer-claimsdb")
    validated.clear()
    run_import(engine, path)
    assert sorted(validated) == sorted(digests)  # new rules: every record is read again


@pytest.mark.slow
def test_a_dry_run_streams_like_an_import_and_is_rolled_back(
    engine, write_json, sample, tmp_path, store
):
    run_import(engine, write_json(sample))
    engine.dispose()
    before = store_digest(store)
    plan = run_import(engine, write_lines(tmp_path, [numbered(i) for i in range(7)]), dry_run=True)
    assert len(plan.added) == 7
    engine.dispose()
    assert store_digest(store) == before
