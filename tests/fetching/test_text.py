"""Tests for claimsdb.fetching.text: the visible text of HTML, Markdown, plain text and PDF pages."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter

from claimsdb.fetching.text import UnsupportedContent, extract_text
from tests.fetching.pdfgen import make_pdf

PAGE = b"""<!DOCTYPE html>
<html><head>
<title>Heron-3 &amp; friends</title>
<meta charset="utf-8">
<style>body { color: #123456 }</style>
<script>var secret = "9,999 hidden GPUs";</script>
</head>
<body>
<noscript>Please enable 4,444 scripts</noscript>
<template><p>7,777 template rows</p></template>
<svg width="10"><text>5,555 svg labels</text></svg>
<h1>Training</h1><p>Heron-3 used <b>3,328</b>&nbsp;H200 GPUs&nbsp;&#8211; for 41&#x202F;days.<br>Next line</p>
<ul><li>first item</li><li>second item</li></ul>
<table><tr><td>GPUs</td><td>3,328</td></tr></table>
<img src="chart.png" alt="1,111 alt text">
</body></html>"""


def lines(text):
    return [line for line in text.split("\n") if line]


# --- HTML -----------------------------------------------------------------------------------------


def test_html_keeps_visible_text_and_title_only():
    text = extract_text(PAGE, "text/html; charset=utf-8")
    for hidden in ("9,999", "4,444", "7,777", "5,555", "1,111", "color", "secret"):
        assert hidden not in text
    assert "Heron-3 & friends" in text  # the title, entity decoded


def test_html_inline_markup_joins_and_entities_decode():
    text = extract_text(PAGE, "text/html")
    assert "Heron-3 used 3,328 H200 GPUs – for 41 days." in lines(
        text
    )  # special spaces collapse to one space


def test_html_blocks_and_br_become_lines():
    text = extract_text(PAGE, "text/html")
    assert "Training" in lines(text)
    assert "Next line" in lines(text)
    assert "first item" in lines(text) and "second item" in lines(text)
    assert "GPUs\t3,328" in lines(
        text
    )  # a row is a line; its cells are separated by a tab, not glued


def test_html_without_closing_head_keeps_the_body():
    page = b"<html><head><title>T</title><p>Body text with 12 nodes</p></html>"
    assert "Body text with 12 nodes" in extract_text(page, "text/html")


# --- kinds -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "name"),
    [
        ("text/html", ""),
        ("TEXT/HTML; charset=UTF-8", ""),
        (None, "page.htm"),
        (None, "https://a.example/x/page.html?q=1"),
        ("application/octet-stream", ""),
        (None, ""),
    ],
)
def test_html_is_recognised_by_type_name_or_sniffing(content_type, name):
    assert "9,999" not in extract_text(PAGE, content_type, name)
    assert "3,328" in extract_text(PAGE, content_type, name)


def test_markdown_served_as_text_plain_is_read_as_markdown_by_its_name():
    md = b"Heron-3 used **3,328** GPUs."
    by_name = extract_text(md, "text/plain; charset=utf-8", "https://a.example/raw/README.md")
    assert by_name == "Heron-3 used 3,328 GPUs."
    assert extract_text(md, "text/plain", "notes.txt") == "Heron-3 used **3,328** GPUs."


@pytest.mark.parametrize(
    ("content", "content_type", "name"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png", ""),
        (b"PK\x03\x04\x14\x00\x00\x00", "application/zip", "archive.zip"),
        (b"\x00\x01\x02\x03binary\xff\xfe", "application/octet-stream", "blob"),
        (b"\x00\x01\x02\x03binary\xff\xfe", None, ""),
        (b"GIF89a", "image/gif", "page.html"),
    ],
)
def test_unsupported_content_raises_with_a_reason(content, content_type, name):
    with pytest.raises(UnsupportedContent) as info:
        extract_text(content, content_type, name)
    assert info.value.reason and str(info.value) == info.value.reason


def test_octet_stream_that_is_utf8_text_is_read_as_text():
    assert (
        extract_text("Plain 5 GPUs – fine".encode(), "application/octet-stream", "")
        == "Plain 5 GPUs – fine"
    )


def test_plain_text_is_kept_as_is_apart_from_line_ends():
    raw = b"Line one with **stars** and <b>tags</b>\r\nLine two"
    assert extract_text(raw, "text/plain") == "Line one with **stars** and <b>tags</b>\nLine two"


# --- charsets --------------------------------------------------------------------------------------


def test_charset_from_the_content_type():
    body = "Café 2,048 GPUs – naïve".encode("cp1252")
    assert extract_text(body, "text/plain; charset=windows-1252") == "Café 2,048 GPUs – naïve"


def test_charset_from_an_html_meta_tag():
    page = (
        '<html><head><meta charset="windows-1252"></head><body><p>Déjà 20 s – ok</p></body></html>'
    )
    body = page.encode("cp1252")
    assert extract_text(body, "text/html") == "Déjà 20 s – ok"
    old_style = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head>'
        "<body>Señor 8 nodes</body></html>"
    ).encode("latin-1")
    assert extract_text(old_style, "text/html") == "Señor 8 nodes"


def test_latin1_bytes_without_a_charset_do_not_crash_and_keep_figures():
    body = "Résumé: 16,000 GPUs for 54 days – “quoted”".encode("cp1252")
    assert extract_text(body, "text/plain") == "Résumé: 16,000 GPUs for 54 days – “quoted”"
    assert extract_text(body, "text/html") == "Résumé: 16,000 GPUs for 54 days – “quoted”"


def test_mislabelled_or_unknown_charset_falls_back():
    body = "Zoë ran 12 jobs".encode("cp1252")
    assert extract_text(body, "text/plain; charset=utf-8") == "Zoë ran 12 jobs"
    assert (
        extract_text("Zoë ran 12 jobs".encode(), "text/plain; charset=x-no-such-charset")
        == "Zoë ran 12 jobs"
    )
    assert extract_text(b"abc 12", "text/plain; charset=base64") == "abc 12"


def test_bom_decides_the_encoding():
    assert extract_text("Ångström 3 runs".encode("utf-16"), "text/plain") == "Ångström 3 runs"
    assert extract_text(b"\xef\xbb\xbfplain 3 runs", "text/plain") == "plain 3 runs"


# --- Markdown --------------------------------------------------------------------------------------

MARKDOWN = """---
title: Kestrel notes
---
import Chart from './Chart'

# Kestrel **training**

Kestrel used *2,048* H800 GPUs for __14.8T__ tokens, see [the report](https://a.example/report-link "Report").
![a chart](chart.png) More in [the appendix][app] and <https://a.example/raw>.
<Callout type="note">Context grew 4K → 128K.</Callout>
<!-- a hidden 9,999 comment -->

| Stage | Tokens |
|-------|-------:|
| Pre   | 14.8T  |

> Quoted 20 s per step.

1. first step
- second ~~old~~ step with `max_off_policy_steps = 8` and snake_case_name

```python
gpus = 2_048  # kept: code is text
```

[app]: https://a.example/appendix
"""


def test_markdown_markup_is_stripped_for_matching():
    text = extract_text(MARKDOWN.encode(), "text/markdown; charset=utf-8")
    ls = lines(text)
    assert "Kestrel training" in ls
    assert "Kestrel used 2,048 H800 GPUs for 14.8T tokens, see the report." in ls
    assert "More in the appendix and https://a.example/raw." in ls
    assert "Context grew 4K → 128K." in ls
    assert "Stage\tTokens" in ls and "Pre\t14.8T" in ls  # a table keeps its columns, tab-separated
    assert "Quoted 20 s per step." in ls
    assert "first step" in ls
    assert "second old step with max_off_policy_steps = 8 and snake_case_name" in ls
    assert "gpus = 2_048 # kept: code is text" in ls
    for gone in (
        "import Chart",
        "9,999",
        "chart.png",
        "a chart",
        "report-link",
        "Report",
        "https://a.example/appendix",
        "Callout",
        "|",
        "**",
        "```",
    ):
        assert gone not in text


@pytest.mark.parametrize("name", ["notes.md", "notes.markdown", "page.mdx"])
def test_markdown_by_extension(name):
    assert extract_text(b"## Title with **bold**", None, name) == "Title with bold"


# --- PDF ---------------------------------------------------------------------------------------------

PDF_LINES = [
    "Osprey-2 was trained on 4,096 H200 GPUs (41 days).",
    "It saw 9.5T tokens; MFU rose 21% -> 24%.",
]


def test_pdfgen_writes_a_valid_pdf_that_pypdf_reads_strictly():
    pdf = make_pdf(PDF_LINES)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    xref = int(pdf.rsplit(b"startxref", 1)[1].split()[0])
    assert pdf[xref:].startswith(b"xref")
    for n, entry in enumerate(
        pdf[xref:].split(b"\n")[3:8], start=1
    ):  # each offset points at its object
        assert pdf[int(entry[:10]) :].startswith(b"%d 0 obj" % n)
    page = PdfReader(io.BytesIO(pdf), strict=True).pages[0]
    assert page.extract_text().split("\n") == PDF_LINES


@pytest.mark.parametrize(
    ("content_type", "name"),
    [("application/pdf", ""), (None, "paper.pdf"), ("application/octet-stream", ""), (None, "")],
)
def test_pdf_text_layer_is_extracted(content_type, name):
    text = extract_text(make_pdf(PDF_LINES), content_type, name)
    assert lines(text) == PDF_LINES


def test_pdf_line_end_hyphen_is_joined():
    assert (
        extract_text(make_pdf(["Large-scale pre-", "training ran well."]), "application/pdf")
        == "Large-scale pre-training ran well."
    )


def _encrypted(user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(PDF_LINES))))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_encrypted_pdf_needing_a_password_is_unsupported():
    with pytest.raises(UnsupportedContent, match="encrypted"):
        extract_text(_encrypted("reader-secret"), "application/pdf")


def test_encrypted_pdf_with_an_empty_user_password_is_read_like_a_viewer_would():
    assert "4,096 H200" in extract_text(_encrypted(""), "application/pdf")


def test_pdf_without_a_text_layer_is_unsupported():
    with pytest.raises(UnsupportedContent, match="no text layer"):
        extract_text(make_pdf([]), "application/pdf")


@pytest.mark.parametrize(
    "content", [b"%PDF-1.4\nthis is not a pdf at all", b"%PDF-", make_pdf(PDF_LINES)[:300]]
)
def test_damaged_pdf_is_unsupported_not_a_crash(content):
    with pytest.raises(UnsupportedContent):
        extract_text(content, "application/pdf")
