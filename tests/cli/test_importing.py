"""`claims import` through the CLI: exit codes, one-line errors, unchanged database file."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ENGINE, sqlite_only, store_digest


def test_import_reports_counts_and_a_second_import_is_unchanged(claims, write_json, sample):
    path = write_json(sample)
    first = claims("import", path)
    assert first.exit_code == 0, first.output
    assert "3 added, 0 updated, 0 unchanged, 0 conflicts" in first.output
    second = claims("import", path, "--format", "json")
    assert second.exit_code == 0
    assert json.loads(second.stdout)["counts"]["unchanged"] == 3


def test_dry_run_lists_the_plan(claims, write_json, sample):
    result = claims("import", write_json(sample), "--dry-run")
    assert result.exit_code == 0
    assert "dry run, nothing written" in result.output
    assert "add     widget.pretrain" in result.output
    listed = claims("list", "--format", "json")
    if ENGINE == "sqlite":  # the dry run left no file behind
        assert listed.exit_code == 2 and "no claims database" in listed.stderr
    else:  # a server's database exists already: it holds no claim
        assert json.loads(listed.stdout) == []


def test_bad_file_is_one_line_on_stderr_exit_2_and_the_database_unchanged(
    claims, write_json, sample, store
):
    assert claims("import", write_json(sample)).exit_code == 0
    sample["claims"][2]["tag"] = "rumour"
    bad = write_json(sample, "bad.json")
    before = store_digest(store)
    result = claims("import", bad)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        f"error: {bad}, record 'gadget.fleet', field 'tag': unknown tag 'rumour' "
        "(known: agent-reported, note-2026-09-21, note-2026-10-04, prior-note, spot-checked)"
    )
    assert "Traceback" not in result.output
    assert store_digest(store) == before


def test_malformed_json_exit_2(claims, tmp_path, store):
    assert claims("db", "upgrade").exit_code == 0
    path = tmp_path / "x.json"
    path.write_text("{not json", encoding="utf-8")
    before = store_digest(store)
    result = claims("import", path)
    assert result.exit_code == 2 and "not valid JSON" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert store_digest(store) == before


@pytest.mark.slow
@sqlite_only("a database file that does not exist yet (a server's database always does)")
def test_a_failed_command_or_a_dry_run_creates_no_database(claims, write_json, sample, tmp_path):
    new = tmp_path / "new" / "claims.db"
    sample["claims"][2]["tag"] = "rumour"
    assert claims("import", write_json(sample, "bad.json"), db=new).exit_code == 2
    assert claims("import", tmp_path / "missing.json", db=new).exit_code == 2
    refused = claims(
        "add",
        "--subject",
        "X",
        "--statement",
        "X has 4 parts.",
        "--figure",
        "4 parts",
        "--tag",
        "spot-checked",
        "--source",
        "https://example.org/x",
        "--quote",
        "4 parts",
        db=new,
    )
    assert refused.exit_code == 2
    sample["claims"][2]["tag"] = "agent-reported"
    dry = claims("import", "--dry-run", write_json(sample), db=new)
    assert dry.exit_code == 0 and "gadget.fleet" in dry.stdout  # the plan, and nothing written
    assert not new.parent.exists()  # neither the file nor the folder made for it
    assert claims("list", db=new).exit_code == 2  # still missing: not an empty store
    assert (
        claims("import", write_json(sample), db=new).exit_code == 0
    )  # and a good import then creates it
    assert "gadget.fleet" in claims("list", "--format", "json", db=new).stdout


def test_conflict_is_reported_in_the_output(claims, write_json, sample):
    path = write_json(sample)
    claims("import", path)
    assert (
        claims(
            "retag",
            "widget.context",
            "agent-reported",
            "--reason",
            "not in the note",
            "--by",
            "grace",
        ).exit_code
        == 0
    )
    result = claims("import", path)
    assert result.exit_code == 0
    assert "conflict widget.context: kept tag 'agent-reported' (set by grace" in result.output
    assert "the file says 'note-2026-10-04'" in result.output
