"""Every door that tells of a re-read to make says what to re-read and where (the page, its address, the
place the claim cites) and how a person records it (the browser's re-read queue, or `claims reread KEY` at
a terminal), in one wording (trust.rule.reread_hint); none hands over a command line that records a
re-read (--yes) or a quote and a locator to fill in (issue 32, item 6)."""

from __future__ import annotations

import copy
import json

import pytest

from claimsdb.errors import AgentCannotVouch
from claimsdb.mcp_tools import ClaimsTools

KEY = "gizmo.fleet"
PAGE_SAID = "widget-report <https://example.org/widget>, at §4.2,"
DOORS = "in the browser's re-read queue (`claims serve"
VOUCHING_FLAGS = ("--yes", "--quote", "--locator", "--source")


def vouches_nothing(message: str) -> None:
    """The message names no flag that would record a re-read for the person."""
    assert not [flag for flag in VOUCHING_FLAGS if flag in message], message


@pytest.fixture
def gizmo(claims, loaded):
    """An agent's claim that cites a primary page, at a place in it."""
    added = claims(
        "add",
        "--key",
        KEY,
        "--subject",
        "Gizmo",
        "--statement",
        "Gizmo runs 512 sandboxes at once.",
        "--figure",
        "512 sandboxes",
        "--source",
        "widget-report",
        "--locator",
        "§4.2",
        "--quote",
        "512 sandboxes",
    )
    assert added.exit_code == 0, added.output
    return KEY


def test_a_blocked_export_names_the_page_and_the_place_and_no_command_that_records(claims, gizmo):
    blocked = claims("export")
    assert blocked.exit_code == 1
    assert f"to clear it, a person re-reads {KEY} in {PAGE_SAID} and records it" in blocked.stderr
    assert f"/queue?key={KEY}) or at a terminal (`claims reread {KEY} --db " in blocked.stderr
    vouches_nothing(blocked.stderr)


def test_lint_names_the_page_and_the_place_and_no_command_that_records(claims, gizmo, tmp_path):
    paper = tmp_path / "paper.md"
    paper.write_text("Gizmo runs 512 sandboxes at once.\n", encoding="utf-8")
    linted = claims("lint", paper, "--format", "json")
    assert linted.exit_code == 1, linted.output
    [error] = [f for f in json.loads(linted.stdout)["findings"] if f["severity"] == "error"]
    assert f"to clear it, a person re-reads {KEY} in {PAGE_SAID}" in error["message"]
    assert DOORS in error["message"]
    vouches_nothing(error["message"])


def test_an_agent_refusal_names_the_page_the_record_cites(claims, loaded, store, tmp_path):
    line = {
        "key": "probe.line",
        "subject": "Probe",
        "statement": "Probe uses 8 GPUs.",
        "tag": "spot-checked",
        "basis": "an agent's sweep",
        "figures": ["8 GPUs"],
        "evidence": [
            {"source": "lab-notes"},
            {"source": "widget-report", "locator": "§2", "quote": "8 GPUs"},
        ],
    }
    refused = claims("import", "-", input=json.dumps(line) + "\n")
    assert refused.exit_code == 2
    assert (
        "record it unverified: a person re-reads probe.line in widget-report, at §2, and records "
        "it with the page's own words" in refused.stderr
    )  # the first page that is not a note
    vouches_nothing(refused.stderr)
    reread = {**line, "tag": "agent-reported", "reread": {"by": "Ada", "at": "2026-10-01"}}
    reread["reread"] |= {"source": "widget-report", "locator": "§2.1", "quote": "8 GPUs"}
    refused = claims("import", "-", input=json.dumps(reread) + "\n")
    assert refused.exit_code == 2
    assert "a person re-reads probe.line in widget-report, at §2.1, and" in refused.stderr
    vouches_nothing(refused.stderr)
    added = claims(
        "add", "--subject", "Probe", "--statement", "Probe uses 8 GPUs.", "--figure", "8 GPUs",
        "--source", "widget-report", "--locator", "§2", "--tag", "spot-checked",
    )  # fmt: skip
    assert added.exit_code == 2 and "in widget-report, at §2, and records it" in added.stderr
    vouches_nothing(added.stderr)


def test_a_retag_refusal_names_the_claims_page(claims, gizmo):
    refused = claims("retag", KEY, "spot-checked", "--reason", "looks right", "--by", "Bo")
    assert refused.exit_code == 2
    assert f"only a re-read raises trust; a person re-reads {KEY} in {PAGE_SAID}" in refused.stderr
    vouches_nothing(refused.stderr)


def test_mcp_answers_and_refusals_name_the_page_and_no_command_that_records(claims, store, loaded):
    from claimsdb.mcp_server import tool_error

    tools = ClaimsTools(store, agent="sweep-7", person="Ada Lovelace")
    page = {"source": "widget-report", "locator": "§5", "quote": "9 nodes"}
    added = tools.call(
        "add_claim",
        {"subject": "Quince", "statement": "Quince runs 9 nodes.", "figures": ["9 nodes"], **page},
    )
    assert added["reread"].startswith(
        f"a person re-reads {added['key']} in widget-report <https://example.org/widget>, at §5,"
    )
    vouches_nothing(added["reread"])
    for field, value in (("tag", "spot-checked"), ("reread", {"by": "Ada"})):
        with pytest.raises(AgentCannotVouch) as refused:
            tools.call(
                "add_claim",
                {"subject": "Q", "statement": "Q runs 9 nodes.", **page, field: value},
            )
        told = tool_error(refused.value)
        assert DOORS in told, told
        vouches_nothing(told)


def test_an_import_over_a_reread_names_the_page_to_read_again(claims, write_json, sample):
    assert claims("import", write_json(sample)).exit_code == 0
    changed = copy.deepcopy(sample)
    changed["claims"][0]["statement"] = "Widget-7 was pretrained on 3,072 H100 GPUs for 22T tokens."
    imported = claims("import", write_json(changed), "--format", "json")
    assert imported.exit_code == 0, imported.output
    [why] = {c["why"] for c in json.loads(imported.stdout)["conflicts"]}
    assert why.startswith("the re-read by Grace Hopper (reread, 2026-10-02T00:00:00Z) covered")
    assert (
        "not paper-safe until a person re-reads widget.pretrain in widget-report, at §3.1, and "
        "records it" in why
    )
    vouches_nothing(why)
