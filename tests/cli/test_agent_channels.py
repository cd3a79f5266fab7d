"""What each way in may vouch for (issue 22, item 1). An agent channel (`claims add`, JSON Lines on standard
input or in a .jsonl file) records only tags of unverified trust and defines no tag; a data file read from a
path may declare secondary tags, and a claim in it with a verified tag names the person who re-read it, which
the import records as that person's re-read."""

from __future__ import annotations

import copy
import json

import pytest

from claimsdb.records import reading as records
from tests.conftest import SAMPLE, show_json, store_digest

pytestmark = pytest.mark.slow  # every agent channel tried with every vouching field

REREAD_HINT = (
    "and records it with the page's own words, in the browser's re-read queue (`claims serve`, then "
    "/queue?key={key}) or at a terminal (`claims reread {key}`, naming the page, the place and the quote)"
)
LINE = {
    "key": "probe.line",
    "subject": "Probe",
    "statement": "Probe uses 8 GPUs.",
    "tag": "agent-reported",
    "basis": "an agent's sweep",
    "figures": ["8 GPUs"],
    "evidence": [{"source": "widget-report"}],
}


def lines(*objects) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)


def events_of(claims, key: str) -> list[tuple]:
    result = claims("history", key, "--format", "json")
    assert result.exit_code == 0, result.output
    return [
        (e["kind"], e["actor"], e["at"][:10], e["tag_after"])
        for e in json.loads(result.stdout)["events"]
    ]


# --- claims add -------------------------------------------------------------------------------------


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "tag, trust",
    [
        ("spot-checked", "verified"),
        ("note-2026-09-21", "secondary"),
        ("prior-note", "secondary"),
        ("note-2026-10-04", "secondary"),
    ],
)
@pytest.mark.parametrize("source", ["widget-report", "https://example.org/registered-on-the-spot"])
def test_add_refuses_every_tag_above_unverified_with_the_reread_to_use(
    claims, store, tag, trust, source
):
    before = store_digest(store)
    result = claims(
        "add",
        "--subject",
        "Gadget",
        "--statement",
        "Gadget runs 70K sandboxes.",
        "--figure",
        "70K sandboxes",
        "--source",
        source,
        "--tag",
        tag,
        "--by",
        "sweep-agent",
    )
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert (
        err.startswith("error: claims add, record 'gadget.")
        and f"field 'tag': tag '{tag}' is of {trust} trust" in err
    )
    key = err.split("record '", 1)[1].split("'", 1)[0]
    assert "agent-reported" in err and f"; record it unverified: a person re-reads {key} in " in err
    assert err.endswith(REREAD_HINT.format(key=key)) and "--yes" not in err
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.output
    assert store_digest(store) == before  # not even the URL was registered


@pytest.mark.usefixtures("loaded")
def test_add_still_records_an_unverified_claim(claims):
    result = claims(
        "add",
        "--subject",
        "Gadget",
        "--statement",
        "Gadget runs 70K sandboxes.",
        "--source",
        "widget-report",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert show_json(claims, json.loads(result.stdout)["key"])["trust"] == "unverified"


# --- JSON Lines: standard input, and a .jsonl file --------------------------------------------------


def json_lines(claims, tmp_path, how: str, text: str):
    if how == "stdin":
        return claims("import", "-", input=text), "<stdin>"
    path = tmp_path / "sweep.jsonl"
    path.write_text(text, encoding="utf-8")
    return claims("import", path), str(path)


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("how", ["stdin", "jsonl"])
@pytest.mark.parametrize(
    "tag, trust",
    [
        ("spot-checked", "verified"),
        ("note-2026-09-21", "secondary"),
        ("note-2026-10-04", "secondary"),
    ],
)
def test_a_json_line_above_unverified_is_refused_naming_the_line(
    claims, store, tmp_path, how, tag, trust
):
    before = store_digest(store)
    text = lines(
        LINE, {**LINE, "key": "probe.two", "tag": tag}
    )  # a good line first: all or nothing
    result, name = json_lines(claims, tmp_path, how, text)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        f"error: {name}, record 'probe.two' (line 2), field 'tag': tag '{tag}' is of "
        f"{trust} trust: an agent channel records what was reported"
    )
    assert (
        "a person re-reads probe.two in widget-report (it cites no place in it yet) "
        + REREAD_HINT.format(key="probe.two")
        in result.stderr
    )
    assert store_digest(store) == before


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("how", ["stdin", "jsonl"])
@pytest.mark.parametrize("trust", ["verified", "secondary", "unverified"])
def test_a_json_line_cannot_define_a_tag_of_any_trust(claims, store, tmp_path, how, trust):
    before = store_digest(store)
    text = lines(
        {"tag": {"name": "sweep-tag", "trust": trust, "description": "mine"}},
        {**LINE, "tag": "sweep-tag"},
    )
    result, name = json_lines(claims, tmp_path, how, text)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        f"error: {name}, record line 1, field 'tag': an agent channel cannot define tags "
        f"('sweep-tag', {trust})"
    )
    assert store_digest(store) == before
    assert "sweep-tag" not in claims("tags").stdout


