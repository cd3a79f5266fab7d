"""`claims verify --rereads` (issue 32, item 7): each re-read behind a claim's tag checked again against the
latest snapshot of its page, offline, recording nothing. A re-read from an earlier release (an event with
neither `checked` nor `attested`) is appended here with the store's own code, as that release wrote it."""

from __future__ import annotations

import csv
import io
import json

import pytest

from claimsdb import db, provenance, recording, rereads
from claimsdb.queries import get_claim
from tests.conftest import store_digest

PAGE = """# Widget technical report

## 3.1 Compute

Widget-7 was pretrained on 3,072 H100 GPUs for 21.5 trillion tokens.

## 3.2 Midtraining

Midtraining ran on the same 3,072 H100 GPUs.
"""
DATA = {
    "sources": [
        {"key": "widget-report", "title": "Widget report", "kind": "report", "path": "widget.md"},
        {"key": "gizmo-page", "title": "Gizmo", "kind": "report", "url": "https://example.org/g"},
    ],
    "claims": [
        {
            "key": "widget.pretrain",
            "subject": "Widget-7",
            "statement": "Widget-7 was pretrained on 3,072 H100 GPUs.",
            "tag": "agent-reported",
            "basis": "a sweep",
            "figures": ["3,072 H100"],
            "evidence": [{"source": "widget-report", "locator": "§3.1", "quote": "3,072 H100"}],
        },
        {
            "key": "widget.midtrain",
            "subject": "Widget-7",
            "statement": "Widget-7 was mid-trained on 4,096 H100 GPUs.",
            "tag": "agent-reported",
            "basis": "a sweep",
            "figures": ["4,096 H100"],
            "evidence": [{"source": "widget-report", "locator": "§3.2"}],
        },
        {
            "key": "gizmo.nodes",
            "subject": "Gizmo",
            "statement": "Gizmo runs on 9 nodes.",
            "tag": "agent-reported",
            "basis": "a sweep",
            "figures": ["9 nodes"],
            "evidence": [{"source": "gizmo-page", "locator": "§1", "quote": "9 nodes"}],
        },
        {
            "key": "gizmo.unread",
            "subject": "Gizmo",
            "statement": "Gizmo keeps 2 replicas.",
            "tag": "agent-reported",
            "basis": "a sweep",
            "figures": ["2 replicas"],
            "evidence": [{"source": "gizmo-page", "locator": "§2", "quote": "2 replicas"}],
        },
    ],
}


def earlier_reread(store: str, key: str, page: str, locator: str, quote: str | None) -> None:
    """A re-read as releases before the page check recorded it: the page, the place and the quote the
    person typed, nothing checked."""
    engine = db.open_engine(store)
    with db.session_scope(engine) as session:
        claim = get_claim(session, key)
        view = recording.intact(session, claim)
        detail = {"source": page, "locator": locator, "quote": quote, "linked": False}
        recording.record(
            session,
            claim,
            {
                "kind": "reread",
                "actor": "Ada Lovelace",
                "tag_before": claim.tag,
                "tag_after": provenance.REREAD_TAG,
                "origin": page,
                "content_sha256": rereads._content_after(session, claim, view, None),
                "detail": recording.detail(**detail),
            },
            tag=provenance.REREAD_TAG,
        )


@pytest.fixture
def audited_store(claims, store, db_path, write_json):
    """The data above, the widget page kept as a snapshot by `claims verify` (the gizmo page never
    fetched), and a re-read of each claim but one recorded as an earlier release recorded it."""
    (db_path.parent / "widget.md").write_text(PAGE, encoding="utf-8")
    assert claims("import", write_json(DATA)).exit_code == 0
    # the local copy read from the test's folder, on either engine (a server database has no folder)
    verified = claims("verify", "--source", "widget-report", "--local-root", db_path.parent)
    assert verified.exit_code == 1, verified.output  # midtrain: figure-changed
    earlier_reread(store, "widget.pretrain", "widget-report", "§3.1", "3,072 H100 GPUs")
    earlier_reread(store, "widget.midtrain", "widget-report", "§3.2", "4,096 H100 GPUs")
    earlier_reread(store, "gizmo.nodes", "gizmo-page", "§1", "9 nodes")
    return store


