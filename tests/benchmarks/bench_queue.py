"""Benchmark: clearing ten claims of the bundled data through the re-read queue of `claims serve`, before and
after queue triage, in Chromium driven by Playwright. Prints seconds, clicks and keystrokes; asserts only
that each way recorded the re-reads it counts (before: ten; after: those the pages hold, at most ten).
Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_queue.py [--claims 10] [--corpus ../shared/corpus]

The bundled data (data/*.json) is imported with its sources' URLs pointed at a loopback folder: each
page the corpus holds a public copy of (`../shared/corpus`, see its MANIFEST.md) is served from
127.0.0.1, every other page is missing there (404). The queue is the strict one (`claims serve --strict`:
secondary claims wait too), since most of the bundled agent-reported claims cite only the note.

- before: the code before queue triage (`--before REV`, by default the commit this work started from,
  run from `git archive REV src migrations data`, its `src` first on PYTHONPATH, as bench_scale's --src,
  over a store it imports from its own data files, since the schema and the data moved on): no snapshot yet, the
  queue in key order, no fetch button. A claim that cites no primary page is skipped at sight (a click on
  Skip); for the others the person runs `claims verify KEY` in a terminal (a click into it, the command
  and Enter, a click back into the browser, F5), then, when it located the claim, clicks into the locator,
  types it and clicks Record (when it located it on a page the queue does not show, first a click into
  the page field, Control+A and that page's key); otherwise clicks Skip.
  The name: a click on "Say who you are", the name, a click on Continue.
- after: this checkout. `claims verify --unverified --strict` once (the command and Enter), then the
  queue from the keyboard alone: the name asked inline (the name, Enter), the located claims first, the
  quote filled from the page's text (the located passage's sentences holding the claim's figures, from
  its latest snapshot), the locator has the focus (Control+A, the locator, Alt+R records; the re-read is
  checked against the snapshot, as `claims reread` checks it). A claim whose quote the page does not
  hold as filled in (its figures stand in several places of the page, or the page states another value)
  is skipped (Alt+S); the walk ends after the n-th re-read or at the first claim with no located passage.

Every way records the same locator for the n-th re-read; the page (and, after, the quote) come prefilled.
A keystroke is a key pressed (Alt+R is two). The seconds are the machine's, from opening the queue to the
last re-read, including each `claims verify` process; what a person takes to read a passage is the same
for all and is not measured. After, the script checks that each quote recorded is the one the queue
filled from the page's text and that the re-read was checked against its snapshot.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.httpserver import LocalHTTPServer  # noqa: E402
from tests.web.keys import access_key  # noqa: E402

CLAIMS = str(Path(sys.executable).with_name("claims"))
CHROMIUM = os.environ.get("CLAIMS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
READER = "Ada Lovelace"
BUNDLED = (REPO / "data" / "pipelines.json", REPO / "data" / "rl_loop.json")
# The bundled sources the corpus holds a copy of: the files, joined, make the page.
CORPUS_PAGES = {
    "slime-readme": ["slime_README.md"],
    "checkpoint-engine-readme": ["checkpoint_engine_README.md"],
    "terminal-bench-2-1-post": ["terminal_bench_2-1_blog.mdx"],
    "posttrainbench-readme": ["posttrainbench_README.md"],
    "inferencebench-readme": ["inferencebench_README.md"],
    "olmo-core-olmo3-readme": ["olmo_core_OLMo3_README.md"],
    "deepseek-v3-report": ["deepseek_v3_tech_report_arxiv2412.19437.md"],
    "llama3-report": [
        "llama3_paper_excerpt_A_3.3.1_compute.md",
        "llama3_paper_excerpt_B_table5_3.3.4_reliability.md",
    ],
}


BEFORE = "2457ea1"  # main when queue triage began
LOCATED = (
    "confirmed",
    "reworded",
    "rounded",
    "partial",
)  # a passage with the claim's figures (or its quote)


def claims(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLAIMS, *args], env=env, capture_output=True, text=True, check=False)


def pointed(files: tuple[Path, ...], base: str, folder: Path) -> list[Path]:
    """Copies of the data files in `folder`, each source's URL pointed at the loopback folder."""
    folder.mkdir(exist_ok=True)
    paths = []
    for data in files:
        doc = json.loads(data.read_text(encoding="utf-8"))
        for source in doc.get("sources", []):
            if source.get("url"):
                source["url"] = f"{base}/{source['key']}.md"  # a 404 unless the folder holds it
        paths.append(folder / data.name)
        paths[-1].write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return paths


