"""In a real browser (Debian's Chromium, headless, driven by Playwright): what a person sees and does.

The server runs on 127.0.0.1 and a free port; the screenshots of the grid, the queue and the static
export are left in the folder the run prints at its end ($CLAIMS_SCREENSHOTS to choose it).
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from tests.httpserver import LocalHTTPServer

pytestmark = [pytest.mark.slow, pytest.mark.engine_free]  # Chromium

UNSAFE = {"gadget.fleet", "gadget.pretrain", "gadget.pretrain-days", "gadget.serve", "evil.gpus"}
DRAWN = """els => els.map(e => [e.dataset.key, getComputedStyle(e).borderTopStyle,
                               [...e.querySelectorAll('.mark')].map(m => m.textContent)])"""


def expect(target):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


def drawn(page) -> list[tuple[str, str, list[str]]]:
    """Every figure on the page: its claim, its border as the browser draws it, its marks."""
    return [tuple(x) for x in page.eval_on_selector_all("a.fig[data-key]", DRAWN)]


def test_the_grid_draws_agent_reported_figures_dashed_and_marked(serve, page, screenshots):
    server = serve()
    page.goto(server.url + "/")
    figures = drawn(page)
    assert ("gadget.fleet", "dashed", ["unverified"]) in figures
    assert ("widget.pretrain", "solid", []) in figures and (
        "widget.context",
        "double",
        [],
    ) in figures
    assert ("widget.serve", "solid", ["stale"]) in figures
    for key, border, marks in figures:
        assert (border == "dashed") == (key in UNSAFE) == ("unverified" in marks), key
    mark = page.locator('a.fig[data-key="gadget.fleet"] .mark')
    assert (
        mark.inner_text() == "UNVERIFIED" and mark.text_content() == "unverified"
    )  # the word, drawn in capitals
    page.screenshot(path=screenshots / "serve-grid.png", full_page=True)


def test_a_reread_through_the_queue_lands_in_claims_history(serve, page, history, screenshots):
    server = serve()
    page.goto(server.url + "/queue?key=gadget.pretrain")
    expect(page.locator("form.reread")).to_have_count(0)  # no name yet: nothing can be recorded
    expect(page.locator("#name")).to_be_focused()  # asked right here, in the queue
    page.keyboard.type("Ada Lovelace")
    page.get_by_role("button", name="Continue").click()
    expect(page).to_have_url(re.compile(r"/queue\?key=gadget\.pretrain$"))
    expect(page.locator("blockquote.passage mark")).to_have_text(["2,048 H800 GPUs"])
    quote = page.locator("#quote").input_value()
    assert quote == "Its pretraining used 2,048 H800 GPUs for 54 days."
    assert page.locator("#source").input_value() == "gadget-report"
    page.fill("#locator", "§2, p. 4")
    page.screenshot(path=screenshots / "serve-queue.png", full_page=True)
    page.get_by_role("button", name="Record re-read as Ada Lovelace").click()
    expect(page.locator(".flash")).to_contain_text("re-read by Ada Lovelace")
    expect(page.locator("h2 a.key-name")).not_to_have_text("gadget.pretrain")  # the queue moved on
    last = history("gadget.pretrain")["events"][-1]
    assert (last["kind"], last["actor"], last["tag_after"]) == (
        "reread",
        "Ada Lovelace",
        "spot-checked",
    )
    assert last["detail"]["quote"] == quote and last["detail"]["locator"] == "§2, p. 4"
    assert last["detail"]["source"] == "gadget-report"


def test_a_quote_is_picked_from_the_pages_sentences_with_the_keyboard(serve, page, history):
    """No script: each sentence of the passage is a link; Shift+Tab reaches it, Enter makes it the quote
    and the locator has the focus again."""
    server = serve(reader="Ada")
    wrong = "This report describes how Gadget was built."
    page.goto(server.url + "/queue?key=gadget.fleet&quote=" + wrong.replace(" ", "+"))
    expect(page.locator("#quote")).to_have_value(wrong)  # picked by a link, from the page's text
    wanted = "Gadget's agentic RL runs 40–60K sandboxes at once on preemptible CPUs."
    expect(page.locator("#locator")).to_be_focused()
    for _ in range(12):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.textContent") == wanted:
            break
    assert page.evaluate("document.activeElement.className") == "pick"
    page.keyboard.press("Enter")
    expect(page.locator("#quote")).to_have_value(wanted)
    expect(page.locator("a.pick[aria-current]")).to_have_text(wanted)
    expect(page.locator(".verdict.holds")).to_have_count(1)
    expect(page.locator("#locator")).to_be_focused()
    page.keyboard.type("§1")
    page.keyboard.press("Enter")
    expect(page.locator(".flash")).to_contain_text("Recorded: gadget.fleet")
    last = history("gadget.fleet")["events"][-1]
    assert (last["kind"], last["detail"]["quote"]) == ("reread", wanted)


ATTACK = """<html><body><h1>You won a prize</h1>
<form id="f" method="post" action="{target}">
<input type="hidden" name="csrf" value="{token}"><input type="hidden" name="key" value="gadget.pretrain">
<input type="hidden" name="source" value="gadget-report"><input type="hidden" name="quote" value="forged">
<button type="submit">Claim it</button></form></body></html>"""


def test_a_cross_site_post_is_refused(serve, page, history):
    """The attacker's best case: its page is on this machine (another port of 127.0.0.1, so the same
    site: the browser sends the strict cookie) and it even knows the form's token."""
    server = serve(reader="Ada")
    page.goto(server.url + "/queue?key=gadget.pretrain")
    token = page.locator('form.reread input[name="csrf"]').get_attribute("value")
    with LocalHTTPServer() as evil:
        evil.add("/prize.html", ATTACK.format(target=server.url + "/queue", token=token).encode())
        page.goto(evil.url("/prize.html"))
        with page.expect_response(server.url + "/queue") as answer:
            page.get_by_role("button", name="Claim it").click()
        assert answer.value.status == 403
        expect(page.locator("body")).to_contain_text("refused: a cross-site POST")
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]


