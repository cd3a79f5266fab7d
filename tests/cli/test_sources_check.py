"""What a bibliography entry lacks that a citation style needs: `claims export --format bibtex|biblatex`
warns per entry on standard error, `claims sources check` lists the same for every source (exit 1 when
any lacks something), and the bundled sources carry what their pages give."""

from __future__ import annotations

import json

import pytest

from claimsdb.exporters.bibtex import _biblatex_entry, _bibtex_entry, arxiv_id, lacks
from tests.conftest import DATA_FILES

GADGET = (
    "warning: bibliography entry gadget2026 (gadget-report, @misc) has no author or organisation, "
    "no year, no URL or identifier, no institution (publisher): plain and plainnat sort and label by "
    "author (or organisation) and year; a reader finds it by its URL or identifier; a report is a "
    "@techreport only with its institution and year"
)
TOOL = (
    "warning: bibliography entry tool-readme (tool-readme, @misc) has no year: plain and plainnat sort "
    "and label by year"
)


@pytest.fixture
def lacking(claims, write_json, sample):
    """SAMPLE (widget2026 is complete) with a report that has only a title and a README without a year."""
    sample["sources"] += [
        {
            "key": "gadget-report",
            "title": "Gadget report",
            "kind": "report",
            "cite_key": "gadget2026",
        },
        {
            "key": "tool-readme",
            "title": "Tool",
            "kind": "readme",
            "url": "https://example.org/tool",
            "publisher": "Tool Lab",
        },
    ]
    sample["claims"][2]["evidence"] = [{"source": "gadget-report", "quote": "40–60K"}]
    sample["claims"][0]["evidence"].append({"source": "tool-readme", "quote": "3,072 H100 GPUs"})
    assert claims("import", write_json(sample)).exit_code == 0
    return sample


@pytest.mark.usefixtures("lacking")
def test_bibtex_export_warns_for_each_entry_naming_it_and_what_it_lacks(claims):
    result = claims("export", "--format", "bibtex", "--draft")
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "bibliography entry" in line]
    assert warned == [GADGET, TOOL]  # in entry order; widget2026 lacks nothing
    assert "@misc{gadget2026," in result.stdout and "warning" not in result.stdout
    safe = claims("export", "--format", "bibtex")  # gadget.fleet is not paper-safe: no gadget entry
    assert TOOL in safe.stderr.splitlines() and "gadget2026" not in safe.stderr


@pytest.mark.usefixtures("lacking")
def test_biblatex_export_warns_with_its_own_entry_types_and_styles(claims):
    result = claims("export", "--format", "biblatex", "--draft")
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "bibliography entry" in line]
    assert warned == [
        GADGET.replace("plain and plainnat sort", "biblatex's standard styles sort").replace(
            "a @techreport only", "a @report only"
        ),
        "warning: bibliography entry tool-readme (tool-readme, @online) has no year: biblatex's "
        "standard styles sort and label by year",
    ]


@pytest.mark.usefixtures("loaded")
def test_other_formats_and_complete_entries_have_no_bibliography_warning(claims):
    for fmt in ("bibtex", "biblatex", "markdown"):
        result = claims("export", "--format", fmt, "--skip-unsafe")
        assert result.exit_code == 0 and "bibliography entry" not in result.stderr, result.output


@pytest.mark.usefixtures("lacking")
def test_sources_check_lists_the_lacks_and_exits_1(claims):
    table = claims("sources", "check")
    assert table.exit_code == 1, table.output
    assert table.stdout.splitlines() == [
        GADGET,
        TOOL,
        "2 of 3 source(s) lack what a citation style needs",
    ]  # lab-notes is a note: not a reference
    found = json.loads(claims("sources", "check", "--format", "json").stdout)
    assert found["checked"] == 3
    assert [(f["key"], f["cite_key"], f["entry"], f["lacks"]) for f in found["lacking"]] == [
        ("gadget-report", "gadget2026", "misc", ["author", "year", "url", "institution"]),
        ("tool-readme", "tool-readme", "misc", ["year"]),
    ]
    csv = claims("sources", "check", "--format", "csv")
    assert csv.exit_code == 1 and csv.stdout.splitlines()[:2] == [
        "key,cite_key,entry,lacks,message",
        f'gadget-report,gadget2026,misc,author year url institution,"{GADGET}"',
    ]


def test_sources_check_exits_0_once_every_source_has_what_styles_need(claims, write_json, lacking):
    gadget, tool = lacking["sources"][2:]
    gadget.update(publisher="Gadget Lab", date="2026", url="https://example.org/gadget")
    tool["date"] = "2025"
    again = claims("import", write_json(lacking, "again.json"))
    assert again.exit_code == 0, again.output
    result = claims("sources", "check")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "all 3 source(s) have an author or organisation, a year and a URL"
    ]
    assert json.loads(claims("sources", "check", "--format", "json").stdout)["lacking"] == []
    assert "bibliography entry" not in claims("export", "--format", "bibtex", "--draft").stderr


