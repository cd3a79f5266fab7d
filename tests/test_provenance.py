"""What people record: re-reads, retags, status changes, history; and that imports respect them."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from sqlalchemy import event, select, update

from claimsdb import db, history, integrity, paper_safe, provenance, queries, sources, store
from claimsdb.errors import BadQuery, InvalidField, RetagRaisesTrust, UnknownClaim
from claimsdb.models import Claim, Event, utcnow
from claimsdb.queries import ClaimFilter
from claimsdb.reread_page import PageRead
from claimsdb.trust.rule import Policy, with_reread
from tests.pages import CONTEXT, read, reread_of, widget_report


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
        read=widget_report(),
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
        "checked": {  # the page the quote was checked against, and what it found
            "how": "copy",
            "sha256": widget_report().sha256,
            "at": None,
            "where": "pages/widget-report.md",
            "outcome": "confirmed",
        },
    }
    assert result["checked"] == last["detail"]["checked"] and result["attested"] is None
    assert last["at"].endswith("+00:00")  # UTC


def test_reread_names_its_page_and_refuses_notes(engine):
    do(engine, provenance.reread, "widget.pretrain", actor="ada", **reread_of("widget.pretrain"))
    assert do(engine, queries.history, "widget.pretrain")["events"][-1]["origin"] == "widget-report"
    elsewhere = {**reread_of("gadget.fleet"), "source": None}
    with pytest.raises(BadQuery, match="is a note, not a primary page"):
        do(
            engine,
            provenance.reread,
            "gadget.fleet",
            actor="ada",
            **elsewhere | {"source": "lab-notes"},
        )
    with pytest.raises(InvalidField, match="^source is needed: a re-read names the page"):
        do(engine, provenance.reread, "gadget.fleet", actor="ada", **elsewhere)  # no page named
    with pytest.raises(BadQuery, match="unknown source"):
        do(
            engine,
            provenance.reread,
            "gadget.fleet",
            actor="ada",
            **elsewhere | {"source": "nowhere"},
        )
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
WIDGET_REREAD = reread_of("widget.pretrain")  # every field of a re-read filled in, rightly
REFUSED_FIELDS = [
    ("locator", provenance.reread, WIDGET_REREAD | dict(locator="§2\x1b[2J")),
    ("quote", provenance.reread, WIDGET_REREAD | dict(quote="a\u202eb")),
    ("note", provenance.reread, WIDGET_REREAD | dict(note="\x07")),
    ("attest", provenance.reread, WIDGET_REREAD | dict(read=None, attest="paywall\x1b[2J")),
    ("source", provenance.reread, WIDGET_REREAD | dict(source="https://exa mple.org/x")),
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
        do(engine, provenance.reread, "gadget.fleet", actor="ada")  # names no page
    assert no_page.value.field == "source" and no_page.value.message.startswith(
        "source is needed: a re-read names the page, the place in it and the page's own words "
        "(missing: source, locator, quote)"
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
        in with_reread(refused.value)
    )  # each door adds it its own way
    assert "`claims reread gadget.fleet`" in with_reread(refused.value)
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
    do(engine, provenance.reread, "widget.pretrain", actor="ada", **reread_of("widget.pretrain"))
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
    do(engine, provenance.reread, "gadget.fleet", actor="ada", **reread_of("gadget.fleet"))
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
    do(engine, provenance.reread, "gadget.fleet", actor="ada", **reread_of("gadget.fleet"))
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
        read=widget_report(),
    )
    assert preview.refusal is None and preview.check.outcome == "confirmed"
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
    again = do(
        engine,
        provenance.preview_reread,
        "widget.context",
        source="widget-report",
        locator="§4",
        quote="8K to 256K",
        read=widget_report(),
    )
    assert again.vouched == () and again.tag_before == "spot-checked" and not again.linked


def test_preview_of_a_url_new_to_the_store_registers_it_only_when_recorded(engine):
    url = "https://example.org/new-page"
    preview = do(
        engine,
        provenance.preview_reread,
        "widget.context",
        source=url,
        locator="§4.2",
        quote="grew from 8K to 256K tokens",
        read=read(*CONTEXT, page=url),
    )
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


@pytest.mark.parametrize("source", ["widget-report", "https://example.org/widget"])
def test_a_reread_looks_its_key_up_once_and_resolves_its_page_once(engine, source):
    seen, stop = _lookups(engine)
    try:
        preview = do(
            engine,
            provenance.preview_reread,
            "widget.pretrain",
            **reread_of("widget.pretrain") | {"source": source},
        )
        assert seen == {"claim key": 1, "source": 1}
        do(engine, provenance.reread, preview, actor="ada")  # records the preview: looks nothing up
        assert seen == {"claim key": 1, "source": 1}
        do(
            engine,
            provenance.reread,
            "widget.context",
            actor="ada",
            **reread_of("widget.context") | {"source": source},
        )
        assert seen == {"claim key": 2, "source": 2}  # by key: previewed, then recorded, in one go
    finally:
        stop()


def test_a_preview_of_words_the_claim_no_longer_holds_records_nothing(engine, write_json, sample):
    """The person confirms a preview; meanwhile an import rewords the claim: the re-read would vouch
    for words nobody was shown, so it is refused and nothing is recorded."""
    preview = do(engine, provenance.preview_reread, "widget.context", **reread_of("widget.context"))
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
    revised = read(CONTEXT[0], "Widget-7's context grew from 8K to 512K tokens in midtraining.")
    fresh = do(  # the page, as it now reads, says 512K
        engine,
        provenance.preview_reread,
        "widget.context",
        **reread_of("widget.context") | {"quote": "grew from 8K to 512K tokens", "read": revised},
    )
    do(engine, provenance.reread, fresh, actor="ada")  # shown again, it records
    assert tag_of(engine, "widget.context") == "spot-checked"


def test_a_preview_recorded_later_records_the_claims_state_then(engine):
    """The person confirms a preview; meanwhile someone else re-reads the claim: the second re-read
    records the tag it replaces then, and links no page twice."""
    preview = do(engine, provenance.preview_reread, "widget.context", **reread_of("widget.context"))
    do(engine, provenance.reread, "widget.context", actor="bo", **reread_of("widget.context"))
    result = do(engine, provenance.reread, preview, actor="ada")
    assert result["tag_before"] == "spot-checked" and not result["linked"]
    with pytest.raises(TypeError):
        do(engine, provenance.reread, preview, actor="ada", locator="§9")


# --- a re-read on the page's own words (issue 32) ------------------------------------------------------


def view_of(engine, key):
    with db.session_scope(engine) as session:
        return queries.claim_views(session, [queries.get_claim(session, key)], events=None)[0]


def failed_checks(engine) -> list[str]:
    """What `claims db check` finds wrong with the store (integrity.check_store): nothing, when intact."""
    revision = db.current_revision(engine)
    with db.session_scope(engine) as session:
        checks = integrity.check_store(
            session,
            revision=revision,
            head_revision=db.HEAD_REVISION,
            expected_triggers=db.TRIGGERS[engine.dialect.name],
            installed_triggers=db.installed_triggers(session.connection()),
        )
    return [f"{c.name}: {c.detail}" for c in checks if not c.ok]


def recorded(engine, key):
    """What a claim holds that a re-read would change: its events, tag, evidence, statement, figures."""
    v = view_of(engine, key)
    events = do(engine, queries.history, key)["events"]
    return events, v.tag, v.sources, v.statement, v.figures


# the widget report's compute section stating 2,048 GPUs, where widget.pretrain says 3,072
STATED = "Widget-7 was pretrained on 2,048 H100 GPUs for 21.5T tokens."


@pytest.mark.parametrize(
    "changed, why",
    [
        ({"read": None}, "the page was not read"),
        (
            {"read": PageRead("widget-report", "fetched", None, error="HTTP 404")},
            "the page cannot be had (no snapshot, and the fetch failed: HTTP 404)",
        ),
        (
            {"read": PageRead("widget-report", "copy", None, error="not a PDF")},
            "the page cannot be had (it cannot be read: not a PDF)",
        ),
        (
            {"quote": "Widget-7 used 3,072 GPUs in all"},
            "the quote is not on the page; the page says there:",
        ),
        ({"locator": "the report"}, "the locator 'the report' names no section"),
        ({"read": read("## 3.1 Compute", STATED)}, "the page says 2,048 H100 GPUs where the claim"),
        (
            {"read": read("## 3.1 Compute", "Widget-7 was pretrained on 3,072 H100 GPUs.")},
            "21.5T tokens is neither in the quote nor in the passage around it",
        ),
    ],
    ids=["no read", "fetch failed", "unreadable copy", "not on page", "vague", "other", "missing"],
)
def test_a_reread_the_page_does_not_bear_out_is_refused_and_records_nothing(engine, changed, why):
    asked = reread_of("widget.pretrain") | changed
    before = recorded(engine, "widget.pretrain")
    with db.session_scope(engine) as session:
        preview = provenance.preview_reread(session, "widget.pretrain", **asked)
    assert preview.refusal is not None and why in preview.refusal
    with pytest.raises(BadQuery, match="^widget.pretrain: nothing recorded: ") as refused:
        do(engine, provenance.reread, "widget.pretrain", actor="ada", **asked)
    assert why in refused.value.message
    # nor when the refused preview is confirmed
    with pytest.raises(BadQuery, match="nothing recorded"):
        do(engine, provenance.reread, preview, actor="ada")
    assert recorded(engine, "widget.pretrain") == before


def test_a_correction_changes_the_figure_the_statement_and_the_trace_in_one_reread(engine):
    asked = reread_of("widget.pretrain") | {
        "quote": "pretrained on 2,048 H100 GPUs",
        "read": read("## 3.1 Compute", STATED),
    }
    with pytest.raises(BadQuery, match=r"correct the claim: '2,048 H100 GPUs'"):
        do(engine, provenance.reread, "widget.pretrain", actor="ada", **asked)
    with pytest.raises(BadQuery, match="'3,000 H100' is not what the page says"):
        do(
            engine,
            provenance.reread,
            "widget.pretrain",
            actor="ada",
            correct=("3,000 H100",),
            **asked,
        )
    before = do(engine, queries.history, "widget.pretrain")["events"]
    result = do(
        engine, provenance.reread, "widget.pretrain", actor="ada", correct=("2,048 H100",), **asked
    )
    assert result["corrected"] == [["3,072 H100", "2,048 H100"]]
    assert result["checked"]["outcome"] == "confirmed" and result["attested"] is None
    v = view_of(engine, "widget.pretrain")
    assert v.statement == STATED
    assert [(f["raw"], f["value"]) for f in v.figures] == [
        ("2,048 H100", 2048),
        ("21.5T tokens", 21.5e12),
    ]
    with db.session_scope(engine) as session:  # the trace index (figure_number) follows the figure
        assert [m["claim"]["key"] for m in queries.trace(session, "2,048 H100")["matches"]] == [
            "widget.pretrain"
        ]
        assert queries.trace(session, "3,072 H100")["matches"] == []
    events = do(engine, queries.history, "widget.pretrain")["events"]
    assert events[: len(before)] == before and len(events) == len(before) + 1
    last = events[-1]
    assert (last["kind"], last["actor"]) == ("reread", "ada")
    assert last["detail"]["corrected"] == [["3,072 H100", "2,048 H100"]]
    assert last["detail"]["checked"]["outcome"] == "confirmed"
    # the event's digests are the claim's content and stored record now: every check agrees
    with db.session_scope(engine) as session:
        digests = session.execute(
            select(Event.content_sha256, Event.stored_sha256)
            .where(Event.claim_id == v.id)
            .order_by(Event.id)
        ).all()
    assert digests[-1].content_sha256 == history.content_digest(
        v.subject,
        STATED,
        [("2,048 H100", None), ("21.5T tokens", None)],
        [("widget-report", "§3.1", "3,072 H100 GPUs"), ("widget-report", "§3.1", asked["quote"])],
        v.label,
    )
    imported = [d.stored_sha256 for d in digests if d.stored_sha256 is not None]
    assert len(imported) == 2 and imported[-1] == digests[-1].stored_sha256 != imported[0]
    assert not v.integrity
    assert v.trust == "verified" and not v.reread_outdated and v.reread_check == "checked"
    assert failed_checks(engine) == []
    # checked against the page: even the strict policy counts it
    assert Policy(strict=True).allows(v)


def test_the_correction_the_refusal_suggests_reads_right_in_the_statement(engine):
    asked = reread_of("widget.pretrain") | {
        "quote": "pretrained on 2,048 H100 GPUs",
        "read": read("## 3.1 Compute", STATED),
        "correct": ("2,048 H100 GPUs",),  # as the refusal words it
    }
    do(engine, provenance.reread, "widget.pretrain", actor="ada", **asked)
    assert view_of(engine, "widget.pretrain").statement == STATED


def test_an_attested_reread_vouches_under_the_default_policy_only(engine):
    result = do(
        engine,
        provenance.reread,
        "gadget.fleet",
        actor="ada",
        source="widget-report",
        locator="Table 2",
        quote="40–60K sandboxes",
        attest="the report is behind a login; read on a colleague's screen",
    )
    reason = "the report is behind a login; read on a colleague's screen"
    assert result["attested"] == reason and result["checked"] is None
    last = do(engine, queries.history, "gadget.fleet")["events"][-1]
    assert last["detail"]["attested"] == reason and "checked" not in last["detail"]
    v = view_of(engine, "gadget.fleet")
    assert (v.tag, v.trust, v.reread_check, v.attested) == (
        "spot-checked",
        "verified",
        "attested",
        reason,
    )
    assert v.tag_reason.endswith(f"(attested, not checked against the page: {reason})")
    assert Policy().allows(v) and Policy().blockers(v) == []
    strict = Policy(strict=True)
    assert not strict.allows(v)
    assert [(b.kind, reason in b.reason) for b in strict.blockers(v)] == [("attested", True)]
    assert not v.integrity and failed_checks(engine) == []
    with pytest.raises(InvalidField, match="^attest cannot go with a correction"):
        do(
            engine,
            provenance.reread,
            "gadget.fleet",
            actor="ada",
            correct=("50K sandboxes",),
            **reread_of("gadget.fleet") | {"read": None, "attest": "paywall"},
        )


def test_a_data_files_reread_is_an_attestation(engine):
    v = view_of(engine, "widget.pretrain")  # the SAMPLE's re-read by Grace Hopper
    assert (v.reread_check, v.attested) == (
        "attested",
        "recorded in a data file; the page was not checked",
    )
    assert Policy().allows(v) and [b.kind for b in Policy(strict=True).blockers(v)] == ["attested"]


def reread_before_checks(engine, key: str, source: str, locator: str, quote: str) -> None:
    """A re-read as a release before issue 32 recorded it: no `checked` in its detail, the page it names
    cited by the claim already. Appended with the store's own history.append_one, then the tag it sets."""
    with db.session_scope(engine) as session:
        history.begin_write(session)
        claim = queries.get_claim(session, key)
        v = queries.claim_views(session, [claim], events=0)[0]
        event = {
            "claim": key,
            "claim_id": claim.id,
            "at": utcnow(),
            "kind": "reread",
            "actor": "ada",
            "tag_before": claim.tag,
            "tag_after": "spot-checked",
            "origin": source,
            "detail": json.dumps(
                {"source": source, "locator": locator, "quote": quote, "linked": False}
            ),
            "content_sha256": history.content_digest(
                claim.subject,
                claim.statement,
                [(f["raw"], f["name"]) for f in v.figures],
                [(s["key"], s["locator"], s["quote"]) for s in v.sources],
                claim.label,
            ),
        }
        history.append_one(session, event)
        session.execute(update(Claim).where(Claim.id == claim.id).values(tag="spot-checked"))


