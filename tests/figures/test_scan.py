"""Tests for claimsdb.figures.scan: figures found in running prose with the grammar of `parse`."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimsdb.figures import Found, parse, scan
from claimsdb.figures.lexing import fold_forms


def raws(text):
    return [f.raw for f in scan(text)]


def test_brief_sentence_gives_gpus_and_tokens():
    text = "The run used 2,048 H800 GPUs for 14.8 trillion tokens."
    gpus, tokens = scan(text)
    assert (gpus.raw, gpus.quantity.value, gpus.quantity.unit, gpus.quantity.counted) == (
        "2,048 H800 GPUs",
        2048.0,
        "GPUs",
        "H800",
    )
    assert (tokens.raw, tokens.quantity.value, tokens.quantity.unit) == (
        "14.8 trillion tokens",
        14.8e12,
        "tokens",
    )
    assert text[gpus.start : gpus.end] == gpus.raw and text[tokens.start : tokens.end] == tokens.raw


def test_qualifier_and_unit_symbol_end_the_figure():
    step, model = scan("about 20 s per 1T model")
    q = step.quantity
    assert (step.raw, q.comparator, q.value, q.unit) == ("about 20 s", "~", 20.0, "s")
    assert model.quantity.value == 1e12


@pytest.mark.parametrize(
    ("sentence", "raw", "kind", "numbers", "unit"),
    [
        (
            "Pretraining took 32–33T tokens in all.",
            "32–33T tokens",
            "range",
            (32e12, 33e12),
            "tokens",
        ),
        (
            "Context grew 4K → 128K during midtraining.",
            "4K → 128K",
            "transition",
            (4e3, 128e3),
            None,
        ),
        ("The 355B-A32B model is sparse.", "355B-A32B model", "moe", (355e9, 32e9), "parameters"),
        ("It keeps > 90% of the score.", "> 90%", "value", (90.0,), "%"),
        ("We queue up to 100,000 tasks at once.", "up to 100,000 tasks", "value", (1e5,), "tasks"),
        ("The split was 16:44 for both pools.", "16:44", "ratio", (16.0, 44.0), None),
        ("Speedup of 2–4× over the baseline.", "2–4×", "range", (2.0, 4.0), "x"),
        ("Budget ~$5.6M for the quarter.", "~$5.6M", "value", (5.6e6,), "USD"),
        (
            "between 10 and 20 GPUs were idle",
            "between 10 and 20 GPUs",
            "range",
            (10.0, 20.0),
            "GPUs",
        ),
        (
            "It used 2.788M H800 GPU hours of compute.",
            "2.788M H800 GPU hours",
            "value",
            (2.788e6,),
            "h",
        ),
        ("We ran four verl hooks here.", "four verl hooks", "value", (4.0,), "hooks"),
        ("Latency fell to 20s, then lower.", "20s", "value", (20.0,), "s"),
        ("Sequences of 5.9T-token length", "5.9T-token length", "value", (5.9e12,), "tokens"),
    ],
)
def test_one_figure_per_written_figure(sentence, raw, kind, numbers, unit):
    (f,) = scan(sentence)
    assert (f.raw, f.quantity.kind, f.quantity.numbers(), f.quantity.unit) == (
        raw,
        kind,
        numbers,
        unit,
    )
    assert f.quantity == parse(raw)


@pytest.mark.parametrize(
    "name", ["H100", "GPT-4", "Qwen2.5", "K2-V2", "v1.5", "Llama-7b", "MI300X", "A100s", "FP8"]
)
def test_numbers_inside_names_are_not_figures(name):
    assert scan(f"We compared {name} with others.") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("from 4K to 128K tokens", ["4K to 128K tokens"]),  # a span: no word says it changed
        (
            "context grew from 4K to 128K tokens",
            ["from 4K to 128K tokens"],
        ),  # a change (a transition)
        ("anywhere 10 to 20 GPUs", ["10 to 20 GPUs"]),
        ("see Table 3: 16 GPUs", ["3", "16 GPUs"]),  # a colon that ends a label is not a ratio
        ("a 12.7T (8B) model", ["12.7T", "8B"]),
        ("2,048 GPUs ran the job", ["2,048 GPUs"]),
        ("8 GPUs trained Zephyr-2 quickly", ["8 GPUs"]),
        ("300–550 concurrent rollouts ran", ["300–550 concurrent rollouts"]),
        (
            "In 2024, section 3.2 and [12] apply.",
            ["2024", "3.2", "12"],
        ),  # callers decide what to ignore
        ("on 2024-05-01 exactly", ["2024"]),
        ("1st 7b 2,048H800 1,2,3 then 5 cats", ["5 cats"]),  # unreadable numbers are skipped whole
        ("roughly 700 workers, no more than 8 each", ["roughly 700 workers", "no more than 8"]),
        ("A -> 128K", ["128K"]),  # the arrow's ">" is not a qualifier
    ],
)
def test_figure_boundaries(text, expected):
    assert raws(text) == expected


def test_every_found_figure_is_what_parse_reads():
    text = (
        "Team Kestrel trained on 3,072 H100 GPUs for 54 days, with about 20 s per step, 1,000+ GPUs in reserve, "
        "MFU 21% → 24%, a 67B-A2B sibling, 4K → 128K → 200K context and 30-odd nodes idle."
    )
    found = scan(text)
    assert [f.raw for f in found] == [
        "3,072 H100 GPUs",
        "54 days",
        "about 20 s",
        "1,000+ GPUs",
        "21% → 24%",
        "67B-A2B sibling",
        "4K → 128K → 200K context",
        "30-odd nodes",
    ]
    for f in found:
        assert f.quantity == parse(f.raw)
        assert text[f.start : f.end] == f.raw


def test_found_is_frozen():
    f = scan("8 GPUs")[0]
    assert isinstance(f, Found)
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.start = 3  # type: ignore[misc]


def test_offsets_survive_newlines_and_special_spaces():
    text = "cluster of\n2,048\u00a0H800 GPUs and 14.8\ntrillion tokens"
    found = scan(text)
    assert [f.quantity.numbers() for f in found] == [(2048.0,), (14.8e12,)]
    assert [text[f.start : f.end] for f in found] == [f.raw for f in found]
    assert scan("8 GPUs\n\nNodes were")[0].raw == "8 GPUs"


def test_a_large_page_is_scanned_whole():
    rng = random.Random(5)
    filler = "the rack held spare cables and a tidy queue of jobs".split()
    words, planted, size = [], [], 0
    while size < 200_000:
        if rng.random() < 0.02:
            n = rng.randint(1, 999_999)
            planted.append(float(n))
            words.append(f"{n:,} widgets")
        else:
            words.append(rng.choice(filler))
        size += len(words[-1]) + 1
    found = scan(" ".join(words))
    assert [f.quantity.value for f in found] == planted
    assert all(f.quantity.unit == "widgets" for f in found)


def test_non_text_gives_nothing():
    assert scan(None) == []  # type: ignore[arg-type]
    assert scan("") == []


PIECES = st.sampled_from(
    list("0123456789,.-–—→>:/=~≈<%×xX+$()[] KkMBTbmtsAHe\n\u00a0")
    + [
        "->",
        " to ",
        " and ",
        "between ",
        "up to ",
        "H100",
        " GPUs",
        " per ",
        "ish",
        "-odd",
        "one",
        "four",
        "from ",
        "twenty-",
        " thousand",
        "η",
        "\x00",
        "\u2009",
        "`",
        "(YaRN)",
        " of ",
        "e5",
        "-A3B",
        "about ",
        "Table 3: ",
    ]
)
TEXTS = st.one_of(st.text(max_size=80), st.lists(PIECES, max_size=25).map("".join))


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_prop_scan_never_raises_and_spans_are_ordered_and_exact(text):
    found = scan(text)
    last_end = 0
    for f in found:
        assert last_end <= f.start < f.end <= len(text)
        assert fold_forms(text[f.start : f.end]) == f.raw  # as written, other digits as ASCII
        assert parse(f.raw) == f.quantity
        last_end = f.end
