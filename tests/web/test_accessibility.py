"""Every page passes an automated accessibility check with no serious or critical violation: axe-core (the
copy bundled in axe-playwright-python, pinned in requirements-dev.lock; nothing fetched) run in Chromium on
each page of `claims serve` and on the static HTML export, at 1400x900.

axe checks what a machine can: names and labels, contrast, landmarks, table headers, the page's language,
focusable scrolling regions. The web store draws every look and mark, hostile records, a passage and a
stale figure, so each rule meets what it checks.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app

pytestmark = [pytest.mark.slow, pytest.mark.engine_free]  # Chromium

SERIOUS = ("serious", "critical")
SIZE = {"width": 1400, "height": 900}


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page as loaded, one line each: its violations, and
    what it could not decide (incomplete: a header over no data cell, a contrast it could not compute)."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options={"resultTypes": ["violations", "incomplete"]}).response
    assert found["passes"], "axe checked nothing"  # it ran, in this page, over its elements
    return [
        f"{kind} {v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for kind in ("violations", "incomplete")
        for v in found[kind]
        if v["impact"] in SERIOUS
    ]


# (what the page is, its path, the reader the server was started with, the status the page is sent with)
PAGES = [
    ("grid", "/", None, 200),
    ("grid past its last page", "/?page=9", None, 404),
    ("claims list", "/claims", None, 200),
    ("claims list filtered to nothing", "/claims?status=withdrawn", None, 200),
    ("claim page", "/claims/gadget.pretrain", None, 200),
    ("claim page of a stale claim", "/claims/widget.serve", None, 200),
    ("claim page of a hostile record", "/claims/evil.gpus", None, 200),
    ("queue without a reader", "/queue?key=gadget.pretrain", None, 200),
    ("queue with a reader", "/queue?key=gadget.pretrain", "Ada", 200),
    ("queue of a claim citing no page", "/queue?key=gadget.serve", "Ada", 200),
    (
        "queue with a sentence picked as the quote",
        "/queue?key=gadget.fleet&quote=Its+pretraining+used+2%2C048+H800+GPUs+for+54+days.",
        "Ada",
        200,
    ),
    ("queue with nothing to re-read", "/queue?trust=verified", "Ada", 200),
    ("reader form", "/reader", None, 200),
    ("reader fixed by the server", "/reader", "Ada", 200),
    ("unknown claim (404)", "/claims/no.such.claim", None, 404),
    ("bad filter (400)", "/claims?trust=certain", None, 400),
]


@pytest.mark.parametrize("path, reader, status", [p[1:] for p in PAGES], ids=[p[0] for p in PAGES])
def test_each_page_passes_axe(serve, page, path, reader, status):
    page.set_viewport_size(SIZE)
    answer = page.goto(serve(reader=reader).url + path)
    assert answer.status == status
    assert serious_violations(page) == []


def test_the_queue_after_a_refused_reread_passes_axe(serve, page):
    """The queue as it comes back with an error and the person's fields."""
    page.set_viewport_size(SIZE)
    page.goto(serve(reader="Ada").url + "/queue?key=gadget.pretrain")
    page.fill("#source", "lab-notes")  # a note is not a primary page: refused
    with page.expect_response(lambda r: r.request.method == "POST") as sent:
        page.get_by_role("button", name="Record re-read as Ada").click()
    assert sent.value.status == 400 and page.locator(".error").count() == 1
    assert serious_violations(page) == []


@pytest.mark.parametrize("mode", ["--draft", "--skip-unsafe"])
def test_the_html_export_passes_axe(web_db, page, tmp_path, mode):
    out = tmp_path / "site"
    done = CliRunner().invoke(
        app, ["export", "--format", "html", "-o", str(out), mode, "--db", str(web_db)]
    )
    assert done.exit_code == 0, done.output
    page.set_viewport_size(SIZE)
    page.goto((out / "index.html").as_uri())
    assert serious_violations(page) == []


def test_the_queue_of_a_claim_the_page_contradicts_passes_axe(serve, web_db, page):
    """The page's verdict and its correction box, before and after a refused re-read."""
    added = CliRunner().invoke(
        app,
        ["add", "--key", "gadget.gpus-wrong", "--subject", "Gadget", "--statement",
         "Gadget was pretrained on 4,096 H800 GPUs.", "--figure", "4,096 H800",
         "--source", "gadget-report", "--locator", "the report", "--db", str(web_db)],
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    page.set_viewport_size(SIZE)
    page.goto(serve(reader="Ada").url + "/queue?key=gadget.gpus-wrong")
    assert page.get_by_label("Correct the claim's 4,096 H800 to 2,048 H800 GPUs").count() == 1
    assert serious_violations(page) == []
    page.fill("#locator", "§2")
    with page.expect_response(lambda r: r.request.method == "POST") as sent:
        page.get_by_role("button", name="Record re-read as Ada").click()
    assert sent.value.status == 400 and page.get_by_role("alert").count() == 1
    assert serious_violations(page) == []
