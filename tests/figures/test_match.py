"""`match(stored, written, context)`: one verdict per case of the shared table (tests/figures/cases.py)."""

from __future__ import annotations

import pytest

from claimsdb.figures import VERDICTS, Context, match, parse
from tests.figures.cases import CASES


def context(case) -> Context:
    return Context(subject=case.subject, words=case.words, name=case.name)


def test_the_table_is_large_and_covers_every_verdict():
    assert len(CASES) >= 60
    assert {c.verdict for c in CASES} == set(VERDICTS)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_verdict(case):
    v = match(parse(case.stored), parse(case.written), context(case))
    assert v.verdict == case.verdict, v.reason
    assert v.reason or v.verdict == "same"


def test_reasons_say_what_differs():
    assert (
        "counts B300, not H800"
        in match(parse("2,048 H800"), parse("2,048 B300"), Context(subject=True)).reason
    )
    assert (
        "stored as up to, written as exact"
        in match(parse("up to 100,000 tasks"), parse("100,000 tasks"), Context(subject=True)).reason
    )
    assert (
        match(parse("5.9T"), parse("5.93T"), Context(subject=True)).reason == "5.93T rounds to 5.9T"
    )
    assert (
        "the store has 14.8T tokens"
        in match(parse("14.8T tokens"), parse("15T tokens"), Context(subject=True)).reason
    )


def test_a_query_leaves_a_bare_number_open():
    assert match(parse("466 interruptions"), parse("466"), Context.query()).verdict == "same"
    assert (
        match(parse("466 interruptions"), parse("466"), Context(subject=True)).verdict
        == "unrelated"
    )