@pytest.mark.parametrize(
    "source, missing",
    [
        ({"kind": "report", "title": "R"}, ("author", "year", "url", "institution")),
        ({"kind": "report", "title": "R", "publisher": "Lab", "date": "2025"}, ("url",)),
        (
            {"kind": "blog", "title": "B", "url": "https://example.org/b", "authors": "A. B"},
            ("year",),
        ),
        (
            {"kind": "paper", "title": "P", "url": "ftp://example.org/p", "date": "2024-07"},
            ("author", "url"),
        ),
        (
            {
                "kind": "readme",
                "title": "R",
                "url": "https://x.org",
                "publisher": "L",
                "date": "2025",
            },
            (),
        ),
    ],
)
def test_lacks_names_what_each_source_misses(source, missing):
    assert lacks(source) == missing


def test_an_arxiv_address_gives_its_identifier_in_both_dialects():
    assert arxiv_id("https://arxiv.org/abs/2412.19437") == "2412.19437"
    assert arxiv_id("https://arxiv.org/pdf/2407.21783v2") == "2407.21783"
    assert arxiv_id("https://example.org/abs/2412.19437") is None
    source = {"kind": "report", "title": "T", "url": "https://arxiv.org/abs/2412.19437"}
    assert _bibtex_entry(source)[1]["eprint"] == "{2412.19437}"
    assert _bibtex_entry(source)[1]["archivePrefix"] == "{arXiv}"
    assert _biblatex_entry(source)[1]["eprinttype"] == "{arxiv}"
    assert "eprint" not in _bibtex_entry({**source, "url": "https://example.org/t"})[1]


# The bundled sources that still lack a field, and what: data/SOURCES.md says why (no public record of
# the Open Athena launch note or of the "Terminal-Bench 4" task packages; one record cannot carry the
# year and address of two reports). Every other source has an author or organisation, a year and a URL,
# each from the public record data/SOURCES.md names.
LACKING = {
    "kimi-k2-k3-report": ["year", "url"],
    "llm360-k2-release": ["url"],
    "open-athena-535b-launch": ["author", "year", "url"],
    "terminal-bench-task-packages": ["author", "year", "url"],
}


def test_the_bundled_sources_carry_what_their_pages_give(claims):
    assert claims("import", *DATA_FILES).exit_code == 0
    result = claims("sources", "check", "--format", "json")
    assert result.exit_code == 1  # four sources still lack fields
    found = {f["key"]: f["lacks"] for f in json.loads(result.stdout)["lacking"]}
    assert found == LACKING
    sources = {s["key"]: s for f in DATA_FILES for s in json.loads(f.read_text())["sources"]}
    for key in set(sources) - set(LACKING):
        s = sources[key]
        if s["kind"] != "note":
            assert (s.get("authors") or s["publisher"]) and s["date"][:4].isdigit() and s["url"], s
    noted = (DATA_FILES[0].parent / "SOURCES.md").read_text()
    cited = {s for s in sources if sources[s]["kind"] != "note"}
    # each source's row says where its fields came from
    assert {s for s in cited if f"`{s}`" not in noted} == set()
    assert sources["deepseek-v3-report"]["title"] == "DeepSeek-V3 Technical Report"
    assert sources["llama3-report"]["title"] == "The Llama 3 Herd of Models"
    assert sources["llama3-report"]["date"] == "2024-07"
    assert sources["qwen3-report"]["title"] == "Qwen3 Technical Report"
    bib = claims("export", "--format", "bibtex", "--draft").stdout
    for arxiv in ("2412.19437", "2407.21783", "2505.09388", "2602.15763", "2605.26494"):
        assert f"eprint = {{{arxiv}}}" in bib


def test_a_long_list_of_lacking_entries_stays_on_screen(claims, write_json, sample):
    """Twelve entries that lack everything: ten warnings, then how many more and where to see every
    one (`claims sources check`, which lists them all)."""
    for n in range(12):
        sample["sources"].append({"key": f"bare-{n:02}", "title": f"Bare page {n}", "kind": "blog"})
        sample["claims"][0]["evidence"].append({"source": f"bare-{n:02}"})
    assert claims("import", write_json(sample)).exit_code == 0
    exported = claims("export", "--format", "bibtex")
    assert exported.exit_code == 0, exported.output
    warned = exported.stderr.count("warning: bibliography entry ")
    more = int(exported.stderr.split("... and ", 1)[1].split(" more entries lack", 1)[0])
    assert (warned, more) == (10, 2)
    assert "`claims sources check` lists every one" in exported.stderr
    checked = claims("sources", "check")
    assert checked.exit_code == 1
    assert checked.stdout.count(" has no ") + checked.stderr.count(" has no ") == 12