@pytest.mark.usefixtures("loaded")
def test_a_json_line_sending_a_data_files_secondary_record_again_is_refused(claims, store, sample):
    # the record exactly as the data file has it: an import would find it unchanged and skip it unread
    before = store_digest(store)
    result = claims("import", "-", input=lines(sample["claims"][1]))
    assert result.exit_code == 2, result.output
    assert (
        "record 'widget.context' (line 1), field 'tag': tag 'note-2026-10-04' is of secondary trust"
        in result.stderr
    )
    assert store_digest(store) == before


@pytest.mark.usefixtures("loaded")
def test_a_json_line_cannot_carry_a_reread(claims, store):
    before = store_digest(store)
    reread = {
        "by": "Grace Hopper",
        "at": "2026-10-02",
        "source": "widget-report",
        "locator": "§1",
        "quote": "8 GPUs",
    }
    result = claims("import", "-", input=lines({**LINE, "reread": reread}))
    assert result.exit_code == 2, result.output
    assert (
        "record 'probe.line' (line 1), field 'reread': an agent channel cannot record a re-read"
        in result.stderr
    )
    assert store_digest(store) == before


def test_a_json_line_cannot_prefer_its_value_over_a_checked_one(claims, write_json, sample, store):
    sample["quantities"] = [
        {"key": "widget.gpus", "subject": "Widget-7", "measure": "pretraining GPUs"}
    ]
    sample["claims"][0]["quantity"] = "widget.gpus"
    assert claims("import", write_json(sample)).exit_code == 0
    before = store_digest(store)
    preferred = {
        **LINE,
        "subject": "Widget-7",
        "statement": "Widget-7 used 4,096 H100.",
        "figures": ["4,096 H100"],
        "quantity": "widget.gpus",
        "rank": "preferred",
    }
    result = claims("import", "-", input=lines(preferred))
    assert result.exit_code == 2, result.output
    assert (
        "record 'probe.line' (line 1), field 'rank': an agent channel cannot prefer a value"
        in result.stderr
    )
    assert store_digest(store) == before
    assert (
        "3,072 H100" in claims("export", "--skip-unsafe").stdout
    )  # the re-read value still stands in papers
    assert claims("import", "-", input=lines({**preferred, "rank": "normal"})).exit_code == 0


@pytest.mark.usefixtures("loaded")
def test_a_json_line_may_add_a_source_but_never_change_one(claims, store):
    new = {
        "key": "sweep-page",
        "title": "A sweep's page",
        "kind": "blog",
        "url": "https://example.org/s",
    }
    assert (
        claims(
            "import",
            "-",
            input=lines({"source": new}, {**LINE, "evidence": [{"source": "sweep-page"}]}),
        ).exit_code
        == 0
    )
    assert (
        claims("import", "-", input=lines({"source": new})).exit_code == 0
    )  # the same again changes nothing
    before = store_digest(store)
    moved = {
        "key": "widget-report",
        "title": "Widget technical report",
        "kind": "report",
        "url": "https://evil.example/widget",
        "publisher": "Widget Lab",
        "date": "2026-05",
        "cite_key": "widget2026",
    }
    result = claims("import", "-", input=lines({"source": moved}))
    assert result.exit_code == 2, result.output
    assert (
        "<stdin>, record line 1, field 'url': source 'widget-report' is registered with another url"
        in result.stderr
    )
    assert store_digest(store) == before


