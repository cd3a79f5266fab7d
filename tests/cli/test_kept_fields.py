"""A person's fields are kept (issue 34, item 3): a data file never changes a source field, an alias or a
quantity that a person set or that a re-read names (a conflict: exit 1, that record not written, the
rest of the file imported), and an agent channel never changes a registered quantity nor names a subject
a person vouches for by another name (exit 2, nothing written). What only data files ever set, a data
file may still change."""

from __future__ import annotations

import copy
import json

import pytest

from tests.conftest import SAMPLE, reread, run_sql, show_json, store_digest

NEW_CLAIM = {
    "key": "widget.eval",
    "subject": "Widget-7",
    "statement": "Widget-7 was evaluated on 12 benchmarks.",
    "tag": "note-2026-10-04",
    "basis": "From the later note.",
    "figures": ["12 benchmarks"],
    "evidence": [{"source": "lab-notes"}],
}
QUANTITY = {"key": "widget.gpus", "subject": "Widget-7", "measure": "pretraining GPUs"}


def source_row(store: str, key: str) -> tuple:
    """The source's registered fields and origin, as the database holds them."""
    from sqlalchemy import create_engine, text

    from claimsdb.db import resolve_url

    engine = create_engine(resolve_url(store))
    try:
        with engine.connect() as conn:
            return tuple(
                conn.execute(
                    text(
                        "SELECT title, kind, url, cite_key, publisher, origin FROM source "
                        "WHERE key = :key"
                    ),
                    {"key": key},
                ).one()
            )
    finally:
        engine.dispose()


def with_source(doc: dict, key: str, **changes) -> dict:
    changed = copy.deepcopy(doc)
    for src in changed["sources"]:
        if src["key"] == key:
            src.update(changes)
    return changed


def conflicted(claims, write_json, doc: dict, name: str = "claims.json") -> tuple:
    """Import `doc`, which conflicts with the store (exit 1): the file's path and the output."""
    path = write_json(doc, name)
    result = claims("import", path)
    assert result.exit_code == 1, result.output
    return path, result.output


def lines(*objects) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)


# --- sources ----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "field, stored, offered",
    [
        ("url", "https://example.org/widget", "https://evil.example/widget"),
        ("title", "Widget technical report", "Widget report (retracted)"),
        ("cite_key", "widget2026", "evil2026"),
        ("kind", "report", "blog"),
    ],
)
def test_a_data_file_never_repoints_the_page_a_person_reread(
    claims, write_json, store, field, stored, offered
):
    """widget-report is the page Grace Hopper re-read widget.pretrain on: its registration is hers."""
    before = source_row(store, "widget-report")
    doc = with_source(SAMPLE, "widget-report", **{field: offered})
    doc["claims"].append(NEW_CLAIM)
    path, output = conflicted(claims, write_json, doc, "moved.json")
    assert "1 added, 0 updated" in output
    assert "0 sources added, 0 updated" in output
    assert (
        f"conflict source widget-report: {path}, record 'widget-report', field '{field}': "
        f"kept {stored!r} (the page of a re-read by Grace Hopper on 2026-10-02); "
        f"the file says {offered!r}"
    ) in output
    # origin still data-file, fields as they were
    assert source_row(store, "widget-report") == before
    assert show_json(claims, "widget.eval")["key"] == "widget.eval"  # the rest of the file imported
    shown = show_json(claims, "widget.pretrain")  # the re-read vouches for the page it was made on
    assert (shown["trust"], shown["reread_outdated"], shown["integrity"]) == ("verified", False, [])
    bib = claims("export", "--format", "bibtex", "--skip-unsafe")
    assert bib.exit_code == 0, bib.output
    assert "@" in bib.stdout
    if field != "kind":
        assert offered not in bib.stdout
    if field in ("url", "cite_key"):
        assert stored in bib.stdout


@pytest.mark.usefixtures("loaded")
def test_the_conflict_is_data_in_json_and_csv_and_a_dry_run_exits_1_too(claims, write_json, store):
    path = write_json(with_source(SAMPLE, "widget-report", url="https://evil.example/w"), "m.json")
    before = store_digest(store)
    dry = claims("import", path, "--dry-run", "--format", "json")
    assert dry.exit_code == 1, dry.output
    assert store_digest(store) == before
    (conflict,) = json.loads(dry.stdout)["conflicts"]
    assert conflict == {
        "key": "widget-report",
        "field": "url",
        "kept": "https://example.org/widget",
        "offered": "https://evil.example/w",
        "why": "the page of a re-read by Grace Hopper on 2026-10-02",
        "applied": False,
        "kind": "source",
        "file": str(path),
        "record": "'widget-report'",
        "registered": True,
    }
    rows = claims("import", path, "--format", "csv")
    assert rows.exit_code == 1
    assert "source,widget-report,conflict,url," in rows.stdout
    assert store_digest(store) == before  # nothing to write: every other record is unchanged


