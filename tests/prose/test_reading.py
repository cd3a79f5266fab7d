"""What the prose readers keep of a manuscript's notation: inline math around a figure, siunitx,
settings in code. (What they skip is tested with lint, in tests/test_lint.py.)"""

from __future__ import annotations

import pytest

from claimsdb.prose.markup import markdown
from claimsdb.prose.tex import code_text, math_text, tex

DOC = "\\begin{document}\n%s\n\\end{document}\n"


@pytest.mark.parametrize(
    "formula, text",
    [
        ("\\times", "×"),
        ("\\sim", "~"),
        ("\\approx", "≈"),
        (">", ">"),
        ("\\le", "≤"),
        ("\\geq", "≥"),
        ("\\eta = 4", "η = 4"),
        ("S=3", "S=3"),
        ("x = 2048", "x = 2048"),
        ("10^{25}", "10^25"),
        ("2^8", "2^8"),
        ("\\mathrm{MFU} = 21\\%", "MFU = 21%"),
        ("\\eta", "η"),
    ],
)
def test_inline_math_that_is_notation_reads_as_text(formula, text):
    assert math_text(formula) == text


@pytest.mark.parametrize(
    "formula",
    [
        "16 \\cdot 2048 = 32768",
        "a + b = 4",
        "x_1 = 3",
        "xy = 3",
        "\\frac{1}{2}",
        "x = y",
        "\\sum_i x_i",
        "(a)",
    ],
)
def test_an_equation_stays_math(formula):
    assert math_text(formula) is None


def test_latex_reads_notation_siunitx_and_settings_in_code():
    src = DOC % (
        "Its budget is $\\sim$18T and 2--4$\\times$ speedups; \\(\\eta = 4\\); \\num{16384} GPUs, "
        "\\qty{20}{\\second}, \\SI{2.4}{\\giga\\hertz}, \\num{2048} A100, \\numrange{2}{4}, \\num{1.5e3}, "
        "\\qtyrange{21}{24}{\\percent}; \\texttt{max\\_off\\_policy\\_steps = 8}, \\texttt{posttrain.html}, "
        "\\texttt{--seed 7777}, \\verb|k = 3|; $$y = 5$$ and $16 \\cdot 2048$."
    )
    prose = tex(src).text
    for kept in (
        "~18T",
        "2–4× speedups",
        "η = 4",
        "16,384 GPUs",
        "20 s",
        "2.4 GHz",
        "2,048 A100",
        "2–4,",
        "1.5e3",
        "21–24%",
        "max_off_policy_steps = 8",
        "posttrain.html",
        "k = 3",
    ):
        assert kept in prose, kept
    for gone in ("7777", "y = 5", "cdot", "\\num", "texttt"):
        assert gone not in prose, gone


def test_a_siunitx_unit_it_does_not_know_keeps_the_command_for_the_figure_grammar():
    prose = tex(DOC % "We measured \\qty{3}{\\furlong} twice.").text
    assert "\\qty{3}{\\furlong}" in prose


def test_markdown_reads_notation_and_settings_in_code_spans():
    prose = markdown(
        "Use `max_off_policy_steps = 8` and `--max-seqs 7777` on `agentic.html`; $\\eta = 4$ "
        "and 2–4$\\times$ but not $16 \\cdot 2048$; $5.6M stays money.\n"
    ).text
    for kept in ("max_off_policy_steps = 8", "agentic.html", "η = 4", "2–4×", "$5.6M"):
        assert kept in prose, kept
    assert "7777" not in prose and "2048" not in prose


@pytest.mark.parametrize(
    "code, text",
    [
        ("max_off_policy_steps = 8", "max_off_policy_steps = 8"),
        (" eta := 0.5 ", "eta := 0.5"),
        ("posttrain.html", "posttrain.html"),
        ("verl", "verl"),
        ("--max-seqs 7777", None),
        ("x = f(2)", None),
        ("a\nb", None),
        ("", None),
    ],
)
def test_code_is_kept_only_as_a_setting_or_a_name(code, text):
    assert code_text(code) == text


def test_positions_inside_rewritten_notation_point_at_its_start():
    src = DOC % "Runs with $\\eta = 4$ here."
    prose = tex(src)
    at = prose.text.index("η = 4")
    assert src[prose.orig(at) :].startswith("$\\eta = 4$")


@pytest.mark.parametrize(
    "body",
    [
        "keeps 100\u200b000 tasks",  # a zero-width space
        "keeps 100\u2060000 tasks",  # a word joiner
        "keeps 100\u00ad000 tasks",  # a soft hyphen
        "keeps 1\ufeff00000 tasks",  # a byte order mark
        "keeps 1\\relax 00000 tasks",  # TeX skips the spaces after a command's name
        "keeps 1\\relax\n  00000 tasks",  # and one line end with the next line's indent
        "keeps 1%\n   00000 tasks",  # a comment, its line end and the next line's indent
    ],
)
def test_what_prints_as_nothing_joins_the_digits_around_it_in_latex(body):
    assert "keeps 100000 tasks" in tex(DOC % body).text


@pytest.mark.parametrize(
    "body",
    [
        "keeps 100\u200b000 tasks",
        "keeps 1<!-- a note -->00000 tasks",  # a comment prints nothing
    ],
)
def test_what_prints_as_nothing_joins_the_digits_around_it_in_markdown(body):
    assert "keeps 100000 tasks" in markdown(body + "\n").text


def test_a_blank_line_after_a_command_or_a_comment_still_ends_the_paragraph():
    for body in ("One.\\relax\n\nTwo.", "One.%\n\nTwo.", "One.\\relax \n  \nTwo."):
        assert "\n\n" in tex(DOC % body).text, body
    assert "\n\n" in markdown("One.<!-- a\n-->\n\nTwo.\n").text
