"""The pages fit the window (Chromium, headless, driven by Playwright): a grid wider than the window scrolls
inside its own box, never the page; the box is no taller than the window, so its sideways scroll bar is
on screen with it; its head row and subject column stay in view; its last column is reached by scrolling
the box as a person would (the mouse wheel over it). The same for the static HTML export.

Screenshots of the grid at 1400 px, scrolled to its end, are left in the run's screenshot folder
(docs/screenshots/ holds a copy for a person to look at).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from tests.web.conftest import imported_store

pytestmark = [pytest.mark.slow, pytest.mark.engine_free]  # Chromium

WINDOWS = [(1400, 900), (1024, 768)]
# More stages than any window holds side by side (a grid cell is at least 9rem wide), and more subjects
# than it holds one above the other (one page of the grid: 25).
WIDE_STAGES = [f"Stage {n:02d} of the long pipeline" for n in range(1, 15)]
WIDE_SUBJECTS = [
    f"{fruit} {n}"
    for n in range(1, 5)
    for fruit in ("Orchard", "Quince", "Medlar", "Sloe", "Pear", "Fig")
]


def wide_data() -> dict:
    claims = [
        {
            "key": f"wide.{s.lower().replace(' ', '-')}.{n:02d}",
            "subject": s,
            "stage": stage,
            "statement": f"{s} ran stage {n} on {128 * n:,} GPUs.",
            "tag": "wide-note",
            "basis": "Written for the layout tests.",
            "figures": [f"{128 * n:,} GPUs"],
            "evidence": [{"source": "wide-notes", "locator": f"p. {n}"}],
        }
        for s in WIDE_SUBJECTS
        for n, stage in enumerate(WIDE_STAGES, start=1)
    ]
    return {
        "tags": [
            {"name": "wide-note", "trust": "secondary", "description": "The layout tests' note."}
        ],
        "sources": [{"key": "wide-notes", "title": "Wide notes", "kind": "note"}],
        "claims": claims,
    }


@pytest.fixture(scope="module")
def wide_db(tmp_path_factory, stores):
    yield from imported_store(tmp_path_factory, stores, "wide", wide_data())


BOX = """box => { const r = box.getBoundingClientRect(), d = document.documentElement;
  return {page: d.scrollWidth, window: d.clientWidth, height: innerHeight, wide: box.scrollWidth,
          shown: box.clientWidth, top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }"""
# Where the last column's head and the first row's subject stand, against the box's visible part.
ENDS = """box => { const r = box.getBoundingClientRect(), heads = box.querySelectorAll('thead th');
  const last = heads[heads.length - 1].getBoundingClientRect();
  const subject = box.querySelector('tbody th[scope=row]').getBoundingClientRect();
  return {lastLeft: last.left, lastRight: last.right, lastTop: last.top, subjectLeft: subject.left,
          subjectRight: subject.right, left: r.left, right: r.left + box.clientLeft + box.clientWidth,
          top: r.top + box.clientTop}; }"""
SCROLLED_TO_END = (
    "box => box.scrollLeft > 0 && box.scrollLeft + box.clientWidth >= box.scrollWidth - 1"
)


def check_the_grid_fits(page, size, screenshot=None):
    """The page is not wider than the window; the grid, wider, scrolls in its box to its last column."""
    width, height = size
    box = page.locator("div.scroll:has(table.grid)")
    box.scroll_into_view_if_needed()
    page.evaluate("box => box.scrollIntoView({block: 'start'})", box.element_handle())
    at = box.evaluate(BOX)
    assert at["window"] == width and at["page"] <= at["window"], at  # nothing cut off at the right
    assert at["wide"] > at["shown"], at  # the grid is wider than its box: the case under test
    assert (
        box.evaluate("box => box.querySelector('table').offsetHeight") > height
    )  # and taller than the window
    assert at["right"] <= width and at["bottom"] <= height, (
        at
    )  # the whole box, scroll bar included, on screen
    box.hover()
    page.mouse.wheel(20_000, 0)  # sideways, over the box, as a person scrolls it
    box.element_handle().wait_for_element_state("stable")
    page.wait_for_function(SCROLLED_TO_END, arg=box.element_handle())
    ends = box.evaluate(ENDS)
    assert ends["left"] <= ends["lastLeft"] and ends["lastRight"] <= ends["right"] + 1, (
        ends
    )  # the last column, whole
    assert ends["subjectLeft"] == pytest.approx(ends["left"], abs=1), (
        ends
    )  # the subject column stayed
    assert ends["lastTop"] == pytest.approx(ends["top"], abs=1), ends
    assert ends["lastLeft"] >= ends["subjectRight"] - 1, ends  # not hidden under the subject column
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if screenshot is not None:
        page.evaluate("window.scrollTo(0, 0)")  # the page's top, the box still scrolled to its end
        page.screenshot(path=screenshot)


@pytest.mark.parametrize("size", WINDOWS, ids=[f"{w}x{h}" for w, h in WINDOWS])
def test_the_grid_fits_the_window_and_scrolls_in_its_box(serve, wide_db, page, size, screenshots):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(serve(db=wide_db).url + "/")
    shot = screenshots / "serve-grid-1400-scrolled.png" if size[0] == 1400 else None
    if shot is not None:
        page.screenshot(path=screenshots / "serve-grid-1400.png")
    check_the_grid_fits(page, size, shot)


@pytest.mark.parametrize("size", WINDOWS, ids=[f"{w}x{h}" for w, h in WINDOWS])
def test_the_exported_grid_fits_the_window_and_scrolls_in_its_box(
    wide_db, page, size, screenshots, tmp_path
):
    out = tmp_path / "site"
    done = CliRunner().invoke(
        app, ["export", "--format", "html", "-o", str(out), "--db", str(wide_db)]
    )
    assert done.exit_code == 0, done.output
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto((out / "index.html").as_uri())
    check_the_grid_fits(
        page, size, screenshots / "export-grid-1400-scrolled.png" if size[0] == 1400 else None
    )


def test_the_grids_box_is_a_named_region_that_scrolls_from_the_keyboard(serve, wide_db, page):
    """A screen reader names the box; it takes the focus, so a person without a mouse scrolls it with the keys
    (tabindex for the browsers that do not focus a scrolling box by themselves)."""
    page.goto(serve(db=wide_db).url + "/")
    box = page.get_by_role("region", name="Claims by topic")
    box.focus()
    from playwright.sync_api import expect

    expect(box).to_be_focused()
    page.keyboard.press("End")  # down to the box's last row, not the page's end
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "box => box.scrollLeft > 0 && box.scrollTop > 0", arg=box.element_handle()
    )
    assert page.evaluate("document.documentElement.scrollLeft") == 0


def test_on_paper_the_exported_grid_is_whole(wide_db, page, tmp_path):
    """Printed, the box does not clip the table to a window's height."""
    out = tmp_path / "site"
    assert (
        CliRunner()
        .invoke(app, ["export", "--format", "html", "-o", str(out), "--db", str(wide_db)])
        .exit_code
        == 0
    )
    page.goto((out / "index.html").as_uri())
    page.emulate_media(media="print")
    box = page.locator("div.scroll:has(table.grid)")
    assert (
        box.evaluate("box => box.querySelector('table').offsetHeight")
        > page.viewport_size["height"]
    )
    assert box.evaluate("box => box.scrollHeight <= box.clientHeight")


def test_the_queue_without_a_reader_asks_the_name_beside_the_claim(serve, page):
    """No reader set: the name form is right there in the queue, with the claim it will record on in view."""
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(serve().url + "/queue?key=gadget.pretrain")
    from playwright.sync_api import expect

    expect(page.locator("form.reread")).to_have_count(0)
    for shown in (
        "section.claim h2 a.key-name",
        'section.claim a.fig[data-key="gadget.pretrain"]',
        "section.claim .statement-big",
        "form.reader #name",
        "form.reader button",
    ):
        expect(page.locator(shown)).to_be_in_viewport()
    expect(page.locator("section.claim h2")).to_have_text("gadget.pretrain")
    expect(page.get_by_label("Your name")).to_be_focused()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024


LONG = "x".join(["Unbreakable"] * 24)  # one word wider than any window
LONG_URL = (
    "https://example.org/"
    + "/".join(["a-very-long-path-segment"] * 20)
    + "?"
    + "&".join(["q=1"] * 40)
)


def long_data() -> dict:
    return {
        "sources": [{"key": "long-page", "title": LONG, "kind": "report", "url": LONG_URL}],
        "claims": [
            {
                "key": "long.word",
                "subject": f"Subject {LONG}",
                "stage": f"Stage {LONG}",
                "statement": f"It says {LONG} on 4,096 GPUs.",
                "tag": "agent-reported",
                "basis": f"Read {LONG}.",
                "figures": ["4,096 GPUs"],
                "evidence": [{"source": "long-page", "locator": LONG, "quote": LONG}],
            }
        ],
    }


@pytest.fixture(scope="module")
def long_db(tmp_path_factory, stores):
    yield from imported_store(tmp_path_factory, stores, "long", long_data())


@pytest.mark.parametrize(
    "path", ["/", "/claims", "/claims/long.word", "/queue", "/claims/no.such.claim"]
)
def test_a_long_word_or_url_does_not_widen_the_page(serve, long_db, page, path):
    """Text from agents and the open web may hold a word or a URL wider than the window: it wraps, or
    scrolls inside the table's box, and the page keeps the window's width."""
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(serve(db=long_db).url + path)
    assert page.evaluate("document.documentElement.scrollWidth") == 1024
