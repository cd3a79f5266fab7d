"""Tests for claimsdb.locating.reread: what a page must hold for a person's re-read to vouch for a claim
(the quote word for word, each figure in or around it), the correction a person may make to the page's
value, and the locators that name a place a reader can turn to."""

from __future__ import annotations

import pytest

from claimsdb.figures import parse
from claimsdb.locating.reread import (
    SECTION_CHARS,
    PageCheck,
    check_page,
    corrected,
    vague_locator,
)

PAGE = """# Orchard-9 technical report

## 3.1 Compute

We trained Orchard-9 on 2,048 H800 GPUs for 14.8T tokens. The run took 54 days.

## 3.2 Data

The corpus mixes web text, code and mathematics. Each source was deduplicated on its own.
"""
HINT = "Orchard-9 Orchard-9 was trained on 2,048 H800 GPUs for 14.8T tokens."
QUOTE = "We trained Orchard-9 on 2,048 H800 GPUs"


def check(quote: str, *figures: str) -> PageCheck:
    return check_page(PAGE, quote, [parse(f) for f in figures], HINT)


def test_the_quote_word_for_word_with_every_figure_around_it_is_confirmed():
    found = check(QUOTE, "2,048 H800", "14.8T tokens")  # 14.8T tokens: in the passage around it
    assert (found.outcome, found.holds, found.findings) == ("confirmed", True, ())
    assert QUOTE in found.passage and "14.8T tokens" in found.passage
    assert (found.changes, found.missing) == ((), ())
    # spaces, line breaks and dashes as the page sets them do not matter; the words do
    assert check("We  trained\nOrchard-9 on 2,048 H800\u00a0GPUs", "2,048 H800").holds


def test_a_quote_not_on_the_page_shows_the_nearest_passage():
    found = check("The corpus was filtered by hand", "2,048 H800")
    assert (found.outcome, found.holds) == ("not-found", False)
    assert found.findings == ("the quote is not on the page",)
    # what the page says where the person thought the quote was: the sentence sharing most words
    assert found.passage == "The corpus mixes web text, code and mathematics."


def test_a_quote_in_other_words_is_refused_even_when_its_figures_are_there():
    found = check("Orchard-9 was trained using 2,048 H800 GPUs for 14.8T tokens", "2,048 H800")
    assert (found.outcome, found.holds) == ("reworded", False)
    assert found.findings == ("the quote is not on the page word for word (it quotes other words)",)
    assert "We trained Orchard-9 on 2,048 H800 GPUs" in found.passage  # where the page says it


def test_a_page_stating_another_value_names_it():
    found = check(QUOTE, "4,096 H800", "14.8T tokens")  # the quote is the page's: 2,048
    assert (found.outcome, found.holds) == ("figure-changed", False)
    assert found.changes == (("4,096 H800", "2,048 H800 GPUs"),) and found.missing == ()
    assert found.findings == ("the page says 2,048 H800 GPUs where the claim says 4,096 H800",)
    # the claim's value put into the quote: not the page's words, and the page's value still named
    misquoted = check("We trained Orchard-9 on 4,096 H800 GPUs", "4,096 H800")
    assert misquoted.changes == (("4,096 H800", "2,048 H800 GPUs"),)
    assert "the page says 2,048 H800 GPUs where the claim says 4,096 H800" in misquoted.findings
    assert not misquoted.holds


def test_a_figure_neither_in_the_quote_nor_around_it_is_missing():
    found = check(QUOTE, "2,048 H800", "256K tokens")
    assert (found.holds, found.changes, found.missing) == (False, (), ("256K tokens",))
    assert found.findings == ("256K tokens is neither in the quote nor in the passage around it",)


