"""Lint compares a written figure with a stored one only when they measure the same thing, and then
whatever the values: no pass by another quantity, a warning for another value, and every figure lint
sees accounted for. Every manuscript is the test's own; the store is the bundled data, imported once
through the real CLI into a SQLite file."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from claimsdb import db
from claimsdb.cli.app import app
from claimsdb.lint import Report, build_store, lint_report
from claimsdb.trust.rule import Policy
from tests.conftest import DATA_FILES


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("quantities") / "claims.db"
    result = CliRunner().invoke(app, ["import", "--db", str(path), *map(str, DATA_FILES)])
    assert result.exit_code == 0, result.output
    return path


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