def test_an_import_event_never_vouches_for_a_verified_tag_by_itself(engine):
    """Issue 34: an `imported` event that sets a verified tag, appended with the store's own code and
    correct hashes (what a PostgreSQL writer can do), names nobody who re-read the claim: it vouches for
    nothing, so the claim stays blocked under every policy and db check finds the store intact."""
    key = "gadget.fleet"
    with db.session_scope(engine) as session:
        history.begin_write(session)
        claim = queries.get_claim(session, key)
        last = session.scalars(
            select(Event).where(Event.claim_id == claim.id).order_by(Event.id.desc())
        ).first()
        assert last is not None
        event = {
            "claim": key,
            "claim_id": claim.id,
            "at": utcnow(),
            "kind": "imported",
            "actor": "import",
            "tag_before": claim.tag,
            "tag_after": "spot-checked",
            "origin": "data/x.json#gadget.fleet",
            "detail": json.dumps({"changed": ["tag"]}),
            "content_sha256": last.content_sha256,
            "stored_sha256": last.stored_sha256,
        }
        history.append_one(session, event)
        session.execute(update(Claim).where(Claim.id == claim.id).values(tag="spot-checked"))
    v = view_of(engine, key)
    assert v.trust == "verified" and not v.integrity and v.vouched_event is None
    assert not Policy().allows(v) and not Policy(strict=True).allows(v)
    assert (
        v.outdated_reason == "no person's re-read stands behind its verified tag (an import set it)"
    )
    assert failed_checks(engine) == []  # a well-formed event: only what it vouches for is refused
    with db.session_scope(engine) as session:
        result = paper_safe.prepare(session, ClaimFilter(), policy=Policy(), mode="skip-unsafe")
    assert key not in [r.key for r in result.rows]


