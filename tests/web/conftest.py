"""Fixtures for the browser view: a store with pages, snapshots and hostile records, and the server over it.

The data set is built once per session (import, then `claims verify` against pages served on 127.0.0.1,
which leaves a snapshot of each page); every test gets its own copy of the database file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from claimsdb.web.app import Settings
from tests.httpserver import LocalHTTPServer
from tests.web.live import LiveServer

GADGET_PAGE = (
    "<html><head><title>Gadget technical report</title></head><body><h1>Gadget at scale</h1>"
    "<p>This report describes how Gadget was built.</p>"
    "<p>Gadget's agentic RL runs 40–60K sandboxes at once on preemptible CPUs.</p>"
    "<h2>2 Pretraining</h2><p>Its pretraining used 2,048 H800 GPUs for 54 days.</p>"
    "<p>Serving uses a prefill unit of 4 nodes.</p></body></html>"
)
# A re-read of gadget.pretrain as the queue offers it: the page, its section "2" (a heading of the page),
# and the sentence of the page's text that holds the figure.
HONEST = {
    "key": "gadget.pretrain",
    "source": "gadget-report",
    "locator": "§2",
    "quote": "Its pretraining used 2,048 H800 GPUs for 54 days.",
}
WIDGET_PAGE = (
    "<html><body><p>Widget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens.</p></body></html>"
)
HOSTILE_PAGE = "<html><body><p>Evil runs 7,777 GPUs &lt;script&gt;alert('page')&lt;/script&gt; all day.</p></body></html>"
# What an agent or a hostile page may put into a record: markup, script, attribute breakers.
XSS = "<script>alert('xss')</script>"
HOSTILE_SUBJECT = f'Evil{XSS}" onmouseover="alert(1)'
HOSTILE_STATEMENT = "Evil runs 7,777 GPUs <img src=x onerror=alert(2)>."


def web_data(base: str) -> dict:
    report = {"kind": "report", "publisher": "Lab"}
    return {
        "tags": [{"name": "note-2026-10-04", "trust": "secondary", "description": "A later note."}],
        "sources": [
            {"key": "lab-notes", "title": "Lab notes", "kind": "note"},
            {
                "key": "widget-report",
                "title": "Widget technical report",
                "url": f"{base}/widget.html",
                "cite_key": "widget2026",
                **report,
            },
            {
                "key": "gadget-report",
                "title": "Gadget technical report",
                "url": f"{base}/gadget.html",
                "cite_key": "gadget2026",
                **report,
            },
            {
                "key": "evil-page",
                "title": f"Evil page {XSS}",
                "url": f'{base}/evil.html?a="><script>alert(3)</script>',
                "kind": "blog",
            },
        ],
        "quantities": [
            {"key": "gadget.pretrain-length", "subject": "Gadget", "measure": "days of pretraining"}
        ],
        "claims": [
            {
                "key": "widget.pretrain",
                "subject": "Widget-7",
                "stage": "Pretrain",
                "statement": "Widget-7 was pretrained on 3,072 H100 GPUs.",
                "tag": "spot-checked",
                "basis": "Re-read.",
                "figures": ["3,072 H100"],
                "evidence": [
                    {"source": "widget-report", "locator": "§3.1", "quote": "3,072 H100 GPUs"}
                ],
                "reread": {
                    "by": "Grace Hopper",
                    "at": "2026-05-04",
                    "source": "widget-report",
                    "locator": "§3.1",
                    "quote": "3,072 H100 GPUs",
                },
            },
            {
                "key": "widget.serve",
                "subject": "Widget-7",
                "stage": "Serve",
                "statement": "Widget-7 is served on 512 GPUs.",
                "tag": "spot-checked",
                "basis": "Re-read in May.",
                "figures": [
                    "512 GPUs"
                ],  # the page no longer says so: `claims verify` finds it stale
                "evidence": [
                    {"source": "widget-report", "locator": "§6", "quote": "served on 512 GPUs"}
                ],
                "reread": {
                    "by": "Grace Hopper",
                    "at": "2026-05-04",
                    "source": "widget-report",
                    "locator": "§6",
                    "quote": "served on 512 GPUs",
                },
            },
            {
                "key": "widget.context",
                "subject": "Widget-7",
                "stage": "Midtrain",
                "statement": "Widget-7's context grew from 8K to 256K tokens.",
                "tag": "note-2026-10-04",
                "basis": "From the later note.",
                "figures": ["8K → 256K"],
                "evidence": [{"source": "lab-notes", "locator": "p. 2", "quote": "8K → 256K"}],
            },
            {
                "key": "gadget.fleet",
                "subject": "Gadget",
                "stage": "Agentic RL",
                "statement": "Gadget runs 40–60K sandboxes at once.",
                "tag": "agent-reported",
                "basis": "An agent's sweep; not re-read.",
                "figures": ["40–60K sandboxes"],
                "evidence": [
                    {"source": "gadget-report", "locator": None, "quote": None},
                    {"source": "lab-notes", "locator": "p. 3", "quote": "40–60K sandboxes"},
                ],
            },
            {
                "key": "gadget.pretrain",
                "subject": "Gadget",
                "stage": "Pretrain",
                "statement": "Gadget was pretrained on 2,048 H800 GPUs.",
                "tag": "agent-reported",
                "basis": "An agent's sweep; not re-read.",
                "figures": ["2,048 H800"],
                "evidence": [{"source": "gadget-report", "locator": "§2", "quote": None}],
            },
            {
                "key": "gadget.pretrain-days",
                "subject": "Gadget",
                "stage": "Pretrain",
                "statement": "Gadget's pretraining took 45 days.",
                "tag": "agent-reported",
                "basis": "A second agent's sweep.",
                "figures": ["45 days"],
                "quantity": "gadget.pretrain-length",
                "evidence": [{"source": "lab-notes", "locator": "p. 4", "quote": None}],
            },
            {
                "key": "gadget.pretrain-days-note",
                "subject": "Gadget",
                "stage": "Pretrain",
                "statement": "Gadget's pretraining took 54 days.",
                "tag": "note-2026-10-04",
                "basis": "The later note.",
                "figures": ["54 days"],
                "quantity": "gadget.pretrain-length",
                "evidence": [{"source": "lab-notes", "locator": "p. 5", "quote": None}],
            },
            {
                "key": "gadget.serve",
                "subject": "Gadget",
                "stage": "Serve",
                "statement": "Gadget's serving stage is described in its report.",
                "tag": "agent-reported",
                "basis": "An agent's sweep; not re-read.",
                "figures": [],
                "evidence": [{"source": "lab-notes", "locator": None, "quote": None}],
            },
            {
                "key": "evil.gpus",
                "subject": HOSTILE_SUBJECT,
                "stage": "Pretrain",
                "statement": HOSTILE_STATEMENT,
                "tag": "agent-reported",
                "basis": f"Scraped {XSS}",
                "figures": ["7,777 GPUs"],
                "evidence": [
                    {
                        "source": "evil-page",
                        "locator": f"<b>{XSS}</b>",
                        "quote": f"7,777 GPUs {XSS}",
                    }
                ],
            },
        ],
    }


@pytest.fixture(scope="session")
def web_template(tmp_path_factory, stores) -> SimpleNamespace:
    """The data set, imported and verified once: the database (a file, or a server's) and the snapshot folder."""
    root = tmp_path_factory.mktemp("web")
    db, sources = stores.new(root), root / "sources"
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as mp, LocalHTTPServer() as pages:
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        mp.delenv("CLAIMS_DB", raising=False)
        for path, body in (
            ("/gadget.html", GADGET_PAGE),
            ("/widget.html", WIDGET_PAGE),
            ("/evil.html", HOSTILE_PAGE),
        ):
            pages.add(path, body.encode(), content_type="text/html; charset=utf-8")
        data = root / "web.json"
        data.write_text(
            json.dumps(web_data(pages.url("").rstrip("/")), ensure_ascii=False), encoding="utf-8"
        )
        done = runner.invoke(app, ["import", str(data), "--db", str(db)], catch_exceptions=False)
        assert done.exit_code == 0, done.output
        checked = runner.invoke(
            app,
            [
                "verify",
                "--all",
                "--db",
                str(db),
                "--sources-dir",
                str(sources),
                "--allow-local",
                "--timeout",
                "5",
                "--format",
                "json",
            ],
            catch_exceptions=False,
        )
        assert checked.exit_code in (0, 1), checked.output
        assert "confirmed" in checked.stdout, checked.stdout  # the pages on 127.0.0.1 were read
    yield SimpleNamespace(db=db, sources=sources)
    stores.drop(db)


@pytest.fixture
def web_db(web_template, stores, tmp_path) -> str:
    path = stores.copy(web_template.db, tmp_path)
    yield path
    stores.drop(path)


@pytest.fixture
def serve(web_db, web_template):
    """Start the server over this test's database (or `db`): serve(reader=..., strict=...) -> LiveServer."""
    started = []

    def start(db: str | None = None, **settings) -> LiveServer:
        server = LiveServer(
            Settings(db=str(db or web_db), sources_dir=web_template.sources, **settings)
        ).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__(None, None, None)


@pytest.fixture
def client():
    """An HTTP client that keeps cookies like a browser, never follows redirects, and ignores proxies."""
    clients = []

    def make(server: LiveServer) -> httpx.Client:
        c = httpx.Client(base_url=server.url, follow_redirects=False, trust_env=False, timeout=10)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


@pytest.fixture
def history(web_db):
    """`claims history KEY --format json` on this test's database, parsed."""
    runner = CliRunner()

    def read(key: str) -> dict:
        result = runner.invoke(
            app, ["history", key, "--db", str(web_db), "--format", "json"], catch_exceptions=False
        )
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return read


# Each filter of the list, the grid and the queue, and the claims of the web store it selects.
FILTERS = [
    (
        "trust=unverified&subject=gadget",
        {"gadget.fleet", "gadget.pretrain", "gadget.pretrain-days", "gadget.serve"},
    ),
    ("stage=pretrain&tag=spot-checked", {"widget.pretrain"}),
    ("subject=WIDGET", {"widget.pretrain", "widget.serve", "widget.context"}),
    ("trust=secondary", {"widget.context", "gadget.pretrain-days-note"}),
    ("stale=1", {"widget.serve"}),
    ("status=withdrawn", set()),
]


# --- more claims than a page holds: a generated data file ---------------------------------------------

GENERATED = 130  # claims: three pages of the list (50 a page), two of the grid (25 subjects a page)
CROWDED = 12  # claims of the first subject at one stage: more than a cell of the grid draws (pages.GRID_CELL)
GEN_STAGES = ("Data", "Pretrain", "Midtrain", "Post-train", "Agentic RL", "Serve")


def generated_claim(i: int) -> dict:
    """Claim i of the generated store: the first CROWDED are Orchard 00's at Pretrain, then 29 more subjects
    in turn; even ones agent-reported (not paper-safe), odd ones from a note (secondary)."""
    subject = "Orchard 00" if i < CROWDED else f"Orchard {1 + (i - CROWDED) % 29:02d}"
    stage = "Pretrain" if i < CROWDED else GEN_STAGES[i % len(GEN_STAGES)]
    return {
        "key": f"gen.{i:04d}",
        "subject": subject,
        "stage": stage,
        "statement": f"{subject} ran on {64 * (i + 1):,} GPUs (run {i}).",
        "tag": "agent-reported" if i % 2 == 0 else "gen-note",
        "basis": "Generated for the paging tests.",
        "figures": [f"{64 * (i + 1):,} GPUs"],
        "evidence": [{"source": "gen-report", "locator": f"row {i}"}],
    }


def generated_data() -> dict:
    return {
        "tags": [
            {"name": "gen-note", "trust": "secondary", "description": "The generator's note."}
        ],
        "sources": [
            {
                "key": "gen-report",
                "title": "Generated report",
                "kind": "report",
                "url": "https://example.org/generated",
            }
        ],
        "claims": [generated_claim(i) for i in range(GENERATED)],
    }


def imported_store(tmp_path_factory, stores, name: str, data: dict):
    """For a fixture to `yield from`: a store holding `data`, imported as a person would; dropped after."""
    root = tmp_path_factory.mktemp(name)
    db, path = stores.new(root), root / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("CLAIMS_DB", raising=False)
        done = CliRunner().invoke(
            app, ["import", str(path), "--db", str(db)], catch_exceptions=False
        )
    assert done.exit_code == 0, done.output
    yield db
    stores.drop(db)


@pytest.fixture(scope="session")
def generated_template(tmp_path_factory, stores) -> str:
    yield from imported_store(tmp_path_factory, stores, "generated", generated_data())


@pytest.fixture
def generated_db(generated_template, stores, tmp_path) -> str:
    """A copy of the generated store (GENERATED claims) for this test."""
    path = stores.copy(generated_template, tmp_path)
    yield path
    stores.drop(path)


def csrf_token(html: str) -> str:
    marker = 'name="csrf" value="'
    assert marker in html, "the page has no form token"
    return html.split(marker, 1)[1].split('"', 1)[0]


# --- a real browser: Debian's Chromium driven by Playwright ------------------------------------------

from tests.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402,F401  (one browser per worker)

SCREENSHOTS: list[Path] = []


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1360, "height": 860})
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    context.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    """Where the browser tests leave their screenshots: $CLAIMS_SCREENSHOTS, else pytest's temporary folder
    (the path is printed at the end of the run)."""
    chosen = os.environ.get("CLAIMS_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    SCREENSHOTS.append(folder)
    return folder


def pytest_terminal_summary(terminalreporter):
    for folder in SCREENSHOTS:
        shots = sorted(p.name for p in folder.glob("*.png"))
        if shots:
            terminalreporter.write_line(f"browser screenshots in {folder}: {', '.join(shots)}")