@pytest.mark.usefixtures("loaded")
def test_a_json_line_cannot_change_a_claim_a_person_vouches_for(claims, store):
    # Bo moved the note's claim to another secondary tag: it stays paper-safe on Bo's word, so an agent's new
    # content under it would export as secondary.
    assert (
        claims(
            "retag",
            "widget.context",
            "prior-note",
            "--reason",
            "the older note says it",
            "--by",
            "Bo",
        ).exit_code
        == 0
    )
    before = store_digest(store)
    changed = {
        **SAMPLE["claims"][1],
        "tag": "agent-reported",
        "statement": "Widget-7's context grew from 8K to 1M tokens.",
        "figures": ["8K → 1M"],
    }
    result = claims("import", "-", input=lines(changed))
    assert result.exit_code == 2, result.output
    assert (
        "record 'widget.context' (line 1), field 'figures': claim 'widget.context' is tagged 'prior-note' "
        "(secondary trust), set by Bo"
    ) in result.stderr
    assert store_digest(store) == before
    exported = claims("export", "--skip-unsafe")
    assert "8K → 256K" in exported.stdout and "1M" not in exported.stdout


# --- a data file read from a path ---------------------------------------------------------------------


def test_a_data_file_admits_secondary_and_a_persons_reread_and_reports_who_vouched(
    claims, write_json, sample
):
    result = claims("import", write_json(sample), "--format", "json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    path = plan["files"][0]
    assert plan["rereads"] == [
        {
            "key": "widget.pretrain",
            "by": "Grace Hopper",
            "at": "2026-10-02",
            "source": "widget-report",
            "locator": "§3.1",
            "quote": "3,072 H100 GPUs",
            "file": path,
            "again": False,
        }
    ]
    assert [(v["key"], v["trust"], v["by"], v["how"]) for v in plan["vouched"]] == [
        ("widget.pretrain", "verified", "Grace Hopper", "re-read"),
        ("widget.context", "secondary", path, "data file"),
    ]
    assert plan["counts"]["rereads"] == 1 and plan["counts"]["vouched"] == 2
    # The history: imported, then the person's re-read, which vouches for the claim as imported.
    assert events_of(claims, "widget.pretrain") == [
        ("imported", "import", events_of(claims, "widget.pretrain")[0][2], "spot-checked"),
        ("reread", "Grace Hopper", "2026-10-02", "spot-checked"),
    ]
    view = show_json(claims, "widget.pretrain")
    # nothing read the page: the file says a person did, so the re-read is an attestation (issue 32)
    attested = "recorded in a data file; the page was not checked"
    assert view["tag_reason"] == (
        "re-read by Grace Hopper on 2026-10-02 in widget-report, §3.1: “3,072 H100 GPUs” "
        f"(attested, not checked against the page: {attested})"
    )
    assert (view["reread_check"], view["attested"]) == ("attested", attested)
    assert not view["reread_outdated"] and not view["integrity"]
    assert [(s["key"], s["added_by"]) for s in view["sources"]] == [
        ("widget-report", None)
    ]  # cited so already
    table = claims("history", "widget.pretrain").stdout
    assert "reread" in table and "Grace Hopper" in table
    exported = claims("export", "--skip-unsafe")
    assert (
        exported.exit_code == 0
        and "3,072 H100" in exported.stdout
        and "8K → 256K" in exported.stdout
    )
    assert "40–60K" not in exported.stdout
    strict = claims(
        "export", "--strict", "--skip-unsafe"
    )  # the strict policy counts no attestation
    assert strict.exit_code == 0 and "3,072 H100" not in strict.stdout
    assert "widget.pretrain" in strict.stderr
    assert claims("db", "check").exit_code == 0


def test_the_import_report_names_who_vouched(claims, write_json, sample):
    result = claims("import", write_json(sample))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert (
        "recorded widget.pretrain: re-read by Grace Hopper on 2026-10-02 in widget-report, §3.1"
        in out
    )
    assert (
        "  vouched  1 claim(s) as spot-checked (verified), vouched for by Grace Hopper, who re-read it: "
        "claims list --tag spot-checked"
    ) in out
    assert (
        "  vouched  1 claim(s) as note-2026-10-04 (secondary), vouched for by the data file "
        f"{write_json(sample)}: claims list --tag note-2026-10-04"
    ) in out
    assert "gadget.fleet" not in out  # unverified: nobody vouches
    sample["claims"].append({**sample["claims"][1], "key": "widget.extra"})
    path = write_json(sample, "more.json")
    csv_rows = claims("import", path, "--format", "csv").stdout.splitlines()
    assert [r for r in csv_rows if ",vouched," in r] == [
        f"claim,widget.extra,vouched,note-2026-10-04,secondary: vouched for by the data file {path}"
    ]


def test_the_import_report_sums_up_each_voucher_in_one_line_that_says_how_to_list_its_claims(
    claims, write_json, sample
):
    more = [
        {**sample["claims"][1], "key": f"widget.extra-{i}", "statement": f"Extra {i}."}
        for i in range(40)
    ]
    sample["claims"] += more
    path = write_json(sample)
    out = claims("import", path).stdout
    vouched = [line for line in out.splitlines() if line.startswith("  vouched  ")]
    assert vouched == [
        "  vouched  1 claim(s) as spot-checked (verified), vouched for by Grace Hopper, who re-read it: "
        "claims list --tag spot-checked",
        f"  vouched  41 claim(s) as note-2026-10-04 (secondary), vouched for by the data file {path}: "
        "claims list --tag note-2026-10-04",
    ]
    listed = json.loads(claims("list", "--tag", "note-2026-10-04", "--format", "json").stdout)
    assert {c["key"] for c in listed} == {"widget.context"} | {
        c["key"] for c in more
    }  # the command lists them
    sample["claims"].append({**more[0], "key": "widget.later"})
    each = json.loads(claims("import", write_json(sample), "--format", "json").stdout)["vouched"]
    assert [(v["key"], v["by"], v["how"]) for v in each] == [
        ("widget.later", str(path), "data file")
    ]  # each one


def test_a_reread_that_names_a_page_the_claim_does_not_cite_links_it_as_the_cli_does(
    claims, write_json, sample
):
    sample["claims"][0]["reread"] = {
        "by": "Grace Hopper",
        "at": "2026-10-02",
        "source": "widget-report",
        "locator": "Table 4",
        "quote": "21.5T tokens",
    }
    assert claims("import", write_json(sample)).exit_code == 0
    view = show_json(claims, "widget.pretrain")
    assert [(s["key"], s["locator"], s["quote"], s["added_by"]) for s in view["sources"]] == [
        ("widget-report", "§3.1", "3,072 H100 GPUs", None),
        ("widget-report", "Table 4", "21.5T tokens", "Grace Hopper"),
    ]
    assert not view["reread_outdated"] and not view["integrity"]
    history = json.loads(claims("history", "widget.pretrain", "--format", "json").stdout)["events"]
    assert history[-1]["detail"]["linked"] is True and history[-1]["origin"] == "widget-report"
    # the same file again: the linked page stays, nothing is added
    again = json.loads(claims("import", write_json(sample), "--format", "json").stdout)
    assert again["rereads"] == [] and again["counts"]["unchanged"] == 3
    assert len(show_json(claims, "widget.pretrain")["sources"]) == 2


def test_reimporting_the_same_file_records_nothing_again(
    claims, write_json, sample, store, monkeypatch
):
    path = write_json(sample)
    assert claims("import", path).exit_code == 0
    before, history = store_digest(store), events_of(claims, "widget.pretrain")
    again = json.loads(claims("import", path, "--format", "json").stdout)
    assert (again["rereads"], again["vouched"], again["counts"]["unchanged"]) == ([], [], 3)
    assert store_digest(store) == before
    # read in full (as after an upgrade that changes the rules): the re-read is found, not recorded twice
    monkeypatch.setattr(records, "_rules_digest", lambda: "other rules")
    again = json.loads(claims("import", path, "--format", "json").stdout)
    assert again["rereads"] == [] and again["counts"]["unchanged"] == 3
    assert events_of(claims, "widget.pretrain") == history


def test_a_file_naming_a_new_reread_records_another_and_keeps_the_first(claims, write_json, sample):
    assert claims("import", write_json(sample)).exit_code == 0
    sample["claims"][0]["reread"] = {
        **sample["claims"][0]["reread"],
        "by": "Ada Lovelace",
        "at": "2026-11-03",
    }
    result = claims("import", write_json(sample))
    assert result.exit_code == 0, result.output
    assert (
        "recorded widget.pretrain: another re-read by Ada Lovelace on 2026-11-03" in result.stdout
    )
    assert [e[:3] for e in events_of(claims, "widget.pretrain")][1:] == [
        ("reread", "Grace Hopper", "2026-10-02"),
        ("reread", "Ada Lovelace", "2026-11-03"),
    ]
    # the file going back to the first re-read deletes nothing and records nothing
    sample["claims"][0]["reread"] = SAMPLE["claims"][0]["reread"]
    plan = json.loads(claims("import", write_json(sample), "--format", "json").stdout)
    assert plan["rereads"] == [] and len(events_of(claims, "widget.pretrain")) == 3


def test_a_reread_in_a_file_does_not_override_a_persons_lower_tag(claims, write_json, sample):
    assert claims("import", write_json(sample)).exit_code == 0
    assert (
        claims(
            "retag",
            "widget.pretrain",
            "agent-reported",
            "--reason",
            "the page was revised",
            "--by",
            "Bo",
        ).exit_code
        == 0
    )
    sample["claims"][0]["reread"] = {**sample["claims"][0]["reread"], "at": "2026-11-03"}
    plan = json.loads(claims("import", write_json(sample), "--format", "json").stdout)
    assert plan["rereads"] == [] and plan["vouched"] == []
    assert sorted(c["field"] for c in plan["conflicts"]) == ["reread", "tag"]
    assert show_json(claims, "widget.pretrain")["tag"] == "agent-reported"


@pytest.mark.parametrize(
    "change, field, reason",
    [
        (
            lambda c: c.pop("reread"),
            "reread",
            "is required: tag 'spot-checked' is of verified trust",
        ),
        (lambda c: c.update(reread=None), "reread", "is required"),
        (
            lambda c: c.update(reread="Grace Hopper"),
            "reread",
            "must be an object with by, at, source, locator, quote",
        ),
        (
            lambda c: c["reread"].update(source="nowhere"),
            "reread.source",
            "unknown source 'nowhere'",
        ),
        (
            lambda c: c["reread"].update(source="lab-notes"),
            "reread.source",
            "'lab-notes' is a note, not a primary page",
        ),
        (lambda c: c["reread"].update(by="\u3164"), "reread.by", "U+3164 HANGUL FILLER"),
        (lambda c: c["reread"].update(by="\u2800"), "reread.by", "a blank that draws nothing"),
        (lambda c: c["reread"].update(by="\u200b"), "reread.by", "invisible format character"),
        (lambda c: c["reread"].update(by="   "), "reread.by", "a name must not be empty"),
        (
            lambda c: c["reread"].update(by="-- ."),
            "reread.by",
            "at least one visible letter or digit",
        ),
        (lambda c: c["reread"].update(by="import"), "reread.by", "not a person"),
        (lambda c: c["reread"].update(by=42), "reread.by", "a name must be text"),
        (lambda c: c["reread"].pop("by"), "reread.by", "is required"),
        (lambda c: c["reread"].update(at="2026-02-30"), "reread.at", "not a calendar date"),
        (lambda c: c["reread"].update(at="2026-09"), "reread.at", "use YYYY-MM-DD"),
        (lambda c: c["reread"].update(at="yesterday"), "reread.at", "not a date"),
        (lambda c: c["reread"].update(at="2999-01-01"), "reread.at", "has not come yet"),
        (lambda c: c["reread"].pop("at"), "reread.at", "is required"),
        (lambda c: c["reread"].pop("quote"), "reread.quote", "is required"),
        (lambda c: c["reread"].update(quote=" "), "reread.quote", "must not be empty"),
        (lambda c: c["reread"].pop("locator"), "reread.locator", "is required"),
        (lambda c: c["reread"].update(seen="yes"), "reread.seen", "unknown field"),
        (
            lambda c: c.update(tag="note-2026-10-04"),
            "reread",
            "tag 'note-2026-10-04' is of secondary trust",
        ),
    ],
)
def test_a_bad_reread_is_refused_naming_file_record_and_field(
    claims, write_json, sample, store, change, field, reason
):
    assert (
        claims(
            "import", write_json({**sample, "claims": sample["claims"][1:]}, "first.json")
        ).exit_code
        == 0
    )
    before = store_digest(store)
    change(sample["claims"][0])
    path = write_json(sample, "bad.json")
    result = claims("import", path)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        f"error: {path}, record 'widget.pretrain', field '{field}': "
    ), result.stderr
    assert reason in result.stderr and len(result.stderr.splitlines()) == 1
    assert store_digest(store) == before


