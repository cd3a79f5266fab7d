"""Tests for claimsdb.locating.locate: finding a claim's quote and figures in a page, numbers compared as numbers."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claimsdb.locating.page as page_module
from claimsdb.figures import parse, scan
from claimsdb.figures.vocabulary import DASHES
from claimsdb.locating.locate import (
    FULL_SCAN_CHARS,
    FUZZY_THRESHOLD,
    OUTCOMES,
    PASSAGE_CHARS,
    WINDOW_CHARS,
    Location,
    locate,
    normalize,
)

PAGE = """Heron-3 technical report

1 Introduction
We describe Heron-3, a sparse language model built by a small lab.

2 Compute
The Heron-3 pretraining run occupied a cluster of 16,000 H100 GPUs for 41 days and consumed 22.4T tokens
of mixed web, code and math data. A single optimizer step took about 20 s at the largest batch size.

3 Context
The context window was extended from 4K to 128K tokens in a short final stage.

Data mixing, tokenizer changes and the learning-rate schedule are described in a companion note, which
also lists the ablations that were dropped before the main run and the reasons for dropping them.

4 Evaluation
The evaluation suite covers 12 benchmarks across reasoning and coding.
"""

QUOTE = "occupied a cluster of 16,000 H100 GPUs for 41 days"
FIGURES = ["16,000 H100", "22.4T tokens"]
HINT = "Heron-3 Heron-3 pretraining run compute"


def figs(*raws):
    return [parse(r) for r in raws]


# --- normalize ------------------------------------------------------------------------------------


def test_normalize_folds_case_spaces_dashes_and_quotes():
    assert normalize("  The\u00a0RUN\u2009used\u202f2,048\n\tGPUs ") == "the run used 2,048 gpus"
    assert normalize("32\u201333T \u2014 a\u2011b \u22125") == "32-33t - a-b -5"
    assert normalize("\u201cquoted\u201d \u2018and\u2019 8\u00d7") == "\"quoted\" 'and' 8\u00d7"
    assert normalize("pre\u00adtrain\u200bing") == "pretraining"
    assert normalize("STRASSE Stra\u00dfe") == "strasse strasse"


# --- with a quote ----------------------------------------------------------------------------------


def test_exact_quote_with_its_figures_is_confirmed():
    loc = locate(PAGE, quote=QUOTE, figures=figs(*FIGURES), hint=HINT)
    assert loc.outcome == "confirmed"
    assert loc.score == 1.0 and loc.changes == () and loc.missing == ()
    assert QUOTE in loc.passage and loc.passage in PAGE  # the passage is the page's own text
    assert "22.4T tokens" in loc.passage  # context around the quote holds the other figure


@pytest.mark.parametrize(
    "quote",
    [
        "OCCUPIED a   cluster of 16,000 h100 GPUs\nfor 41 days",
        "occupied a cluster of 16,000\u00a0H100 GPUs for 41\u202fdays",
        "occupied a cluster of 16,000 H100 GPUs for 41 days",
    ],
)
def test_whitespace_case_and_special_spaces_still_match_exactly(quote):
    loc = locate(PAGE, quote=quote, figures=figs(*FIGURES))
    assert (loc.outcome, loc.score) == ("confirmed", 1.0)


def test_dashes_and_curly_quotes_still_match_exactly():
    page = "Kestrel\u2019s mix was 32\u201333T tokens \u2014 mostly \u201cclean\u201d web text."
    quote = 'Kestrel\'s mix was 32-33T tokens - mostly "clean" web text'
    loc = locate(page, quote=quote, figures=figs("32–33T tokens"))
    assert (loc.outcome, loc.score) == ("confirmed", 1.0)
    assert loc.passage == page


def test_reworded_passage_with_the_same_figures_is_reworded():
    quote = "the Heron-3 pretraining run used a cluster of 16,000 H100 GPUs during 41 days and consumed 22.4T tokens"
    loc = locate(PAGE, quote=quote, figures=figs(*FIGURES))
    assert loc.outcome == "reworded"
    assert FUZZY_THRESHOLD <= loc.score < 1.0
    assert "16,000 H100 GPUs" in loc.passage


def test_changed_figure_in_the_same_passage_is_figure_changed():
    page = PAGE.replace("16,000 H100", "10,000 H100")
    loc = locate(page, quote=QUOTE, figures=figs(*FIGURES))
    assert loc.outcome == "figure-changed"
    assert loc.changes == (("16,000 H100", "10,000 H100 GPUs"),)
    assert loc.missing == ()
    assert "10,000 H100 GPUs" in loc.passage


def test_a_changed_number_that_only_the_quote_holds_is_still_a_change():
    page = PAGE.replace("41 days", "44 days")
    loc = locate(page, quote=QUOTE, figures=figs("16,000 H100"))  # 41 days is not a claim figure
    assert loc.outcome == "figure-changed"
    assert loc.changes == (("41 days", "44 days"),)


def test_the_quote_figure_must_be_in_the_matched_words_not_just_nearby():
    page = PAGE.replace(
        "of 16,000 H100 GPUs", "of 10,000 H100 GPUs (16,000 H100 GPUs were planned)"
    )
    loc = locate(
        page,
        quote="The Heron-3 pretraining run occupied a cluster of 16,000 H100 GPUs",
        figures=figs("16,000 H100"),
    )
    assert loc.outcome == "figure-changed"
    assert loc.changes == (("16,000 H100", "10,000 H100 GPUs"),)


def test_claim_figure_outside_the_quote_missing_from_the_passage():
    page = PAGE.replace("22.4T tokens", "a great many tokens")
    loc = locate(page, quote=QUOTE, figures=figs(*FIGURES))
    assert loc.outcome == "figure-changed"
    assert loc.missing == ("22.4T tokens",) and loc.changes == ()


@pytest.mark.parametrize(
    ("page_says", "claim_says"),
    [
        ("2,048 H800 GPUs", "2048 H800"),
        ("2048 H800 GPUs", "2,048 H800"),
        ("14.8 trillion tokens", "14.8T tokens"),
        ("14.8T tokens", "14.8 trillion tokens"),
        ("20 s per step", "20s"),
        ("20s per step", "about 20 s"),
        ("20 seconds per step", "20 s"),
    ],
)
def test_equal_figures_written_differently_are_equal(page_says, claim_says):
    page = (
        f"Notes on Wren-5. Wren-5 needed {page_says} in the final run. Nothing else matters here."
    )
    assert locate(page, quote=None, figures=figs(claim_says), hint="Wren-5").outcome == "confirmed"
    quote = f"needed {page_says} in the final run"
    assert locate(page, quote=quote, figures=figs(claim_says)).outcome == "confirmed"


@pytest.mark.parametrize(
    ("page_says", "claim_says"),
    [
        ("10,000 H100 GPUs", "16,000 H100"),
        ("16,001 H100 GPUs", "16,000 H100"),
        ("1.48T tokens", "14.8T tokens"),
        ("14.8B tokens", "14.8T tokens"),
        ("2,048 H100 GPUs", "2,048 H800"),
        ("16,000 nodes", "16,000 GPUs"),
        ("32T tokens", "32–33T tokens"),
        ("32–34T tokens", "32–33T tokens"),
    ],
)
def test_similar_strings_with_other_numbers_units_or_things_are_not_confirmed(
    page_says, claim_says
):
    page = (
        f"Notes on Wren-5. Wren-5 needed {page_says} in the final run. Nothing else matters here."
    )
    for quote in (None, f"Wren-5 needed {claim_says} in the final run"):
        loc = locate(page, quote=quote, figures=figs(claim_says), hint="Wren-5 final run")
        assert loc.outcome not in ("confirmed", "reworded"), (quote, loc)


def test_an_exact_match_is_word_bounded():
    loc = locate(
        "The forward step is slow on Wren-5.", quote="ward step is slow on Wren-5", figures=[]
    )
    assert loc.outcome != "confirmed" and loc.score < 1.0


def test_a_number_inside_a_longer_number_is_not_the_figure():
    page = "The Wren-5 cluster had 128 GPUs in one room."
    for quote in ("8 GPUs in one room", None):
        loc = locate(page, quote=quote, figures=figs("8 GPUs"), hint="Wren-5 cluster")
        assert loc.outcome not in ("confirmed", "reworded")


def test_the_first_occurrence_holding_the_figures_is_chosen():
    page = (
        "Wren-5 ran on 512 GPUs during a pilot. "
        + "Filler words here. " * 40
        + "Wren-5 ran on 4,096 GPUs during the main run."
    )
    loc = locate(page, quote="Wren-5 ran on", figures=figs("4,096 GPUs"))
    assert loc.outcome == "confirmed"
    assert "4,096 GPUs" in loc.passage


def test_unrelated_page_is_not_found():
    page = "A recipe: boil 2 litres of water, add 500 g of pasta and wait 11 minutes. Serve with 30 g of cheese."
    loc = locate(page, quote=QUOTE, figures=figs(*FIGURES), hint=HINT)
    assert loc == Location("not-found", None, loc.score, (), tuple(FIGURES))
    assert loc.score < FUZZY_THRESHOLD
    assert locate(page, quote=None, figures=figs(*FIGURES), hint=HINT).outcome == "not-found"


def test_passage_is_bounded_and_taken_from_the_original_text():
    page = (
        "Lorem ipsum dolor sit amet. " * 60
        + "Wren-5 ran on 4,096 GPUs during the main run. "
        + "Sed do. " * 90
    )
    loc = locate(page, quote="Wren-5 ran on 4,096 GPUs", figures=figs("4,096 GPUs"))
    assert loc.outcome == "confirmed"
    assert len(loc.passage) <= PASSAGE_CHARS and loc.passage in page
    assert not loc.passage[0].isspace() and not loc.passage[-1].isspace()


def test_a_short_quote_must_match_word_for_word():
    page = "Wren-5 post-training used SFT and then RL on math prompts."
    loc = locate(page, quote="SFT, DPO and RL", figures=[])
    assert loc.outcome == "not-found" and loc.passage is None


def test_a_quote_of_figures_only_is_found_as_figures_when_written_differently():
    page = "Notes. The Wren-5 pretraining run consumed 14.8 trillion tokens of web data. The end."
    loc = locate(
        page, quote="14.8T tokens", figures=figs("14.8T tokens"), hint="Wren-5 pretraining"
    )
    assert loc.outcome == "reworded" and "14.8 trillion tokens" in loc.passage
    changed = locate(
        page.replace("14.8", "15.2"),
        quote="14.8T tokens",
        figures=figs("14.8T tokens"),
        hint="Wren-5 pretraining",
    )
    assert changed.outcome == "figure-changed"
    assert changed.changes == (("14.8T tokens", "15.2 trillion tokens"),)


def test_a_labelled_claim_figure_needs_its_label_on_the_page():
    bare = "The Wren-5 trainer config sets a staleness bound of 8 steps and a batch of 512."
    labelled = "The Wren-5 trainer config sets max_off_policy_steps = 8 and a batch of 512."
    claim = figs("max_off_policy_steps = 8")
    assert (
        locate(bare, quote=None, figures=claim, hint="Wren-5 trainer config").outcome != "confirmed"
    )
    assert (
        locate(labelled, quote=None, figures=claim, hint="Wren-5 trainer config").outcome
        == "confirmed"
    )


# --- without a quote --------------------------------------------------------------------------------


def test_no_quote_figures_together_are_confirmed():
    loc = locate(
        PAGE, quote=None, figures=figs("16,000 H100", "41 days", "22.4T tokens"), hint=HINT
    )
    assert loc.outcome == "confirmed"
    assert "16,000 H100 GPUs for 41 days" in loc.passage and "22.4T tokens" in loc.passage


def test_no_quote_each_figure_is_found_on_its_own_with_its_passage():
    loc = locate(PAGE, quote=None, figures=figs("16,000 H100", "12 benchmarks"), hint=HINT)
    assert PAGE.index("12 benchmarks") - PAGE.index("16,000") > 300  # the page keeps them apart
    assert loc.outcome == "confirmed"
    gpus, benchmarks = loc.figures
    assert (gpus.status, gpus.found) == (
        "found",
        "16,000 H100 GPUs",
    ) and "16,000 H100" in gpus.passage
    assert (benchmarks.status, benchmarks.found) == (
        "found",
        "12 benchmarks",
    ) and "12 benchmarks" in benchmarks.passage


def test_no_quote_some_figures_found_is_partial_listing_the_missing():
    loc = locate(PAGE, quote=None, figures=figs("16,000 H100", "7 stages"), hint=HINT)
    assert (loc.outcome, loc.missing) == ("partial", ("7 stages",))
    assert [r.status for r in loc.figures] == ["found", "missing"]


def test_no_quote_a_more_precise_page_value_is_rounded():
    page = "Wren-5 pretraining consumed 5.93 trillion tokens on 512 GPUs."
    loc = locate(
        page, quote=None, figures=figs("5.9T tokens", "512 GPUs"), hint="Wren-5 pretraining"
    )
    assert loc.outcome == "rounded" and [r.status for r in loc.figures] == ["rounded", "found"]
    assert (
        locate(page, quote=None, figures=figs("5.93T tokens"), hint="Wren-5").outcome == "confirmed"
    )
    assert (
        locate(page, quote=None, figures=figs("6T tokens"), hint="Wren-5").outcome == "rounded"
    )  # 5.93 -> 6
    assert (
        locate(page, quote=None, figures=figs("5.8T tokens"), hint="Wren-5").outcome
        == "figure-changed"
    )


def test_no_quote_transition_written_as_from_to():
    loc = locate(PAGE, quote=None, figures=figs("4K → 128K"), hint="Heron-3 context window")
    assert loc.outcome == "confirmed" and "from 4K to 128K" in loc.passage


def test_no_quote_prefers_the_window_with_the_hint_words():
    page = (
        "The Osprey-1 ablation also used 512 GPUs for a quick test. "
        + "Unrelated filler text. " * 30
        + "Later, the Wren-5 ablation used 512 GPUs as well."
    )
    loc = locate(page, quote=None, figures=figs("512 GPUs"), hint="Wren-5 ablation")
    assert (
        loc.outcome == "confirmed"
        and "Wren-5 ablation" in loc.passage
        and "Osprey-1" not in loc.passage
    )


def test_no_quote_a_specific_figure_is_found_anywhere_on_its_page():
    # The page is the claim's own source: a figure with a unit is found even far from the claim's words.
    page = "The Osprey-1 baseline used 512 GPUs. " + "Unrelated filler text. " * 30
    assert (
        locate(page, quote=None, figures=figs("512 GPUs"), hint="Wren-5 ablation").outcome
        == "confirmed"
    )
    assert locate(page, quote=None, figures=figs("512 GPUs"), hint=None).outcome == "confirmed"


def test_no_quote_same_unit_other_value_near_the_hint_words_is_figure_changed():
    page = PAGE.replace("16,000 H100", "12,000 H100")
    loc = locate(page, quote=None, figures=figs("16,000 H100", "41 days"), hint=HINT)
    assert loc.outcome == "partial" and loc.missing == ("16,000 H100",)  # 41 days is there
    assert loc.changes == (("16,000 H100", "12,000 H100 GPUs"),)
    alone = locate(page, quote=None, figures=figs("16,000 H100"), hint=HINT)
    assert alone.outcome == "figure-changed" and alone.changes == (
        ("16,000 H100", "12,000 H100 GPUs"),
    )


def test_a_bare_small_number_needs_more_of_the_hint_than_a_specific_figure():
    page = (
        "The Wren-5 team wrote two reports this year. "
        + "Unrelated filler text. " * 30
        + "Two Wren-5 parser tasks repair tokenizers in the rollout workers."
    )
    hint = "Wren-5 two parser tasks repair tokenizers rollout workers"
    loc = locate(page, quote=None, figures=figs("two"), hint=hint)
    assert loc.outcome == "confirmed" and "parser tasks" in loc.passage
    assert locate(page[:200], quote=None, figures=figs("two"), hint=hint).outcome == "not-found"
    assert locate(page, quote=None, figures=figs("two"), hint=None).outcome == "not-found"


def test_no_quote_figure_changed_needs_the_same_order_of_magnitude():
    page = (
        "Wren-5 was trained on 27T tokens of data. Its tokenizer has a vocabulary of 128K tokens."
    )
    hint = "Wren-5 trained data"
    assert locate(page, quote=None, figures=figs("30T tokens"), hint=hint).changes == (
        ("30T tokens", "27T tokens"),
    )
    other = page.replace("27T tokens", "many tokens")
    assert locate(other, quote=None, figures=figs("30T tokens"), hint=hint).outcome == "not-found"


def test_unitless_page_number_needs_the_unit_as_its_label():
    table = "Wren-5 cluster summary\nGPUs: 2,048\nFigure 16 shows the racks of 64 GPUs each."
    assert (
        locate(table, quote=None, figures=figs("2,048 GPUs"), hint="Wren-5 cluster").outcome
        == "confirmed"
    )
    assert (
        locate(table, quote=None, figures=figs("16 GPUs"), hint="Wren-5 cluster").outcome
        != "confirmed"
    )


def test_no_figures_and_no_quote_is_nothing_to_check():
    assert locate(PAGE, quote=None, figures=[], hint=HINT) == Location(
        "nothing-to-check", None, 0.0
    )
    assert locate(PAGE, quote="   ", figures=[], hint=HINT).outcome == "nothing-to-check"


def test_location_is_frozen():
    loc = locate(PAGE, quote=QUOTE, figures=[])
    with pytest.raises(dataclasses.FrozenInstanceError):
        loc.outcome = "confirmed"  # type: ignore[misc]


# --- a large page ------------------------------------------------------------------------------------


def _large_page(target: str) -> str:
    rng = random.Random(11)
    vocab = (
        "the a rack node shard queue worker cable switch kernel loss curve batch stage warmup decay "
        "checkpoint fabric storage rollout reward buffer"
    ).split()
    parts, size = [], 0
    while size < 200_000:
        words = [rng.choice(vocab) for _ in range(rng.randint(8, 18))]
        if rng.random() < 0.5:
            words.insert(
                3, f"{rng.randint(1, 9_999):,} {rng.choice(['GPUs', 'nodes', 'tokens', 'hours'])}"
            )
        parts.append(" ".join(words).capitalize() + ".")
        size += len(parts[-1]) + 1
    parts.insert(len(parts) // 2, target)
    return " ".join(parts)


def test_a_200_kb_page_is_located():
    """Located, not timed: tests/benchmarks/bench_locate.py prints the times over the corpus and a 20 MB page."""
    target = "The Heron-3 run occupied 3,328 H200 GPUs for 41 days and consumed 22.4T tokens of mixed data."
    page = _large_page(target)
    claim = figs("3,328 H200", "22.4T tokens")
    exact = locate(page, quote="occupied 3,328 H200 GPUs for 41 days", figures=claim)
    fuzzy = locate(
        page, quote="Heron-3 used 3,328 H200 GPUs during 41 days and 22.4T tokens", figures=claim
    )
    bare = locate(page, quote=None, figures=claim, hint="Heron-3 pretraining run")
    changed = locate(
        page.replace("3,328 H200", "3,072 H200"),
        quote="occupied 3,328 H200 GPUs for 41 days",
        figures=claim,
    )
    assert len(page) >= 200_000
    assert exact.outcome == "confirmed" and target in exact.passage
    assert fuzzy.outcome == "reworded" and "3,328 H200 GPUs" in fuzzy.passage
    assert bare.outcome == "confirmed" and "3,328 H200 GPUs" in bare.passage
    assert changed.outcome == "figure-changed" and changed.changes == (
        ("3,328 H200", "3,072 H200 GPUs"),
    )


def _scanned(page: str, monkeypatch, **kwargs) -> tuple[object, int]:
    """locate's outcome, and how many characters it handed to the figure scanner."""
    module = page_module  # where the page's figures are read

    total = 0
    real_scan = module.scan

    def counting(text):
        nonlocal total
        total += len(text)
        return real_scan(text)

    monkeypatch.setattr(module, "scan", counting)
    module._page.cache_clear()
    return locate(page, **kwargs), total


