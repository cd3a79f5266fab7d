"""The coincidences that made lint unusable on a paper nobody here wrote, each reproduced on a manuscript
this test writes: none of them may be an error."""

from __future__ import annotations

import pytest

from claimsdb import db
from claimsdb.lint import build_store, lint_report
from claimsdb.trust.rule import Policy
from tests.conftest import DATA_FILES


@pytest.fixture
def lint_md(claims, store):
    assert claims("import", *DATA_FILES).exit_code == 0
    engine = db.open_engine(store)

    def run(text: str, kind: str = "md"):
        with db.session_scope(engine) as session:
            store = build_store(session, Policy())
        return lint_report(text, name="paper", kind=kind, store=store)

    return run


BENCHMARK_TABLE = """# Results

Table 3 compares our model with two baselines on reasoning benchmarks.

| Benchmark | Ours | Baseline A | Baseline B |
|---|---|---|---|
| MMLU | 54 | 51 | 49 |
| GSM8K | 21 | 24 | 11 |
| HumanEval | 11 | 54 | 21 |
"""


def test_bare_benchmark_cells_are_not_the_stores_figures(lint_md):
    # "21" and "24" were MFU 21% -> 24%, "54" Llama 3's 54 days, "11" WeirdML's family, "51" EdgeBench's.
    report = lint_md(BENCHMARK_TABLE)
    assert report.count("error") == 0 and report.count("warning") == 0, report.findings
    assert {f.raw for f in report.findings} <= {
        "54",
        "51",
        "49",
        "21",
        "24",
        "11",
    }  # untracked notes at most


@pytest.mark.slow
def test_bare_cells_under_a_subject_named_column_are_still_bare(lint_md):
    # A column named after a subject does not make "54" that subject's "54 days": a bare number never
    # matches a figure with a unit.
    table = BENCHMARK_TABLE.replace("Baseline A", "Llama 3").replace(
        "Baseline B", "Open Athena 535B"
    )
    assert lint_md(table).count("error") == 0


@pytest.mark.slow
def test_version_numbers_are_not_inside_a_stored_range(lint_md):
    # "2–4×" (agent-reported speedups) used to hold every bare number between 2 and 4.
    text = (
        "We fine-tune Llama 3.1 with Python 3.12 and compare against Qwen 2.5; the asynchronous stacks "
        "report speedups, and our own pipeline reached 3.3 on the scale.\n"
    )
    report = lint_md(text, "txt")
    assert report.count("error") == 0, report.findings


def test_a_unit_phrase_ends_in_its_noun(lint_md):
    # The unit used to become "diverse", making a stored, paper-safe figure an untracked note.
    report = lint_md(
        "We pre-train DeepSeek-V3 on 14.8 trillion diverse and high-quality tokens.\n", "txt"
    )
    assert report.findings == [] and report.passed == 1


def test_a_figure_in_a_paper_about_another_model_is_nobodys(lint_md):
    # No subject of the store is named: the agent-reported "54 days" and "100,000 tasks" are not these.
    text = "Our cluster ran for 54 days and kept 100,000 concurrent tasks in flight.\n"
    report = lint_md(text, "txt")
    assert [f.severity for f in report.findings] == ["note", "note"]


def test_the_subject_in_the_section_heading_counts(lint_md):
    text = "# Kimi K2.5\n\nIts sandbox fleet keeps 100,000 concurrent tasks in flight.\n"
    (f,) = lint_md(text).findings
    assert (f.severity, f.claims) == ("error", ("rl.fleet.kimi-k25-tasks",))


def test_what_a_bare_number_counts_may_stand_before_it(lint_md):
    # DeepSeek's 278-node serving account, agent-reported.
    (f,) = lint_md("DeepSeek's peak node occupancy reached 278 during the day.\n", "txt").findings
    assert (f.severity, f.claims) == ("error", ("pipelines.obs.deepseek-278-node-serving",))


def test_a_different_value_of_the_same_measure_is_a_warning(lint_md):
    report = lint_md(
        "Kimi K2.5 runs 10,000 concurrent tasks. DeepSeek-V3 was trained on 15T tokens.\n", "txt"
    )
    assert [(f.severity, f.claims, f.verdict) for f in report.findings] == [
        ("warning", ("rl.fleet.kimi-k25-tasks",), "different"),
        ("warning", ("pipelines.deepseek-v3.data",), "different"),
    ]
    assert "states 15T tokens; the store has 14.8T tokens" in report.findings[1].message


def test_table_cells_are_judged_with_their_headers(lint_md):
    table = "| System | Environments |\n|---|---|\n| LongCat | 32,000 |\n| Other lab | 32,000 |\n"
    longcat, other = lint_md(
        table
    ).findings  # the row names LongCat, the column says what it counts
    assert (longcat.severity, longcat.claims, longcat.line) == (
        "error",
        ("rl.fleet.longcat-environments",),
        3,
    )
    assert (other.severity, other.line) == ("note", 4)


def test_a_step_of_a_stored_change_passes(lint_md):
    # DeepSeek-V3's context went 32K -> 128K (secondary, paper-safe): "up to 128K" is its end, not a new figure.
    report = lint_md("DeepSeek-V3 supports a context of up to 128K tokens.\n", "txt")
    assert report.findings == [] and report.passed == 1
