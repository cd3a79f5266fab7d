"""trace, lint and verify reach the same verdict on each case of the shared table (tests/figures/cases.py).

Each case becomes a claim of its own subject in one store (tag agent-reported, so that a matched figure
shows as a lint error), then:
- lint reads a manuscript sentence "<subject or 'Somebody'> reported <words> <written>." and the finding's verdict
  is the case's ("unrelated": no finding, or an untracked note);
- verify locates the claim's figure on a page holding that sentence: found for "same", rounded for
  "rounded", missing otherwise (a page is the claim's own source, so only cases naming the subject);
- trace takes the written figure as a query: stated, rounded, inside range, or a nearest "close value"
  ("different"); a query has no surrounding words and leaves a bare number's measure open, so only the
  cases without words, and without a bare written number against a stored unit, are a query's.
"""

from __future__ import annotations

import json
import string

import pytest

from claimsdb import db
from claimsdb.figures import parse
from claimsdb.lint import build_store, lint_report
from claimsdb.locating.locate import locate
from claimsdb.trust.rule import Policy
from tests.figures.cases import CASES

SUBJECTS = [f"Zq{a}{b}" for a in string.ascii_uppercase for b in string.ascii_lowercase]


def subject_of(i: int) -> str:
    return SUBJECTS[i]


def sentence(i: int, case) -> str:
    who = subject_of(i) if case.subject else "Somebody"
    return " ".join(part for part in (who, "reported", case.words, case.written) if part) + ".\n"


@pytest.fixture(scope="module")
def store_db(tmp_path_factory, stores):
    from typer.testing import CliRunner

    from claimsdb.cli.app import app

    folder = tmp_path_factory.mktemp("one-verdict")
    doc = {
        "tags": [{"name": "agent-reported", "trust": "unverified"}],
        "sources": [{"key": "n", "title": "Notes", "kind": "note"}],
        "claims": [
            {
                "key": f"case.{i:03d}",
                "subject": subject_of(i),
                "statement": f"{subject_of(i)} states {c.stored}.",
                "tag": "agent-reported",
                "basis": "test",
                "evidence": [{"source": "n"}],
                "figures": [{"raw": c.stored, "name": c.name} if c.name else c.stored],
            }
            for i, c in enumerate(CASES)
        ],
    }
    data = folder / "cases.json"
    data.write_text(json.dumps(doc), encoding="utf-8")
    store = stores.new(folder)
    result = CliRunner().invoke(app, ["import", str(data), "--db", store])
    assert result.exit_code == 0, result.output
    yield store
    stores.drop(store)


def numbered(predicate):
    picked = [(i, c) for i, c in enumerate(CASES) if predicate(c)]
    return pytest.mark.parametrize("i, case", picked, ids=[c.id for _, c in picked])


def _textual(c) -> bool:
    return not parse(c.stored).numbers() or not parse(c.written).numbers()


@pytest.mark.slow
@numbered(lambda c: not _textual(c))
def test_lint_reaches_the_tables_verdict(store_db, i, case):
    engine = db.open_engine(store_db)
    with db.session_scope(engine) as session:
        store = build_store(session, Policy())
    report = lint_report(sentence(i, case), name="case", kind="txt", store=store)
    mine = [f for f in report.findings if f"case.{i:03d}" in f.claims]
    verdict = mine[0].verdict if mine else "unrelated"
    assert verdict == case.verdict, [
        (f.raw, f.severity, f.claims, f.message) for f in report.findings
    ]


@numbered(lambda c: c.subject and not _textual(c))
def test_verify_reaches_the_tables_verdict(i, case):
    page = f"Notes.\n{sentence(i, case)}The end.\n"
    loc = locate(
        page,
        quote=None,
        figures=[parse(case.stored)],
        hint=f"{subject_of(i)} states {case.stored}",
        names=[case.name],
    )
    (report,) = loc.figures
    expected = {"same": "found", "rounded": "rounded"}.get(case.verdict, "missing")
    assert report.status == expected, (loc.outcome, report)


def _a_query(c) -> bool:
    stored, written = parse(c.stored), parse(c.written)
    bare_against_unit = not (written.unit or written.counted) and bool(
        stored.unit or stored.counted
    )
    return c.subject and not c.words and not c.name and not _textual(c) and not bare_against_unit


@numbered(_a_query)
def test_trace_reaches_the_tables_verdict(store_db, i, case):
    from claimsdb import queries

    engine = db.open_engine(store_db)
    with db.session_scope(engine) as session:
        result = queries.trace(session, case.written)
    key = f"case.{i:03d}"
    labels = {
        "stated": "same",
        "rounded": "rounded",
        "step": "contained",
        "inside range": "contained",
        "close value": "different",
    }
    mine = [m for m in result["matches"] + result["nearest"] if m["claim"]["key"] == key]
    verdict = labels.get(mine[0]["match"], "unrelated") if mine else "unrelated"
    if verdict == "unrelated" and case.verdict == "different" and result["matches"]:
        pytest.skip("other claims state this value, so trace lists no nearest figures")
    assert verdict == case.verdict, mine
