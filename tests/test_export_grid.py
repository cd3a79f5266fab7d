"""Grid cells like the note's (issue 25, item 3): the life-cycle grid has the note's six stages in its
order and nothing else; the RL loop's topics get a grid of their own; a cell shows a claim's label or
its figures, never its statement, in every format that lays out a grid."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from claimsdb import db, paper_safe, store
from claimsdb.escaping import markdown_text
from claimsdb.exporters import latex, render
from claimsdb.queries import ClaimFilter
from claimsdb.trust.rule import Policy
from tests.conftest import DATA_FILES
from tests.web.markup import parse

GRID_FORMATS = ("markdown", "csv", "json", "latex", "html")
NOTE_STAGES = ["Data", "Pretrain", "Midtrain", "Post-train", "Agentic RL", "Serve"]
RL_TOPICS = {
    "trainer",
    "rollout",
    "weight sync",
    "queue / buffer",
    "sandbox fleet",
    "orchestrator",
    "placement",
    "staleness",
    "train-inference mismatch",
}


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    """The bundled data's grid, as a draft (every claim written)."""
    path = tmp_path_factory.mktemp("bundled") / "claims.db"
    engine = db.open_engine(str(path))
    with db.session_scope(engine) as session:
        store.import_files(session, [str(p) for p in DATA_FILES])
    with db.session_scope(engine) as session:
        prepared = paper_safe.prepare(
            session, ClaimFilter(), policy=Policy(), mode="draft", layout="grid"
        )
    engine.dispose()
    return prepared


def test_the_bundled_grid_has_the_six_stages_in_the_notes_order_then_the_topics_apart(bundled):
    grids = paper_safe.grids(bundled.rows)
    assert [g.title for g in grids] == ["Life-cycle stages", "Topics", "Without a stage"]
    life_cycle, topics, no_stage = grids
    assert life_cycle.columns == NOTE_STAGES
    assert RL_TOPICS <= set(topics.columns) and not set(topics.columns) & set(NOTE_STAGES)
    assert no_stage.columns == ["Claims"]
    in_grid = {r.key for g in grids for _, cells in g.rows for rows in cells.values() for r in rows}
    # every claim about a system is in exactly one of them; an observation in none
    observations = {r.key for r in bundled.rows if r.observation}
    assert observations and in_grid == {r.key for r in bundled.rows} - observations
    subjects = {subject for g in grids for subject, _ in g.rows}
    assert not subjects & {"audited benchmark tasks", "Overview page", "RL loop (conceptual)"}
    assert {"Kimi K2 / K3", "verl", "ROLL", "Qwen3.5"} <= subjects  # systems, with figures or not
    rl = {r.key: r.stage for r in bundled.rows if r.key.startswith("rl.weight-sync.")}
    assert rl and all(stage == "weight sync" for stage in rl.values())
    assert any(subject == "verl" and "weight sync" in cells for subject, cells in topics.rows)

    # and so it is in every format: six stage columns, no "(no stage)", the topics under their own title
    text = render(bundled, "markdown")
    assert "| Subject | Data | Pretrain | Midtrain | Post-train | Agentic RL | Serve |\n" in text
    assert (
        text.index("Table: Life-cycle stages")
        < text.index("Table: Topics")
        < text.index("Table: Without a stage")
    )
    doc = json.loads(render(bundled, "json"))
    assert [(g["title"], g["columns"]) for g in doc["grids"]][0] == (
        "Life-cycle stages",
        NOTE_STAGES,
    )
    rows = list(csv.DictReader(io.StringIO(render(bundled, "csv"))))
    assert {r["column"] for r in rows if r["grid"] == "Life-cycle stages"} == set(NOTE_STAGES)
    assert [
        r["column"] for r in rows if r["subject"] == "Llama 3" and r["grid"] == "Life-cycle stages"
    ] == ["Data", "Pretrain", "Midtrain", "Post-train", "Serve"]
    tex = render(bundled, "latex")
    assert (
        "Subject & Data & Pretrain & Midtrain \\\\" in tex
        and "Subject & Post-train & Agentic RL & Serve \\\\" in tex
    )
    assert "\\textbf{Topics}" in tex and "weight sync" in tex
    for fmt in GRID_FORMATS:
        assert "(no stage)" not in render(bundled, fmt), fmt


def _placed(prepared) -> list[paper_safe.ExportRow]:
    """The claims whose statement is longer than what their cell shows (all of the bundled data's)."""
    rows = [r for r in prepared.rows if len(r.statement) > len(paper_safe.cell_text(r) or "")]
    assert len(rows) == len(prepared.rows)
    return rows


def _without_footnotes(tex: str) -> str:
    out, at = [], 0
    for m in re.finditer(r"\\footnote\{", tex):
        if m.start() < at:
            continue
        out.append(tex[at : m.start()])
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(tex[i], 0) if tex[i - 1] != "\\" else 0
            i += 1
        at = i
    return "".join(out) + tex[at:]


def test_no_grid_cell_of_any_format_holds_a_statement(bundled):
    rows = [r for r in _placed(bundled) if not r.observation]  # an observation is in no grid
    statements = {r.key: r.statement for r in rows}
    words_only = [r for r in rows if paper_safe.cell_text(r) is None]
    assert words_only and len(words_only) < len(rows)

    table = [line for line in render(bundled, "markdown").splitlines() if line.startswith("|")]
    notes = [line for line in render(bundled, "markdown").splitlines() if line.startswith("[^")]
    for r in rows:
        assert not any(markdown_text(r.statement) in line for line in table), r.key
    assert len(notes) == len(words_only)  # each such statement is a footnote instead
    assert all(any(markdown_text(r.statement) in n for n in notes) for r in words_only)

    for row in csv.DictReader(io.StringIO(render(bundled, "csv"))):
        assert not any(s in row["cell"] for s in statements.values()), row

    for g in json.loads(render(bundled, "json"))["grids"]:
        for subject in g["subjects"]:
            for cell in subject["cells"].values():
                for item in cell:
                    assert item["text"] == (item["label"] or ", ".join(item["figures"]) or None)
                    assert item["text"] != item["statement"]

    tex = render(bundled, "latex")
    outside = _without_footnotes(tex)
    for r in rows:
        assert latex._text(r.statement) not in outside, r.key
    assert all(f"\\footnote{{{latex._text(r.statement)}" in tex for r in words_only)

    page = parse(render(bundled, "html"))
    grids = page.find_all("table", "grid")
    assert len(grids) == 3
    hovers = []
    for grid in grids:
        for td in grid.find_all("td"):
            assert not any(s in td.text() for s in statements.values()), td.text()
        hovers += [a.attrs["title"] for a in grid.find_all("a", "fig") if "text" in a.classes]
    assert all(any(h.startswith(r.statement + " · ") for h in hovers) for r in words_only)


def test_a_cell_shows_the_label_else_the_figures_as_written(bundled):
    by_key = {r.key: r for r in bundled.rows}
    assert paper_safe.cell_text(by_key["pipelines.llama3.data"]) == "curation, dedup, mixture"
    assert (
        paper_safe.cell_text(by_key["pipelines.glm5.pretrain"]) == "744B-A40B"
    )  # the note's phrase is its figure
    assert paper_safe.cell_text(by_key["rl.trainer.verl"]) is None
    text = render(bundled, "markdown")
    assert (
        "| Llama 3 | curation, dedup, mixture | 16K H100, 4D parallelism | long-context continuation, annealing |"
        in text
    )
