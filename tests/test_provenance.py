"""What people record: re-reads, retags, status changes, history; and that imports respect them."""

from __future__ import annotations

import dataclasses
import re

import pytest
from sqlalchemy import event, select

from claimsdb import db, provenance, queries, sources, store
from claimsdb.errors import BadQuery, InvalidField, RetagRaisesTrust, UnknownClaim
from claimsdb.models import Claim


def do(engine, fn, *args, **kwargs):
    with db.session_scope(engine) as session:
        return fn(session, *args, **kwargs)


def tag_of(engine, key):
    with db.session_scope(engine) as session:
        return session.scalars(select(Claim.tag).where(Claim.key == key)).one()


def test_reread_sets_spot_checked_and_records_who_where_and_what(engine):
    result = do(
        engine,
        provenance.reread,
        "widget.context",
        actor="ada",
        source="widget-report",
        locator="§4",
        quote="8K to 256K",
        note="checked the table too",
    )
    assert (result["tag_before"], result["tag_after"]) == ("note-2026-10-04", "spot-checked")
    assert tag_of(engine, "widget.context") == "spot-checked"
    last = do(engine, queries.history, "widget.context")["events"][-1]
    assert last["kind"] == "reread" and last["actor"] == "ada" and last["origin"] == "widget-report"
    assert last["detail"] == {
        "source": "widget-report",
        "url": "https://example.org/widget",
        "locator": "§4",
        "quote": "8K to 256K",
        "note": "checked the table too",
        "linked": True,
    }
    assert last["at"].endswith("+00:00")  # UTC


def test_reread_defaults_to_the_primary_page_and_refuses_notes(engine):
    do(engine, provenance.reread, "widget.pretrain", actor="ada")
    assert do(engine, queries.history, "widget.pretrain")["events"][-1]["origin"] == "widget-report"
    with pytest.raises(BadQuery, match="is a note, not a primary page"):
        do(engine, provenance.reread, "widget.pretrain", actor="ada", source="lab-notes")
    with pytest.raises(BadQuery, match="cites no primary page"):
        do(engine, provenance.reread, "gadget.fleet", actor="ada")  # cites only lab notes
    with pytest.raises(BadQuery, match="unknown source"):
        do(engine, provenance.reread, "gadget.fleet", actor="ada", source="nowhere")
    assert tag_of(engine, "gadget.fleet") == "agent-reported"


def test_retag_needs_a_known_tag_and_a_reason(engine):
    result = do(
        engine,
        provenance.retag,
        "widget.context",
        "prior-note",
        actor="bo",
        reason="from the March note",
    )
    assert (result["tag_before"], result["tag_after"]) == (
        "note-2026-10-04",
        "prior-note",
    )  # same trust: allowed
    with pytest.raises(BadQuery, match="unknown tag"):
        do(engine, provenance.retag, "widget.context", "gossip", actor="bo", reason="x")
    with pytest.raises(BadQuery, match="^reason must not be empty$"):
        do(engine, provenance.retag, "widget.context", "agent-reported", actor="bo", reason=" ")
    with pytest.raises(BadQuery, match="already tagged"):
        do(engine, provenance.retag, "widget.context", "prior-note", actor="bo", reason="again")
    with pytest.raises(UnknownClaim):
        do(engine, provenance.retag, "no.such", "prior-note", actor="bo", reason="x")


# What a person types that cannot be recorded, and the field the refusal is about (in the domain's word:
# the command line names it by its flag, the web by its form's label).
REFUSED_FIELDS = [
    ("locator", provenance.reread, dict(source="widget-report", locator="§2\x1b[2J")),
    ("quote", provenance.reread, dict(source="widget-report", quote="a\u202eb")),
    ("note", provenance.reread, dict(source="widget-report", note="\x07")),
    ("source", provenance.reread, dict(source="https://exa mple.org/x")),
    ("reason", provenance.retag, dict(tag="agent-reported", reason=" ")),
    ("reason", provenance.withdraw, dict(reason="")),
]


@pytest.mark.parametrize(
    "field, fn, kwargs", REFUSED_FIELDS, ids=[f"{f}-{fn.__name__}" for f, fn, _ in REFUSED_FIELDS]
)
def test_a_refused_value_names_its_field_never_a_flag(engine, field, fn, kwargs):
    before = do(engine, queries.history, "widget.pretrain")["events"]
    args = (kwargs["tag"],) if "tag" in kwargs else ()
    with pytest.raises(InvalidField) as refused:
        do(
            engine,
            fn,
            "widget.pretrain",
            *args,
            actor="ada",
            **{k: v for k, v in kwargs.items() if k != "tag"},
        )
    assert refused.value.field == field and refused.value.message.startswith(f"{field} ")
    assert "--" not in refused.value.message
    assert refused.value.named("Where").startswith("Where ")
    assert do(engine, queries.history, "widget.pretrain")["events"] == before


