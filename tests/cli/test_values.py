"""Competing values of one quantity: ranks through the CLI, imports that meet a person's rank, and
exports that use the preferred value and name the others."""

from __future__ import annotations

import copy
import json

import pytest

from tests.conftest import REFUSED, SAMPLE, reread, run_sql, show_json, store_digest

QUANTITY = {
    "key": "orchard.update-1t",
    "subject": "Orchard checkpoint engine",
    "measure": "update time of a 1T model",
}
DATA = copy.deepcopy(SAMPLE)
DATA["quantities"] = [QUANTITY]
DATA["claims"] += [
    {
        "key": "orchard.table",
        "subject": "Orchard",
        "statement": "Orchard updates a 1T model in under 30 s.",
        "tag": "note-2026-10-04",
        "basis": "the note's table",
        "quantity": "orchard.update-1t",
        "figures": ["< 30 s"],
        "evidence": [{"source": "lab-notes"}],
    },
    {
        "key": "orchard.readme",
        "subject": "Orchard",
        "statement": "Orchard updates a 1T model in about 20 s.",
        "tag": "spot-checked",
        "basis": "re-read the README",
        "quantity": "orchard.update-1t",
        "figures": ["about 20 s"],
        "evidence": [{"source": "widget-report", "quote": "about 20 s"}],
        "reread": reread("widget-report", quote="about 20 s"),
    },
]


@pytest.fixture
def ranked(claims, write_json):
    path = write_json(DATA, "ranked.json")
    assert claims("import", path).exit_code == 0
    return path


def exported(claims, *args):
    result = claims("export", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def test_values_lists_both_and_none_preferred_exports_both_with_a_warning(claims, ranked):
    listed = json.loads(claims("values", "orchard.update-1t", "--format", "json").stdout)
    (q,) = listed
    assert q["preferred"] is None and [v["key"] for v in q["values"]] == [
        "orchard.readme",
        "orchard.table",
    ]
    table = claims("values").stdout
    assert "no value preferred yet" in table and "< 30 s" in table and "about 20 s" in table
    doc, err = exported(claims, "--subject", "Orchard")
    assert {r["key"] for r in doc["rows"]} == {"orchard.table", "orchard.readme"}
    assert "orchard.update-1t has 2 competing values and none is preferred" in err
    shown = claims("show", "orchard.table").stdout
    assert (
        "quantity: orchard.update-1t" in shown
        and "competing: about 20 s  [orchard.readme]" in shown
    )


def test_prefer_makes_the_export_use_one_value_and_name_the_other(claims, ranked):
    result = claims(
        "prefer", "orchard.readme", "--reason", "the README says about 20 s", "--by", "Ada"
    )
    assert result.exit_code == 0 and "orchard.readme: normal → preferred" in result.stdout
    doc, err = exported(claims, "--subject", "Orchard")
    assert [r["key"] for r in doc["rows"]] == ["orchard.readme"] and "competing" not in err
    assert doc["manifest"]["competing_values"] == {
        "orchard.update-1t": {
            "preferred": "orchard.readme",
            "used": ["orchard.readme"],
            "others": ["orchard.table"],
        }
    }
    # preferring the other demotes the first, each an event in the history
    claims("prefer", "orchard.table", "--reason", "the paper quotes the table", "--by", "Bo")
    assert show_json(claims, "orchard.readme")["rank"] == "normal"
    history = json.loads(claims("history", "orchard.readme", "--format", "json").stdout)["events"]
    assert [(e["kind"], e["actor"], e["rank_after"]) for e in history[-2:]] == [
        ("ranked", "Ada", "preferred"),
        ("ranked", "Bo", "normal"),
    ]
    assert show_json(claims, "orchard.table")["rank_reason"].startswith("Bo on ")


def test_deprecated_values_are_never_exported(claims, ranked):
    assert (
        claims(
            "deprecate", "orchard.table", "--reason", "the README measures it", "--by", "Ada"
        ).exit_code
        == 0
    )
    doc, _ = exported(claims, "--subject", "Orchard", "--draft")
    assert [r["key"] for r in doc["rows"]] == ["orchard.readme"]
    assert doc["manifest"]["competing_values"]["orchard.update-1t"]["others"] == ["orchard.table"]


def test_an_import_never_overrides_a_rank_a_person_set(claims, ranked, write_json):
    claims("deprecate", "orchard.table", "--reason", "wrong", "--by", "Ada")
    data = copy.deepcopy(DATA)
    data["claims"][3]["rank"] = "preferred"
    result = claims("import", write_json(data, "again.json"))
    assert result.exit_code == 0
    assert "conflict orchard.table: kept rank 'deprecated' (set by Ada" in result.stdout
    assert show_json(claims, "orchard.table")["rank"] == "deprecated"


def test_a_data_file_may_rank_values_it_owns(claims, ranked, write_json):
    data = copy.deepcopy(DATA)
    data["claims"][4].update(rank="preferred", rank_reason="the README is the primary page")
    assert claims("import", write_json(data, "again.json")).exit_code == 0
    view = show_json(claims, "orchard.readme")
    assert view["rank"] == "preferred" and view["rank_reason"].endswith(
        "the README is the primary page"
    )


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: [c.update(rank="preferred") for c in d["claims"][3:]],
            "would have 2 preferred values",
        ),
        (lambda d: d["claims"][0].update(rank="preferred"), "name the quantity"),
        (lambda d: d["claims"][3].update(quantity="no.such"), "unknown quantity 'no.such'"),
    ],
)
def test_bad_ranks_in_a_data_file_change_nothing(
    claims, ranked, write_json, store, change, message
):
    before = store_digest(store)
    data = copy.deepcopy(DATA)
    change(data)
    result = claims("import", write_json(data, "bad.json"))
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert store_digest(store) == before