def test_a_csv_row_with_a_verified_tag_is_refused(claims, write_json, sample, store, tmp_path):
    assert claims("import", write_json(sample)).exit_code == 0
    before = store_digest(store)
    path = tmp_path / "flat.csv"
    path.write_text(
        "key,subject,statement,tag,basis,source\n"
        "csv.one,Thing,Thing has 4 nodes.,spot-checked,why,widget-report\n",
        encoding="utf-8",
    )
    result = claims("import", path)
    assert result.exit_code == 2, result.output
    assert (
        "record 'csv.one', field 'reread': is required" in result.stderr
        and "a CSV row cannot hold one" in result.stderr
    )
    assert store_digest(store) == before
    path.write_text(
        "key,subject,statement,tag,basis,source\n"
        "csv.one,Thing,Thing has 4 nodes.,note-2026-10-04,from the later note,lab-notes\n",
        encoding="utf-8",
    )
    plan = json.loads(
        claims("import", path, "--format", "json").stdout
    )  # a data file vouches for secondary
    assert [(v["key"], v["how"]) for v in plan["vouched"]] == [("csv.one", "data file")]


def test_only_a_data_file_defines_a_verified_tag_and_the_import_says_so(claims, write_json, sample):
    doc = copy.deepcopy(sample)
    doc["tags"].append(
        {"name": "lab-checked", "trust": "verified", "description": "Checked at the bench."}
    )
    doc["claims"][0]["tag"] = "lab-checked"
    result = claims("import", write_json(doc))
    assert result.exit_code == 0, result.output
    assert (
        "tag      lab-checked defined by a data file: a tag of verified trust, which only a data file read from "
        "a path can define"
    ) in result.stdout
    assert (
        json.loads(claims("import", write_json(doc), "--format", "json").stdout)[
            "verified_tags_added"
        ]
        == []
    )
    doc["tags"][-1]["name"] = "bench-checked"
    doc["claims"][0]["tag"] = "bench-checked"
    doc["claims"][0].pop("reread")
    refused = claims("import", write_json(doc))
    assert (
        refused.exit_code == 2
        and "field 'reread': is required: tag 'bench-checked'" in refused.stderr
    )


