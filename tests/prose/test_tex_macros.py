"""A LaTeX document's own macros without parameters print their bodies where they are used: the prose
reads "\\gpus{} GPUs" as "2,048 GPUs" (claimsdb.prose.tex_macros)."""

from __future__ import annotations

from claimsdb.prose.tex import tex
from claimsdb.prose.tex_macros import MAX_DEPTH, MAX_EXPANDED


def prose(preamble: str, body: str) -> str:
    src = (
        f"\\documentclass{{article}}\n{preamble}\n\\begin{{document}}\n{body}\n\\end{{document}}\n"
    )
    return " ".join(tex(src).text.split())


def test_a_macro_of_the_preamble_prints_its_body_where_it_is_used():
    assert prose("\\newcommand{\\gpus}{2,048}", "We used \\gpus{} GPUs.") == "We used 2,048 GPUs."
    assert prose("\\newcommand\\gpus{2,048}", "We used \\gpus\\ GPUs.") == "We used 2,048 GPUs."
    assert prose("\\def\\gpus{2,048}", "We used \\gpus{} GPUs.") == "We used 2,048 GPUs."
    assert prose("\\renewcommand*{\\gpus}[0]{2,048}", "\\gpus{} GPUs.") == "2,048 GPUs."


def test_a_document_that_redefines_a_command_prints_its_own_body():
    """ "\\cite" is skipped as a citation, unless the document makes it print a figure."""
    assert prose("\\renewcommand{\\cite}{2,048}", "We used \\cite{} GPUs.") == "We used 2,048 GPUs."
    assert prose("", "We used 2,048 GPUs \\cite{smith}.") == "We used 2,048 GPUs ."


def test_a_body_is_read_as_prose_with_the_macros_in_it():
    preamble = "\\newcommand{\\n}{\\textbf{2,048}}\\newcommand{\\fleet}{\\n{} H800 GPUs}"
    assert prose(preamble, "DeepSeek-V3 ran on \\fleet.") == "DeepSeek-V3 ran on 2,048 H800 GPUs."


def test_a_use_reads_the_definition_in_force_where_it_stands():
    body = "First \\n{} runs. \\renewcommand{\\n}{8} Then \\n{} runs."
    assert prose("\\newcommand{\\n}{4}", body) == "First 4 runs. Then 8 runs."


def test_a_macro_with_parameters_is_not_expanded_and_a_definition_prints_nothing():
    preamble = "\\newcommand{\\gpus}[1]{#1 GPUs}"
    assert prose(preamble, "We used \\gpus{16}.") == "We used 16."
    assert (
        prose("", "A \\def\\n{2,048}definition, then \\n{} GPUs.")
        == "A definition, then 2,048 GPUs."
    )


def test_macros_defined_by_each_other_expand_within_bounds():
    """A macro that uses itself stops MAX_DEPTH deep; one that doubles at each level reads whole while it
    is at most MAX_DEPTH deep, and no document expands to more than MAX_EXPANDED characters."""
    assert prose("\\newcommand{\\x}{a \\x}", "Start \\x{} end.").split().count("a") == MAX_DEPTH
    doubling = "\\def\\a{9 }" + "".join(
        f"\\def\\{c}{{\\{p}\\{p}}}" for p, c in zip("abcdefghi", "bcdefghij")
    )
    assert prose(doubling, "\\g \\g \\g").split() == ["9"] * 3 * 2**6  # \\g is 7 deep
    assert prose(doubling, "\\j") == ""  # 10 deep
    wide = "\\newcommand{\\w}{" + "word " * 390 + "}"
    assert len(prose(wide, "\\w " * 1000)) <= MAX_EXPANDED
