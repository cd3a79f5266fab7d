"""The typed claim view, read in sets: a selection larger than the engine's limit on bound parameters
(SQLite's compiled limit, 32,766; PostgreSQL's 65,535) is exported and linted, on each engine."""

from __future__ import annotations

import json

import pytest

from claimsdb import db, views

# Past PostgreSQL's 65,535 parameters, and so past SQLite's limit too: a statement binding one
# parameter per claim would fail on either engine.
BEYOND_THE_LIMIT = 65_536 + 64


@pytest.fixture
def many(claims, tmp_path):
    """BEYOND_THE_LIMIT claims of one subject, imported as a data file (its tags may be secondary)."""
    doc = {
        "sources": [
            {
                "key": "big-report",
                "title": "Big report",
                "kind": "report",
                "url": "https://example.org/big",
            }
        ],
        "claims": [
            {
                "key": f"big.{i:06d}",
                "subject": "Widget-9",
                "statement": f"Widget-9 ran job {i}.",
                "tag": "note-2026-09-21" if i % 2 else "agent-reported",
                "basis": "generated",
                "figures": [f"{1000 + i:,} GPUs"] if i < 3 else [],
                "evidence": [{"source": "big-report", "locator": f"row {i}"}],
            }
            for i in range(BEYOND_THE_LIMIT)
        ],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = claims("import", str(path))
    assert result.exit_code == 0, result.output
    return tmp_path


@pytest.mark.slow
def test_export_and_lint_read_a_selection_beyond_the_parameter_limit(many, claims, store):
    exported = claims(
        "export",
        "--skip-unsafe",
        "--subject",
        "Widget-9",
        "--format",
        "csv",
        "-o",
        str(many / "t.csv"),
    )
    assert exported.exit_code == 0, exported.stderr
    assert (many / "t.csv").read_text(encoding="utf-8").count("\nbig.") == BEYOND_THE_LIMIT // 2
    assert f"left out {BEYOND_THE_LIMIT // 2} claim(s)" in exported.stderr
    paper = many / "paper.md"
    paper.write_text("Widget-9 ran on 1,000 GPUs, then on 1,001 GPUs.\n", encoding="utf-8")
    linted = claims("lint", str(paper), "--format", "json")  # reads every claim of Widget-9
    assert linted.exit_code == 1, linted.stderr
    report = json.loads(
        linted.stdout
    )  # 1,000 GPUs is agent-reported; 1,001 GPUs secondary: it passes
    assert [(f["raw"], f["severity"], f["claims"]) for f in report["findings"]] == [
        ("1,000 GPUs", "error", ["big.000000"])
    ]
    assert report["passed"] == 1
    listed = claims("list", "--subject", "Widget-9", "--format", "json")
    assert listed.exit_code == 0 and len(json.loads(listed.stdout)) == BEYOND_THE_LIMIT


def test_views_come_in_the_order_asked_and_a_batch_binds_at_most_batch_parameters(
    claims, store, monkeypatch
):
    from tests.conftest import DATA_FILES

    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    monkeypatch.setattr(views, "BATCH", 7)  # many batches of a small store
    monkeypatch.setattr(views, "ARRAY_BATCH", 7)  # PostgreSQL's too
    bound: list[int] = []
    real_read = views._read

    def counting(session, what, ids):
        bound.append(len(ids))
        return real_read(session, what, ids)

    monkeypatch.setattr(views, "_read", counting)
    engine = db.open_engine(store)
    with db.session_scope(engine) as session:
        ids = views.select_ids(session)
        read = list(views.load(session, list(reversed(ids))))
    assert [v.id for v in read] == list(reversed(ids)) and len(read) == 180
    assert max(bound) == 7 and len(bound) == 5 * -(
        -180 // 7
    )  # one query per table a batch, never one per claim
