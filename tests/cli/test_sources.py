"""`claims sources` list/add/show, and a re-read whose page becomes evidence everywhere evidence is read."""

from __future__ import annotations

import json

import pytest

from tests.conftest import show_json, store_digest
from tests.httpserver import LocalHTTPServer
from tests.pages import GADGET_FLEET


@pytest.mark.usefixtures("loaded")
def test_sources_add_then_show_and_list(claims):
    result = claims(
        "sources",
        "add",
        "gadget-paper",
        "--url",
        "https://example.org/gadget",
        "--kind",
        "paper",
        "--title",
        "Gadget: sandboxes at scale",
        "--cite-key",
        "gadget2026",
        "--authors",
        "A. Author",
        "--year",
        "2026",
        "--accessed",
        "2026-11-30",
    )
    assert result.exit_code == 0, result.output
    assert "registered source gadget-paper" in result.stdout
    info = json.loads(claims("sources", "show", "gadget-paper", "--format", "json").stdout)
    assert {k: info[k] for k in ("url", "kind", "cite_key", "authors", "date", "accessed")} == {
        "url": "https://example.org/gadget",
        "kind": "paper",
        "cite_key": "gadget2026",
        "authors": "A. Author",
        "date": "2026",
        "accessed": "2026-11-30",
    }
    assert info["claims"] == []
    listed = claims("sources", "--format", "csv").stdout
    assert listed == claims("sources", "list", "--format", "csv").stdout
    assert "gadget-paper,paper,Gadget: sandboxes at scale" in listed


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["widget-report", "--url", "https://example.org/other"],
            "a source with key 'widget-report' exists",
        ),
        (
            ["again", "--url", "https://example.org/widget/"],
            "is registered already, as 'widget-report'",
        ),
        (["bad key", "--url", "https://example.org/x"], "is not a key"),
        (["x", "--url", "ftp://example.org/x"], "is not an http(s) URL"),
        (["x", "--url", "https://example.org/x", "--kind", "tweet"], "is not one of"),
        (["x", "--url", "https://example.org/x", "--year", "26"], "is not a date"),
        (["x", "--path", "/no/such/file.pdf"], "error: --path /no/such/file.pdf: no such file"),
        (["x"], "give --url or --path"),
    ],
)
@pytest.mark.slow
def test_sources_add_refuses_bad_input_and_changes_nothing(claims, store, args, message):
    before = store_digest(store)
    result = claims("sources", "add", *args)
    assert result.exit_code == 2 and message in result.output, result.output
    assert store_digest(store) == before


@pytest.mark.usefixtures("loaded")
def test_a_local_copy_is_registered_with_its_absolute_path(claims, tmp_path, monkeypatch):
    page = tmp_path / "copies" / "gadget.html"
    page.parent.mkdir()
    page.write_text("<p>Gadget runs 40–60K sandboxes.</p>", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert (
        claims(
            "sources", "add", "gadget-copy", "--path", "copies/gadget.html", "--kind", "blog"
        ).exit_code
        == 0
    )
    assert json.loads(claims("sources", "show", "gadget-copy", "--format", "json").stdout)[
        "path"
    ] == str(page)


@pytest.mark.usefixtures("loaded")
def test_the_workflow_sources_add_reread_export_cites_the_page(claims, page):
    # gadget.fleet cites only a note: the gate blocks it, and a re-read in the note is refused
    assert claims("export", "--subject", "Gadget").exit_code == 1
    in_the_note = claims("reread", "gadget.fleet", *GADGET_FLEET.flags(page, "lab-notes"), "--yes")
    assert in_the_note.exit_code == 2 and "'lab-notes' is a note, not a primary page" in (
        in_the_note.stderr
    )
    assert (
        claims(
            "sources",
            "add",
            "gadget-paper",
            "--url",
            "https://example.org/gadget",
            "--kind",
            "paper",
            "--title",
            "Gadget paper",
            "--cite-key",
            "gadget2026",
        ).exit_code
        == 0
    )
    result = claims("reread", "gadget.fleet", *GADGET_FLEET.flags(page), "--by", "Ada", "--yes")
    assert result.exit_code == 0, result.output
    assert "gadget-paper is now evidence of gadget.fleet" in result.stdout
    view = show_json(claims, "gadget.fleet")
    assert view["tag"] == "spot-checked"
    assert view["tag_reason"].startswith("re-read by Ada on ")
    assert [(s["key"], s["locator"], s["quote"]) for s in view["sources"]][-1] == (
        "gadget-paper",
        "§4.2",
        "between 40K and 60K sandboxes",
    )
    counts = {
        s["key"]: s["claims"] for s in json.loads(claims("sources", "--format", "json").stdout)
    }
    assert counts["gadget-paper"] == 1
    latex = claims("export", "--subject", "Gadget", "--format", "latex")
    assert latex.exit_code == 0 and "\\cite{gadget2026}" in latex.stdout
    bib = claims("export", "--subject", "Gadget", "--format", "bibtex").stdout
    assert (
        "@misc{gadget2026," in bib
    )  # a paper without a journal: a @misc, which plain requires nothing of
    table = claims("show", "gadget.fleet").stdout
    assert "why: re-read by Ada" in table and "linked by the re-read of Ada" in table


@pytest.mark.usefixtures("loaded")
def test_reread_with_a_new_url_registers_it_and_verify_then_checks_that_page(
    claims, tmp_path, monkeypatch
):
    monkeypatch.setenv("CLAIMS_VERIFY_ALLOW_LOCAL", "1")  # the test server is on 127.0.0.1
    with LocalHTTPServer() as server:
        url = server.add(
            "/gadget.html",
            "<html><body><h2>Intro</h2><p>Gadget runs 40–60K sandboxes at once.</p>"
            "</body></html>".encode(),
        )
        skipped = json.loads(
            claims(
                "verify", "gadget.fleet", "--format", "json", "--sources-dir", tmp_path / "s"
            ).stdout
        )
        assert skipped["results"] == [] and skipped["skipped"][0]["claim"] == "gadget.fleet"
        # fetched now (the environment allows the test server's address), the heading as the locator
        where = ("--locator", "Intro", "--quote", "Gadget runs 40–60K sandboxes at once.")
        result = claims("reread", "gadget.fleet", "--source", url, *where, "--by", "Ada", "--yes")
        assert result.exit_code == 0, result.output
        key = "127-0-0-1-gadget"
        assert f"registered {key} as a new source" in result.stderr
        assert json.loads(claims("sources", "show", key, "--format", "json").stdout)["url"] == url
        again = claims(
            *("reread", "gadget.fleet", "--source", url, *where),
            *("--by", "Bo", "--yes", "--format", "json"),
        )
        assert json.loads(again.stdout)["source"] == key  # the same URL is the same source
        checked = claims(
            "verify", "gadget.fleet", "--format", "json", "--sources-dir", tmp_path / "s"
        )
        report = json.loads(checked.stdout)
        assert [(r["claim"], r["source"]) for r in report["results"]] == [("gadget.fleet", key)]
        assert report["results"][0]["outcome"] == "confirmed"
