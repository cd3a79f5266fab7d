"""Prose maps back to the manuscript through the shared MappedText: a span found in the prose text maps
to the manuscript's characters, across dropped markup, replaced commands and non-ASCII text."""

from __future__ import annotations

import pytest

from claimsdb.figures.mapped_text import MappedText
from claimsdb.prose.mapped import Prose, plain
from claimsdb.prose.markup import markdown
from claimsdb.prose.tex import tex


def _back(prose: Prose, phrase: str) -> str:
    a = prose.text.index(phrase)
    return prose.src[slice(*prose.mapped.span(a, a + len(phrase)))]


@pytest.mark.parametrize(
    "src, phrase, written",
    [
        ("# Größe\n\nWe used **2,048** GPUs — naïvely.\n", "GPUs — naïvely", "GPUs — naïvely"),
        (
            "Déjà [the run](https://example.org) used 2,048 GPUs.\n",
            "used 2,048 GPUs",
            "used 2,048 GPUs",
        ),
        ("Ärger <!-- hidden note --> and 16K H100.\n", "16K H100", "16K H100"),
    ],
)
def test_markdown_spans_map_back_to_the_source(src, phrase, written):
    prose = markdown(src)
    assert isinstance(prose.mapped, MappedText) and prose.mapped.text == prose.text
    assert _back(prose, phrase) == written
    assert prose.orig(prose.text.index(phrase)) == src.index(written)


def test_tex_spans_map_back_across_dropped_commands_and_comments():
    src = (
        "\\begin{document}\nDie Größe % a comment\n"
        "\\textbf{naïve} run used \\num{2048} GPUs over 41~days.\n\\end{document}\n"
    )
    prose = tex(src)
    assert _back(prose, "GPUs over 41") == "GPUs over 41"
    # "\\textbf{" and "}" are dropped: a span across the drop holds it; one that ends at a drop holds
    # it too (the end maps past what was deleted there), one that starts at a drop does not
    assert _back(prose, "naïve run") == "naïve} run"
    assert _back(prose, "naïve") == "naïve}"
    assert prose.orig(prose.text.index("naïve")) == src.index("naïve")
    assert "comment" not in prose.text


def test_a_replaced_span_maps_to_the_whole_span_it_replaced():
    prose = Prose("ab<x>cd")
    prose.replace(2, 5, "\n")
    prose.finish()
    assert prose.text == "ab\ncd"
    assert prose.mapped.span(2, 3) == (2, 5)
    assert prose.orig(3) == 5 and prose.orig(2) == 2
    assert plain("é x").mapped.span(0, 3) == (0, 3)


def test_without_tracking_the_text_is_the_same():
    src = "# Größe\n\nWe used **2,048** GPUs.\n"
    assert markdown(src, visible=True).text.split() == markdown(src).text.split()


def test_the_end_of_the_prose_maps_from_its_last_character():
    """After a trailing drop, the end maps to just after the last kept character; after a trailing
    replacement, to the start of what it replaced; an empty prose to 0."""
    dropped = Prose("ab*")
    dropped.replace(2, 3, "")
    dropped.finish()
    assert dropped.text == "ab" and dropped.orig(2) == 2
    replaced = Prose("ab<x>")
    replaced.replace(2, 5, "\n")
    replaced.finish()
    assert replaced.text == "ab\n" and replaced.orig(3) == 2
    assert plain("").orig(0) == 0 and plain("é").orig(1) == 1
