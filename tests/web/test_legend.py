"""The legend explains the looks and marks a page draws, and only those: a page that holds no unverified or
stale figure says nothing of UNVERIFIED or STALE (the static export and the server's grid and list alike)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from tests.web.markup import chips, parse


def legend(html: str) -> set[str]:
    """What the page's legend explains: a trust's look ("verified", "secondary") or a mark's word."""
    found = parse(html).find_all("p", "legend")
    if not found:
        return set()
    (paragraph,) = found
    entries = set()
    for entry in paragraph.find_all("span", "fig"):
        marks = [m.text() for m in entry.find_all("span", "mark")]
        entries |= set(marks) or {
            c.removeprefix("trust-") for c in entry.classes if c.startswith("trust-")
        }
    return entries


def drawn(html: str) -> set[str]:
    """What the page's figures show: the trust of each paper-safe one, and every mark."""
    looks = set()
    for chip in chips(html):
        trust = [c.removeprefix("trust-") for c in chip.classes if c.startswith("trust-")]
        looks |= set(chip.marks) | (set(trust) if "unsafe" not in chip.classes else set())
    return looks


def exported(web_db, tmp_path, *args) -> str:
    out = tmp_path / "site"
    result = CliRunner().invoke(
        app, ["export", "--format", "html", "-o", str(out), "--db", str(web_db), *args]
    )
    assert result.exit_code == 0, result.output
    return (out / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args, shown",
    [
        (["--skip-unsafe", "--stage", "Pretrain"], {"verified", "secondary"}),
        (["--skip-unsafe"], {"verified", "secondary", "stale"}),
        (["--draft"], {"verified", "secondary", "unverified", "stale"}),
        (["--draft", "--strict", "--trust", "secondary"], {"not re-read"}),
    ],
)
def test_the_exports_legend_explains_only_what_the_page_draws(web_db, tmp_path, args, shown):
    html = exported(web_db, tmp_path, *args)
    assert legend(html) == drawn(html) == shown
    if not shown & {"unverified", "not re-read"}:
        assert "not paper-safe" not in parse(html).find_all("p", "legend")[0].text()


@pytest.mark.parametrize(
    "path, shown",
    [
        ("/?tag=spot-checked&stage=Pretrain", {"verified"}),
        ("/claims?trust=secondary", {"secondary"}),
        ("/claims?stale=1", {"verified", "stale"}),  # a stale figure keeps its look, and is marked
        ("/", {"verified", "secondary", "unverified", "stale"}),
    ],
)
def test_the_servers_legend_explains_only_what_the_page_draws(serve, client, path, shown):
    html = client(serve()).get(path).text
    assert legend(html) == drawn(html) == shown


def test_a_page_that_draws_nothing_has_no_legend(serve, client):
    html = client(serve()).get("/claims?status=withdrawn").text
    assert drawn(html) == set() and not parse(html).find_all("p", "legend")