@pytest.mark.parametrize(
    "given, kept",
    [("2,048 H800", "2,048 H800"), ("2048 H800 GPUs", "2048 H800"), (" 2,048 H800 ", "2,048 H800")],
)
def test_a_correction_to_the_pages_value_is_accepted_in_the_claims_words(given, kept):
    """The corrected figure is the claim's figure as written, with the page's number."""
    changes = check(QUOTE, "4,096 H800", "14.8T tokens").changes
    assert corrected(changes, given) == ("4,096 H800", kept)


def test_a_correction_that_changes_the_bound_is_taken_as_given():
    assert corrected((("up to 100,000 tasks", "50,000 tasks"),), "50,000 tasks") == (
        "up to 100,000 tasks",
        "50,000 tasks",
    )


@pytest.mark.parametrize(
    "given, says",
    [
        ("3,000 H800", "the page says 2,048 H800 GPUs (where the claim says 4,096 H800)"),
        ("14.8T tokens", "the page says 2,048 H800 GPUs (where the claim says 4,096 H800)"),
        ("no figure at all", "is not a figure"),
    ],
)
def test_a_correction_to_another_value_is_refused_saying_what_the_page_says(given, says):
    changes = check(QUOTE, "4,096 H800", "14.8T tokens").changes
    with pytest.raises(ValueError, match="^" + repr(given)) as refused:
        corrected(changes, given)
    assert says in str(refused.value)


def test_a_correction_where_the_page_states_no_other_value_is_refused():
    assert check(QUOTE, "2,048 H800").changes == ()
    with pytest.raises(ValueError, match="the page states no other value$"):
        corrected((), "2,048 H800")


@pytest.mark.parametrize(
    "locator",
    ["§4.1", "Table 5", "p. 12", "Appendix B", "Section 3", "Fig. 2", "pp. 4-5", "3.2 Data"],
)
def test_a_locator_naming_a_numbered_place_is_specific(locator):
    assert not vague_locator(locator)
    assert not vague_locator(locator, PAGE)


@pytest.mark.parametrize("heading", ["Compute", "data", "Orchard-9 technical report"])
def test_a_heading_of_the_page_is_specific_on_that_page_only(heading):
    assert not vague_locator(heading, PAGE)
    assert vague_locator(heading, "Another page\n\nwith other words.\n")


@pytest.mark.parametrize(
    "locator", ["the report", "p.", "README", "", "   ", None, "the data section"]
)
def test_a_locator_naming_no_place_is_vague(locator):
    assert vague_locator(locator)
    assert vague_locator(locator, PAGE)  # nor is any of them a heading of the page


def test_the_nearest_passage_is_the_whole_sentence_even_with_a_decimal_in_it():
    found = check("Orchard-9 trained with TPUs for months", "2,048 H800")
    assert found.passage == "We trained Orchard-9 on 2,048 H800 GPUs for 14.8T tokens."


def _report(gap: str) -> str:
    return (
        "## 3.3 Reliability\n\nOrchard-9 kept more than 90% effective training time over the run. "
        + gap
        + "In all, Orchard-9 logged 466 job interruptions.\n"
    )


def test_a_figure_of_the_quotes_section_counts_and_one_far_from_it_does_not():
    """A claim's other figure may stand a few sentences from the quote (its paragraph or section), as
    the claim's words place it; past SECTION_CHARS it is no longer the quote's context."""
    figures = [parse("466 interruptions"), parse("> 90%")]
    hint = "Orchard-9 logged 466 interruptions with more than 90% effective training time."
    quote = "Orchard-9 logged 466 job interruptions"
    near = "The cluster was serviced weekly, and each stop was logged with its cause. " * 4
    assert check_page(_report(near), quote, figures, hint).holds
    far = "The cluster was serviced weekly, and each stop was logged with its cause. " * 20
    assert len(far) > SECTION_CHARS
    found = check_page(_report(far), quote, figures, hint)
    assert found.findings == ("> 90% is neither in the quote nor in the passage around it",)
    # a wrong value near the quote is never taken for the claim's
    wrong = [parse("466 interruptions"), parse("> 95%")]
    assert not check_page(_report(near), quote, wrong, hint).holds
