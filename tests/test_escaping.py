"""One escaping function per output language: each special character, and properties over any text."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimsdb import escaping
from claimsdb.errors import InvalidRecord, UnsafeIdentifier
from claimsdb.records import validation as record_validation
from claimsdb.web import drawing

HOSTILE = [
    "\\input{/etc/passwd}",
    "x}\\def\\claims@unsafe#1#2{#2}\\@namedef{y",
    "Data & Models",
    "AT&T Labs",
    "100% of _all_ $5 #1 ^^5c ~x~",
    "a\\{b}",
    "[opt] first",
    "line one\n\nline two\r\nthree",
    "\x1b[2J\x07bell\x00nul\x7fdel\x85nel",
    "\u202egnp.exe\u202c",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "![x](http://tracker.example/p.gif)",
    '=HYPERLINK("http://evil","x")',
    "@SUM(A1)",
    "\ud800 lone surrogate",
    "|pipe| `code` *em* **b**",
]

# --- LaTeX ------------------------------------------------------------------------------------------------

LATEX_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[{}&%$#_])")


def assert_inert_latex(out: str) -> None:
    """No character TeX treats as syntax is left bare: every backslash starts a known escape, braces balance,
    no comment, parameter, math shift (except the fixed $\\symbol$ forms), subscript, active tilde or line break."""
    bare = LATEX_COMMAND.sub(
        "",
        out.replace("$\\rightarrow$", "")
        .replace("$\\leftarrow$", "")
        .replace("$\\times$", "")
        .replace("$\\approx$", "")
        .replace("$\\leq$", "")
        .replace("$\\geq$", "")
        .replace("$\\pm$", "")
        .replace("$\\eta$", "")
        .replace("$\\mu$", "")
        .replace("$-$", "")
        .replace("$\\sim$", "")
        .replace("$\\S$", "")
        .replace("$\\dagger$", "")
        .replace("$\\cdot$", "")
        .replace("$^{\\circ}$", ""),
    )
    assert not re.search(r"[\\%#$_^~&\n\r]", bare), out
    depth = 0
    for ch in LATEX_COMMAND.sub("", out):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, out
    assert depth == 0, out
    commands = {m.group() for m in re.finditer(r"\\[A-Za-z]+", out)}
    assert commands <= {
        "\\textbackslash",
        "\\textasciitilde",
        "\\textasciicircum",
        "\\textless",
        "\\textgreater",
        "\\textbar",
        "\\cdot",
        "\\circ",
        "\\rightarrow",
        "\\leftarrow",
        "\\times",
        "\\approx",
        "\\leq",
        "\\geq",
        "\\pm",
        "\\eta",
        "\\mu",
        "\\sim",
        "\\S",
        "\\dagger",
        "\\dots",
        "\\textbraceleft",
        "\\textbraceright",
    }, out


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a\\b", "a\\textbackslash{}b"),  # the braces of \textbackslash{} are not escaped again
        ("\\{x\\}", "\\textbackslash{}\\{x\\textbackslash{}\\}"),
        ("Data & Models", "Data \\& Models"),
        ("50% #1 $5 a_b", "50\\% \\#1 \\$5 a\\_b"),
        ("~x^2", "\\textasciitilde{}x\\textasciicircum{}2"),
        ("[opt] a|b <c>", "{[}opt{]} a\\textbar{}b \\textless{}c\\textgreater{}"),
        ("4K → 128K, 2–4×", "4K $\\rightarrow$ 128K, 2--4$\\times$"),
        ("one\n\ntwo", "one  two"),
        ("\x1b[31mred\x07\u202e", "{[}31mred"),
        # A tilde before a number means "about": the tilde operator, not an accent over the number.
        ("100B, ~50B", "100B, $\\sim$50B"),
        ("~ 2x", "$\\sim$ 2x"),
        ("~$5M", "$\\sim$\\$5M"),
        ("x~y ~/a ~", "x\\textasciitilde{}y \\textasciitilde{}/a \\textasciitilde{}"),
    ],
)
def test_latex_text_escapes_each_special_character(text, expected):
    assert escaping.latex_text(text) == expected
    assert escaping.bibtex_field(text) == expected.replace("\\{", "\\textbraceleft{}").replace(
        "\\}", "\\textbraceright{}"
    )


@given(st.text(alphabet="~ 0123456789x$.", max_size=12))
def test_tildes_and_numbers_in_any_arrangement_are_inert(text):
    assert_inert_latex(escaping.latex_text(text))
    assert_inert_latex(escaping.bibtex_field(text))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("long-context and agent data.", "long-context and agent data"),
        ("data. ", "data"),
        ("and so on...", "and so on..."),
        ("Wait…", "Wait…"),
        ("3,072 H100", "3,072 H100"),
        ("", ""),
    ],
)
def test_a_clause_has_no_final_full_stop_to_stand_before_a_semicolon(text, expected):
    assert escaping.clause(text) == expected


@given(st.text())
def test_latex_text_of_any_text_is_inert(text):
    assert_inert_latex(escaping.latex_text(text))


@given(st.text())
def test_bibtex_field_of_any_text_is_inert_and_brace_balanced_for_bibtex(text):
    out = escaping.bibtex_field(text)
    assert_inert_latex(out)
    assert "\\{" not in out and "\\}" not in out  # BibTeX counts escaped braces too
    assert out.count("{") == out.count("}")


@pytest.mark.parametrize(
    "name", ["widget.pretrain", "K3 context length", "LC-phase context length", "a_b", ""]
)
def test_latex_name_passes_inert_names(name):
    assert escaping.latex_name(name, "name") == name


@pytest.mark.parametrize(
    "name", ["x}\\def\\claims@unsafe#1#2{#2}", "a@b", "a{b", "%", "a\nb", "é", 5]
)
def test_latex_name_refuses_anything_else(name):
    with pytest.raises(UnsafeIdentifier, match="cannot be written into LaTeX"):
        escaping.latex_name(name, "the figure name")


@pytest.mark.parametrize("key", ["widget2026", "doi:10.1000/xyz", "smith+jones_2024.v2", "a-b"])
def test_bibtex_key_passes_safe_keys(key):
    assert escaping.bibtex_key(key, "key") == key


@pytest.mark.parametrize(
    "key", ["a,b", "a}\\input{/etc/passwd}", "x\n  title = {evil}", "a b", "", "_x", "a%b", "#1"]
)
def test_bibtex_key_refuses_what_would_change_the_entry_or_the_cite(key):
    with pytest.raises(UnsafeIdentifier):
        escaping.bibtex_key(key, "the citation key")


def test_bibtex_comment_cannot_start_an_entry():
    assert "@" not in escaping.bibtex_comment(
        "filters: {'search': '@misc{evil, title={x}}'}\n@preamble"
    )


# --- URLs -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address, expected",
    [
        ("https://example.org/a?b=1&c=2#sec", "https://example.org/a?b=1&c=2#sec"),
        ('https://example.org/x"<>{}|\\^`', "https://example.org/x%22%3C%3E%7B%7D%7C%5C%5E%60"),
        ("https://example.org/é", "https://example.org/%C3%A9"),
        ("http://example.org/%20done", "http://example.org/%20done"),
        ("javascript:alert(1)", None),
        ("data:text/html,<script>", None),
        ("ftp://x/y", None),
        ("/etc/passwd", None),
        ("https://", None),
        (None, None),
    ],
)
def test_url_keeps_http_only_and_percent_encodes_what_a_url_cannot_hold(address, expected):
    assert escaping.url(address) == expected


# The one answer to "is this an http(s) URL?": records, sources, the exporters, the web pages and the
# fetcher all ask escaping.http_url (or its reasons, http_url_problem).
TRICKY_URLS = [
    ("https://example.org/a", "https://example.org/a"),
    ("HTTP://Example.org", "HTTP://Example.org"),  # a scheme is case-insensitive (RFC 3986)
    (
        "  https://example.org/a \n",
        "https://example.org/a",
    ),  # the spaces around it are not part of it
    ("https://例え.jp/パス", "https://例え.jp/パス"),
    ("https://example.org/a b", None),
    ("https://exa mple.org", None),
    ("https://example.org/\nx", None),
    ("ht\ttp://example.org", None),  # urlsplit and browsers drop the tab: it would read as http
    ("https://\u202eexample.org", None),
    ("https://example.org/\x00", None),
    ("javascript:alert(1)", None),
    ("JavaScript:alert(1)", None),
    ("data:text/html,x", None),
    ("ftp://example.org/x", None),
    ("//evil.example/x", None),
    ("/etc/passwd", None),
    ("example.org", None),
    ("https://", None),
    ("http:///path", None),
    ("http:/example.org", None),
    ("http://:80/", None),
    ("http://user@/x", None),
    ("https://[::1/", None),
    ("", None),
    (None, None),
]


@pytest.mark.parametrize("address, expected", TRICKY_URLS)
def test_http_url_takes_only_an_absolute_http_url_with_a_host(address, expected):
    assert escaping.http_url(address) == expected
    if address is not None:
        assert (escaping.http_url_problem(address) is None) == (expected is not None)


@pytest.mark.parametrize("address, expected", [(a, e) for a, e in TRICKY_URLS if a])
def test_a_source_url_the_records_keep_is_one_the_exporters_and_pages_link(address, expected):
    try:
        kept = record_validation.source_record(
            {"key": "s", "title": "S", "kind": "paper", "url": address}, file="f"
        ).url
    except InvalidRecord as error:
        assert expected is None and "field 'url'" in str(error)
    else:
        assert kept == expected
    assert (escaping.url(address) is None) == (expected is None)
    assert drawing.environment().filters["http_url"](address) == expected


@pytest.mark.parametrize(
    "address, problem",
    [
        ("not a url", "not an absolute URL: 'not a url'"),
        ("file:///etc/hostname", "unsupported scheme 'file'"),
        ("http:///no-host", "URL has no host: 'http:///no-host'"),
        (
            "https://a.org/x y",
            "URL holds a space, control or format character: 'https://a.org/x y'",
        ),
        ("https://[::1/", "not a valid URL: 'https://[::1/'"),
    ],
)
def test_http_url_problem_says_why_in_one_line(address, problem):
    assert escaping.http_url_problem(address) == problem


# --- CSV --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cell",
    [
        '=HYPERLINK("http://evil","click")',
        "+SUM(A1:A9)",
        "-2+3+cmd|' /C calc'!A0",
        "@SUM(A1)",
        "\t=1+1",
        "\r=1+1",
        " =1+1",
        "\n=1",
    ],
)
def test_csv_cells_that_would_be_formulas_start_with_a_quote(cell):
    out = escaping.csv_cell(cell)
    assert out == "'" + cell
    buf = io.StringIO()
    csv.writer(buf).writerow([out])
    assert next(csv.reader(io.StringIO(buf.getvalue()))) == [out]


@pytest.mark.parametrize("cell", ["2,048 H800", "Widget-7", "a = b", "x-1", "", None, 5])
def test_other_csv_cells_are_unchanged(cell):
    assert escaping.csv_cell(cell) == ("" if cell is None else str(cell))


# --- Markdown and HTML ------------------------------------------------------------------------------------


@given(st.text())
def test_markdown_text_of_any_text_has_no_html_no_link_and_no_line_break(text):
    out = escaping.markdown_text(text)
    assert "<" not in out and ">" not in out and "\n" not in out and "\r" not in out
    bare = re.sub(r"\\.", "", re.sub(r"&(amp|lt|gt);", "", out))
    assert not re.search(r"[\[\]`*_|$~^&\\]", bare), out


def test_markdown_links_go_to_http_only():
    assert escaping.markdown_url("javascript:alert(1)") is None
    assert (
        escaping.markdown_url("https://example.org/Foo_(bar)")
        == "https://example.org/Foo_\\(bar\\)"
    )


# --- YAML and comments ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE + ["\u2028line\u2029sep\ufeff", "plain"])
def test_yaml_string_is_one_quoted_line_without_raw_control_characters(text):
    out = escaping.yaml_string(text)
    assert out.startswith('"') and out.endswith('"') and "\n" not in out
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]", out)
    assert json.loads(out) == escaping.FORBIDDEN_CHARS.sub("", text).replace("\n", " ").replace(
        "\r", " "
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_a_comment_stays_on_its_line(text):
    out = escaping.comment(text)
    assert "\n" not in out and "\r" not in out and not escaping.FORBIDDEN_CHARS.search(out)
