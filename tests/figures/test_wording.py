"""Figures in words that the grammar leaves alone (figures.wording), and their verdicts."""

from __future__ import annotations

import pytest

from claimsdb.figures import Context, match, parse
from claimsdb.figures.wording import magnitude, worded


@pytest.mark.parametrize(
    "text, raw, steps",
    [
        ("divided in a 16-to-44 ratio", "16-to-44", (16.0, 44.0)),
        ("the GPU split is closer to even, at twelve to eight.", "twelve to eight", (12.0, 8.0)),
        ("they split the pool 3.5 to 1.", "3.5 to 1", (3.5, 1.0)),
    ],
)
def test_a_span_in_words_is_a_ratio_when_its_clause_says_so(text, raw, steps):
    (f,) = worded(text)
    assert (f.raw, f.quantity.kind, f.quantity.steps) == (raw, "ratio", steps) and text[
        f.start : f.end
    ] == raw


@pytest.mark.parametrize(
    "text", ["it grew from 16 to 44 nodes", "versions 2 to 4 work", "the 16-to-44 window"]
)
def test_a_span_without_a_ratio_word_is_not_a_ratio(text):
    assert [f for f in worded(text) if f.quantity.kind == "ratio"] == []


@pytest.mark.parametrize(
    "text, raw, comparator, value",
    [
        ("sorted into a dozen categories", "a dozen", "~", 12.0),
        ("half a dozen runs", "half a dozen", "~", 6.0),
        ("a pair of tasks", "a pair of", "=", 2.0),
        ("a couple of nodes", "a couple of", "~", 2.0),
    ],
)
def test_counts_in_words(text, raw, comparator, value):
    (f,) = worded(text)
    assert (f.raw, f.quantity.comparator, f.quantity.value) == (raw, comparator, value)


@pytest.mark.parametrize(
    "raw, size",
    [
        ("hundreds of thousands", 1e5),
        ("several hundred thousand", 1e5),
        ("tens of thousands", 1e4),
        ("thousands", 1e3),
        ("a few million", 1e6),
        ("dozens", 12.0),
        ("a thousand", None),
        ("two thousand", None),
        ("100,000", None),
        ("weekly", None),
    ],
)
def test_the_magnitude_of_a_figure_in_words(raw, size):
    assert magnitude(raw) == size


def test_figures_in_words_of_one_magnitude_are_the_same():
    stored = parse("hundreds of thousands")
    for written, verdict in (
        ("several hundred thousand", "same"),
        ("hundreds of thousands", "same"),
        ("tens of thousands", "unrelated"),
        ("thousands", "unrelated"),
    ):
        q = parse(written) if written != "several hundred thousand" else worded(written)[0].quantity
        assert match(stored, q, Context(subject=True)).verdict == verdict, written
