"""A claim's grid label (issue 25, item 3): it is read from a data file with clear errors, stored
(schema 0011), shown, exported in its grid cell, and vouched for by a re-read like the figures it stands
beside; a store of schema 0010 upgrades with no labels and still verifies."""

from __future__ import annotations

import copy
import hashlib
import json

from claimsdb import db, history
from tests.conftest import SAMPLE, show_json, store_digest
from tests.pages import WIDGET_CONTEXT, WIDGET_PRETRAIN

LABEL = "3,072 H100, 21.5T"  # the phrase a grid cell shows for widget.pretrain


def labelled(label: str | None = LABEL) -> dict:
    doc = copy.deepcopy(SAMPLE)
    if label is not None:
        doc["claims"][0]["label"] = label
    return doc


def test_a_label_round_trips_through_import_show_json_and_the_grid(claims, write_json):
    result = claims("import", write_json(labelled()))
    assert result.exit_code == 0, result.output
    assert f"grid label: {LABEL}" in claims("show", "widget.pretrain").stdout
    shown = show_json(claims, "widget.pretrain")
    assert shown["label"] == LABEL and not shown["reread_outdated"] and not shown["integrity"]
    assert show_json(claims, "widget.context")["label"] is None

    grid = claims("export", "--skip-unsafe", "--grid", "--format", "json")
    assert grid.exit_code == 0, grid.output
    (cell,) = json.loads(grid.stdout)["grids"][0]["subjects"][0]["cells"]["Pretrain"]
    assert (cell["label"], cell["text"]) == (LABEL, LABEL)
    table = claims("export", "--skip-unsafe", "--grid").stdout
    assert f"| Widget-7 | {LABEL} | 8K → 256K |" in table
    listed = json.loads(claims("export", "--skip-unsafe", "--format", "json").stdout)["rows"]
    assert [r["label"] for r in listed] == [LABEL, None]
    assert claims("db", "check").exit_code == 0


def test_a_label_changed_after_the_re_read_needs_a_re_read(claims, write_json, page):
    """A grid prints the label in place of the figures: the re-read vouched for it, so a new one is not
    paper-safe until a person reads it again (history.content_digest covers the label)."""
    assert claims("import", write_json(labelled())).exit_code == 0
    again = claims("import", write_json(labelled("9,999 H100, 21.5T")))
    assert again.exit_code == 0, again.output
    assert "widget.pretrain" in again.stdout and "claims reread widget.pretrain" in again.stdout
    shown = show_json(claims, "widget.pretrain")
    assert (
        shown["label"] == "9,999 H100, 21.5T"
        and shown["reread_outdated"]
        and not shown["integrity"]
    )
    assert shown["events"][-1]["detail"]["changes"]["label"] == [LABEL, "9,999 H100, 21.5T"]
    assert claims("export", "--subject", "widget", "--grid").exit_code == 1  # the gate closes
    reread = claims(
        "reread", "widget.pretrain", "--by", "Ada", *WIDGET_PRETRAIN.flags(page), "--yes"
    )
    assert reread.exit_code == 0, reread.output
    assert claims("export", "--subject", "widget", "--grid").exit_code == 0


def test_a_label_edited_in_the_database_is_found(claims, write_json, store):
    from tests.conftest import run_sql

    assert claims("import", write_json(labelled())).exit_code == 0
    run_sql(store, "UPDATE claim SET label = '9,999 H100' WHERE key = 'widget.pretrain'")
    shown = show_json(claims, "widget.pretrain")
    assert shown["reread_outdated"] or shown["integrity"]
    assert claims("export", "--subject", "widget", "--grid").exit_code != 0


def test_a_bad_label_is_refused_naming_file_record_and_field_and_changes_nothing(
    claims, write_json, store
):
    assert claims("import", write_json(labelled(None))).exit_code == 0
    before = store_digest(store)
    for label, says in (
        ("x" * 101, "the most allowed is 100"),
        ("two\nlines", "one line"),
        (42, "must be text"),
        (SAMPLE["claims"][0]["statement"], "as long as the statement"),
    ):
        path = write_json(labelled(label), "bad.json")
        result = claims("import", path)
        assert result.exit_code == 2, result.output
        assert f"{path}: claim 'widget.pretrain', field label" in result.stderr or (
            str(path) in result.stderr
            and "'widget.pretrain'" in result.stderr
            and "label" in result.stderr
        )
        assert says in result.stderr and "Traceback" not in result.output
        assert len(result.stderr.strip().splitlines()) == 1
        assert store_digest(store) == before


def content_digest_0010(subject, statement, figures, evidence, label=None) -> str:
    """history.content_digest as releases before schema 0011 computed it: no label."""
    payload = [
        history.HASH_VERSION,
        subject,
        statement,
        [list(f) for f in figures],
        [list(e) for e in evidence],
    ]
    return hashlib.sha256(history._ENCODE(payload).encode("utf-8", "surrogatepass")).hexdigest()


def test_a_store_of_schema_0010_upgrades_with_no_labels_and_its_re_reads_still_vouch(
    claims, write_json, store, monkeypatch, page
):
    from alembic import command

    with monkeypatch.context() as patched:  # the digests a release before 0011 recorded
        patched.setattr(history, "content_digest", content_digest_0010)
        assert claims("import", write_json(labelled(None))).exit_code == 0
        reread = claims(
            "reread", "widget.context", "--by", "Ada", *WIDGET_CONTEXT.flags(page), "--yes"
        )
        assert reread.exit_code == 0, reread.output
    command.downgrade(
        db._alembic_config(db.resolve_url(store)), "0010"
    )  # the store as 0010 left it
    db.dispose_engines()
    assert claims("db", "check").exit_code == 2  # "run `claims db upgrade`"
    upgraded = claims("db", "upgrade")
    assert upgraded.exit_code == 0, upgraded.output
    check = claims("db", "check")
    assert check.exit_code == 0, check.output
    for key in ("widget.pretrain", "widget.context"):
        shown = show_json(claims, key)
        assert shown["label"] is None and not shown["reread_outdated"] and not shown["integrity"], (
            key
        )
        assert shown["tag"] == "spot-checked"
    assert claims("export", "--skip-unsafe", "--grid").exit_code == 0
    assert claims("import", write_json(labelled())).exit_code == 0  # and labels can come in
    assert show_json(claims, "widget.pretrain")["label"] == LABEL
