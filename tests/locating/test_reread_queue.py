"""What the browser's re-read queue asks of the page (locating.reread): the page's sentence nearest a
claim as the page writes it, whether the page holds a locator, and no change read into a quote that
states another of the claim's figures."""

from __future__ import annotations

import pytest

from claimsdb.figures import parse
from claimsdb.locating.reread import (
    check_page,
    locator_on_page,
    nearest_passage,
    nearest_sentence,
)

PAGE = (
    "# 3 Infrastructure\n\n## 3.5 Serving\n\n"
    "The minimum deployment unit of the prefilling stage consists of 4 nodes with 32 GPUs. "
    "Table 5 lists the rest.\n\nDuring decoding, each token selects 9 experts."
)


def test_the_nearest_sentence_is_the_pages_own_text():
    start, end = nearest_sentence(PAGE, "deployment unit prefilling 4 nodes")
    assert PAGE[start:end] == (
        "The minimum deployment unit of the prefilling stage consists of 4 nodes with 32 GPUs."
    )
    assert nearest_passage(PAGE, "deployment unit prefilling") == (
        "The minimum deployment unit of the prefilling stage consists of 4 nodes with 32 GPUs."
    )  # the same sentence, for people
    assert nearest_sentence(PAGE, "zebra") is None


@pytest.mark.parametrize(
    "locator, held",
    [
        ("Table 5", True),  # its words, as written
        ("table  5", True),
        ("§3.5", True),  # a numbered heading "3.5 Serving"
        ("§ 3", True),
        ("§3.6", False),
        ("§5", False),  # "5" stands in the page, never at a line's start
        ("the report", False),
        ("", False),
    ],
)
def test_a_locator_the_page_holds(locator, held):
    assert locator_on_page(locator, PAGE) is held


def test_a_quote_stating_another_of_the_claims_figures_reads_no_change():
    quote = "The minimum deployment unit of the prefilling stage consists of 4 nodes with 32 GPUs."
    both = check_page(PAGE, quote, [parse("4 nodes"), parse("40 nodes")], "prefill decode unit")
    assert both.changes == () and both.missing == ("40 nodes",)
    alone = check_page(PAGE, quote, [parse("40 nodes")], "prefill decode unit")
    assert alone.changes == (("40 nodes", "4 nodes"),)  # the quote's figure in its place
