"""Every column a reader or a check depends on is covered (issue 22, item 4): a figure's parsed columns,
its name and the claim's stage, basis, section and quantity are recorded in the history (the stored
record, history.stored_digest), so an edit of any of them is found by `claims db check`, `export`,
`lint`, `verify` and `show`; a store of an earlier release upgrades, is sealed as it stood, and its
re-reads still vouch."""

from __future__ import annotations

import copy
import json

import pytest
import sqlalchemy as sa

from claimsdb import db, history
from claimsdb import store as store_
from claimsdb.figures import parse
from claimsdb.importer import known as import_known
from claimsdb.importer import write as import_write
from claimsdb.records import figures as record_figures
from claimsdb.records import reading as records
from tests.conftest import DATA_FILES, SAMPLE, importer_before_definitions, run_sql
from tests.pages import WIDGET

DATA = copy.deepcopy(SAMPLE)
DATA["quantities"] = [{"key": "widget.size", "subject": "Widget-7", "measure": "parameters"}]
DATA["claims"].append(
    {
        "key": "widget.arch",
        "subject": "Widget-7",
        "stage": "Pretrain",
        "section": "§2",
        "quantity": "widget.size",
        "statement": "Widget-7 is a 355B-A32B model, triple the speed, on up to 1,024 H100, from 4K → 128K context, 16:44.",
        "tag": "note-2026-10-04",
        "basis": "From the later note.",
        "figures": [
            "355B-A32B",
            {"raw": "triple", "name": "speedup", "kind": "value", "value": 3, "unit": "x"},
            "up to 1,024 H100",
            "4K → 128K",
            "16:44",
        ],
        "evidence": [{"source": "widget-report", "locator": "§2", "quote": "355B-A32B"}],
    }
)

# (what is edited, the SQL, the claim it changes): each run with the triggers in place, as anyone who
# can write the file (or is a writer on PostgreSQL) may: no trigger guards these columns.
EDITS = [
    ("value", "UPDATE figure SET value = 400e9 WHERE raw = '355B-A32B'", "widget.arch"),
    ("active", "UPDATE figure SET active = 40e9 WHERE raw = '355B-A32B'", "widget.arch"),
    ("low", "UPDATE figure SET low = 10000 WHERE raw = '40–60K sandboxes'", "gadget.fleet"),
    ("high", "UPDATE figure SET high = 90000 WHERE raw = '40–60K sandboxes'", "gadget.fleet"),
    ("start", "UPDATE figure SET start = 2000 WHERE raw = '4K → 128K'", "widget.arch"),
    ("end", "UPDATE figure SET \"end\" = 256000 WHERE raw = '4K → 128K'", "widget.arch"),
    ("steps", "UPDATE figure SET steps = '[16.0, 45.0]' WHERE raw = '16:44'", "widget.arch"),
    (
        "comparator",
        "UPDATE figure SET comparator = '=' WHERE raw = 'up to 1,024 H100'",
        "widget.arch",
    ),
    ("kind", "UPDATE figure SET kind = 'text' WHERE raw = 'triple'", "widget.arch"),
    ("unit", "UPDATE figure SET unit = NULL WHERE raw = 'triple'", "widget.arch"),
    (
        "unit of a counted figure",
        "UPDATE figure SET unit = 'TPUs' WHERE raw = '3,072 H100'",
        "widget.pretrain",
    ),
    ("counted", "UPDATE figure SET counted = 'B300' WHERE raw = 'up to 1,024 H100'", "widget.arch"),
    ("name", "UPDATE figure SET name = 'slowdown' WHERE raw = 'triple'", "widget.arch"),
    ("stage", "UPDATE claim SET stage = 'Serve' WHERE key = 'widget.arch'", "widget.arch"),
    (
        "basis",
        "UPDATE claim SET basis = 'Re-read by the author.' WHERE key = 'widget.arch'",
        "widget.arch",
    ),
    ("section", "UPDATE claim SET section = '§9' WHERE key = 'widget.arch'", "widget.arch"),
    ("quantity", "UPDATE claim SET quantity_id = NULL WHERE key = 'widget.arch'", "widget.arch"),
    (
        "a figure added",
        "INSERT INTO figure (claim_id, position, raw, kind, comparator, value) "
        "SELECT id, 9, '7', 'value', '=', 7 FROM claim WHERE key = 'widget.context'",
        "widget.context",
    ),
    ("a figure removed", "DELETE FROM figure WHERE raw = '16:44'", "widget.arch"),
]


