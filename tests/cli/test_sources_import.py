"""`claims sources import`: a paper's bibliography registered as sources, cited by the exports under the
paper's own keys, imported again with its edits, never silently over a source registered by hand."""

from __future__ import annotations

import json

import pytest

from tests.conftest import store_digest
from tests.latex import assert_contained, build, needs_tex
from tests.pages import GADGET_FLEET, LLAMA3_FAILURES

# The paper's references.bib: braces, accents, a DOI for a page, a page in howpublished, an entry with no page.
REFS = r"""@article{Dubey2024:Llama,
  title = {The {Llama} 3 Herd of Models},
  author = {Dubey, Abhimanyu and M{\"u}ller, J{\'e}r{\^o}me},
  journal = {arXiv preprint}, year = {2024}, month = jul,
  doi = {10.48550/arXiv.2407.21783},
}
@misc{gadget2026,
  title = {{Gadget}: sandboxes at scale},
  author = {{Gadget Team}},
  howpublished = {\url{https://example.org/gadget}},
  year = {2026},
}
@book{knuth1984,
  title = {The \TeX book}, author = {Knuth, Donald E.}, publisher = {Addison-Wesley}, year = {1984},
}
"""
# A Zotero CSL-JSON export whose title holds what LaTeX and BibTeX must print as text.
HOSTILE_TITLE = "Use {braces}, \\input{/etc/passwd} and 100% here"
ZOTERO = [
    {
        "id": "sandbox-notes",
        "type": "post-weblog",
        "title": HOSTILE_TITLE,
        "author": [{"literal": "Sandbox Lab"}],
        "URL": "https://blog.example.org/sandboxes",
        "issued": {"date-parts": [[2026, 3]]},
    }
]