def test_a_missing_page_or_file_names_its_field(engine, tmp_path):
    with pytest.raises(InvalidField) as no_page:
        do(engine, provenance.reread, "gadget.fleet", actor="ada")  # cites only lab notes
    assert no_page.value.field == "source" and no_page.value.message.startswith(
        "source is needed: gadget.fleet "
    )
    with pytest.raises(InvalidField) as no_file:
        do(
            engine,
            sources.add_source,
            {"key": "x", "title": "X", "kind": "paper", "path": str(tmp_path / "none.pdf")},
        )
    assert (
        no_file.value.field == "path"
        and no_file.value.message == f"path {tmp_path / 'none.pdf'}: no such file"
    )


@pytest.mark.parametrize("target", ["prior-note", "spot-checked"])
def test_retag_never_raises_trust_only_a_reread_does(engine, target):
    with pytest.raises(
        RetagRaisesTrust, match=r"retag cannot raise gadget.fleet .*: only a re-read raises trust$"
    ) as refused:
        do(engine, provenance.retag, "gadget.fleet", target, actor="bo", reason="looked")
    assert (
        "only a re-read raises trust; a person re-reads gadget.fleet in the page its figure comes from"
        in refused.value.with_reread()
    )  # each door adds it its own way
    assert "`claims reread gadget.fleet`" in refused.value.with_reread()
    assert tag_of(engine, "gadget.fleet") == "agent-reported"
    with pytest.raises(BadQuery, match="retag cannot raise"):
        do(engine, provenance.retag, "widget.context", "spot-checked", actor="bo", reason="looked")
    lowered = do(
        engine,
        provenance.retag,
        "widget.pretrain",
        "agent-reported",
        actor="bo",
        reason="page moved",
    )
    assert lowered["tag_after"] == "agent-reported"  # lowering is always allowed


def test_withdraw_and_supersede_are_statuses_never_deletes(engine):
    do(engine, provenance.withdraw, "gadget.fleet", actor="bo", reason="wrong system")
    do(engine, provenance.supersede, "widget.context", by="widget.pretrain", actor="bo")
    with db.session_scope(engine) as session:
        rows = {
            c.key: (c.status, c.status_reason, c.superseded_by)
            for c in session.scalars(select(Claim))
        }
    assert rows["gadget.fleet"] == ("withdrawn", "wrong system", None)
    assert rows["widget.context"] == ("superseded", None, "widget.pretrain")
    assert len(rows) == 3
    with pytest.raises(BadQuery, match="already withdrawn"):
        do(engine, provenance.withdraw, "gadget.fleet", actor="bo", reason="again")
    with pytest.raises(BadQuery, match="cannot supersede itself"):
        do(engine, provenance.supersede, "widget.pretrain", by="widget.pretrain", actor="bo")
    with pytest.raises(UnknownClaim):
        do(engine, provenance.supersede, "widget.pretrain", by="no.such", actor="bo")


def test_history_is_every_event_oldest_first(engine, write_json, sample):
    do(engine, provenance.retag, "widget.pretrain", "prior-note", actor="bo", reason="r1")
    do(engine, provenance.reread, "widget.pretrain", actor="ada")
    do(engine, provenance.withdraw, "widget.pretrain", actor="cy", reason="dropped")
    events = do(engine, queries.history, "widget.pretrain")["events"]
    assert [(e["kind"], e["actor"], e["tag_before"], e["tag_after"]) for e in events] == [
        ("imported", "import", None, "spot-checked"),
        ("reread", "Grace Hopper", "spot-checked", "spot-checked"),  # named by the data file
        ("retagged", "bo", "spot-checked", "prior-note"),
        ("reread", "ada", "prior-note", "spot-checked"),
        ("status", "cy", None, None),
    ]


def test_import_keeps_a_rereads_tag_and_a_persons_status(engine, write_json, sample):
    do(engine, provenance.reread, "gadget.fleet", actor="ada", source="widget-report")
    do(engine, provenance.withdraw, "widget.context", actor="bo", reason="merged")
    with db.session_scope(engine) as session:
        plan = store.import_files(session, [str(write_json(sample))])
    assert sorted((c.key, c.field) for c in plan.conflicts) == [
        ("gadget.fleet", "tag"),
        ("widget.context", "status"),
    ]
    assert tag_of(engine, "gadget.fleet") == "spot-checked"
    assert do(engine, queries.history, "widget.context")["status"] == "withdrawn"


def test_a_later_retag_by_a_person_is_also_kept(engine, write_json, sample):
    do(engine, provenance.reread, "gadget.fleet", actor="ada", source="widget-report")
    do(
        engine,
        provenance.retag,
        "gadget.fleet",
        "prior-note",
        actor="bo",
        reason="the page was the March note",
    )
    with db.session_scope(engine) as session:
        store.import_files(session, [str(write_json(sample))])
    assert tag_of(engine, "gadget.fleet") == "prior-note"