def test_an_earlier_reread_the_snapshot_does_not_hold_is_listed_and_one_it_holds_is_not(
    claims, audited_store
):
    before = store_digest(audited_store)
    result = claims("verify", "--rereads", "--format", "json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    listed = {r["claim"]: r for r in report["rereads"]}
    assert set(listed) == {"widget.midtrain", "gizmo.nodes"}  # widget.pretrain holds
    assert report["checked"] == 3 and report["counts"] == {
        "holds": 1,
        "not-held": 1,
        "no-snapshot": 1,
    }
    mid = listed["widget.midtrain"]
    assert (mid["outcome"], mid["checked"], mid["page"], mid["locator"]) == (
        "not-held",
        None,
        "widget-report",
        "§3.2",
    )
    assert mid["findings"] == [
        "the quote is not on the page word for word (it quotes other words)",
        "the page says 3,072 H100 GPUs where the claim says 4,096 H100",
    ]
    assert "Midtraining ran on the same 3,072 H100 GPUs" in mid["passage"]
    assert mid["snapshot"] and mid["actor"] == "Ada Lovelace"
    assert listed["gizmo.nodes"]["outcome"] == "no-snapshot"
    assert listed["gizmo.nodes"]["findings"] == ["no snapshot of gizmo-page in the snapshot folder"]
    assert store_digest(audited_store) == before  # it records nothing
    tags = json.loads(claims("list", "--format", "json").stdout)
    assert {c["key"]: c["tag"] for c in tags}["widget.midtrain"] == "spot-checked"


def test_the_table_and_csv_list_the_same_rereads(claims, audited_store):
    table = claims("verify", "--rereads")
    assert table.exit_code == 1
    assert "2 of 3 re-read(s) to look at" in table.stdout
    assert "(not checked against the page)" in table.stdout
    assert "summary: 1 holds, 1 not-held, 1 no-snapshot" in table.stdout
    rows = list(
        csv.DictReader(io.StringIO(claims("verify", "--rereads", "--format", "csv").stdout))
    )
    assert [(r["claim"], r["outcome"]) for r in rows] == [
        ("gizmo.nodes", "no-snapshot"),
        ("widget.midtrain", "not-held"),
    ]


def test_a_reread_the_snapshot_holds_passes_and_an_attestation_is_listed(claims, audited_store):
    """Every re-read borne out: exit 0; then an attestation (no page check) is listed as one."""
    engine = db.open_engine(audited_store)
    for key in ("widget.midtrain", "gizmo.nodes"):
        with db.session_scope(engine) as session:
            provenance.retag(session, key, "agent-reported", actor="Bo", reason="not borne out")
    passed = claims("verify", "--rereads", "--format", "json")
    assert passed.exit_code == 0, passed.output
    assert json.loads(passed.stdout)["rereads"] == []
    attested = claims(
        "reread", "gizmo.unread", "--source", "gizmo-page", "--locator", "§2", "--quote",
        "2 replicas", "--attest", "the page is behind a login", "--by", "Ada", "--yes",
    )  # fmt: skip
    assert attested.exit_code == 0, attested.output
    result = claims("verify", "--rereads", "--format", "json")
    assert result.exit_code == 1
    [listed] = json.loads(result.stdout)["rereads"]
    assert (listed["claim"], listed["outcome"], listed["findings"]) == (
        "gizmo.unread",
        "attested",
        ["attested without a page check: the page is behind a login"],
    )


@pytest.mark.parametrize(
    "other", [["widget.pretrain"], ["--all"], ["--unverified"], ["--source", "x"]]
)
def test_rereads_is_its_own_selection(claims, audited_store, other):
    refused = claims("verify", "--rereads", *other)
    assert refused.exit_code == 2 and "--rereads selects the re-reads itself" in refused.stderr


def test_an_earlier_reread_without_a_quote_is_listed_as_quoting_nothing(claims, audited_store):
    earlier_reread(audited_store, "gizmo.unread", "gizmo-page", "§2", None)
    result = claims("verify", "--rereads", "--format", "json")
    assert result.exit_code == 1
    listed = {r["claim"]: r for r in json.loads(result.stdout)["rereads"]}
    assert (listed["gizmo.unread"]["outcome"], listed["gizmo.unread"]["findings"]) == (
        "no-quote",
        ["the re-read quotes nothing of the page"],
    )
