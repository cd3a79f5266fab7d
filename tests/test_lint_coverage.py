"""What lint covers: a written figure is compared with a stored one only when they measure the same
thing, and then whatever the values (no pass by another quantity, a warning for another value); every
number lint sees is accounted for; and the figures a manuscript inserts by a claim's key
(`\\claim{KEY}`, Quarto's `{{< var KEY.fig >}}`) are checked like typed ones, whatever the TeX macros
were redefined to, a manuscript being a draft for lint only when a comment line says `claims: draft`.
Every manuscript is the test's own; the store is the bundled data, imported once through the real CLI
into a SQLite file."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from claimsdb import db
from claimsdb.cli.app import app
from claimsdb.lint import Report, build_store, lint_report
from claimsdb.trust.rule import Policy
from tests.conftest import bundled_file


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return bundled_file(tmp_path_factory, "quantities")


@pytest.fixture(scope="module")
def store(store_path):
    engine = db.open_engine(str(store_path))
    with db.session_scope(engine) as session:
        built = build_store(session, Policy())
    engine.dispose()
    return built


@pytest.fixture
def lint(store):
    def run(text: str, kind: str = "md") -> Report:
        return lint_report(text, name="paper", kind=kind, store=store)

    return run


def outcome(report: Report, raw: str) -> tuple[str, tuple[str, ...]]:
    """What lint said of the figure written `raw`: "passed", or its finding's severity, with the claims."""
    for f in report.findings + report.skipped:
        if f.raw == raw:
            return f.severity, f.claims
    assert report.checked > 0, (raw, report)
    return "passed", ()


# --- no pass by the wrong quantity ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,raw",
    [
        ("DeepSeek-V4 was trained on 1,000,000 GPUs.", "1,000,000 GPUs"),
        ("DeepSeek-V3 was trained on 32,000 H800 GPUs.", "32,000 H800 GPUs"),
        ("Llama 4 ran its mid-training on 10M nodes.", "10M nodes"),
    ],
)
def test_a_unit_the_store_does_not_give_its_bare_figure_is_not_that_figure(lint, text, raw):
    # each number equals a stored figure of the named subject that has no unit, but the store says what
    # that figure measures (a context length, a pretraining scale) and it is not this
    report = lint(text)
    severity, claims = outcome(report, raw)
    assert (severity, claims) == ("note", ()), (severity, claims)
    assert report.passed == 0


@pytest.mark.parametrize(
    "text,raw,key",
    [
        (
            "DeepSeek-V4 reaches a context length of 1,000,000 tokens.",
            "1,000,000 tokens",
            "pipelines.deepseek-v4.midtrain",
        ),
        (
            "DeepSeek-V3 extended its context window from 32K to 128K tokens.",
            "32K to 128K tokens",
            "pipelines.deepseek-v3.midtrain",
        ),
        (
            "Marin trains its 8B-parameter model on TPUs.",
            "8B-parameter",
            "pipelines.marin.pretrain",
        ),
    ],
)
def test_a_unit_is_that_figure_when_the_words_name_what_the_store_measures(lint, text, raw, key):
    # the same numbers, where the sentence names the stored figure's measure: they pass (secondary claims
    # are paper-safe under the default policy)
    report = lint(text)
    assert outcome(report, raw) == ("passed", ())
    assert report.passed == 1


# --- lint compares what it recognises ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,raw,key",
    [
        # stored bare, named "instances" in the data: another value of the same count
        ("WeirdML now gathers 14 instances.", "14 instances", "rl.bench.weirdml"),
        ("PostTrainBench grew to 31 instances.", "31 instances", "rl.bench.posttrainbench"),
        # a small count in words, compared though no claim states that very value
        (
            "InferenceBench is a family of six instances.",
            "six instances",
            "rl.bench.inferencebench",
        ),
    ],
)
def test_another_value_of_a_bare_stored_count_differs(lint, text, raw, key):
    report = lint(text)
    assert outcome(report, raw) == ("warning", (key,))
    assert "differs from the store" in report.findings[0].message


@pytest.mark.parametrize(
    "text,raw,key",
    [
        (
            "Mercor hands twelve GPUs to the trainer for every eight on rollouts.",
            "twelve GPUs to the trainer for every eight",
            "rl.placement.mercor",
        ),
        (
            "INTELLECT-3 keeps 16 GPUs on inference for each 44 it trains on.",
            "16 GPUs on inference for each 44",
            "rl.placement.intellect3",
        ),
        (
            "Mercor splits its GPUs, 12 to the learner and 8 to the actors.",
            "12 to the learner and 8",
            "rl.placement.mercor",
        ),
    ],
)
def test_for_every_and_to_each_phrasings_are_ratios(lint, text, raw, key):
    # the stored 12:8 and 16:44 splits are agent-reported: the ratio is an error naming them
    assert outcome(lint(text), raw) == ("error", (key,))