@pytest.mark.parametrize(
    "quote",
    [
        None,
        "occupied 3,328 H200 GPUs for 41 days",
        "Heron-3 used 3,328 H200 GPUs during 41 days and 22.4T tokens",
    ],
)
@pytest.mark.slow
def test_a_large_page_is_read_in_windows_whatever_its_size(monkeypatch, quote):
    # Above FULL_SCAN_CHARS a page is read only around the claim's digits and words: the characters
    # scanned stay bounded when the page grows fourfold (what bench_locate.py measures in memory).
    target = "The Heron-3 run occupied 3,328 H200 GPUs for 41 days and consumed 22.4T tokens of mixed data."
    base = _large_page(target)
    filler = base.replace(target, "")
    small = filler * 6 + target + filler * 6
    large = filler * 24 + target + filler * 24
    assert FULL_SCAN_CHARS < len(small) < len(large) // 3
    claim = dict(
        quote=quote, figures=figs("3,328 H200", "22.4T tokens"), hint="Heron-3 pretraining run"
    )
    (loc_small, work_small), (loc_large, work_large) = (
        _scanned(small, monkeypatch, **claim),
        _scanned(large, monkeypatch, **claim),
    )
    assert loc_small.outcome == loc_large.outcome != "not-found"
    # at most _MAX_WINDOWS windows per figure, and as many for the claim's words: a bound that does not
    # depend on the page's size
    bound = (
        (len(claim["figures"]) + 1)
        * page_module._MAX_WINDOWS
        * (WINDOW_CHARS + 2 * page_module._EDGE + 2)
    )
    assert work_small <= bound and work_large <= bound, (work_small, work_large, bound)
    assert work_large < len(large) / 20


