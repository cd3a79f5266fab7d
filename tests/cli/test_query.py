"""Read commands through the CLI: trace, show, list, sources, tags, in every format."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.conftest import store_digest


def trace_json(claims, number):
    result = claims("trace", number, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "number, expected",
    [
        ("3072", [("widget.pretrain", "3,072 H100")]),
        ("3,072", [("widget.pretrain", "3,072 H100")]),
        ("3K", []),  # 3,000 is not 3,072
        ("21.5T", [("widget.pretrain", "21.5T tokens")]),
        ("21.5 trillion", [("widget.pretrain", "21.5T tokens")]),
        ("256K", [("widget.context", "8K → 256K")]),  # the end of a transition
        ("8K", [("widget.context", "8K → 256K")]),  # its start
        ("50K", [("gadget.fleet", "40–60K sandboxes")]),  # inside a range
        ("3,072 H100", [("widget.pretrain", "3,072 H100")]),
    ],
)
@pytest.mark.slow
def test_trace_matches_by_value_inside_ranges_and_transitions(claims, number, expected):
    if not expected:
        result = claims("trace", number)
        assert result.exit_code == 1 and "no figure matches" in result.stderr
        return
    data = trace_json(claims, number)
    assert [(m["claim"]["key"], m["figure"]["raw"]) for m in data["matches"]] == expected


@pytest.mark.usefixtures("loaded")
def test_trace_counted_thing_narrows_the_match(claims):
    result = claims("trace", "3,072 A100")
    assert result.exit_code == 1


@pytest.mark.usefixtures("loaded")
def test_trace_table_names_claim_subject_tag_sources_and_history(claims):
    result = claims("trace", "3072")
    assert result.exit_code == 0
    out = result.stdout
    for text in (
        "3,072 H100",
        "Widget-7",
        "Pretrain",
        "spot-checked (verified)",
        "Widget technical report",
        "https://example.org/widget",
        "(§3.1)",
        "“3,072 H100 GPUs”",
        "imported as spot-checked",
    ):
        assert text in out, text


@pytest.mark.usefixtures("loaded")
def test_trace_json_carries_sources_and_events(claims):
    (match,) = trace_json(claims, "40K")["matches"]  # the low end of 40–60K
    claim = match["claim"]
    assert (claim["subject"], claim["tag"], claim["trust"]) == (
        "Gadget",
        "agent-reported",
        "unverified",
    )
    assert claim["sources"][0]["title"] == "Lab notes"
    assert claim["events"][0]["kind"] == "imported"


@pytest.mark.usefixtures("loaded")
def test_trace_rejects_text_that_is_not_a_number(claims):
    result = claims("trace", "lots")
    assert result.exit_code == 2 and "cannot read 'lots' as a number" in result.stderr


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "query, expected",
    [
        ("8K → 256K", [("widget.context", "8K → 256K", "stated")]),  # a transition, as stored
        (
            "from 8K to 256K",
            [("widget.context", "8K → 256K", "stated")],
        ),  # the same change in words
        ("40–60K", [("gadget.fleet", "40–60K sandboxes", "stated")]),  # the same range
        ("50–70K", [("gadget.fleet", "40–60K sandboxes", "inside range")]),  # overlapping ranges
        (
            "45K–55K sandboxes",
            [("gadget.fleet", "40–60K sandboxes", "inside range")],
        ),  # a range inside
        ("3,071.6", [("widget.pretrain", "3,072 H100", "rounded")]),  # more precise, rounds to it
        ("256K", [("widget.context", "8K → 256K", "step")]),  # one step of a change: stated
    ],
)
@pytest.mark.slow
def test_trace_takes_ranges_and_transitions_and_finds_overlaps(claims, query, expected):
    data = trace_json(claims, query)
    assert [
        (m["claim"]["key"], m["figure"]["raw"], m["match"]) for m in data["matches"]
    ] == expected


@pytest.mark.usefixtures("loaded")
def test_trace_with_no_match_prints_the_nearest_figures_and_exits_1(claims):
    other_thing = claims(
        "trace", "3,072 A100"
    )  # the value of widget.pretrain, counting another accelerator
    assert (
        other_thing.exit_code == 1
        and "no figure matches '3,072 A100'; the nearest:" in other_thing.stderr
    )
    assert (
        "3,072 H100  widget.pretrain (Widget-7): same value, counts A100, not H100"
        in other_thing.stderr
    )
    close_value = claims("trace", "3,000 H100 GPUs")  # the same thing, another value
    assert close_value.exit_code == 1
    assert "3,072 H100  widget.pretrain (Widget-7): close value" in close_value.stderr
    data = json.loads(claims("trace", "3,000 H100", "--format", "json").stdout)
    assert data["matches"] == [] and [m["figure"]["raw"] for m in data["nearest"]] == ["3,072 H100"]
    nothing = claims("trace", "7 widgets")
    assert nothing.exit_code == 1 and nothing.stderr.strip() == "no figure matches '7 widgets'"


def test_trace_lists_the_figures_stating_it_first_and_the_ranges_holding_it_under_their_own_heading(
    claims, write_json, sample
):
    sample["claims"].append(
        {
            "key": "widget.fleet",
            "subject": "Widget-7",
            "statement": "Widget-7 runs 50K sandboxes.",
            "tag": "agent-reported",
            "basis": "A sweep.",
            "figures": ["50K sandboxes"],
            "evidence": [{"source": "lab-notes"}],
        }
    )
    assert claims("import", write_json(sample)).exit_code == 0
    out = claims(
        "trace", "50K"
    ).stdout  # stated by widget.fleet, inside gadget.fleet's 40–60K (a key sorting first)
    order = [
        "1 figure(s) state '50K'",
        "50K sandboxes  Widget-7",
        "1 range(s) hold or overlap '50K', and do not state it",
        "40–60K sandboxes  (within 40–60K sandboxes)  Gadget",
    ]
    assert [out.index(text) for text in order] == sorted(out.index(text) for text in order), out
    data = trace_json(claims, "50K")
    assert [(m["claim"]["key"], m["match"]) for m in data["matches"]] == [
        ("widget.fleet", "stated"),
        ("gadget.fleet", "inside range"),
    ]
    assert data["counts"] == {"stated": 1, "step": 0, "rounded": 0, "inside range": 1}
    rows = list(csv.DictReader(io.StringIO(claims("trace", "50K", "--format", "csv").stdout)))
    assert [(r["key"], r["match"]) for r in rows] == [
        ("widget.fleet", "stated"),
        ("gadget.fleet", "inside range"),
    ]
    only_range = claims("trace", "45K").stdout  # nothing states it; a range holds it
    assert (
        only_range.startswith("no figure states '45K'\n")
        and "1 range(s) hold or overlap '45K'" in only_range
    )


@pytest.mark.usefixtures("loaded")
def test_show_prints_everything_about_a_claim(claims):
    result = claims("show", "widget.context")
    assert result.exit_code == 0
    for text in (
        "Widget-7 · Midtrain",
        "note-2026-10-04 (secondary)",
        "why: from the data file ",
        "figure: 8K → 256K  →  8,000 → 256,000",
        "Lab notes",
        "history:",
    ):
        assert text in result.stdout, text
    data = json.loads(claims("show", "widget.context", "--format", "json").stdout)
    assert data["figures"][0]["start"] == 8000 and data["figures"][0]["end"] == 256000


@pytest.mark.usefixtures("loaded")
def test_show_prints_the_basis_once(claims):
    imported = claims(
        "show", "widget.context"
    ).stdout  # tagged by its data file: "why" quotes the basis
    assert imported.count("From the later note.") == 1 and "basis (data file)" not in imported
    assert "  why: from the data file " in imported and imported.rstrip().count("\n  why: ") == 1
    assert "why: from the data file" in imported.split("From the later note.")[0].splitlines()[-1]
    reread = claims(
        "show", "widget.pretrain"
    ).stdout  # tagged by a person's re-read: another reason
    assert (
        "  why: re-read by Grace Hopper on 2026-10-02 in widget-report, §3.1: “3,072 H100 GPUs” "
        "(attested, not checked against the page: recorded in a data file; the page was not checked)"
    ) in reread  # its data file's re-read: nothing read the page (issue 32)
    assert "  basis (data file): Re-read the report's compute section." in reread
    assert reread.count("Re-read the report's compute section.") == 1


def test_show_unknown_key_exit_2(claims, loaded):
    result = claims("show", "no.such.claim")
    assert (
        result.exit_code == 2
        and result.stderr.strip() == "error: no claim with key 'no.such.claim'"
    )


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "args, keys",
    [
        ([], ["gadget.fleet", "widget.context", "widget.pretrain"]),
        (["--tag", "spot-checked"], ["widget.pretrain"]),
        (["--trust", "unverified"], ["gadget.fleet"]),
        (["--trust", "secondary"], ["widget.context"]),
        (["--subject", "widget"], ["widget.context", "widget.pretrain"]),
        (["--stage", "agentic rl"], ["gadget.fleet"]),
        (["--source", "widget-report"], ["widget.pretrain"]),
        (["--search", "SANDBOXES"], ["gadget.fleet"]),
        (["--status", "withdrawn"], []),
        (["--subject", "widget", "--stage", "pretrain"], ["widget.pretrain"]),
    ],
)
@pytest.mark.slow
def test_list_filters(claims, args, keys):
    result = claims("list", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    assert [c["key"] for c in json.loads(result.stdout)] == keys


@pytest.mark.usefixtures("loaded")
def test_list_csv_and_table(claims):
    rows = list(csv.DictReader(io.StringIO(claims("list", "--format", "csv").stdout)))
    assert [r["key"] for r in rows] == ["gadget.fleet", "widget.context", "widget.pretrain"]
    assert rows[2]["figures"] == "3,072 H100 | 21.5T tokens" and rows[2]["trust"] == "verified"
    table = claims("list").stdout
    assert "3 claim(s)" in table and "gadget.fleet" in table


@pytest.mark.slow
def test_list_rejects_an_unknown_trust_level(claims, loaded):
    result = claims("list", "--trust", "kinda")
    assert result.exit_code == 2 and "--trust must be one of" in result.stderr


@pytest.mark.usefixtures("loaded")
def test_sources_lists_each_with_its_claim_count(claims):
    data = json.loads(claims("sources", "--format", "json").stdout)
    assert [(s["key"], s["claims"]) for s in data] == [("lab-notes", 2), ("widget-report", 1)]
    rows = list(csv.DictReader(io.StringIO(claims("sources", "--format", "csv").stdout)))
    assert rows[1]["url"] == "https://example.org/widget" and rows[1]["cite_key"] == "widget2026"
    assert "Widget technical report" in claims("sources").stdout


@pytest.mark.usefixtures("loaded")
def test_tags_lists_trust_and_counts_including_tags_added_as_data(claims):
    data = json.loads(claims("tags", "--format", "json").stdout)
    assert [(t["name"], t["trust"], t["claims"]) for t in data] == [
        ("spot-checked", "verified", 1),
        ("note-2026-09-21", "secondary", 0),
        ("note-2026-10-04", "secondary", 1),
        ("prior-note", "secondary", 0),
        ("agent-reported", "unverified", 1),
    ]
    assert "note-2026-10-04" in claims("tags").stdout
    rows = list(csv.DictReader(io.StringIO(claims("tags", "--format", "csv").stdout)))
    assert rows[0] == {
        "name": "spot-checked",
        "trust": "verified",
        "passes": "True",
        "passes_strict": "True",
        "claims": "1",
        "description": "A person re-read the primary page and found the figure there.",
    }
    assert [(t["name"], t["passes"], t["passes_strict"]) for t in data] == [
        ("spot-checked", True, True),
        ("note-2026-09-21", True, False),
        ("note-2026-10-04", True, False),
        ("prior-note", True, False),
        ("agent-reported", False, False),
    ]
    table = claims("tags").stdout
    assert "passes" in table and "blocked" in table


def test_list_csv_neutralises_formula_cells(claims, write_json, sample):
    sample["claims"][0]["statement"] = '=HYPERLINK("http://evil.example","click") 3,072 H100 GPUs.'
    assert claims("import", write_json(sample)).exit_code == 0
    rows = list(csv.reader(io.StringIO(claims("list", "--format", "csv").stdout)))
    statement = next(r for r in rows if r[0] == "widget.pretrain")[3]
    assert statement.startswith("'=HYPERLINK(")


@pytest.mark.slow
def test_trace_shows_the_first_matches_and_counts_them_all(claims, write_json, sample):
    sample["claims"] = [
        {
            "key": f"many.{i}",
            "subject": f"System {i}",
            "statement": f"System {i} used 512 GPUs.",
            "tag": "prior-note",
            "basis": "b",
            "figures": ["512 GPUs"],
            "evidence": [{"source": "lab-notes"}],
        }
        for i in range(12)
    ]
    assert claims("import", write_json(sample)).exit_code == 0
    result = claims("trace", "512 GPUs", "--limit", "5")
    assert (
        result.exit_code == 0
        and "12 figure(s) state '512 GPUs'; the first 5 shown (--limit)" in result.stdout
    )
    data = json.loads(claims("trace", "512", "--format", "json", "--limit", "5").stdout)
    assert data["total"] == 12 and [m["claim"]["key"] for m in data["matches"]] == [
        f"many.{i}" for i in (0, 1, 10, 11, 2)
    ]


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "args",
    [
        ["show", "widget.pretrian"],
        ["history", "widget.pretrian"],
        ["retag", "widget.pretrian", "prior-note", "--reason", "r"],
        ["reread", "widget.pretrian", "--source", "widget-report", "--locator", "§3.1"]
        + ["--quote", "3,072 H100 GPUs", "--yes"],
        ["prefer", "widget.pretrian", "--reason", "r"],
        ["withdraw", "widget.pretrian", "--reason", "r"],
        ["supersede", "widget.context", "--with", "widget.pretrian", "--reason", "r"],
        ["verify", "widget.pretrian", "--offline"],
    ],
)
def test_a_mistyped_key_suggests_the_closest_and_changes_nothing(claims, store, args):
    before = store_digest(store)
    result = claims(*args)
    assert result.exit_code == 2, result.output
    assert (
        result.stderr.strip()
        == "error: no claim with key 'widget.pretrian'; did you mean 'widget.pretrain'?"
    )
    assert store_digest(store) == before


@pytest.mark.usefixtures("loaded")
def test_a_key_close_to_several_names_each(claims):
    result = claims("show", "widget.xontext")
    assert (
        result.stderr.strip()
        == "error: no claim with key 'widget.xontext'; did you mean 'widget.context'?"
    )
    result = claims("show", "Widget.Context")  # the case differs
    assert "did you mean 'widget.context'?" in result.stderr
