"""The page as locate reads it: its normalised text maps back to the page's characters (the shared
MappedText), through collapsed spaces, dropped characters, multi-character case folds and non-ASCII."""

from __future__ import annotations

import pytest

from claimsdb.figures.mapped_text import MappedText
from claimsdb.locating.page import normalize, normalized


@pytest.mark.parametrize(
    "text, written",
    [
        ("  The\u00a0RUN\u2009used\u202f2,048\n\tGPUs ", "RUN\u2009used\u202f2,048"),
        ("Die STRASSE und die Straße", "und die Straße"),
        ("pre\u00adtrain\u200bing on 14.8T tokens", "pre\u00adtrain\u200bing on"),
        ("32\u201333T \u2014 a\u2011b", "32\u201333T \u2014 a"),
        ("the \ufb01nal 2,048   H800 GPUs", "\ufb01nal 2,048   H800"),
        ("Größe ÉTÉ 16K", "ÉTÉ 16K"),
    ],
)
def test_a_span_of_the_normalised_text_maps_back_to_the_page(text, written):
    """The page's words found in its normalised text (as locate finds a quote) map back to them."""
    m = normalized(text)
    assert isinstance(m, MappedText) and m.text == normalize(text)
    phrase = normalize(written)
    a = m.text.index(phrase)
    assert text[slice(*m.span(a, a + len(phrase)))] == written


def test_each_character_maps_to_the_one_it_came_from():
    text = "  Straße\u00ad  ÆON\u200b  "
    m = normalized(text)
    assert m.text == "strasse æon"
    assert [text[m.start(i)] for i in range(len(m.text))] == list("Straßße ÆON")
    assert normalized("", track=True).text == "" and normalized(" \u00ad ").text == ""