# --- properties --------------------------------------------------------------------------------------

PAGE_PIECES = st.sampled_from(
    [
        "Wren-5 ",
        "used ",
        "16,000 ",
        "10,000 ",
        "H100 ",
        "GPUs ",
        "for ",
        "41 days",
        "14.8T ",
        "14.8 trillion ",
        "tokens",
        ". ",
        "\n",
        "\n\n",
        "from 4K to 128K ",
        "4K → 128K ",
        "about 20 s ",
        "\u00a0",
        "–",
        "Figure 16 ",
        "GPUs: 2,048 ",
        "355B-A32B ",
        "355B total and 32B active ",
        "between 10 and 20 GPUs ",
        "x",
        "(",
        ")",
    ]
)
CLAIM_FIGURES = st.lists(
    st.sampled_from(
        [
            "16,000 H100",
            "10,000 GPUs",
            "41 days",
            "14.8T tokens",
            "4K → 128K",
            "20 s",
            "2,048 GPUs",
            "355B-A32B",
            "10–20 GPUs",
            "16",
        ]
    ),
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(PAGE_PIECES, max_size=40).map("".join),
    st.integers(0, 60),
    st.integers(0, 60),
    CLAIM_FIGURES,
    st.booleans(),
)
@pytest.mark.slow
def test_prop_locate_never_raises_and_confirms_only_with_the_numbers_in_the_passage(
    page, a, b, raws, with_quote
):
    quote = page[min(a, b) : max(a, b)] if with_quote else None
    claim = figs(*raws)
    loc = locate(page, quote=quote, figures=claim, hint="Wren-5 used")
    assert loc.outcome in OUTCOMES
    assert 0.0 <= loc.score <= 1.0
    if loc.passage is not None:
        assert loc.passage in page
    if loc.outcome in ("confirmed", "reworded"):
        assert loc.changes == () and loc.missing == ()
        passages = [r.passage for r in loc.figures] or [
            loc.passage
        ]  # without a quote, each figure's own
        for r in loc.figures:
            assert r.passage in page and r.status == "found"
        stated = [n for p in passages for f in scan(p) for n in f.quantity.numbers()]
        for q in claim:
            for n in q.numbers():
                assert any(math.isclose(n, m, rel_tol=1e-9) for m in stated), (q.raw, passages)
    else:
        assert loc.outcome != "not-found" or loc.passage is None