def test_two_figures_given_to_two_things_without_a_split_are_two_figures(lint):
    report = lint("DeepSeek-V3 gave 2,048 H800 GPUs to pretraining and 64 to ablations.")
    assert outcome(report, "2,048 H800 GPUs") == ("passed", ())
    assert outcome(report, "64")[0] == "note"


ACCOUNTED = """# Notes

The 19th revision ran a trillion-parameter model on 2,048 accelerators.
Budgets grew with each trillion tokens, and 7b checkpoints moved at 100GiB/s.
Results (Smith et al., 2024a) cover 3 regions, twelve teams and 45% of jobs.
Section 3.3.4 keeps one verifier for every four generators.
"""
# Each number of ACCOUNTED as a reader sees it, on its line.
NUMBERS = [
    (3, "19th"),
    (3, "trillion"),
    (3, "2,048"),
    (4, "trillion"),
    (4, "7b"),
    (4, "100GiB/s"),
    (5, "2024a"),
    (5, "3"),
    (5, "twelve"),
    (5, "45"),
    (6, "3.3.4"),
    (6, "one"),
    (6, "four"),
]


def test_every_number_lint_sees_is_checked_or_skipped_with_its_reason(lint):
    # no subject is named, so nothing passes: every number must lie in a finding or a skip
    report = lint(ACCOUNTED)
    assert report.passed == 0
    said = report.findings + report.skipped
    lines = ACCOUNTED.split("\n")
    searched_from: dict[int, int] = {}
    for line, raw in NUMBERS:
        col = lines[line - 1].index(raw, searched_from.get(line, 0)) + 1
        searched_from[line] = col + len(raw) - 1
        holding = [f for f in said if f.line == line and f.col <= col < f.col + max(len(f.raw), 1)]
        assert holding, f"{raw!r} on line {line} vanished from lint's report"
        assert all(f.message for f in holding)
    assert report.checked + len(report.skipped) == len(said)
    trillion = outcome(report, "a trillion-parameter")
    assert trillion == ("note", ())  # read again and judged: untracked


# --- figures by reference ------------------------------------------------------------------------------

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


