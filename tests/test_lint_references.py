"""`claims lint` checks the figures a manuscript inserts by a claim's key (`\\claim{KEY}`, Quarto's
`{{< var KEY.fig >}}`) as it checks the ones typed by hand, whatever the TeX macros were redefined to;
a manuscript is a draft for lint only when it says `claims: draft` in a comment line. Every manuscript
is the test's own; the store is the bundled data, imported once through the real CLI into SQLite."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from tests.conftest import DATA_FILES

UNSAFE = "rl.fleet.kimi-k25-tasks"  # agent-reported: not paper-safe under the default policy
SAFE = "pipelines.deepseek-v3.pretrain"  # secondary: paper-safe under the default policy

TEX = """\\documentclass{article}
\\input{claims.tex}
%s
\\begin{document}
%s
\\end{document}
"""
# What a TeX document may do to print an unsafe figure without stopping the build: lint trusts none.
SILENCED = [
    "\\claimsdraft",
    "\\makeatletter\\renewcommand{\\claims@unsafe}[2]{#2}\\makeatother",
    "\\renewcommand{\\claim}[2][]{466}",
]


@pytest.fixture(scope="module")
def lint(tmp_path_factory):
    folder = tmp_path_factory.mktemp("references")
    db = folder / "claims.db"
    result = CliRunner().invoke(app, ["import", "--db", str(db), *map(str, DATA_FILES)])
    assert result.exit_code == 0, result.output

    def run(text: str, name: str = "paper.tex") -> tuple[int, dict]:
        path = folder / name
        path.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(app, ["lint", "--db", str(db), "--format", "json", str(path)])
        assert result.exit_code in (0, 1), result.output
        return result.exit_code, json.loads(result.stdout)

    return run


def said(report: dict) -> list[tuple[str, str, list[str]]]:
    return [(f["severity"], f["raw"], f["claims"]) for f in report["findings"]]


@pytest.mark.parametrize("preamble", ["", *SILENCED])
def test_an_unsafe_claim_used_by_key_is_an_error_whatever_the_macros_say(lint, preamble):
    # the subject is not named in the prose: the key alone brings the claim in
    code, report = lint(TEX % (preamble, f"The fleet runs \\claim{{{UNSAFE}}} concurrent tasks."))
    assert code == 1
    assert said(report) == [("error", f"\\claim{{{UNSAFE}}}", [UNSAFE])]
    assert "not paper-safe" in report["findings"][0]["message"]


def test_a_paper_safe_claim_used_by_key_passes_and_a_figure_is_chosen_by_position_or_name(lint):
    body = (
        f"DeepSeek-V3 ran on \\claim{{{SAFE}}} GPUs; "
        "OLMo 3's Longmino stage used \\claim[Longmino]{pipelines.olmo3.midtrain} tokens, "
        "after its Dolmino stage of \\claim[1]{pipelines.olmo3.midtrain}."
    )
    code, report = lint(TEX % ("", body))
    assert code == 0, said(report)
    assert (report["checked"], report["passed"], report["findings"]) == (3, 3, [])


def test_a_draft_says_so_in_a_comment_line_lint_reads(lint):
    text = TEX % ("% claims: draft", f"Kimi K2.5 runs \\claim{{{UNSAFE}}} tasks.")
    code, report = lint(text)
    assert code == 0
    ((severity, _, claims),) = said(report)
    assert (severity, claims) == ("warning", [UNSAFE])
    assert "draft" in report["findings"][0]["message"]


@pytest.mark.parametrize(
    "use,why",
    [
        ("\\claim{no.such.claim}", "unknown claim"),
        (f"\\claim[7]{{{SAFE}}}", "has no figure"),
        (f"\\claim[Longmino]{{{SAFE}}}", "has no figure"),
    ],
)
def test_a_key_or_figure_the_store_does_not_have_is_an_error_even_in_a_draft(lint, use, why):
    code, report = lint(TEX % ("% claims: draft", f"We ran {use} jobs."))
    assert code == 1
    assert [f["severity"] for f in report["findings"]] == ["error"]
    assert why in report["findings"][0]["message"]


def test_uses_in_comments_and_verbatim_are_not_figures(lint):
    body = (
        f"A quiet sentence. % \\claim{{{UNSAFE}}}\n"
        f"\\begin{{verbatim}}\n\\claim{{{UNSAFE}}}\n\\end{{verbatim}}\n"
        f"\\verb|\\claim{{{UNSAFE}}}| and \\claimsdraft."
    )
    code, report = lint(TEX % ("", body))
    assert (code, report["checked"], report["findings"]) == (0, 0, [])


def test_quarto_variables_are_checked_like_the_macros(lint):
    text = (
        "---\ntitle: A draft\n---\n\n"
        f"The fleet runs {{{{< var {UNSAFE}.fig >}}}} tasks on "
        f"{{{{< var {SAFE}.fig1 >}}}} GPUs and {{{{< var no.such.fig >}}}} more.\n\n"
        f"`{{{{< var {UNSAFE}.fig >}}}}` in code, and <!-- {{{{< var {UNSAFE}.fig >}}}} -->.\n\n"
        f"```\n{{{{< var {UNSAFE}.fig >}}}}\n```\n"
    )
    code, report = lint(text, "paper.qmd")
    assert code == 1
    assert [(s, c) for s, _, c in said(report)] == [("error", [UNSAFE]), ("error", [])]
    assert (report["checked"], report["passed"]) == (3, 1)
    code, report = lint("<!-- claims: draft -->\n\n" + text, "paper.md")
    assert [s for s, _, _ in said(report)] == ["warning", "error"]
