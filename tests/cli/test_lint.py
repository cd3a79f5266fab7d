"""`claims lint` and the figure-by-reference exports through the CLI, over the bundled data."""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA_FILES
from tests.pages import LLAMA3_FAILURES


@pytest.fixture
def bundled(claims):
    assert claims("import", *DATA_FILES).exit_code == 0


def lint_json(claims, path, *args):
    result = claims("lint", path, *args, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.usefixtures("bundled")
def test_an_agent_reported_figure_in_a_manuscript_is_an_error(claims, tmp_path):
    paper = tmp_path / "paper.md"
    paper.write_text(
        "# Fleets\n\nKimi K2.5 keeps 100,000 concurrent tasks in flight.\n", encoding="utf-8"
    )
    code, report = lint_json(claims, paper)
    assert code == 1 and report["errors"] == 1
    (finding,) = report["findings"]
    assert (finding["line"], finding["col"], finding["severity"]) == (3, 17, "error")
    assert finding["claims"] == ["rl.fleet.kimi-k25-tasks"]
    table = claims("lint", paper)
    assert f"{paper}:3:17: error: 100,000 concurrent tasks" in table.stdout and table.exit_code == 1


@pytest.mark.usefixtures("bundled")
def test_figures_match_their_claims_and_clear_after_a_reread(claims, tmp_path, page):
    paper = tmp_path / "paper.tex"
    paper.write_text(
        "\\documentclass{article}\\begin{document}\n"
        "Llama 3 saw 466 interruptions during pretraining.\n"
        "Llama 3 was trained on 16K H100 GPUs, that is 16,000 H100 GPUs.\n"
        "In 2024 the model $x = 2048$ was cited~\\cite{llama3report} and [12], see Section 3.2.\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    code, report = lint_json(claims, paper)
    assert [(f["line"], f["raw"], f["claims"]) for f in report["findings"]] == [
        (2, "466 interruptions", ["pipelines.obs.llama3-failures"])
    ]
    assert code == 1
    reread = claims(
        "reread",
        "pipelines.obs.llama3-failures",
        *LLAMA3_FAILURES.flags(page),
        "--yes",
        "--by",
        "Ada",
    )
    assert reread.exit_code == 0, reread.output
    code, report = lint_json(claims, paper)
    assert code == 0 and report["findings"] == []


@pytest.mark.slow
@pytest.mark.usefixtures("bundled")
def test_a_number_word_with_a_long_s_is_read_and_flagged_like_its_ascii_spelling(claims, tmp_path):
    """ "\u017f" (long s) matches "s" without case: the figure once stopped lint with an internal error."""
    reports = []
    for name, word in (("ascii.md", "sixty-six"), ("long-s.md", "\u017fixty-\u017fix")):
        paper = tmp_path / name
        paper.write_text(
            f"Llama 3 saw four hundred and {word} interruptions during pretraining.\n",
            encoding="utf-8",
        )
        reports.append(lint_json(claims, paper))
    for code, report in reports:
        assert code == 1 and [f["claims"] for f in report["findings"]] == [
            ["pipelines.obs.llama3-failures"]
        ]


@pytest.mark.usefixtures("bundled")
def test_untracked_figures_are_notes_and_do_not_fail(claims, tmp_path):
    paper = tmp_path / "paper.txt"
    paper.write_text(
        "We used 7,777 GPUs for the ablation. Llama 3 ran on 16K H100.\n", encoding="utf-8"
    )
    code, report = lint_json(claims, paper)
    assert code == 0 and report["findings"] == []  # notes are counted, and listed with --notes
    assert (report["notes"], report["passed"], report["checked"], report["errors"]) == (1, 1, 2, 0)
    code, report = lint_json(claims, paper, "--notes")
    # --notes lists the untracked figure; "Llama 3" is a name with its version, which the scanner never
    # reads as a figure (issue 38: it used to be the count "3 ran", skipped as part of a subject's name)
    assert code == 0 and [(f["severity"], f["raw"]) for f in report["findings"]] == [
        ("note", "7,777 GPUs"),
    ]
    assert report["skipped"] == 0
    table = claims("lint", paper).stdout
    assert "7,777" not in table
    assert (
        "2 figure(s) checked: 1 passed, 0 error(s), 0 warning(s), 1 untracked, 0 skipped "
        "(list them with --notes)"
    ) in table
    listed = claims("lint", paper, "--notes").stdout
    assert "paper.txt:1:9: note: 7,777 GPUs" in listed and "3 ran" not in listed


@pytest.mark.usefixtures("bundled")
def test_lint_rejects_an_unknown_file_type(claims, tmp_path):
    paper = tmp_path / "paper.docx"
    paper.write_bytes(b"PK")
    result = claims("lint", paper)
    assert result.exit_code == 2 and str(paper) in result.stderr


@pytest.mark.usefixtures("bundled")
def test_macros_and_quarto_exports(claims, tmp_path):
    macros = tmp_path / "claims.tex"
    result = claims("export", "--format", "macros", "-o", macros)
    assert result.exit_code == 0, result.output
    text = macros.read_text(encoding="utf-8")
    assert "\\@namedef{claims@fig@pipelines.deepseek-v3.pretrain@}{2,048 H800}" in text
    assert (
        "\\@namedef{claims@fig@rl.fleet.kimi-k25-tasks@}{\\claims@unsafe{rl.fleet.kimi-k25-tasks}{up to 100,000 tasks}}"
        in text
    )
    assert "stops the LaTeX build unless the document says \\claimsdraft" in result.stderr
    quarto = claims("export", "--format", "quarto")
    assert quarto.exit_code == 0 and '"fig": "2,048 H800"' in quarto.stdout
    assert "100,000" not in quarto.stdout
    draft = claims("export", "--format", "quarto", "--draft")
    assert '"fig": "up to 100,000 tasks [unverified]"' in draft.stdout