def prepare(tmp: Path, corpus: Path, server: LocalHTTPServer) -> dict:
    """The loopback folder, served; the bundled data pointed at it and imported (no snapshot yet)."""
    folder = tmp / "pages"
    folder.mkdir()
    for key, files in CORPUS_PAGES.items():
        (folder / f"{key}.md").write_bytes(
            b"\n\n".join((corpus / name).read_bytes() for name in files)
        )
    for page in folder.iterdir():
        server.add(f"/{page.name}", page.read_bytes(), content_type="text/markdown; charset=utf-8")
    paths = pointed(BUNDLED, server.url("").rstrip("/"), tmp)
    env = {
        **os.environ,
        "CLAIMS_DB": str(tmp / "claims.db"),
        "CLAIMS_SOURCES": str(tmp / "sources"),
        "NO_PROXY": "127.0.0.1,localhost",
        "COLUMNS": "200",
        "CLAIMS_VERIFY_ALLOW_LOCAL": "1",
    }
    env.pop("CLAIMS_READER", None)
    done = claims(env, "import", *map(str, paths))
    assert done.returncode == 0, done.stderr
    return env


def copy(env: dict, tmp: Path, name: str) -> dict:
    shutil.copy(env["CLAIMS_DB"], tmp / name)
    return {**env, "CLAIMS_DB": str(tmp / name), "CLAIMS_SOURCES": str(tmp / f"{name}-sources")}


class Count:
    def __init__(self) -> None:
        self.clicks = self.keys = 0
        self.recorded: list[str] = []
        self.visited = 0
        self.skipped: list[str] = []
        self.quotes: dict[str, str] = {}  # the quote recorded, as the form was filled in


def shown(page) -> str:
    return page.locator("h2 a.key-name").inner_text()


def located(page) -> bool:
    """The page shows the passage the latest verification located (its figures highlighted, if it has any)."""
    return page.locator("blockquote.passage").count() > 0


def say_who(page, count: Count, *, inline: bool) -> None:
    if inline:
        page.locator("#name").wait_for()
        page.keyboard.type(READER)  # the name field has the focus
        page.keyboard.press("Enter")
        count.keys += len(READER) + 1
    else:
        with page.expect_navigation():
            page.get_by_role("link", name="Say who you are", exact=True).click()
        page.locator("#name").wait_for()
        page.keyboard.type(READER)  # the name field has the focus
        page.get_by_role("button", name="Continue").click()
        count.clicks, count.keys = count.clicks + 2, count.keys + len(READER)
    page.locator("form.reread").wait_for()


def walk_before(page, env: dict, n: int, count: Count) -> None:
    """Key order, nothing fetched: verify each claim in a terminal, then record it when its figures were
    located, else skip."""
    while len(count.recorded) < n:
        key = shown(page)
        count.visited += 1
        assert count.visited < 400, "walked the whole queue without ten located claims"
        if (
            key in count.recorded
        ):  # re-read and still blocked (a partial match is stale under --strict): on
            with page.expect_navigation():
                page.get_by_role("link", name="Skip", exact=True).click()
            count.clicks += 1
            continue
        if page.get_by_text(
            "The claim cites no primary page yet"
        ).count():  # nothing verify could fetch: on
            with page.expect_navigation():
                page.get_by_role("link", name="Skip", exact=True).click()
            count.clicks += 1
            continue
        command = ["verify", key]
        done = claims(
            env, *command, "--format", "json"
        )  # the person reads the table; the script its JSON
        assert done.returncode in (0, 1), done.stderr
        found = [r["source"] for r in json.loads(done.stdout)["results"] if r["outcome"] in LOCATED]
        count.clicks += 2  # into the terminal, back into the browser
        count.keys += (
            len(" ".join(["claims", *command])) + 1 + 1
        )  # the command, Enter; F5 in the browser
        page.reload()
        assert shown(page) == key
        if found:
            locator = f"§{len(count.recorded) + 1}"
            if not located(page):  # located on a page the queue does not show: name it in the form
                page.click("#source")
                page.keyboard.press("Control+A")
                page.keyboard.type(found[0])
                count.clicks, count.keys = count.clicks + 1, count.keys + 2 + len(found[0])
            page.click("#locator")
            page.fill("#locator", "")
            page.keyboard.type(locator)
            with page.expect_navigation():
                page.get_by_role("button", name=f"Record re-read as {READER}").click()
            count.clicks, count.keys = count.clicks + 2, count.keys + len(locator)
            count.recorded.append(key)
        else:
            with page.expect_navigation():
                page.get_by_role("link", name="Skip", exact=True).click()
            count.clicks += 1


def walk_after(page, n: int, count: Count) -> None:
    """Located claims first, the quote filled from the page's text: where the page holds it (the verdict
    under the quote), the locator has the focus: Control+A, type it, Alt+R; where it does not (the claim's
    figures stand in several places of its page), Alt+S. The walk ends after n re-reads, or at the first
    claim with no located passage (the rest of the queue has no page to read)."""
    while len(count.recorded) < n:
        key = shown(page)
        if not located(page) or key in count.skipped:  # the located claims are behind
            print(f"after: the walk ends at {key} ({page.url})", file=sys.stderr)
            break
        count.visited += 1
        if not page.locator(".verdict.holds").count():  # the page does not hold the quote filled in
            with page.expect_navigation():
                access_key(page, "s")
            count.keys += 2
            count.skipped.append(key)
            continue
        quote = page.locator("#quote").input_value()
        locator = f"§{len(count.recorded) + 1}"
        page.locator("#locator:focus").wait_for()  # the page has given the locator the focus
        page.keyboard.press("Control+A")  # the locator may come prefilled from the page
        page.keyboard.type(locator)
        with page.expect_navigation():
            access_key(page, "r")
        count.keys += 2 + len(locator) + 2
        refused = page.locator("p.error").all_inner_texts()
        assert page.locator(".flash").count(), f"{key}: refused: {refused}"
        count.recorded.append(key)
        count.quotes[key] = quote