def test_prefer_needs_a_quantity_and_a_reason(claims, ranked):
    assert "states no quantity" in claims("prefer", "widget.pretrain", "--reason", "x").stderr
    assert claims("prefer", "orchard.readme").exit_code == 2  # --reason is required
    assert "no quantity 'nope'" in claims("values", "nope").stderr


def test_the_rank_follows_the_history_in_the_database(claims, ranked, store):
    with pytest.raises(REFUSED, match="rank changes only with the event"):
        run_sql(store, "UPDATE claim SET rank = 'preferred' WHERE key = 'orchard.table'")


def test_quantities_and_ranks_survive_a_copy(claims, ranked, tmp_path):
    claims("prefer", "orchard.readme", "--reason", "the README", "--by", "Ada")
    copy_ = tmp_path / "copy.db"
    assert claims("db", "copy", "--to", copy_).exit_code == 0
    assert (
        claims("values", "--format", "json", db=copy_).stdout
        == claims("values", "--format", "json").stdout
    )


def test_lint_warns_when_the_prose_uses_a_value_not_preferred_or_deprecated(
    claims, ranked, tmp_path
):
    paper = tmp_path / "paper.md"
    paper.write_text(
        "Orchard updates a 1T model in about 20 s.\n\nOrchard updates a 1T model in under 30 s.\n",
        encoding="utf-8",
    )

    def findings():
        doc = json.loads(claims("lint", paper, "--format", "json").stdout)
        return [(f["line"], f["severity"], f["message"]) for f in doc["findings"]]

    assert [s for _, s, _ in findings()] == []  # nothing preferred yet: both values may be used
    claims("prefer", "orchard.readme", "--reason", "the README measures it", "--by", "Ada")
    ((line, severity, message),) = findings()
    assert (line, severity) == (3, "warning")
    assert message.startswith("uses a value its quantity does not prefer: orchard.table")
    assert "the preferred value is about 20 s (orchard.readme)" in message
    claims("deprecate", "orchard.table", "--reason", "wrong", "--by", "Ada")
    ((_, _, message),) = findings()
    assert message.startswith("uses a deprecated value: orchard.table")


def test_a_data_file_changes_a_quantity_a_person_read_a_value_of_under_a_new_key(
    claims, ranked, write_json
):
    """orchard.readme was re-read: what its quantity measures is kept (importer.kept), and a changed
    quantity comes under a key of its own."""
    changed = copy.deepcopy(DATA)
    changed["quantities"] = [{**QUANTITY, "measure": "update time of a 1T model over RDMA"}]
    result = claims("import", write_json(changed, "ranked.json"))
    assert result.exit_code == 1, result.output
    assert "field 'measure': kept 'update time of a 1T model' (a value of it" in result.output
    (q,) = json.loads(claims("values", "orchard.update-1t", "--format", "json").stdout)
    assert q["measure"] == "update time of a 1T model"
    changed["quantities"][0]["key"] = "orchard.update-1t-rdma"
    for claim in changed["claims"][-2:]:
        claim["quantity"] = "orchard.update-1t-rdma"
    result = claims("import", write_json(changed, "ranked.json"))
    assert result.exit_code == 0, result.output
    (q,) = json.loads(claims("values", "orchard.update-1t-rdma", "--format", "json").stdout)
    assert q["measure"] == "update time of a 1T model over RDMA"
    assert len(q["values"]) == 2