def test_the_agent_channel_rule_is_the_domains(engine):
    """One flag that any agent interface (an MCP server) passes: the same refusal without the command line."""
    from claimsdb import db, store
    from claimsdb.errors import AgentCannotVouch
    from claimsdb.records.types import DataFile
    from claimsdb.records.validation import claim_record

    assert store.channel_of("-") is store.AGENT and store.channel_of("sweep.JSONL") is store.AGENT
    assert (
        store.channel_of("data/pipelines.json") is store.DATA_FILE
        and store.channel_of("flat.csv") is store.DATA_FILE
    )
    rec = claim_record({**LINE, "tag": "note-2026-10-04"}, file="mcp", label="'probe.line'")
    with pytest.raises(AgentCannotVouch) as refused, db.session_scope(engine) as session:
        store.import_data(session, [DataFile("mcp", (), (), (rec,))], channel=store.AGENT)
    assert (refused.value.field, refused.value.key) == ("tag", "probe.line")
    assert (
        "--" not in refused.value.message
    )  # the domain names fields, never a command line's flags
    curated = claim_record(
        {**LINE, "tag": "note-2026-10-04"}, file="curated.json", label="'probe.line'"
    )
    with db.session_scope(engine) as session:  # a data file may declare it
        plan = store.import_data(
            session, [DataFile("curated.json", (), (), (curated,))], channel=store.DATA_FILE
        )
    assert [(v.key, v.by, v.how) for v in plan.vouched] == [
        ("probe.line", "curated.json", "data file")
    ]