def test_the_static_export_opens_without_a_server_and_marks_every_unsafe_figure(
    web_db, page, screenshots, tmp_path
):
    out = tmp_path / "site"
    runner = CliRunner()
    blocked = runner.invoke(
        app, ["export", "--format", "html", "-o", str(out), "--db", str(web_db)]
    )
    assert blocked.exit_code == 1 and not out.exists()
    draft = runner.invoke(
        app, ["export", "--format", "html", "-o", str(out), "--draft", "--db", str(web_db)]
    )
    assert draft.exit_code == 0, draft.output
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((out / "index.html").as_uri())
    assert requests == [
        (out / "index.html").as_uri()
    ]  # nothing else fetched: no server, no network
    figures = drawn(page)
    assert {key for key, _, _ in figures} == UNSAFE | {
        "widget.pretrain",
        "widget.serve",
        "widget.context",
        "gadget.pretrain-days-note",
    }
    for key, border, marks in figures:
        assert (border == "dashed") == (key in UNSAFE) == ("unverified" in marks), key
    expect(page.locator(".draft-banner")).to_contain_text("DRAFT")
    page.screenshot(path=screenshots / "export-draft.png", full_page=True)


@pytest.mark.parametrize("path", ["/", "/claims/evil.gpus", "/queue?key=evil.gpus"])
def test_hostile_records_run_nothing_in_the_browser(serve, page, path):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(serve(reader="Ada").url + path)
    page.hover('a.fig[data-key="evil.gpus"]')
    assert dialogs == [] and page.locator("script").count() == 0
    expect(page.locator("body")).to_contain_text("<script>alert('xss')</script>")


def test_filtering_then_paging_through_the_list_keeps_the_filters(serve, page):
    server = serve()
    page.goto(server.url + "/claims?size=2")
    page.select_option('select[name="trust"]', "unverified")
    page.get_by_role("button", name="Filter", exact=True).click()
    expect(page).to_have_url(
        re.compile(r"/claims\?subject=&stage=&tag=&trust=unverified&status=active&size=2$")
    )
    page.wait_for_load_state()
    shown = [
        page.eval_on_selector_all("table.claims tr[id]", "rows => rows.map(r => r.id.slice(6))")
    ]
    for n in (2, 3):
        page.get_by_role("link", name="Next ›", exact=True).click()
        expect(page).to_have_url(re.compile(rf"/claims\?trust=unverified&size=2&page={n}$"))
        page.wait_for_load_state()
        shown.append(
            page.eval_on_selector_all("table.claims tr[id]", "rows => rows.map(r => r.id.slice(6))")
        )
    assert shown == [
        ["gadget.fleet", "gadget.pretrain"],
        ["gadget.pretrain-days", "gadget.serve"],
        ["evil.gpus"],
    ]
    expect(page.locator("nav.pager")).to_contain_text("Page 3 of 3")
    expect(page.get_by_role("link", name="Next ›", exact=True)).to_have_count(0)