def test_a_data_file_never_changes_a_source_registered_by_hand(claims, write_json, store):
    added = claims(
        "sources",
        "add",
        "widget-report",
        "--title",
        "Widget report (my copy)",
        "--kind",
        "report",
        "--url",
        "https://example.org/widget",
    )
    assert added.exit_code == 0, added.output
    doc = copy.deepcopy(SAMPLE)
    del doc["claims"][0]["reread"]  # no re-read names the page: its origin alone keeps it
    doc["claims"][0]["tag"] = "note-2026-10-04"
    _, output = conflicted(claims, write_json, doc)
    assert (
        "field 'title': kept 'Widget report (my copy)' (registered by hand (claims sources add)); "
        "the file says 'Widget technical report'"
    ) in output
    assert source_row(store, "widget-report")[0::5] == ("Widget report (my copy)", "by-hand")
    assert show_json(claims, "widget.pretrain")["sources"][0]["key"] == "widget-report"


@pytest.mark.usefixtures("loaded")
def test_a_source_registered_before_origins_were_recorded_is_kept(claims, write_json, store):
    run_sql(store, "UPDATE source SET origin = NULL WHERE key = 'lab-notes'")
    _, output = conflicted(
        claims, write_json, with_source(SAMPLE, "lab-notes", title="Lab notebook")
    )
    assert "kept 'Lab notes' (registered before claims recorded how)" in output
    assert source_row(store, "lab-notes")[0] == "Lab notes"


@pytest.mark.usefixtures("loaded")
def test_a_data_file_still_updates_a_source_only_data_files_set(claims, write_json, store):
    """lab-notes came from the data file and no re-read names it (a note cannot be re-read)."""
    result = claims("import", write_json(with_source(SAMPLE, "lab-notes", title="Lab notebook")))
    assert result.exit_code == 0, result.output
    assert "0 conflicts; 0 sources added, 1 updated" in result.output
    assert source_row(store, "lab-notes")[0::5] == ("Lab notebook", "data-file")


@pytest.mark.usefixtures("loaded")
def test_a_bibliographys_cite_key_is_not_undone_by_the_next_data_file_import(
    claims, write_json, store, tmp_path
):
    """Issue 36's case: `sources import --update-manual` takes the paper's cite key and authors for a
    data file's source; importing the data file again keeps them (the title and cite key it gives
    otherwise are conflicts, exit 1; the fields it leaves empty claim nothing)."""
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@techreport{Hopper2026:notes, title = {Lab notebook of the widget team},"
        " author = {Hopper, Grace}, year = {2026}, url = {https://example.org/lab}}\n",
        encoding="utf-8",
    )
    doc = with_source(SAMPLE, "lab-notes", url="https://example.org/lab", cite_key="labnotes")
    assert claims("import", write_json(doc)).exit_code == 0  # the page the bibliography names
    taken = claims("sources", "import", str(bib), "--update-manual")
    assert taken.exit_code == 0, taken.output
    assert source_row(store, "lab-notes")[0::5] == (
        "Lab notebook of the widget team",
        "bibliography",
    )
    again = claims("import", write_json(doc))
    assert again.exit_code == 1, again.output
    said = " ".join(again.output.split())
    assert "field 'cite_key': kept 'Hopper2026:notes' (registered from a bibliography" in said
    assert "the file says 'labnotes'" in said
    assert "field 'authors'" not in said  # the file gives none: nothing to keep against
    assert source_row(store, "lab-notes")[0::3] == (
        "Lab notebook of the widget team",
        "Hopper2026:notes",
    )


# --- quantities -------------------------------------------------------------------------------------


@pytest.fixture
def quantified(claims, write_json):
    doc = copy.deepcopy(SAMPLE)
    doc["quantities"] = [QUANTITY, {"key": "gadget.sandboxes", "subject": "Gadget", "measure": "x"}]
    doc["claims"][0]["quantity"] = "widget.gpus"  # re-read by Grace Hopper
    doc["claims"][2]["quantity"] = "gadget.sandboxes"  # an agent's, nobody's word on it
    result = claims("import", write_json(doc))
    assert result.exit_code == 0, result.output
    return doc


def values(claims, key: str) -> dict:
    (q,) = json.loads(claims("values", key, "--format", "json").stdout)
    return {k: q[k] for k in ("subject", "measure", "description")}


@pytest.mark.parametrize(
    "field, offered",
    [("subject", "Widget-8"), ("measure", "pretraining TPUs"), ("description", "now with TPUs")],
)
def test_a_json_line_never_changes_a_registered_quantity(claims, quantified, store, field, offered):
    before = store_digest(store)
    gadget = {"key": "gadget.sandboxes", "subject": "Gadget", "measure": "x"}
    for q in (QUANTITY, gadget):  # a person's word on it or not: an agent changes neither
        result = claims("import", "-", input=lines({"quantity": {**q, field: offered}}))
        assert result.exit_code == 2, result.output
        assert (
            f"<stdin>, record line 1, field {field!r}: quantity {q['key']!r} is registered with "
            f"another {field}: an agent channel may add a quantity, never change one"
        ) in result.stderr
        assert store_digest(store) == before
    added = {"key": "probe.gpus", "subject": "Probe", "measure": "GPUs"}
    assert claims("import", "-", input=lines({"quantity": added})).exit_code == 0