def test_a_change_written_as_consecutive_figures_is_found_not_rounded():
    page = "Wren-5 expands the context window from 4K to 32K and then to 128K in two phases."
    loc = locate(page, quote=None, figures=figs("32K → 128K"), hint="Wren-5 context")
    assert loc.outcome == "confirmed" and loc.figures[0].found == "from 4K to 32K and then to 128K"
    one_step = locate(
        "Wren-5 supports a context of 128K.", quote=None, figures=figs("32K → 128K"), hint="Wren-5"
    )
    assert one_step.outcome != "confirmed"  # one step does not state the change


def test_a_bare_figure_needs_the_claims_words_near_it():
    page = (
        "The cache holds 4K entries per shard. " + "Unrelated filler text. " * 30 + "Nothing more."
    )
    assert (
        locate(page, quote=None, figures=figs("> 4,000"), hint="Wren-5 sandboxes").outcome
        == "not-found"
    )
    near = "Wren-5 runs more than 4,000 sandboxes at peak."
    assert (
        locate(near, quote=None, figures=figs("> 4,000"), hint="Wren-5 sandboxes").outcome
        == "confirmed"
    )


@pytest.mark.parametrize("dash", DASHES)
def test_every_dash_is_a_range_to_the_parser_and_a_hyphen_to_locate(dash):
    written = f"32{dash}33T tokens"
    assert dataclasses.replace(parse(written), raw="32-33T tokens") == parse("32-33T tokens")
    assert normalize(written) == "32-33t tokens"
    page = f"Kestrel was trained on {written} of web text."
    assert locate(page, quote=None, figures=figs("32–33T tokens")).outcome == "confirmed"
    assert (
        locate(page, quote="trained on 32-33T tokens", figures=figs("32–33T tokens")).outcome
        == "confirmed"
    )