@pytest.fixture
def data(claims, write_json):
    result = claims("import", write_json(DATA))
    assert result.exit_code == 0, result.output
    assert claims("db", "check").exit_code == 0


@pytest.mark.slow
@pytest.mark.usefixtures("data")
@pytest.mark.parametrize("sql, key", [e[1:] for e in EDITS], ids=[e[0] for e in EDITS])
def test_an_edited_stored_column_is_found_by_every_reader(claims, store, tmp_path, sql, key):
    run_sql(store, sql)
    check = claims("db", "check", "--format", "json")
    assert check.exit_code == 1
    report = {c["name"]: c for c in json.loads(check.stdout)["checks"]}
    assert report["triggers"]["ok"]  # nothing was switched off
    assert not report["claims agree with their history"]["ok"]
    assert f"first: {key}: " in report["claims agree with their history"]["detail"]
    paper = (
        tmp_path / "paper.md"
    )  # lint checks the claims it reads: those of the subjects the paper names
    paper.write_text(
        "Widget-7 was pretrained on 3,072 H100 GPUs. Gadget runs sandboxes.\n", encoding="utf-8"
    )
    for args in (
        ["export", "--skip-unsafe"],
        ["export", "--draft", "--format", "macros"],
        ["lint", str(paper)],
        ["verify", key, "--offline"],
    ):
        result = claims(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith(f"error: claim {key} disagrees with its history: "), (
            args,
            result.stderr,
        )
    assert "TAMPERED: " in claims("show", key).stdout


@pytest.mark.slow
@pytest.mark.usefixtures("data")
def test_the_issue_replay_a_unit_edited_no_longer_lets_lint_pass_an_unverified_figure(
    claims, store, tmp_path
):
    paper = tmp_path / "paper.md"
    paper.write_text("Gadget runs 40–60K sandboxes at once.\n", encoding="utf-8")
    before = claims("lint", paper)
    assert before.exit_code == 1 and "gadget.fleet" in before.stdout  # agent-reported: an error
    run_sql(store, "UPDATE figure SET unit = 'containers' WHERE raw = '40–60K sandboxes'")
    after = claims(
        "lint", paper
    )  # without the stored record: exit 0, the figure no longer counts sandboxes
    assert after.exit_code == 2 and "claim gadget.fleet disagrees with its history" in after.stderr
    assert (
        "stored figures" in after.stderr and "differ from what its history recorded" in after.stderr
    )
    check = claims("db", "check")
    assert check.exit_code == 1 and "gadget.fleet" in check.stderr


@pytest.mark.usefixtures("data")
def test_an_edit_made_with_the_triggers_off_and_an_event_forged_to_match_is_still_found(
    claims, store
):
    """An attacker who also rewrites the stored record of the latest event breaks its hash."""
    digest = "0" * 64
    run_sql(
        store,
        "UPDATE figure SET unit = NULL WHERE raw = 'triple'",
        (
            f"UPDATE event SET stored_sha256 = '{digest}' WHERE id = "
            "(SELECT max(id) FROM event WHERE claim_id = (SELECT id FROM claim WHERE key = 'widget.arch'))",
            (),
        ),
        without_triggers=True,
    )
    check = claims("db", "check")
    assert check.exit_code == 1 and "does not match its hash" in check.stderr


def test_the_import_records_the_rows_it_writes_and_a_reread_records_none(
    claims, write_json, engine_with_data, page
):
    with db.session_scope(engine_with_data) as session:
        rows = session.execute(
            sa.text(
                "SELECT e.kind, e.stored_sha256 FROM event e JOIN claim c ON c.id = e.claim_id "
                "WHERE c.key = 'widget.arch' ORDER BY e.id"
            )
        ).all()
    assert [k for k, _ in rows] == ["imported"] and rows[0][1] is not None
    # the page says it so; "triple" (stored as 3 x) is found on a page only written as a number
    copy = page("## 2 Architecture", DATA["claims"][-1]["statement"] + " That is 3x the speed.")
    reread = claims(
        "reread",
        "widget.arch",
        "--source",
        "widget-report",
        "--locator",
        "§2",
        "--quote",
        "355B-A32B model",
        "--copy",
        copy,
        "--yes",
        "--by",
        "Ada",
    )
    assert reread.exit_code == 0, reread.output
    with db.session_scope(engine_with_data) as session:
        kinds = session.execute(
            sa.text(
                "SELECT e.kind, e.stored_sha256 FROM event e JOIN claim c ON c.id = e.claim_id "
                "WHERE c.key = 'widget.arch' ORDER BY e.id"
            )
        ).all()
    assert kinds[-1] == (
        "reread",
        None,
    )  # a re-read writes no figure: the import's record still holds
    assert claims("db", "check").exit_code == 0


@pytest.fixture
def engine_with_data(store, data):
    engine = db.open_engine(store, create=False)
    yield engine
    engine.dispose()


def test_the_stored_figure_columns_are_the_figure_rows_columns():
    assert (
        import_known.FIGURE_COLUMNS[1:] == history.STORED_FIGURE_COLUMNS
    )  # all but the position, in order


def test_the_stored_digest_reads_a_row_and_a_view_alike():
    from claimsdb.figures import figure_columns

    fig = record_figures.figure(
        {"raw": "triple", "name": "speedup", "kind": "value", "value": 3, "unit": "x"},
        name="f",
        label="l",
        field="figures[0]",
    )
    row = figure_columns(0, fig)
    view = {
        **row,
        "steps": [],
        "value": 3,
    }  # a view's steps are a list; an int is the float it was stored as
    assert history.stored_digest("S", "b", None, 1, [row]) == history.stored_digest(
        "S", "b", None, 1, [view]
    )
    for changed in (
        {"unit": None},
        {"value": 3.5},
        {"name": None},
        {"comparator": "~"},
        {"steps": "[3.0]"},
    ):
        assert history.stored_digest(
            "S", "b", None, 1, [{**row, **changed}]
        ) != history.stored_digest("S", "b", None, 1, [row])
    assert history.stored_digest("S", "b", None, 2, [row]) != history.stored_digest(
        "S", "b", None, 1, [row]
    )


def test_a_better_parser_rewrites_the_rows_with_an_event_and_the_reread_still_vouches(
    claims, write_json, monkeypatch, page
):
    assert claims("import", write_json(DATA)).exit_code == 0
    reread = claims(
        "reread",
        "widget.pretrain",
        "--source",
        "widget-report",
        "--locator",
        "§3.1",
        "--quote",
        "3,072 H100 GPUs",
        "--copy",
        page(*WIDGET),
        "--yes",
        "--by",
        "Ada",
    )
    assert reread.exit_code == 0, reread.output

    # another reading of "3,072 H100" (a later parser's), and the rules' digest a changed parser gives
    def better(raw):
        q = parse(raw)
        return q.__class__(**{**q.__dict__, "counted": "H100 SXM"}) if raw == "3,072 H100" else q

    monkeypatch.setattr(record_figures, "_parsed", better)
    monkeypatch.setattr(records, "_rules_digest", lambda: "a-later-parser")
    record_figures._plain_figure.cache_clear()
    result = claims("import", write_json(DATA), "--format", "json")
    record_figures._plain_figure.cache_clear()
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["updated"] == {"widget.pretrain": ["figures"]}
    shown = json.loads(claims("show", "widget.pretrain", "--format", "json").stdout)
    assert shown["figures"][0]["counted"] == "H100 SXM"
    assert shown["events"][-1]["kind"] == "updated" and shown["tag"] == "spot-checked"
    assert (
        not shown["reread_outdated"] and not shown["integrity"]
    )  # the content, and so the re-read, held
    assert claims("db", "check").exit_code == 0


# --- a store of an earlier release -------------------------------------------------------------------


def reread_as_0007(
    engine, key: str, source: str, locator: str, quote: str, actor: str = "ada"
) -> None:
    """Record a re-read as claimsdb did at schema 0007 (its event has no stored record)."""
    with db.session_scope(engine) as session:
        q = lambda sql, **p: session.execute(sa.text(sql), p)  # noqa: E731
        claim = q("SELECT id, subject, statement, tag FROM claim WHERE key = :k", k=key).one()
        figures = [
            tuple(r)
            for r in q(
                "SELECT raw, name FROM figure WHERE claim_id = :c ORDER BY position", c=claim.id
            )
        ]
        evidence = [
            tuple(r)
            for r in q(
                "SELECT s.key, e.locator, e.quote FROM evidence e JOIN source s ON s.id = e.source_id "
                "WHERE e.claim_id = :c ORDER BY e.position",
                c=claim.id,
            )
        ]
        event = {
            "at": "2026-11-30T12:00:00+00:00",
            "kind": "reread",
            "actor": actor,
            "tag_before": claim.tag,
            "tag_after": "spot-checked",
            "status_after": None,
            "rank_after": None,
            "origin": source,
            "detail": json.dumps(
                {"source": source, "locator": locator, "quote": quote, "linked": True}
            ),
            "content_sha256": history.content_digest(
                claim.subject, claim.statement, figures, [*evidence, (source, locator, quote)]
            ),
            "prev_sha256": q("SELECT sha256 FROM event ORDER BY id DESC LIMIT 1").scalar(),
        }
        event["sha256"] = history.event_digest(key, event)
        q(
            "INSERT INTO event (claim_id, at, kind, actor, tag_before, tag_after, status_after, rank_after, origin, detail, "
            "content_sha256, prev_sha256, sha256) VALUES (:claim_id, :at, :kind, :actor, :tag_before, :tag_after, "
            ":status_after, :rank_after, :origin, :detail, :content_sha256, :prev_sha256, :sha256)",
            claim_id=claim.id,
            **event,
        )
        event_id = q("SELECT max(id) FROM event").scalar()
        q(
            "INSERT INTO evidence (claim_id, source_id, position, locator, quote, event_id) SELECT :c, id, :p, :l, :qt, :e "
            "FROM source WHERE key = :s",
            c=claim.id,
            p=len(evidence),
            l=locator,
            qt=quote,
            e=event_id,
            s=source,
        )
        q("UPDATE claim SET tag = 'spot-checked' WHERE id = :c", c=claim.id)


def without_labels(paths, folder) -> list:
    """The data files as they were before the grid labels (schema 0011), which a store of 0008 cannot hold."""
    out = []
    for path in paths:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for claim in doc["claims"]:
            claim.pop("label", None)
        out.append(folder / path.name)
        out[-1].write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return out


def test_a_store_of_an_earlier_release_upgrades_is_sealed_and_its_rereads_still_vouch(
    store, claims, monkeypatch, tmp_path
):
    url = db.resolve_url(store)
    db.upgrade(
        url, "0008"
    )  # the last revision before the stored record (0008 added claims' aliases)
    # Today's importer also writes how each source came in (0012): a column lent for the import only.
    run_sql(store, "ALTER TABLE source ADD COLUMN origin VARCHAR")
    engine = db.make_engine(url)
    with monkeypatch.context() as patched:  # the importer as it wrote before 0009: no stored record
        patched.setattr(import_write.Writer, "_stored", lambda self, rec: None)
        importer_before_definitions(patched)
        with db.session_scope(engine) as session:
            store_.import_files(session, [str(p) for p in without_labels(DATA_FILES, tmp_path)])
    reread_as_0007(
        engine, "pipelines.obs.llama3-failures", "llama3-report", "Table 5", "466 interruptions"
    )
    engine.dispose()
    run_sql(store, "ALTER TABLE source DROP COLUMN origin")  # the store as 0008 left it
    # an edit made before the upgrade, that 0007 could not see (the trace index does not hold counted things)
    run_sql(store, "UPDATE figure SET counted = 'B300' WHERE raw = '2,048 H800'")
    assert claims("db", "check").exit_code == 2  # "run `claims db upgrade`"
    assert claims("db", "upgrade").exit_code == 0
    check = claims("db", "check", "--format", "json")
    assert check.exit_code == 0, check.stdout
    assert {c["name"]: c["ok"] for c in json.loads(check.stdout)["checks"]}["triggers"]

    shown = json.loads(claims("show", "pipelines.obs.llama3-failures", "--format", "json").stdout)
    assert (
        shown["tag"] == "spot-checked" and not shown["reread_outdated"] and not shown["integrity"]
    )
    assert shown["tag_reason"].startswith("re-read by ada on 2026-11-30 in llama3-report, Table 5")
    sealed = shown["events"][-1]
    assert (sealed["kind"], sealed["actor"], sealed["tag_after"]) == ("sealed", "claimsdb", None)
    exported = claims("export", "--skip-unsafe", "--format", "json")
    assert "pipelines.obs.llama3-failures" in {
        r["key"] for r in json.loads(exported.stdout)["rows"]
    }

    # the seal lists what it took on trust: the data file's explicit fields, and the edit made before it
    triple = json.loads(claims("show", "rl.bench.family-count-triple", "--format", "json").stdout)[
        "events"
    ][-1]
    (listed,) = triple["detail"]["figures_not_as_parsed"]
    assert listed["raw"] == "triple" and listed["parser"] == "cannot read it: no number in figure"
    assert listed["stored"] == {"kind": "value", "comparator": "=", "value": 3.0, "unit": "x"}
    nemotron = json.loads(
        claims("show", "pipelines.nemotron3-super.agentic-rl", "--format", "json").stdout
    )
    assert nemotron["events"][-1]["detail"]["figures_not_as_parsed"] == [
        {
            "figure": 1,
            "raw": "4,000 env instances per batch",
            "stored_and_parsed": {"unit": ["instances/batch", "instances"]},
        }
    ]
    (edited,) = json.loads(
        claims("show", "pipelines.deepseek-v3.pretrain", "--format", "json").stdout
    )["events"][-1]["detail"]["figures_not_as_parsed"]
    assert edited["stored_and_parsed"] == {"counted": ["B300", "H800"]}
    table = claims("history", "pipelines.nemotron3-super.agentic-rl").stdout
    assert "sealed" in table and "taken as stored, not as the parser reads them" in " ".join(
        table.split()
    )
    prov = json.loads(claims("history", "rl.bench.family-count-triple", "--format", "prov").stdout)
    (seal,) = [k for k, a in prov["activity"].items() if a["prov:type"]["$"] == "claims:sealed"]
    assert any(
        r["prov:activity"] == seal and r["prov:agent"].startswith("claims:tool/")
        for r in prov["wasAssociatedWith"].values()
    )

    # from now on an edit is found, and a re-read on the upgraded store records as usual
    run_sql(store, "UPDATE figure SET unit = NULL WHERE raw = 'triple'")
    check = claims("db", "check")
    assert check.exit_code == 1 and "rl.bench.family-count-triple" in check.stderr
    assert claims("export", "--skip-unsafe").exit_code == 2
