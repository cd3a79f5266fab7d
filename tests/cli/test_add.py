"""Claims from agents and scripts: `claims add` and `claims import -` (JSON Lines on standard input)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import show_json, store_digest


@pytest.mark.usefixtures("loaded")
def test_add_records_one_agent_reported_claim_with_its_history(claims):
    result = claims(
        "add",
        "--subject",
        "Kimi K2.5",
        "--statement",
        "Kimi K2.5 runs up to 100,000 concurrent tasks.",
        "--figure",
        "up to 100,000 tasks",
        "--source",
        "https://example.org/kimi-k25",
        "--quote",
        "up to 100,000 concurrent tasks",
        "--locator",
        "§5",
        "--by",
        "sweep-agent",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    added = json.loads(result.stdout)
    assert (
        added["tag"] == "agent-reported"
        and added["source_registered"]
        and added["figures"] == ["up to 100,000 tasks"]
    )
    view = show_json(claims, added["key"])
    assert added["key"].startswith("kimi-k2-5.")
    assert view["figures"][0]["value"] == 100_000 and view["figures"][0]["comparator"] == "up to"
    assert [(s["url"], s["locator"], s["quote"]) for s in view["sources"]] == [
        ("https://example.org/kimi-k25", "§5", "up to 100,000 concurrent tasks")
    ]
    assert [(e["kind"], e["actor"], e["origin"]) for e in view["events"]] == [
        ("imported", "sweep-agent", "claims add")
    ]
    assert "sweep-agent" in view["basis"]
    blocked = claims("export", "--subject", "Kimi")
    assert blocked.exit_code == 1 and added["key"] in blocked.stderr  # not paper-safe until re-read


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--tag", "spot-checked"],
            "field 'tag': tag 'spot-checked' is of verified trust: an agent channel",
        ),
        (
            ["--tag", "note-2026-10-04"],
            "field 'tag': tag 'note-2026-10-04' is of secondary trust: an agent channel",
        ),
        (["--tag", "gossip"], "unknown tag 'gossip'"),
        (
            ["--key", "widget.pretrain"],
            "a claim with key 'widget.pretrain' exists, and adding never changes a stored "
            "claim: nothing was added; run `claims show widget.pretrain` for it, and give this "
            "claim another key",
        ),
        (["--key", "Bad Key"], "is not a key"),
        (["--figure", "12..5 GPUs"], "cannot parse figure '12..5 GPUs'"),
        (["--source", "nowhere"], "unknown source 'nowhere'"),
    ],
)
@pytest.mark.slow
def test_add_refuses_bad_input_and_changes_nothing(claims, store, args, message):
    before = store_digest(store)
    base = [
        "--subject",
        "Gadget",
        "--statement",
        "Gadget runs 70K sandboxes.",
        "--source",
        "widget-report",
    ]
    result = claims("add", *base, *args)  # a repeated option takes its last value
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert store_digest(store) == before


@pytest.mark.usefixtures("loaded")
def test_import_from_standard_input_reads_json_lines(claims, write_json):
    # the sweep's own tag is defined by a data file: an agent channel defines none
    tags = {
        "tags": [
            {"name": "sweep-2026-12", "trust": "unverified", "description": "The December sweep."}
        ],
        "sources": [],
        "claims": [],
    }
    assert claims("import", write_json(tags, "tags.json")).exit_code == 0
    lines = [
        {
            "source": {
                "key": "sweep-page",
                "title": "A sweep's page",
                "kind": "blog",
                "url": "https://example.org/s",
            }
        },
        {
            "key": "sweep.one",
            "subject": "Orchard",
            "statement": "Orchard uses 512 GPUs.",
            "tag": "sweep-2026-12",
            "basis": "the December sweep",
            "figures": ["512 GPUs"],
            "evidence": [{"source": "sweep-page"}],
        },
        {
            "key": "sweep.two",
            "subject": "Orchard",
            "statement": "Orchard saw 2T tokens.",
            "tag": "agent-reported",
            "basis": "the December sweep",
            "figures": ["2T tokens"],
            "evidence": [{"source": "sweep-page"}],
        },
    ]
    stdin = "\n".join(json.dumps(x) for x in lines) + "\n\n"
    result = claims("import", "-", input=stdin)
    assert result.exit_code == 0, result.output
    assert (
        "imported <stdin>: 2 added" in result.stdout
        and "1 sources added" in result.stdout
        and "0 tags added" in result.stdout
    )
    assert "vouched" not in result.stdout  # nothing above unverified
    assert show_json(claims, "sweep.one")["trust"] == "unverified"
    again = claims("import", "-", input=stdin)
    assert "0 added, 0 updated, 2 unchanged" in again.stdout


@pytest.mark.usefixtures("loaded")
def test_a_bad_line_on_standard_input_names_the_line_and_changes_nothing(claims, store):
    before = store_digest(store)
    good = {
        "key": "sweep.one",
        "subject": "Orchard",
        "statement": "Orchard uses 512 GPUs.",
        "tag": "agent-reported",
        "basis": "b",
        "figures": ["512 GPUs"],
        "evidence": [{"source": "widget-report"}],
    }
    bad = {**good, "key": "sweep.two", "tag": "gossip"}
    result = claims("import", "-", input=f"{json.dumps(good)}\n{json.dumps(bad)}\n")
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "error: <stdin>, record 'sweep.two' (line 2), field 'tag': unknown tag 'gossip' "
        "(known: agent-reported, note-2026-09-21, note-2026-10-04, prior-note, spot-checked)"
    )
    broken = claims("import", "-", input=f"{json.dumps(good)}\n{{not json\n")
    assert broken.exit_code == 2 and broken.stderr.startswith(
        "error: <stdin>, record line 2: not valid JSON"
    )
    assert store_digest(store) == before


def test_a_jsonl_file_imports_like_standard_input(claims, tmp_path):
    path = tmp_path / "claims.jsonl"
    path.write_text(
        json.dumps(
            {"source": {"key": "p", "title": "P", "kind": "report", "url": "https://example.org/p"}}
        )
        + "\n"
        + json.dumps(
            {
                "key": "p.one",
                "subject": "P",
                "statement": "P has 3 nodes.",
                "tag": "agent-reported",
                "basis": "b",
                "figures": ["3 nodes"],
                "evidence": [{"source": "p"}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    result = claims("import", path)
    assert result.exit_code == 0 and "1 added" in result.stdout, result.output


@pytest.mark.usefixtures("loaded")
def test_a_claims_figures_are_its_statements_on_every_agent_channel(claims, store):
    """`claims add` and JSON Lines: figures left out are read from the statement (and traced); a figure
    the statement does not state is refused, naming it, and nothing is written."""
    added = claims(
        "add",
        "--subject",
        "Orchard",
        "--statement",
        "Orchard trained on 2,048 H800 GPUs for 9.5T tokens (§3.5).",
        "--source",
        "https://example.org/orchard",
    )
    assert added.exit_code == 0, added.output
    assert "figures read from the statement: 2,048 H800 GPUs, 9.5T tokens" in added.stdout
    traced = json.loads(claims("trace", "9.5T tokens", "--format", "json").stdout)
    assert [m["claim"]["subject"] for m in traced["matches"]] == ["Orchard"]
    before = store_digest(store)
    refused = claims(
        "add",
        "--subject",
        "Orchard",
        "--statement",
        "Orchard trained on 2,048 H800 GPUs.",
        "--figure",
        "2,048 H800",
        "--figure",
        "4,096 H800",
        "--source",
        "https://example.org/orchard",
    )
    assert refused.exit_code == 2
    assert "field 'figures[1]': '4,096 H800' is not stated in the statement" in refused.stderr
    part = claims(  # a figure's text inside another figure's is not stated: "48" of "2,048"
        "add", "--subject", "Orchard", "--statement", "Orchard trained on 2,048 H800 GPUs.",
        "--figure", "48", "--source", "https://example.org/orchard",
    )  # fmt: skip
    assert part.exit_code == 2 and "'48' is not stated in the statement" in part.stderr
    line = {
        "key": "orchard.nodes",
        "subject": "Orchard",
        "statement": "Orchard ran 256 nodes.",
        "tag": "agent-reported",
        "basis": "A sweep.",
        "figures": ["512 nodes"],
        "evidence": [{"source": "widget-report", "locator": "§2", "quote": "256 nodes"}],
    }
    piped = claims("import", "-", input=json.dumps(line) + "\n")
    assert piped.exit_code == 2 and "'512 nodes' is not stated in the statement" in piped.stderr
    assert store_digest(store) == before