def test_a_reread_recorded_before_rereads_were_checked_keeps_vouching(engine):
    reread_before_checks(engine, "widget.pretrain", "widget-report", "§3.1", "3,072 H100 GPUs")
    v = view_of(engine, "widget.pretrain")
    assert (v.reread_check, v.attested) == ("unchecked", None)
    assert v.trust == "verified" and not v.reread_outdated and not v.integrity
    assert v.tag_reason.endswith(
        "(not checked against the page: recorded before re-reads were checked)"
    )
    assert Policy().allows(v) and Policy(strict=True).allows(v)  # not an attestation
    assert failed_checks(engine) == []
    with db.session_scope(engine) as session:
        manifest = paper_safe.prepare(
            session, ClaimFilter(), policy=Policy(), mode="skip-unsafe"
        ).manifest
    assert manifest["rereads_not_checked_on_page"] == 1 and manifest["attested_rereads"] == 0


def test_an_export_manifest_lists_each_attested_row_with_its_reason(engine):
    do(
        engine,
        provenance.reread,
        "gadget.fleet",
        actor="ada",
        **reread_of("gadget.fleet") | {"read": None, "attest": "a printed copy, not online"},
    )
    do(engine, provenance.reread, "widget.context", actor="ada", **reread_of("widget.context"))

    def manifest(strict: bool) -> dict:
        with db.session_scope(engine) as session:
            return paper_safe.prepare(
                session, ClaimFilter(), policy=Policy(strict=strict), mode="skip-unsafe"
            ).manifest

    default = manifest(False)
    assert default["attested_rereads"] == 2 and default["rereads_not_checked_on_page"] == 0
    assert default["attested"] == [
        {"key": "widget.pretrain", "reason": "recorded in a data file; the page was not checked"},
        {"key": "gadget.fleet", "reason": "a printed copy, not online"},
    ]  # widget.context's re-read was checked on the page: not listed
    strict = manifest(True)  # the attested rows are left out, so none is listed
    assert strict["rows"] == 1 and strict["attested_rereads"] == 0 and strict["attested"] == []
    assert strict["left_out_unsafe"] == 2
