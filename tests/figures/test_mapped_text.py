"""The offset-mapped text shared by the parser, prose and locate: a span found in the rewritten text maps
back to the original's characters, through multi-character replacements, deletions and non-ASCII text."""

from __future__ import annotations

import pytest

from claimsdb.figures.canonical import _canonical
from claimsdb.figures.mapped_text import MappedText, Rewriter
from claimsdb.figures.scanner import scan


def test_an_untouched_text_maps_every_offset_to_itself():
    m = Rewriter("naïve 2,048 GPUs").finish()
    assert m.text == "naïve 2,048 GPUs" and not m.rewritten
    assert [m.start(p) for p in range(len(m.text) + 1)] == list(range(len(m.text) + 1))
    assert m.span(6, 11) == (6, 11)
    assert MappedText("abc").span(1, 2) == (1, 2)


def test_a_longer_replacement_maps_as_a_whole_and_what_follows_shifts():
    src = "x 3.8 × 10^25 FLOPs here"
    b = Rewriter(src)
    b.replace(2, 13, "3.8e25")
    m = b.finish()
    assert m.text == "x 3.8e25 FLOPs here"
    a = m.text.index("3.8e25 FLOPs")
    start, end = m.span(a, a + len("3.8e25 FLOPs"))
    assert src[start:end] == "3.8 × 10^25 FLOPs"
    assert m.replaced(2) and m.replaced(7) and not m.replaced(8) and not m.replaced(0)
    inner = m.text.index("e25")  # a span inside the piece maps to the whole piece
    assert m.span(inner, inner + 3) == (2, 13)
    h = m.text.index("here")
    assert src[slice(*m.span(h, h + 4))] == "here"


def test_a_deletion_is_inside_a_span_across_it_or_ending_at_it_never_one_starting_at_it():
    src = "**39.3**M tokens"
    b = Rewriter(src)
    b.replace(0, 2, "")
    b.replace(6, 8, "")
    m = b.finish()
    assert m.text == "39.3M tokens"
    assert src[slice(*m.span(0, 4))] == "39.3**"  # an end at a deletion maps past it
    assert src[slice(*m.span(0, 5))] == "39.3**M"
    t = m.text.index("tokens")
    assert src[slice(*m.span(t, t + 6))] == "tokens"


def test_a_shorter_multi_character_replacement_and_a_case_fold_on_non_ascii_text():
    src = "Größe: ½ Straße ﬁne"
    b = Rewriter(src)
    b.fold(0, "größe")  # character for character
    b.replace(7, 8, "0.5")  # one character becomes three
    b.replace(13, 14, "ss")  # "ß" -> "ss"
    b.replace(16, 17, "fi")  # the ligature
    m = b.finish()
    assert m.text == "größe: 0.5 Strasse fine"
    assert src[slice(*m.span(0, 5))] == "Größe"
    assert src[slice(*m.span(7, 10))] == "½"
    s = m.text.index("Strasse")
    assert src[slice(*m.span(s, s + len("Strasse")))] == "Straße"
    assert src[slice(*m.span(s + 4, s + 5))] == "ß"  # half of a replacement: the whole character
    f = m.text.index("fine")
    assert src[slice(*m.span(f, f + 4))] == "ﬁne"


def test_without_tracking_only_the_text_is_built():
    b = Rewriter("a  b", track=False)
    b.replace(1, 3, " ")
    m = b.finish()
    assert m.text == "a b" and not m.rewritten


@pytest.mark.parametrize(
    "text, figure",
    [
        ("It took 3.8 × 10^25 FLOPs in all.", "3.8 × 10^25 FLOPs"),
        ("We used 1\u2009355\u2009921 GPU hours.", "1\u2009355\u2009921 GPU hours"),
        ("Über **39.3**M tokens", "39.3**M tokens"),  # the leading deletion is left out
        ("a hundred and two GPUs — déjà vu", "a hundred and two GPUs"),
        ("Trained on 1½ épochs then 10 000 GPUs.", "10 000 GPUs"),
    ],
)
def test_the_parser_maps_a_figure_in_canonical_spelling_back_to_the_text_as_written(text, figure):
    canonical, mapped = _canonical(text)
    assert mapped is not None and mapped.text == canonical != text
    assert figure in [f.raw for f in scan(text)]
    f = next(f for f in scan(text) if f.raw == figure)
    assert text[f.start : f.end] == figure