@pytest.fixture
def lint_file(store_path):
    def run(text: str, name: str = "paper.tex") -> tuple[int, dict]:
        path = store_path.parent / name
        path.write_text(text, encoding="utf-8")
        args = ["lint", "--db", str(store_path), "--format", "json", str(path)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code in (0, 1), result.output
        return result.exit_code, json.loads(result.stdout)

    return run


def said(report: dict) -> list[tuple[str, str, list[str]]]:
    return [(f["severity"], f["raw"], f["claims"]) for f in report["findings"]]


@pytest.mark.parametrize("preamble", ["", *SILENCED])
def test_an_unsafe_claim_used_by_key_is_an_error_whatever_the_macros_say(lint_file, preamble):
    # the subject is not named in the prose: the key alone brings the claim in
    code, report = lint_file(
        TEX % (preamble, f"The fleet runs \\claim{{{UNSAFE}}} concurrent tasks.")
    )
    assert code == 1
    assert said(report) == [("error", f"\\claim{{{UNSAFE}}}", [UNSAFE])]
    assert "not paper-safe" in report["findings"][0]["message"]


# \claim under another name, the key given to that name in braces: each use is the claim's figure.
RENAMED = [
    ("\\let\\cl\\claim", f"\\cl{{{UNSAFE}}}"),
    ("\\newcommand{\\fig}[1]{\\textbf{\\claim{#1}}}", f"\\fig{{{UNSAFE}}}"),
    ("\\newcommand{\\figb}[2][]{\\claim[#1]{#2}}", f"\\figb[1]{{{UNSAFE}}}"),
    ("", f"\\csname claim\\endcsname{{{UNSAFE}}}"),
]


@pytest.mark.parametrize("preamble,use", RENAMED)
def test_an_unsafe_claim_used_by_another_name_is_an_error(lint_file, preamble, use):
    code, report = lint_file(TEX % (preamble, f"The fleet runs {use} concurrent tasks."))
    assert code == 1
    assert ("error", use, [UNSAFE]) in said(report)
    # "\\let\\cl\\claim" is an error of its own: a \\claim lint cannot read (see below)
    assert len(said(report)) == 1 + preamble.startswith("\\let")


@pytest.mark.parametrize(
    "preamble",
    [
        "\\let\\cl\\claim\\def\\k{\\detokenize{rl}.fleet}",
        "\\expandafter\\let\\expandafter\\cl\\csname claim\\endcsname",
    ],
)
def test_a_claim_whose_key_lint_cannot_read_is_an_error(lint_file, preamble):
    """\\claim given another name with no key in braces after it, or its argument expanded by TeX: lint
    cannot tell which figure it prints, so the file does not pass."""
    body = "The fleet runs \\expandafter\\claim\\expandafter{\\k} concurrent tasks."
    code, report = lint_file(TEX % (preamble, body))
    assert code == 1
    assert {f["severity"] for f in report["findings"]} == {"error"}
    assert all("without a key lint can read" in f["message"] for f in report["findings"])


def test_braces_that_hold_no_key_and_the_macros_own_definitions_are_not_uses(lint_file):
    preamble = (
        "\\renewcommand{\\claim}[2][]{#2}\\providecommand{\\claim}{}\\let\\claim\\relax"
        "\\newcommand{\\fig}[1]{\\claim{#1}}"
    )
    body = f"\\section{{Results}}\\label{{tab:one}} DeepSeek-V3 ran on \\fig{{{SAFE}}} GPUs."
    code, report = lint_file(TEX % (preamble, body))
    assert (code, report["checked"], report["passed"], report["findings"]) == (0, 1, 1, [])


def test_a_paper_safe_claim_used_by_key_passes_and_a_figure_is_chosen_by_position_or_name(
    lint_file,
):
    body = (
        f"DeepSeek-V3 ran on \\claim{{{SAFE}}} GPUs; "
        "OLMo 3's Longmino stage used \\claim[Longmino]{pipelines.olmo3.midtrain} tokens, "
        "after its Dolmino stage of \\claim[1]{pipelines.olmo3.midtrain}."
    )
    code, report = lint_file(TEX % ("", body))
    assert code == 0, said(report)
    assert (report["checked"], report["passed"], report["findings"]) == (3, 3, [])


def test_a_draft_says_so_in_a_comment_line_lint_reads(lint_file):
    text = TEX % ("% claims: draft", f"Kimi K2.5 runs \\claim{{{UNSAFE}}} tasks.")
    code, report = lint_file(text)
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
def test_a_key_or_figure_the_store_does_not_have_is_an_error_even_in_a_draft(lint_file, use, why):
    code, report = lint_file(TEX % ("% claims: draft", f"We ran {use} jobs."))
    assert code == 1
    assert [f["severity"] for f in report["findings"]] == ["error"]
    assert why in report["findings"][0]["message"]


def test_uses_in_comments_and_verbatim_are_not_figures(lint_file):
    body = (
        f"A quiet sentence. % \\claim{{{UNSAFE}}}\n"
        f"\\begin{{verbatim}}\n\\claim{{{UNSAFE}}}\n\\end{{verbatim}}\n"
        f"\\verb|\\claim{{{UNSAFE}}}| and \\claimsdraft."
    )
    code, report = lint_file(TEX % ("", body))
    assert (code, report["checked"], report["findings"]) == (0, 0, [])


def test_a_quarto_variable_read_as_metadata_is_checked_too(lint_file):
    """`metadata-files: [_variables.yml]` makes the same figures `meta` shortcodes."""
    code, report = lint_file(f"The fleet runs {{{{< meta {UNSAFE}.fig >}}}} tasks.\n", "paper.qmd")
    assert code == 1
    assert [(s, c) for s, _, c in said(report)] == [("error", [UNSAFE])]


def test_quarto_variables_are_checked_like_the_macros(lint_file):
    text = (
        "---\ntitle: A draft\n---\n\n"
        f"The fleet runs {{{{< var {UNSAFE}.fig >}}}} tasks on "
        f"{{{{< var {SAFE}.fig1 >}}}} GPUs and {{{{< var no.such.fig >}}}} more.\n\n"
        f"`{{{{< var {UNSAFE}.fig >}}}}` in code, and <!-- {{{{< var {UNSAFE}.fig >}}}} -->.\n\n"
        f"```\n{{{{< var {UNSAFE}.fig >}}}}\n```\n"
    )
    code, report = lint_file(text, "paper.qmd")
    assert code == 1
    assert [(s, c) for s, _, c in said(report)] == [("error", [UNSAFE]), ("error", [])]
    assert (report["checked"], report["passed"]) == (3, 1)
    code, report = lint_file("<!-- claims: draft -->\n\n" + text, "paper.md")
    assert [s for s, _, _ in said(report)] == ["warning", "error"]
