"""The written forms of ML papers: scientific notation, siunitx, spaced thousands, emphasis, spans, number
words, fractions, and unit phrases that end in a noun. Plus the scanner's two promises: it never raises,
and its work grows linearly with the text (counted in parse attempts and characters parsed, not seconds)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimsdb.figures import parse, scan
from claimsdb.figures import parser as parser_module
from claimsdb.figures import scanner as scanner_module


def read(raw):
    q = parse(raw)
    return (
        q.kind,
        q.value if q.kind == "value" else (q.low, q.high) if q.kind == "range" else q.steps,
        q.unit,
    )


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("3.8 × 10^25 FLOPs", ("value", 3.8e25, "FLOPs")),
        ("3.8 x10^25 FLOPs", ("value", 3.8e25, "FLOPs")),
        ("3.8·10^25 FLOPs", ("value", 3.8e25, "FLOPs")),
        ("3.8×10²⁵ FLOPs", ("value", 3.8e25, "FLOPs")),
        ("3.8 \\times 10^{25} FLOPs", ("value", 3.8e25, "FLOPs")),
        ("3.8e25 FLOPs", ("value", 3.8e25, "FLOPs")),
        ("7.3 × 10⁻⁶", ("value", 7.3e-6, None)),
        ("7.3 × 10−6", ("value", 7.3e-6, None)),  # a PDF export that lost the superscript
        ("10^9 tokens", ("value", 1e9, "tokens")),
        ("\\num{1.5e3} steps", ("value", 1500.0, "steps")),
        ("\\num{12345}", ("value", 12345.0, None)),
        ("\\qty{2.4}{\\giga\\hertz}", ("value", 2.4, "GHz")),
        ("\\SI{80}{\\giga\\byte}", ("value", 80.0, "GB")),
        ("\\qty{20}{\\percent}", ("value", 20.0, "%")),
        ("10 000 GPUs", ("value", 10000.0, "GPUs")),
        ("10\u2009000 GPUs", ("value", 10000.0, "GPUs")),
        ("10\u202f000 GPUs", ("value", 10000.0, "GPUs")),
        ("1\\,355\\,921 samples", ("value", 1355921.0, "samples")),
        ("2{,}048 GPUs", ("value", 2048.0, "GPUs")),
        ("**39.3**M GPU hours", ("value", 39.3e6, "h")),
        ("from 2B to 462B", ("transition", (2e9, 462e9), None)),
        ("between 3.3 times and 17.7 times", ("range", (3.3, 17.7), "x")),
        ("between 10 and 20 GPUs", ("range", (10.0, 20.0), "GPUs")),
        ("a hundred and two nodes", ("value", 102.0, "nodes")),
        ("three hundred GPUs", ("value", 300.0, "GPUs")),
        ("two and a half years", ("value", 2.5, "years")),
        ("half a million tasks", ("value", 500000.0, "tasks")),
        ("a thousand GPUs", ("value", 1000.0, "GPUs")),
        ("A  Thousand GPUs", ("value", 1000.0, "GPUs")),
        ("1 000 000 tokens", ("value", 1e6, "tokens")),
        ("two halves", ("value", 1.0, None)),
        ("three quarters", ("value", 0.75, None)),
        ("two thirds", ("value", 0.666667, None)),
        ("1½ days", ("value", 1.5, "days")),
        ("¾", ("value", 0.75, None)),
        ("14.8 trillion diverse and high-quality tokens", ("value", 14.8e12, "tokens")),
        ("600K samples synthetically", ("value", 600e3, "samples")),
        ("51 public", ("value", 51.0, None)),
        ("128K input tokens", ("value", 128e3, "tokens")),
        ("higher than 90%", ("value", 90.0, "%")),
    ],
)
def test_forms_that_papers_use(raw, expected):
    assert read(raw) == expected


def test_higher_than_is_a_bound():
    assert parse("higher than 90%").comparator == ">"


@pytest.mark.parametrize(
    "text, raws",
    [
        ("FLOPs: about 3.8 × 10^25 FLOPs in total", ["about 3.8 × 10^25 FLOPs"]),
        ("It used **39.3**M GPU hours.", ["39.3**M GPU hours"]),
        (
            "We pre-train it on 14.8 trillion diverse and high-quality tokens, then",
            ["14.8 trillion diverse and high-quality tokens"],
        ),
        (
            "the batch size is gradually increased from 3072 to 15360 in training",
            ["from 3072 to 15360"],
        ),
        ("model sizes ranging from 2B to 462B", ["2B to 462B"]),
        ("speedups between 3.3 times and 17.7 times", ["between 3.3 times and 17.7 times"]),
        ("Figure 3 illustrates the loop", ["3"]),  # a reference's number alone, never a count
        (
            "scores 236 671 and 12",
            ["236", "671", "12"],
        ),  # a list of numbers is not one spaced number
        ("Table 3 100 GPUs", ["3", "100 GPUs"]),
        ("in 2024 100 GPUs", ["2024", "100 GPUs"]),
    ],
)
def test_scan_reads_the_forms_in_prose(text, raws):
    found = scan(text)
    assert [f.raw for f in found] == raws
    assert all(parse(f.raw) == f.quantity for f in found)


def test_transitions_in_words_are_still_changes():
    (f,) = scan("the context grew from 4K to 128K tokens")
    assert (f.quantity.kind, f.quantity.steps, f.quantity.unit) == (
        "transition",
        (4e3, 128e3),
        "tokens",
    )


PIECES = st.sampled_from(
    [
        "0",
        "1",
        "2",
        "5",
        "9",
        ",",
        ".",
        " ",
        "×",
        "x",
        "·",
        "10",
        "^",
        "{",
        "}",
        "²",
        "⁵",
        "⁻",
        "−",
        "\\,",
        "{,}",
        "\u2009",
        "\u202f",
        "**",
        "__",
        "M",
        "T",
        "K",
        " GPUs",
        " tokens",
        "\\num{",
        "\\qty{",
        "\\giga",
        "\\hertz",
        "hundred",
        " and ",
        "a ",
        "half",
        " a ",
        "third",
        "quarters",
        "½",
        "¾",
        "from ",
        " to ",
        "between ",
        "increased ",
        "diverse ",
        "and ",
        "high-quality ",
        "illustrates",
        "\n",
        "e",
        "-",
        "–",
    ]
)
TEXTS = st.one_of(st.text(max_size=80), st.lists(PIECES, max_size=30).map("".join))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_prop_new_forms_never_raise_and_spans_are_exact(text):
    last_end = 0
    for f in scan(text):
        assert last_end <= f.start < f.end <= len(text)
        assert text[f.start : f.end] == f.raw
        assert parse(f.raw) == f.quantity
        last_end = f.end
    try:
        parse(text)
    except ValueError:
        pass  # FigureError is a ValueError; nothing else may escape


ADVERSARIAL = [
    "1 ",
    "1,",
    "1.",
    "10 000 ",
    "1\\,000",
    "(",
    "from 1 to ",
    "between 1 and ",
    "a hundred and ",
    "× 10^",
    "1-",
    "diverse and ",
    "**1**M ",
    "½",
    "4K → ",
    "16:",
    "one ",
    "Table ",
]


_UNCACHED = scanner_module._parse_or_none.__wrapped__


def _work(text: str, monkeypatch) -> int:
    """Characters handed to the parser while scanning `text` (every attempt, cached or not)."""
    total = 0
    original = _UNCACHED

    def counting(raw):
        nonlocal total
        total += len(raw)
        return original(raw)

    monkeypatch.setattr(scanner_module, "_parse_or_none", counting)
    scanner_module.scan(text)
    return total


@pytest.mark.slow
@pytest.mark.parametrize("piece", ADVERSARIAL)
def test_scan_work_grows_linearly_with_the_text(piece, monkeypatch):
    small, large = piece * 500, piece * 4000  # eight times the text
    w_small, w_large = _work(small, monkeypatch), _work(large, monkeypatch)
    assert w_large <= 8 * w_small * 1.2 + 200, (piece, w_small, w_large)


def test_a_tab_ends_a_figure_like_a_table_cell():
    assert [f.raw for f in scan("16K H100, 4D parallelism\tlong-context continuation")] == [
        "16K H100",
        "4D parallelism",
    ]


def test_an_ordinal_in_words_is_not_a_figure():
    assert [f.raw for f in scan("the Thirty-Second AAAI Conference after a 30-second wait")] == [
        "30-second wait"
    ]


@pytest.mark.parametrize(
    "raw",
    [
        "5.9T tokens",
        "16K H100",
        "466",
        "32–33T tokens",
        "4K → 128K",
        "~2,048 GPUs",
        "355B-A32B",
        "(8B)",
        "10 000 GPUs",
        "3.8 × 10^25 FLOPs",
        "hundreds of GPUs",
        "2 GPUs and 3 nodes",
    ],
)
def test_precision_is_the_same_whether_or_not_parse_read_the_figure_first(raw):
    """parse carries each figure's first number on the Quantity for precision (reach asks right
    after): never another one than the text gives, and a figure parsed from the text as written
    carries it."""
    alone = parser_module.precision(raw)
    try:
        q = parse(raw)
    except Exception:
        return
    assert parser_module.precision(q) == alone
    assert parser_module.precision(q.raw) == alone
    if q.first_term is not None:
        assert parser_module._read_first_term(raw) == q.first_term


def test_the_first_term_rides_on_the_parsed_figure_and_is_not_part_of_its_value():
    """precision reads the parsed figure's own first number: no state outside the Quantity."""
    q = parse("32–33T tokens")
    assert q.first_term is not None and q.first_term[1] == 0  # "32" as written, before "T" applied
    assert parser_module.precision(q) == 1.0
    # a figure with another first_term says so: precision does not read the text again
    from dataclasses import replace

    other = replace(q, first_term=(q.first_term[0], 12))
    assert parser_module.precision(other) == 1e12
    assert other == q and hash(other) == hash(q) and "first_term" not in repr(q)
    assert "first_term" not in q.to_dict()
    # read in canonical spelling: the first number as written is another one, so none is carried
    assert parse("3.8 × 10^25 FLOPs").first_term is None
    assert parser_module.precision(parse("3.8 × 10^25 FLOPs")) == 0.1


@pytest.mark.parametrize("raw", ["1e400 steps", "no number here"])
def test_precision_never_raises(raw):
    assert parser_module.precision(raw) is None
