"""`claims export` through the CLI: the gate, -o, --skip-unsafe, --draft, and the bundled data."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conftest import DATA_FILES
from tests.latex import (
    assert_contained,
    build,
    build_document,
    documented_snippet,
    needs_tex,
    render_pages,
)
from tests.pages import LLAMA3_FAILURES, LONGCAT_ENVIRONMENTS


def test_the_example_in_the_help_exports_the_bundled_data(claims, tmp_path, monkeypatch):
    """`claims export --help` shows a command that works on the bundled data as written (not a selection
    the gate blocks: "--subject OLMo" also matched OLMo 2's agent-reported claims)."""
    import shlex

    import typer.main

    from claimsdb.cli.app import app

    help_text = typer.main.get_command(app).get_command(None, "export").help
    example = shlex.split(help_text.split("Example: claims ", 1)[1].splitlines()[0])
    assert claims("import", *DATA_FILES).exit_code == 0
    monkeypatch.chdir(tmp_path)
    result = claims(*example)
    assert result.exit_code == 0, result.output


@pytest.mark.slow
@pytest.mark.usefixtures("loaded")
def test_blocked_export_writes_nothing_and_exits_1(claims, store, tmp_path):
    out = tmp_path / "table.tex"
    result = claims("export", "--format", "latex", "-o", out)
    assert result.exit_code == 1
    assert not out.exists() and result.stdout == ""
    assert (
        "gadget.fleet: 40–60K sandboxes (Gadget) tag agent-reported (unverified)" in result.stderr
    )
    assert (
        "to clear it, a person re-reads gadget.fleet in the page its figure comes from (it cites "
        "none yet: name the page you read) and records it with the page's own words, in the "
        f"browser's re-read queue (`claims serve --db {store}`, then /queue?key=gadget.fleet) or at a "
        f"terminal (`claims reread gadget.fleet --db {store}`, naming the page, the place and the "
        "quote)" in result.stderr
    )
    assert "--yes" not in result.stderr


@pytest.mark.usefixtures("loaded")
def test_skip_unsafe_writes_the_file_and_lists_what_it_left_out(claims, tmp_path):
    out = tmp_path / "table.md"
    result = claims("export", "--skip-unsafe", "-o", out)
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "Widget-7" in text and "Gadget" not in text
    assert "left out 1 claim(s)" in result.stderr and "gadget.fleet" in result.stderr


@pytest.mark.usefixtures("loaded")
def test_a_long_list_of_blocked_claims_is_cut_but_every_one_is_counted(claims, monkeypatch):
    # strict: widget.context (secondary), gadget.fleet (unverified), and widget.pretrain, whose re-read
    # its data file records: an attestation, which the strict policy does not count (issue 32)
    monkeypatch.setattr("claimsdb.paper_safe.LISTED_BLOCKED", 1)
    refused = claims("export", "--strict")
    assert refused.exit_code == 1 and "export blocked: 3 selected claim(s)" in refused.stderr
    keys = ("widget.pretrain", "widget.context", "gadget.fleet")
    assert sum(f"  {key}: " in refused.stderr for key in keys) == 1  # one listed
    assert refused.stderr.count("to clear it, a person re-reads") == 1
    assert "... and 2 more (the first 1 are listed)" in refused.stderr
    skipped = claims("export", "--strict", "--skip-unsafe", "--format", "csv")
    assert skipped.exit_code == 0 and "left out 3 claim(s)" in skipped.stderr
    manifest = json.loads(skipped.stderr.split("manifest: ", 1)[1].splitlines()[0])
    assert manifest["left_out_unsafe"] == 3 and manifest["rows"] == 0


@pytest.mark.usefixtures("loaded")
def test_draft_marks_each_unsafe_row_and_the_manifest_says_draft(claims):
    result = claims("export", "--draft", "--format", "csv")
    assert result.exit_code == 0
    assert result.stdout.startswith("key,subject,")  # plain CSV: no comment lines
    assert "gadget.fleet,Gadget" in result.stdout and ",false,not re-read" in result.stdout
    manifest = json.loads(result.stderr.split("manifest: ", 1)[1].splitlines()[0])
    assert (manifest["mode"], manifest["draft"]) == ("draft", True)


@pytest.mark.slow
@pytest.mark.usefixtures("loaded")
def test_flags_and_filters(claims):
    assert claims("export", "--draft", "--skip-unsafe").exit_code == 2
    strict = claims("export", "--subject", "widget", "--strict")
    assert strict.exit_code == 1 and "widget.context" in strict.stderr
    grid = claims("export", "--subject", "widget", "--grid", "--format", "json")
    assert [g["columns"] for g in json.loads(grid.stdout)["grids"]] == [["Pretrain", "Midtrain"]]
    bib = claims("export", "--subject", "widget", "--format", "bibtex")
    assert "@techreport{widget2026," in bib.stdout


def test_bundled_data_gate_reread_and_reimport(claims, page):
    assert claims("import", *DATA_FILES).exit_code == 0
    short = claims("export")  # the first ten, the count of the rest, and where to see them
    assert short.exit_code == 1
    assert short.stderr.count("    to clear it, ") == 10
    said = " ".join(short.stderr.split())
    assert "... and 86 more: --explain lists them with how to clear each; the re-read queue" in said
    blocked = claims("export", "--explain")
    assert blocked.exit_code == 1 and blocked.stderr.count("    to clear it, ") == 96
    assert "rl.fleet.kimi-k25-tasks: up to 100,000 tasks (Kimi K2.5)" in blocked.stderr
    assert "rl.fleet.longcat-environments: 32,000 environments (LongCat)" in blocked.stderr
    key = "pipelines.obs.llama3-failures"
    assert f"a person re-reads {key} in llama3-report <https://" in blocked.stderr
    assert claims("export", "--search", "466 interruptions").exit_code == 1

    reread = claims("reread", key, "--by", "Ada", *LLAMA3_FAILURES.flags(page), "--yes")
    assert reread.exit_code == 0, reread.output
    cleared = claims("export", "--search", "466 interruptions")
    assert cleared.exit_code == 0, cleared.output
    assert "466 interruptions" in cleared.stdout

    again = claims("import", *DATA_FILES)
    assert f"conflict {key}: kept tag 'spot-checked'" in again.stdout
    history = json.loads(claims("history", key, "--format", "json").stdout)
    assert [e["kind"] for e in history["events"]] == ["imported", "reread"] and history[
        "tag"
    ] == "spot-checked"


@pytest.mark.slow
@needs_tex
@pytest.mark.parametrize("layout", [[], ["--grid"]])
def test_the_bundled_data_compiles_as_latex_that_fits_the_page_with_its_bibliography(
    claims, tmp_path, layout
):
    assert claims("import", *DATA_FILES).exit_code == 0
    for fmt, name, flags in (("latex", "table.tex", layout), ("bibtex", "claims.bib", [])):
        result = claims("export", "--draft", "--format", fmt, *flags, "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
    table = (tmp_path / "table.tex").read_text(encoding="utf-8")
    assert (
        "\\begin{longtable}" in table and "\\toprule" in table and "\\begin{tabular}" not in table
    )
    built = build(tmp_path, "\\input{table.tex}\n\\nocite{*}", bibliography=True)
    assert_contained(built, {"table.tex", "claims.bib"})
    assert "undefined" not in (tmp_path / "paper.log").read_text(
        errors="replace"
    )  # every \cite has its entry
    # Nothing runs off the page (169 claims, 20 stages; the grid was 21 columns of 2.6 cm): at most a long
    # word pokes into the space between two columns, by less than a character.
    assert built.overfull(points=4) == []
    assert built.pages > 2  # the longtables break across pages
    assert (
        built.bitmap_fonts == 0
    )  # the draft's daggers too are the math symbol, drawn from a Type 1 font
    assert "LongCat" in built.flat and "Subject" in built.flat


@needs_tex
def test_the_documented_snippet_compiles_into_a_cited_paper_from_the_bundled_data(
    claims, tmp_path, page
):
    """The docs' preamble around the files the docs' commands export, as a new user runs them: every
    \\cite has its entry, BibTeX warns about nothing, titles keep their case, ~50B is about 50B."""
    doc, snippet = documented_snippet()
    files = {
        "stages.tex": ["--format", "latex", "--grid", "--skip-unsafe"],
        "table.tex": ["--format", "latex", "--skip-unsafe"],
        "claims.bib": ["--format", "bibtex"],
    }
    files["stages.tex"] += ["--caption", "Stages of each system", "--label", "tab:stages"]
    files["table.tex"] += ["--caption", "Figures and their sources", "--label", "tab:figures"]
    assert set(re.findall(r"\\input\{([^}]+)\}", snippet)) | {
        name + ".bib" for name in re.findall(r"\\bibliography\{([^}]+)\}", snippet)
    } == set(files), doc
    assert claims("import", *DATA_FILES).exit_code == 0
    assert (
        claims(
            "sources",
            "add",
            "longcat-report",
            "--url",
            "https://example.org/longcat",
            "--kind",
            "report",
            "--title",
            "LongCat technical report",
            "--cite-key",
            "longcat2026",
            "--year",
            "2026",
        ).exit_code
        == 0
    )
    assert (
        claims(
            "reread",
            "rl.fleet.longcat-environments",
            *LONGCAT_ENVIRONMENTS.flags(page),
            "--by",
            "Ada",
            "--yes",
        ).exit_code
        == 0
    )
    for name, flags in files.items():
        result = claims("export", *flags, "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
    assert "\\cite{longcat2026}" in (tmp_path / "stages.tex").read_text(encoding="utf-8")

    built = build_document(tmp_path, snippet, bibliography=True)
    assert_contained(built, set(files))
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "Undefined control sequence" not in built.log and not re.search(
        r"Citation .* undefined", log
    ), log[-2000:]
    assert "There were undefined references" not in log
    assert "Table 1: Stages of each system" in built.flat  # a caption and a label on each table
    assert "Table 2: Figures and their sources" in built.flat
    assert built.overfull(0) == []  # nothing wider than its box
    blg = (tmp_path / "paper.blg").read_text(errors="replace")
    assert "Warning--" not in blg and "need author or key" not in blg, blg
    bbl = (tmp_path / "paper.bbl").read_text(errors="replace")
    assert "LongCat technical report" in bbl and "LLM360 K2" in bbl  # not "Longcat", "Llm360"
    assert "Production LLM pipelines" not in bbl  # the note the data comes from is no reference
    assert "∼50B" in built.flat  # the tilde operator, not an accent over the 5
    assert built.bitmap_fonts == 0  # "§4.1" as $\\S$: a text § is a Type 3 font without cm-super
    assert not re.search(r"\.\s*;", built.flat)  # "...agent data; three GLM sub-stages"
    # Every page is drawn and holds ink (kept as PNGs with $CLAIMS_SCREENSHOTS for a person to look at).
    kept = os.environ.get("CLAIMS_SCREENSHOTS")
    inked = render_pages(tmp_path, Path(kept) if kept else None, prefix="paper")
    assert len(inked) == built.pages and all(share > 0.0005 for share in inked), (
        inked
    )  # a blank page: 0


@pytest.mark.slow
@needs_tex
def test_a_latex_table_has_its_caption_label_and_continued_heads(claims, tmp_path):
    """--caption and --label on the list and the grid: a paper's \\ref finds each table, the list's
    later pages head "(continued)", and nothing runs off the page."""
    assert claims("import", *DATA_FILES).exit_code == 0
    for name, flags in {
        "table.tex": ["--caption", "Figures & pages", "--label", "tab:figures"],
        "stages.tex": ["--grid", "--caption", "Stages, by system", "--label", "tab:stages"],
    }.items():
        result = claims(
            "export", "--format", "latex", "--skip-unsafe", *flags, "-o", tmp_path / name
        )
        assert result.exit_code == 0, result.output
    assert claims("export", "--format", "bibtex", "-o", tmp_path / "claims.bib").exit_code == 0
    body = (
        "See Tables~\\ref{tab:figures} and~\\ref{tab:stages}.\n"
        "\\input{stages.tex}\n\\input{table.tex}\n"
    )
    built = build(tmp_path, body, bibliography=True)  # pdflatex, bibtex, pdflatex twice
    assert built.ok, built.log[-2000:]
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "There were undefined references" not in log, log[-2000:]
    # the grid's later tables have no caption and take no number: the list is the second table
    assert "Table 1: Stages, by system" in built.flat and "Table 2: Figures & pages" in built.flat
    assert "Figures & pages (continued)" in built.flat  # the list runs over more than one page
    assert built.overfull(0) == []
    refused = claims("export", "--format", "latex", "--label", "x}\\input{/etc/passwd")
    assert refused.exit_code == 2 and "--label" in refused.stderr
    assert claims("export", "--format", "csv", "--caption", "X").exit_code == 2


# --- files a paper can use as they are --------------------------------------------------------------------


@pytest.mark.usefixtures("loaded")
def test_a_csv_export_is_plain_csv_with_its_manifest_beside_it(claims, tmp_path):
    import csv
    import io

    out = tmp_path / "claims.csv"
    result = claims("export", "--skip-unsafe", "--format", "csv", "-o", out)
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"), newline="")))
    assert rows[0][:2] == ["key", "subject"] and len({len(r) for r in rows}) == 1 and len(rows) == 3
    manifest = json.loads((tmp_path / "claims.csv.manifest.json").read_text(encoding="utf-8"))
    assert (manifest["mode"], manifest["rows"], manifest["left_out_unsafe"]) == (
        "skip-unsafe",
        2,
        1,
    )
    assert f"manifest in {tmp_path / 'claims.csv.manifest.json'}" in result.stderr
    to_stdout = claims("export", "--skip-unsafe", "--format", "csv", "-o", "-")
    assert to_stdout.stdout == out.read_text(encoding="utf-8") and not (tmp_path / "-").exists()
    assert (
        json.loads(to_stdout.stderr.split("manifest: ", 1)[1].splitlines()[0])["content_sha256"]
        == (manifest["content_sha256"])
    )


@pytest.mark.slow
@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_exported_files_get_the_users_usual_permissions(claims, tmp_path, umask, mode):
    import os
    import stat

    old = os.umask(umask)
    try:
        for fmt, target in (
            ("markdown", tmp_path / "t.md"),
            ("csv", tmp_path / "t.csv"),
            ("html", tmp_path / "site"),
        ):
            assert claims("export", "--skip-unsafe", "--format", fmt, "-o", target).exit_code == 0
    finally:
        os.umask(old)
    for path in (
        tmp_path / "t.md",
        tmp_path / "t.csv",
        tmp_path / "t.csv.manifest.json",
        tmp_path / "site" / "index.html",
    ):
        assert stat.S_IMODE(path.stat().st_mode) == mode, path


@pytest.mark.slow
@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("fmt", ["bibtex", "macros", "quarto", "prov", "html"])
def test_grid_is_refused_where_there_is_no_layout(claims, fmt):
    result = claims("export", "--format", fmt, "--grid", "--draft")
    assert result.exit_code == 2 and f"--format {fmt} has no layout" in result.stderr
    assert result.stdout == ""


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "flags, mode, draft, defined, says_draft",
    [
        ([], "guarded", False, {"widget.pretrain", "widget.context", "gadget.fleet"}, False),
        (["--draft"], "draft", True, {"widget.pretrain", "widget.context", "gadget.fleet"}, True),
        (["--skip-unsafe"], "skip-unsafe", False, {"widget.pretrain", "widget.context"}, False),
    ],
)
@pytest.mark.slow
def test_macros_honour_draft_and_skip_unsafe_and_the_manifest_says_which(
    claims, flags, mode, draft, defined, says_draft
):
    result = claims("export", "--format", "macros", *flags)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert (
        f"% claimsdb export: mode: {mode}" in text and f"% claimsdb export: draft: {draft}" in text
    )
    assert {
        key
        for key in ("widget.pretrain", "widget.context", "gadget.fleet")
        if f"claims@fig@{key}@" in text
    } == defined
    assert ("\n\\claimsdraft\n" in text) is says_draft


@needs_tex
@pytest.mark.usefixtures("loaded")
def test_macros_exported_as_a_draft_print_unsafe_figures_marked_without_claimsdraft_in_the_paper(
    claims, tmp_path
):
    (tmp_path / "claims.tex").write_text(
        claims("export", "--format", "macros", "--draft").stdout, encoding="utf-8"
    )
    built = build(
        tmp_path,
        "Gadget runs \\claim{gadget.fleet}.",
        preamble="\\documentclass{article}\n\\input{claims.tex}\n",
    )
    assert (
        built.ok
        and "40–60K sandboxes" in built.flat.replace("--", "–")
        and "unverified" in built.flat
    )


def test_bibtex_writes_the_sources_the_safe_claims_cite_and_is_not_blocked_by_the_others(
    claims, write_json, sample
):
    sample["sources"].append(
        {
            "key": "gadget-paper",
            "title": "Gadget at scale",
            "kind": "paper",
            "url": "https://example.org/gadget",
            "cite_key": "gadget2026",
        }
    )
    sample["claims"][2]["evidence"] = [
        {"source": "gadget-paper", "quote": "40–60K"}
    ]  # agent-reported
    sample["sources"][1].update(authors="Ada Lovelace and Grace Hopper", accessed="2026-11-30")
    assert claims("import", write_json(sample)).exit_code == 0
    result = claims("export", "--format", "bibtex")
    assert result.exit_code == 0, (
        result.output
    )  # the table's gate does not hold back its bibliography
    bib = result.stdout
    assert "@techreport{widget2026," in bib and "lab-notes" not in bib and "gadget2026" not in bib
    assert "% claimsdb export: mode: skip-unsafe" in bib and "left out 1 claim(s)" in result.stderr
    assert (
        "1 exported claim(s) cite only notes" in result.stderr and "widget.context" in result.stderr
    )
    entry = bib.split("@techreport{widget2026,", 1)[1].split("\n}", 1)[0]
    for field in (
        "author = {Ada Lovelace and Grace Hopper}",
        "title = {{Widget technical report}}",
        "year = 2026",
        "url = {https://example.org/widget}",
        "urldate = {2026-11-30}",
        "note = {\\url{https://example.org/widget}. Accessed 2026-11-30}",
    ):
        assert field in entry, entry
    assert "gadget2026" in claims("export", "--format", "bibtex", "--draft").stdout
    assert "@misc{lab-notes," in claims("export", "--format", "bibtex", "--cite-notes").stdout


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("fmt", ["latex", "bibtex", "biblatex"])
def test_cite_notes_makes_a_note_only_claim_cite_its_note(claims, fmt):
    plain = claims("export", "--format", fmt, "--skip-unsafe")
    asked = claims("export", "--format", fmt, "--skip-unsafe", "--cite-notes")
    assert plain.exit_code == asked.exit_code == 0, plain.output + asked.output
    assert "lab-notes" not in plain.stdout and "lab-notes" in asked.stdout
    assert "cite only notes" in plain.stderr and "cite only notes" not in asked.stderr


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("fmt", ["markdown", "csv", "json", "macros", "quarto", "html"])
def test_cite_notes_is_refused_by_the_formats_that_do_not_cite(claims, fmt, tmp_path):
    result = claims(
        "export", "--format", fmt, "--skip-unsafe", "--cite-notes", "-o", tmp_path / "out"
    )
    assert result.exit_code == 2 and "--cite-notes is for the formats that cite" in result.stderr
    assert not (tmp_path / "out").exists()


def test_quarto_variable_names_are_single_words(claims, write_json, sample):
    sample["claims"][0]["figures"] = [{"raw": "3,072 H100", "name": "GPU count"}, "21.5T tokens"]
    assert claims("import", write_json(sample)).exit_code == 0
    text = claims("export", "--format", "quarto").stdout
    assert '"GPU_count": "3,072 H100"' in text
    names = [
        line.strip().split(":")[0].strip('"')
        for line in text.splitlines()
        if not line.startswith("#")
    ]
    assert names and all(" " not in name for name in names)
