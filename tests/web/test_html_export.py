"""`claims export --format html -o DIR`: one self-contained page, behind the same gate as every export.

That no unsafe figure or statement is drawn unmarked, for any claims, mode, layout and policy, is part
of the property test of every format (tests/test_export.py).
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from claimsdb.errors import InvalidField
from claimsdb.exporters.html import page_path
from tests.web.conftest import XSS
from tests.web.markup import by_key, parse


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_the_gate_writes_nothing(web_db, tmp_path):
    out = tmp_path / "site"
    result = run("export", "--format", "html", "-o", out, "--db", web_db)
    assert result.exit_code == 1 and "export blocked" in result.stderr
    assert not out.exists()


def test_skip_unsafe_writes_only_paper_safe_claims(web_db, tmp_path):
    out = tmp_path / "site"
    result = run("export", "--format", "html", "-o", out, "--skip-unsafe", "--db", web_db)
    assert result.exit_code == 0, result.output
    html = (out / "index.html").read_text(encoding="utf-8")
    assert set(by_key(html)) == {
        "widget.pretrain",
        "widget.serve",
        "widget.context",
        "gadget.pretrain-days-note",
    }
    assert by_key(html)["widget.serve"][0].marks == ("stale",)
    assert "40–60K" not in html and "2,048 H800" not in html and "DRAFT" not in html
    assert not [c for chips in by_key(html).values() for c in chips if "unsafe" in c.classes]


def test_a_draft_marks_every_unsafe_figure_and_fetches_nothing(web_db, tmp_path):
    out = tmp_path / "site"
    assert run("export", "--format", "html", "-o", out, "--draft", "--db", web_db).exit_code == 0
    html = (out / "index.html").read_text(encoding="utf-8")
    chips = by_key(html)
    for key in ("gadget.fleet", "gadget.pretrain", "gadget.serve", "evil.gpus"):
        assert chips[key] and all(
            "unsafe" in c.classes and "unverified" in c.marks for c in chips[key]
        ), key
    assert all(
        "unsafe" not in c.classes for c in chips["widget.pretrain"] + chips["widget.context"]
    )
    assert "DRAFT" in html
    # each figure links to its source; a claim citing only a note links to its row in the list
    assert chips["widget.pretrain"][0].href.endswith("/widget.html")
    assert chips["gadget.serve"][0].href == "#claim-gadget.serve"
    tree = parse(html)
    assert (
        not tree.find_all("script")
        and not tree.find_all("link")
        and not re.search(r"@import|url\(", html)
    )
    assert not [
        n for n in tree.walk() if "src" in n.attrs or any(a.startswith("on") for a in n.attrs)
    ]
    assert "default-src 'none'" in tree.find_all("meta")[1].attrs["content"]
    assert XSS not in html and "&lt;script&gt;" in html
    footer = tree.find_all("footer", "manifest")[0].text()
    assert "content_sha256" in footer and "draft" in footer


def test_without_o_the_page_goes_to_standard_output(web_db):
    result = run("export", "--format", "html", "--skip-unsafe", "--db", web_db)
    assert result.exit_code == 0 and result.stdout.startswith("<!doctype html>")


def test_o_must_name_a_folder(web_db, tmp_path):
    file = tmp_path / "page.html"
    file.write_text("mine", encoding="utf-8")
    result = run("export", "--format", "html", "-o", file, "--skip-unsafe", "--db", web_db)
    assert result.exit_code == 2 and "writes a folder" in result.stderr
    assert result.stderr.startswith(f"error: -o {file}: ")  # the field, named by its flag
    assert file.read_text(encoding="utf-8") == "mine"
    with pytest.raises(InvalidField) as refused:
        page_path(file)
    assert refused.value.field == "output" and "--" not in refused.value.reason
