"""Progress on long work: a transient bar on standard error (items done, rate, time left), only on a terminal
and only once the work has run about a second; the domain reports through a callback and never prints."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from claimsdb.cli import output
from claimsdb.trust.people import UNSIGNED_NOTICE


@pytest.fixture
def paper(tmp_path):
    files = []
    for i in range(3):
        path = tmp_path / f"section{i}.md"
        path.write_text(f"Widget-7 was pretrained on 3,072 H100 GPUs ({i}).\n", encoding="utf-8")
        files.append(path)
    return files


@pytest.fixture
def terminal_stderr(monkeypatch):
    """Standard error as a person's terminal, recorded."""
    stream = io.StringIO()
    monkeypatch.setattr(output, "err_console", Console(file=stream, force_terminal=True, width=120))
    return stream


def test_no_bar_when_standard_error_is_not_a_terminal(claims, loaded, paper, monkeypatch):
    monkeypatch.setattr(output, "PROGRESS_AFTER_S", 0)
    result = claims("lint", *paper)
    # nothing but the line saying that the store does not require signed re-reads
    assert result.exit_code == 0 and result.stderr == UNSIGNED_NOTICE + "\n"


def test_no_bar_for_work_shorter_than_the_threshold(claims, loaded, paper, terminal_stderr):
    assert claims("lint", *paper).exit_code == 0
    assert terminal_stderr.getvalue() == ""


def test_lint_shows_files_done_rate_and_time_left_then_clears_it(
    claims, loaded, paper, terminal_stderr, monkeypatch
):
    monkeypatch.setattr(output, "PROGRESS_AFTER_S", 0)
    result = claims("lint", *paper)
    assert result.exit_code == 0
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal_stderr.getvalue())
    assert "linting" in shown and re.search(r"[0-3]/3", shown) and "section" in shown
    assert re.search(r"\d+/s|-:--:--|0:00:0\d", shown)  # the rate, the time left
    assert "\x1b[2K" in terminal_stderr.getvalue()  # transient: the bar's line is erased at the end
    assert "figure(s) checked" in result.stdout  # the report itself is untouched, on stdout


def test_import_shows_claims_done_and_their_rate(claims, tmp_path, terminal_stderr, monkeypatch):
    import json

    monkeypatch.setattr(output, "PROGRESS_AFTER_S", 0)
    doc = {
        "sources": [{"key": "n", "title": "Notes", "kind": "note"}],
        "claims": [
            {
                "key": f"c.{i}",
                "subject": "Orchard",
                "statement": f"Orchard ran {i} jobs.",
                "figures": [f"{i} jobs"],
                "tag": "agent-reported",
                "basis": "b",
                "evidence": [{"source": "n"}],
            }
            for i in range(1, 40)
        ],
    }
    (tmp_path / "data.json").write_text(json.dumps(doc), encoding="utf-8")
    result = claims("import", tmp_path / "data.json")
    assert result.exit_code == 0 and "39 added" in result.stdout
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal_stderr.getvalue())
    assert "importing claims" in shown and re.search(
        r"\b39\b", shown
    )  # a stream: done so far, no total


@pytest.mark.slow
def test_copy_shows_rows_done(claims, loaded, tmp_path, terminal_stderr, monkeypatch):
    monkeypatch.setattr(output, "PROGRESS_AFTER_S", 0)
    assert claims("db", "copy", "--to", tmp_path / "copy.db").exit_code == 0
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal_stderr.getvalue())
    assert "copying rows" in shown and re.search(r"\d+/\d+", shown)


def test_the_domain_reports_through_its_callback(engine, paper):
    from claimsdb import db, lint
    from claimsdb.trust.rule import Policy

    heard: list[tuple[str, int]] = []
    with db.session_scope(engine) as session:
        lint.lint_files(
            session, [str(p) for p in paper], Policy(), on_file=lambda *a: heard.append(a)
        )
    assert heard == [(str(p), len(paper)) for p in paper]