@pytest.fixture
def refs(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(REFS, encoding="utf-8")
    return path


def shown_source(claims, key: str) -> dict:
    result = claims("sources", "show", key, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_import_registers_each_entry_under_its_cite_key(claims, refs):
    result = claims("sources", "import", refs)
    assert result.exit_code == 0, result.output
    assert "added 3, updated 0, unchanged 0, conflicts 0" in result.stdout
    assert "no URL or DOI (cited, but verify has no page to fetch): knuth1984" in result.stdout
    llama = shown_source(claims, "dubey2024-llama")
    assert {
        k: llama[k]
        for k in ("cite_key", "title", "authors", "date", "url", "kind", "publisher", "origin")
    } == {
        "cite_key": "Dubey2024:Llama",
        "title": "The Llama 3 Herd of Models",
        "authors": "Dubey, Abhimanyu and Müller, Jérôme",
        "date": "2024-07",
        "url": "https://doi.org/10.48550/arXiv.2407.21783",
        "kind": "paper",
        "publisher": "arXiv preprint",
        "origin": "bibliography",
    }
    gadget = shown_source(claims, "gadget2026")
    assert (gadget["url"], gadget["title"], gadget["authors"]) == (
        "https://example.org/gadget",
        "Gadget: sandboxes at scale",
        "Gadget Team",
    )


@pytest.mark.usefixtures("loaded")
def test_the_exports_cite_the_imported_keys(claims, refs, page):
    assert claims("sources", "import", refs).exit_code == 0
    added = claims(
        *("add", "--subject", "Llama 3", "--key", "llama3.failures", "--source", "dubey2024-llama"),
        *("--statement", "Llama 3 saw 466 job interruptions in 54 days of pre-training."),
        *("--figure", "466 interruptions", "--figure", "54 days"),
    )
    assert added.exit_code == 0, added.output
    page_of_the_paper = LLAMA3_FAILURES.flags(page, "dubey2024-llama")
    result = claims("reread", "llama3.failures", *page_of_the_paper, "--by", "Ada", "--yes")
    assert result.exit_code == 0, result.output
    latex = claims("export", "--subject", "Llama 3", "--format", "latex")
    assert latex.exit_code == 0 and "\\cite{Dubey2024:Llama}" in latex.stdout, latex.output
    bib = claims("export", "--subject", "Llama 3", "--format", "bibtex").stdout
    assert (
        "@misc{Dubey2024:Llama," in bib and "M\u00fcller" in bib
    )  # a paper with no journal field: @misc


@needs_tex
@pytest.mark.usefixtures("loaded")
def test_an_imported_title_with_braces_backslash_and_percent_compiles_as_text(
    claims, tmp_path, page
):
    zotero = tmp_path / "library.json"
    zotero.write_text(json.dumps(ZOTERO), encoding="utf-8")
    assert claims("sources", "import", zotero).exit_code == 0
    assert shown_source(claims, "sandbox-notes")["title"] == HOSTILE_TITLE
    assert (
        claims(
            "reread",
            "gadget.fleet",
            *GADGET_FLEET.flags(page, "sandbox-notes"),
            "--by",
            "Ada",
            "--yes",
        ).exit_code
        == 0
    )
    for fmt, name in (("latex", "table.tex"), ("bibtex", "claims.bib")):
        result = claims("export", "--subject", "Gadget", "--format", fmt, "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
    assert "\\cite{sandbox-notes}" in (tmp_path / "table.tex").read_text(encoding="utf-8")
    built = build(tmp_path, "\\input{table.tex}", bibliography=True)
    assert_contained(built, {"table.tex", "claims.bib"})  # \input{/etc/passwd} printed, never read
    assert "Warning--I didn't find a database entry" not in built.log
    assert "Use {braces}, \\input{/etc/passwd} and 100% here" in built.flat, built.flat


@pytest.mark.usefixtures("loaded")
def test_a_second_import_updates_what_changed(claims, refs):
    assert claims("sources", "import", refs).exit_code == 0
    refs.write_text(
        REFS.replace("month = jul", "month = aug").replace("Herd of Models", "Herd of models"),
        encoding="utf-8",
    )
    result = claims("sources", "import", refs)
    assert result.exit_code == 0, result.output
    assert "added 0, updated 1, unchanged 2, conflicts 0" in result.stdout
    assert "update    dubey2024-llama: title, date" in result.stdout
    assert shown_source(claims, "dubey2024-llama")["date"] == "2024-08"
    again = json.loads(claims("sources", "import", refs, "--format", "json").stdout)
    assert again["counts"] == {
        "added": 0,
        "updated": 0,
        "unchanged": 3,
        "conflicts": 0,
        "without_url": 1,
    }


@pytest.mark.usefixtures("loaded")
def test_a_conflict_with_a_hand_added_source_is_listed_and_kept(claims, refs, store):
    assert (
        claims(
            "sources",
            "add",
            "gadget-page",
            "--url",
            "https://example.org/gadget",
            "--kind",
            "blog",
            "--title",
            "Gadget (my copy)",
            "--accessed",
            "2026-11-01",
        ).exit_code
        == 0
    )
    result = claims("sources", "import", refs)
    assert result.exit_code == 1, result.output
    assert "added 2, updated 0, unchanged 0, conflicts 1" in result.stdout
    assert (
        "conflict  gadget-page: registered by hand (claims sources add); the bibliography's entry 'gadget2026' "
        "(line 7) says title: 'Gadget (my copy)' -> 'Gadget: sandboxes at scale'"
    ) in result.stdout
    assert f"claims sources import {refs} --update-manual" in result.stdout
    assert shown_source(claims, "gadget-page")["title"] == "Gadget (my copy)"
    before = store_digest(store)
    assert (
        claims("sources", "import", refs).exit_code == 1 and store_digest(store) == before
    )  # reported again, not applied
    taken = claims("sources", "import", refs, "--update-manual")
    assert (
        taken.exit_code == 0
        and "update    gadget-page: title, date, cite_key, authors" in taken.stdout
    )
    page = shown_source(claims, "gadget-page")
    assert (page["title"], page["cite_key"], page["kind"], page["accessed"]) == (
        "Gadget: sandboxes at scale",
        "gadget2026",
        "blog",
        "2026-11-01",
    )


@pytest.mark.parametrize("make_db", [False, True])
def test_a_broken_entry_exits_2_and_writes_nothing(claims, refs, store, db_path, make_db):
    if make_db:
        assert claims("sources", "add", "x", "--url", "https://example.org/x").exit_code == 0
    before = store_digest(store)
    refs.write_text(REFS.replace("sandboxes at scale},", "sandboxes at scale,"), encoding="utf-8")
    result = claims("sources", "import", refs)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {refs}, entry @misc{{gadget2026}} (line 7), field 'title': cannot be read as "
        "BibTeX: Unexpected block start: `@book`. Was still looking for field-value closing `,` "
        "or `}` (an unclosed brace or quote?)\n"
    )
    assert result.stdout == "" and store_digest(store) == before
    assert make_db or not list(
        db_path.parent.glob("*.db*")
    )  # no store is left behind by a failed first command


def test_csl_json_is_read_by_extension_or_by_from(claims, tmp_path):
    (tmp_path / "library.txt").write_text(json.dumps(ZOTERO), encoding="utf-8")
    forced = claims("sources", "import", tmp_path / "library.txt", "--from", "bibtex")
    assert (
        forced.exit_code == 2 and "library.txt: holds no entries (is it BibTeX?)" in forced.stderr
    )
    result = claims("sources", "import", tmp_path / "library.txt", "--from", "csl-json")
    assert result.exit_code == 0 and "added 1" in result.stdout, result.output


@pytest.mark.usefixtures("loaded")
def test_dry_run_writes_nothing(claims, refs, store):
    before = store_digest(store)
    result = claims("sources", "import", refs, "--dry-run")
    assert result.exit_code == 0 and "would import" in result.stdout and "added 3" in result.stdout
    assert store_digest(store) == before


def test_a_broken_file_says_one_line_in_a_real_process(tmp_path):
    """bibtexparser logs what it cannot read; as a real command (not under pytest's log capture) the user
    sees only the one-line error, no log record and no traceback."""
    import subprocess
    import sys

    broken = tmp_path / "refs.bib"
    broken.write_text(
        "@misc{a,\n  title = {no end,\n  year = 2020\n}\n@misc{b, title = {B}}\n", encoding="utf-8"
    )
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "claimsdb.cli",
            "sources",
            "import",
            str(broken),
            "--db",
            str(tmp_path / "claims.db"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr == (
        f"error: {broken}, entry @misc{{a}} (line 1), field 'title': cannot be read as BibTeX: "
        "Unexpected block start: `@misc`. Was still looking for field-value closing `,` or `}` "
        "(an unclosed brace or quote?)\n"
    )
    assert not (tmp_path / "claims.db").exists()