def test_a_data_file_never_changes_a_quantity_a_reread_vouches_a_value_of(
    claims, quantified, write_json
):
    doc = copy.deepcopy(quantified)
    doc["quantities"][0] = {**QUANTITY, "measure": "pretraining TPUs"}
    path, output = conflicted(claims, write_json, doc)
    assert (
        f"conflict quantity widget.gpus: {path}, record 'widget.gpus', field 'measure': kept "
        "'pretraining GPUs' (a value of it, widget.pretrain, re-read by Grace Hopper on 2026-10-02); "
        "the file says 'pretraining TPUs'"
    ) in output
    assert values(claims, "widget.gpus")["measure"] == "pretraining GPUs"


def test_a_data_file_never_changes_a_quantity_a_person_ranked(claims, quantified, write_json):
    ranked = claims("deprecate", "gadget.fleet", "--reason", "a sweep's guess", "--by", "Ada")
    assert ranked.exit_code == 0, ranked.output
    doc = copy.deepcopy(quantified)
    doc["quantities"][1]["description"] = "sandboxes at once"
    _, output = conflicted(claims, write_json, doc)
    assert "kept None (a value of it, gadget.fleet, ranked by Ada on" in output
    assert values(claims, "gadget.sandboxes")["description"] is None


def test_a_data_file_still_updates_a_quantity_nobody_vouched_for(claims, quantified, write_json):
    doc = copy.deepcopy(quantified)
    doc["quantities"][1]["measure"] = "sandboxes at once"
    result = claims("import", write_json(doc))
    assert result.exit_code == 0, result.output
    assert values(claims, "gadget.sandboxes")["measure"] == "sandboxes at once"


# --- aliases ----------------------------------------------------------------------------------------


@pytest.fixture
def aliased(claims, write_json):
    doc = copy.deepcopy(SAMPLE)
    doc["claims"][0]["aliases"] = ["W7"]  # re-read by Grace Hopper
    doc["claims"][2]["aliases"] = ["Gadget RL"]  # an agent's
    result = claims("import", write_json(doc))
    assert result.exit_code == 0, result.output
    return doc


@pytest.mark.parametrize("offered", [["W-7"], ["W7", "GPT-5"], []])
def test_a_data_file_never_changes_the_aliases_of_a_claim_a_person_vouches_for(
    claims, aliased, write_json, offered
):
    doc = copy.deepcopy(aliased)
    doc["claims"][0]["aliases"] = offered
    doc["claims"][1]["statement"] = "Widget-7's context grew from 8K to 128K tokens."
    doc["claims"][1]["figures"] = ["8K → 128K"]
    path, output = conflicted(claims, write_json, doc)
    assert (
        f"conflict widget.pretrain: {path}, record 'widget.pretrain', field 'aliases': kept "
        "['W7'] (vouched for by Grace Hopper (reread, 2026-10-02"
    ) in output
    assert f"the file says {offered!r}" in output
    assert show_json(claims, "widget.pretrain")["aliases"] == ["W7"]
    assert show_json(claims, "widget.context")["figures"][0]["raw"] == "8K → 128K"  # the rest: in


def test_a_new_reread_in_the_file_brings_its_aliases(claims, aliased, write_json):
    doc = copy.deepcopy(aliased)
    doc["claims"][0]["aliases"] = ["W7", "Widget Seven"]
    doc["claims"][0]["reread"] = reread("widget-report", quote="3,072 H100 GPUs", at="2026-11-01")
    result = claims("import", write_json(doc))
    assert result.exit_code == 0, result.output
    assert show_json(claims, "widget.pretrain")["aliases"] == ["W7", "Widget Seven"]


def test_a_data_file_still_changes_the_aliases_of_a_claim_nobody_vouches_for(
    claims, aliased, write_json
):
    doc = copy.deepcopy(aliased)
    doc["claims"][2]["aliases"] = ["Gadget-RL"]
    result = claims("import", write_json(doc))
    assert result.exit_code == 0, result.output
    assert show_json(claims, "gadget.fleet")["aliases"] == ["Gadget-RL"]


def test_a_json_line_never_names_a_vouched_subject_otherwise(claims, aliased, store):
    before = store_digest(store)
    line = {
        "key": "probe.alias",
        "subject": "Widget-7",
        "statement": "Widget-7 is also sold as GPT-5.",
        "tag": "agent-reported",
        "basis": "an agent's sweep",
        "aliases": ["GPT-5"],
        "evidence": [{"source": "lab-notes"}],
    }
    result = claims("import", "-", input=lines(line))
    assert result.exit_code == 2, result.output
    assert "field 'aliases': an agent channel cannot give subject 'Widget-7' another name" in (
        result.stderr
    )
    assert store_digest(store) == before
    # the names a person's claim already gives it, or a subject nobody vouches for: recorded
    assert claims("import", "-", input=lines({**line, "aliases": ["W7"]})).exit_code == 0
    other = {**line, "key": "probe.gadget", "subject": "Gadget", "aliases": ["Gizmo"]}
    assert claims("import", "-", input=lines(other)).exit_code == 0