def through_queue(env: dict, n: int, way: str) -> tuple[Count, float]:
    from playwright.sync_api import sync_playwright

    serve = subprocess.Popen(
        [CLAIMS, "serve", "--port", "0", "--strict"], env=env, stdout=subprocess.PIPE, text=True
    )
    url = serve.stdout.readline().split()[2].rstrip("/")
    count = Count()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page()
            page.set_default_timeout(30_000)
            start = time.perf_counter()
            if way == "after":
                command = ["verify", "--unverified", "--strict"]
                done = claims(env, *command)
                assert done.returncode in (0, 1), done.stderr
                count.keys += len(" ".join(["claims", *command])) + 1
            page.goto(url + "/queue")
            say_who(page, count, inline=way == "after")
            try:
                if way == "after":
                    walk_after(page, n, count)
                else:
                    walk_before(page, env, n, count)
            except Exception:
                print(
                    f"{way}: stopped at {page.url} after recording {count.recorded}",
                    file=sys.stderr,
                )
                raise
            elapsed = time.perf_counter() - start
            browser.close()
    finally:
        serve.terminate()
        serve.wait(timeout=10)
    return count, elapsed


def rereads(env: dict, keys: list[str]) -> int:
    return sum(
        json.loads(claims(env, "history", key, "--format", "json").stdout)["events"][-1]["kind"]
        == "reread"
        for key in keys
    )


def checked_on_the_page(env: dict, count: Count) -> int:
    """The re-reads recorded with the quote as the queue filled it from the page's text, checked on the
    page (the event records the snapshot it was checked against)."""
    mine = 0
    for key in count.recorded:
        detail = json.loads(claims(env, "history", key, "--format", "json").stdout)["events"][-1][
            "detail"
        ]
        checked = detail.get("checked") or {}
        mine += detail.get("quote") == count.quotes.get(key) and checked.get("how") == "snapshot"
    return mine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=10)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument(
        "--before", default=BEFORE, help=f"the revision to measure as before (default {BEFORE})"
    )
    parser.add_argument(
        "--only", choices=("before", "after"), help="measure one way only (default: both)"
    )
    args = parser.parse_args()
    n = args.claims
    missing = [
        name
        for files in CORPUS_PAGES.values()
        for name in files
        if not (args.corpus / name).is_file()
    ]
    if missing:
        sys.exit(f"{args.corpus}: {', '.join(missing)} not found: give --corpus DIR")
    rows = []
    with tempfile.TemporaryDirectory() as root, LocalHTTPServer() as server:
        tmp = Path(root)
        env = prepare(tmp, args.corpus, server)
        old = tmp / "before"
        old.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", args.before, "src", "migrations", "data"],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        for label, way in ((f"before ({args.before})", "before"), ("after", "after")):
            if args.only not in (None, way):
                continue
            mine = copy(env, tmp, f"{way}.db")
            if way == "before":  # its own store, of its own data: the schema has moved on since
                mine["PYTHONPATH"] = os.pathsep.join(
                    [str(old / "src"), *filter(None, [env.get("PYTHONPATH")])]
                )
                Path(mine["CLAIMS_DB"]).unlink()
                files = tuple(old / "data" / p.name for p in BUNDLED)
                data = pointed(files, server.url("").rstrip("/"), old / "pointed")
                done = claims(mine, "import", *map(str, data))
                assert done.returncode == 0, done.stderr
            count, elapsed = through_queue(mine, n, way)
            asked = n if way == "before" else len(count.recorded)
            assert rereads(mine, count.recorded) == asked, f"{label}: a re-read is missing"
            if way == "after":
                from_page = checked_on_the_page(mine, count)
            rows.append((label, count, elapsed))
    print(
        f"clearing {n} claims of the bundled data through the strict re-read queue (pages on 127.0.0.1)"
    )
    print(f"{'':<22}{'clicks':>8}{'keystrokes':>12}{'seconds':>10}{'claims seen':>13}")
    for label, count, elapsed in rows:
        print(f"{label:<22}{count.clicks:>8}{count.keys:>12}{elapsed:>10.2f}{count.visited:>13}")
    for label, count, _ in rows:
        print(f"{label}: recorded {', '.join(count.recorded)}")
        if count.skipped:
            skipped = ", ".join(count.skipped)
            print(f"{label}: skipped {skipped} (the page does not hold the quote filled in)")
        if count.quotes:
            print(
                f"{label}: {from_page} of {len(count.recorded)} quotes filled from the page's text "
                "and checked on its snapshot"
            )


if __name__ == "__main__":
    main()
