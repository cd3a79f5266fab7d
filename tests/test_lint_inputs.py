"""`claims lint paper.tex` checks the files the paper brings in (claimsdb.lint.inputs): LaTeX's \\input,
\\include, \\subfile and \\import, Quarto's include shortcode; each file once, the store's own macros
export not read as prose, and an input that is not there a skipped item with its reason. Every
manuscript is the test's own; the store is the bundled data, imported through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from tests.conftest import bundled_file

UNSAFE_LINE = (
    "Our sandbox design follows Kimi K2.5, which keeps 100,000 concurrent tasks in flight.\n"
)
SAFE_LINE = "DeepSeek-V3 ran on 2,048 H800 GPUs.\n"


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return bundled_file(tmp_path_factory, "inputs")


def lint(store_path: Path, paper: Path) -> tuple[int, dict]:
    args = ["lint", "--db", str(store_path), "--format", "json", "--notes", str(paper)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def test_the_files_a_latex_paper_brings_in_are_linted_each_once(store_path, tmp_path):
    write(
        tmp_path,
        {
            "paper.tex": (
                "\\documentclass{article}\n\\input{claims.tex}\n\\begin{document}\n"
                "\\input{sections/intro}\n\\include{sections/results}\n"
                "% \\input{sections/commented}\n\\import{parts/}{more.tex}\n\\end{document}\n"
            ),
            "sections/intro.tex": UNSAFE_LINE + "\\input{sections/results}\n",
            "sections/results.tex": SAFE_LINE + "\\input{sections/intro}\n",  # a cycle
            "sections/commented.tex": UNSAFE_LINE,
            "parts/more.tex": "Llama 3 saw 466 interruptions in 54 days.\n",
            # what `claims export --format macros` writes: the store's figures, not the paper's prose
            "claims.tex": "% claimsdb export: tool: claimsdb\n\\def\\x{rl.fleet.kimi-k25-tasks}\n"
            + UNSAFE_LINE,
        },
    )
    code, report = lint(store_path, tmp_path / "paper.tex")
    assert code == 1
    errors = [
        (Path(f["file"]).as_posix(), f["raw"])
        for f in report["findings"]
        if f["severity"] == "error"
    ]
    assert sorted(errors) == [
        (f"{tmp_path.as_posix()}/parts/more.tex", "466 interruptions"),
        (f"{tmp_path.as_posix()}/parts/more.tex", "54 days"),
        (f"{tmp_path.as_posix()}/sections/intro.tex", "100,000 concurrent tasks"),
    ]
    assert (report["checked"], report["passed"]) == (4, 1)  # the safe line once, though named twice


def test_an_input_that_is_not_there_is_a_skipped_item_of_the_file_naming_it(store_path, tmp_path):
    write(tmp_path, {"paper.tex": "\\begin{document}\nIntro.\n\\input{gone}\n\\end{document}\n"})
    code, report = lint(store_path, tmp_path / "paper.tex")
    assert code == 0
    (skip,) = [f for f in report["findings"] if f["raw"] == "\\input{gone}"]
    assert skip["severity"] == "skipped" and report["skipped"] == 1
    assert (skip["line"], skip["col"]) == (3, 1) and "not found" in skip["message"]


def test_a_quarto_include_is_read_from_the_folder_of_the_file_naming_it(store_path, tmp_path):
    write(
        tmp_path,
        {
            "paper.qmd": "---\ntitle: T\n---\n\n{{< include chapters/_one.qmd >}}\n",
            "chapters/_one.qmd": "{{< include _two.qmd >}}\n",
            "chapters/_two.qmd": UNSAFE_LINE,
        },
    )
    code, report = lint(store_path, tmp_path / "paper.qmd")
    assert code == 1
    assert [Path(f["file"]).name for f in report["findings"] if f["severity"] == "error"] == [
        "_two.qmd"
    ]


def test_a_file_brought_in_reads_the_macros_in_force_where_it_is_named(store_path, tmp_path):
    """A figure the main file keeps in a macro is judged in the section that prints it."""
    write(
        tmp_path,
        {
            "paper.tex": (
                "\\documentclass{article}\n\\newcommand{\\kimitasks}{100,000}\n\\begin{document}\n"
                "\\input{sections/fleet}\n\\end{document}\n"
            ),
            "sections/fleet.tex": UNSAFE_LINE.replace("100,000", "\\kimitasks{}"),
        },
    )
    code, report = lint(store_path, tmp_path / "paper.tex")
    assert code == 1
    ((name, raw),) = [
        (Path(f["file"]).name, f["raw"]) for f in report["findings"] if f["severity"] == "error"
    ]
    assert (name, raw) == ("fleet.tex", "100,000 concurrent tasks")