def test_preview_shows_what_a_reread_would_record_and_writes_nothing(engine):
    before = do(engine, queries.history, "widget.context")["events"]
    preview = do(
        engine,
        provenance.preview_reread,
        "widget.context",
        source="widget-report",
        locator=" §4 ",
        quote="8K to 256K",
    )
    assert (preview.key, preview.source, preview.url) == (
        "widget.context",
        "widget-report",
        "https://example.org/widget",
    )
    assert (preview.tag_before, preview.tag_after, preview.status) == (
        "note-2026-10-04",
        "spot-checked",
        "active",
    )
    assert (preview.locator, preview.quote, preview.note) == ("§4", "8K to 256K", None)
    assert preview.linked and not preview.registers and preview.page == "widget-report"
    assert preview.figures and preview.vouched == preview.figures  # secondary: none vouched yet
    with pytest.raises(dataclasses.FrozenInstanceError):
        preview.source = "lab-notes"  # type: ignore[misc]
    assert do(engine, queries.history, "widget.context")["events"] == before
    assert tag_of(engine, "widget.context") == "note-2026-10-04"
    result = do(engine, provenance.reread, preview, actor="ada")
    assert (result["source"], result["linked"]) == ("widget-report", True)
    again = do(engine, provenance.preview_reread, "widget.context", source="widget-report")
    assert again.vouched == () and again.tag_before == "spot-checked" and not again.linked


def test_preview_of_a_url_new_to_the_store_registers_it_only_when_recorded(engine):
    url = "https://example.org/new-page"
    preview = do(engine, provenance.preview_reread, "widget.context", source=url)
    assert (preview.source, preview.url, preview.registers, preview.linked) == (
        None,
        url,
        True,
        True,
    )
    with db.session_scope(engine) as session:
        assert sources.find_by_url(session, url) is None
    result = do(engine, provenance.reread, preview, actor="ada")
    assert result["source_registered"] and result["linked"]
    with db.session_scope(engine) as session:
        assert sources.find_by_url(session, url).key == result["source"]


def _lookups(engine):
    """Count, on the real engine, the SELECTs that look a claim up by its key and those that resolve a
    source (by key, or among the sources with a URL)."""
    seen = {"claim key": 0, "source": 0}

    def count(conn, cursor, statement, params, context, executemany):
        flat = " ".join(statement.split())
        if re.match(r'SELECT .* FROM claim WHERE claim\."?key"? =', flat):
            seen["claim key"] += 1
        if re.match(r'SELECT .* FROM source WHERE source\.("?key"? =|url IS NOT NULL)', flat):
            seen["source"] += 1

    event.listen(engine, "before_cursor_execute", count)
    return seen, lambda: event.remove(engine, "before_cursor_execute", count)


@pytest.mark.parametrize("source", ["widget-report", "https://example.org/widget", None])
def test_a_reread_looks_its_key_up_once_and_resolves_its_page_once(engine, source):
    seen, stop = _lookups(engine)
    try:
        preview = do(engine, provenance.preview_reread, "widget.pretrain", source=source)
        assert seen == {"claim key": 1, "source": 1}
        do(engine, provenance.reread, preview, actor="ada")  # records the preview: looks nothing up
        assert seen == {"claim key": 1, "source": 1}
        do(
            engine,
            provenance.reread,
            "widget.context",
            actor="ada",
            source=source or "widget-report",
        )
        assert seen == {"claim key": 2, "source": 2}  # by key: previewed, then recorded, in one go
    finally:
        stop()


def test_a_preview_of_words_the_claim_no_longer_holds_records_nothing(engine, write_json, sample):
    """The person confirms a preview; meanwhile an import rewords the claim: the re-read would vouch
    for words nobody was shown, so it is refused and nothing is recorded."""
    preview = do(engine, provenance.preview_reread, "widget.context", source="widget-report")
    record = next(c for c in sample["claims"] if c["key"] == "widget.context")
    record["statement"] = "Widget-7's context grew from 8K to 512K tokens."
    record["figures"] = ["8K → 512K"]
    with db.session_scope(engine) as session:
        store.import_files(session, [str(write_json(sample))])
    before = do(engine, queries.history, "widget.context")["events"]
    with pytest.raises(BadQuery, match="changed since it was shown"):
        do(engine, provenance.reread, preview, actor="ada")
    assert do(engine, queries.history, "widget.context")["events"] == before
    assert tag_of(engine, "widget.context") == "note-2026-10-04"
    fresh = do(engine, provenance.preview_reread, "widget.context", source="widget-report")
    do(engine, provenance.reread, fresh, actor="ada")  # shown again, it records
    assert tag_of(engine, "widget.context") == "spot-checked"


def test_a_preview_recorded_later_records_the_claims_state_then(engine):
    """The person confirms a preview; meanwhile someone else re-reads the claim: the second re-read
    records the tag it replaces then, and links no page twice."""
    preview = do(engine, provenance.preview_reread, "widget.context", source="widget-report")
    do(engine, provenance.reread, "widget.context", actor="bo", source="widget-report")
    result = do(engine, provenance.reread, preview, actor="ada")
    assert result["tag_before"] == "spot-checked" and not result["linked"]
    with pytest.raises(TypeError):
        do(engine, provenance.reread, preview, actor="ada", locator="§9")
