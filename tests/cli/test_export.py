"""`claims export` through the CLI: the gate, -o, --skip-unsafe, --draft, and the bundled data."""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA_FILES
from tests.latex import assert_contained, build, needs_tex


@pytest.mark.usefixtures("loaded")
def test_blocked_export_writes_nothing_and_exits_1(claims, tmp_path):
    out = tmp_path / "table.tex"
    result = claims("export", "--format", "latex", "-o", out)
    assert result.exit_code == 1
    assert not out.exists() and result.stdout == ""
    assert "gadget.fleet: 40–60K sandboxes (Gadget) tag agent-reported (unverified)" in result.stderr
    assert "clear it: claims reread gadget.fleet --source PAGE" in result.stderr


@pytest.mark.usefixtures("loaded")
def test_skip_unsafe_writes_the_file_and_lists_what_it_left_out(claims, tmp_path):
    out = tmp_path / "table.md"
    result = claims("export", "--skip-unsafe", "-o", out)
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "Widget-7" in text and "Gadget" not in text
    assert "left out 1 claim(s)" in result.stderr and "gadget.fleet" in result.stderr


@pytest.mark.usefixtures("loaded")
def test_draft_marks_and_heads_the_output(claims):
    result = claims("export", "--draft", "--format", "csv")
    assert result.exit_code == 0
    assert result.stdout.startswith("# DRAFT")
    assert "gadget.fleet,Gadget" in result.stdout and ",false,not re-read" in result.stdout


@pytest.mark.usefixtures("loaded")
def test_flags_and_filters(claims):
    assert claims("export", "--draft", "--skip-unsafe").exit_code == 2
    strict = claims("export", "--subject", "widget", "--strict")
    assert strict.exit_code == 1 and "widget.context" in strict.stderr
    grid = claims("export", "--subject", "widget", "--grid", "--format", "json")
    assert json.loads(grid.stdout)["stages"] == ["Pretrain", "Midtrain"]
    bib = claims("export", "--subject", "widget", "--format", "bibtex")
    assert "@techreport{widget2026," in bib.stdout


def test_bundled_data_gate_reread_and_reimport(claims):
    assert claims("import", *DATA_FILES).exit_code == 0
    blocked = claims("export")
    assert blocked.exit_code == 1
    assert "rl.fleet.kimi-k25-tasks: up to 100,000 tasks (Kimi K2.5)" in blocked.stderr
    assert "rl.fleet.longcat-environments: 32,000 environments (LongCat)" in blocked.stderr
    key = "pipelines.obs.llama3-failures"
    assert f"claims reread {key} --source llama3-report" in blocked.stderr
    assert claims("export", "--search", "466 interruptions").exit_code == 1

    assert claims("reread", key, "--by", "Ada", "--locator", "Table 5", "--yes").exit_code == 0
    cleared = claims("export", "--search", "466 interruptions")
    assert cleared.exit_code == 0, cleared.output
    assert "466 interruptions" in cleared.stdout

    again = claims("import", *DATA_FILES)
    assert f"conflict {key}: kept tag 'spot-checked'" in again.stdout
    history = json.loads(claims("history", key, "--format", "json").stdout)
    assert [e["kind"] for e in history["events"]] == ["imported", "reread"] and history["tag"] == "spot-checked"


@needs_tex
@pytest.mark.parametrize("layout", [[], ["--grid"]])
def test_the_bundled_data_compiles_as_latex_with_its_bibliography(claims, tmp_path, layout):
    assert claims("import", *DATA_FILES).exit_code == 0
    for fmt, name in (("latex", "table.tex"), ("bibtex", "claims.bib")):
        result = claims("export", "--draft", "--format", fmt, *layout, "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
    built = build(tmp_path, "\\input{table.tex}\n\\nocite{*}", bibliography=True)
    assert_contained(built, {"table.tex", "claims.bib"})
    assert "undefined" not in (tmp_path / "paper.log").read_text(errors="replace")  # every \cite has its entry
