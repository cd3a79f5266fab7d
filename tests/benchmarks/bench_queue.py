"""Benchmark: clearing ten agent-reported claims through the re-read queue of `claims serve` (Chromium
driven by Playwright) against ten `claims reread` commands. Prints figures; asserts nothing but that
both ways recorded the same ten re-reads. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_queue.py [--claims 10]

Both ways record the same information: the page, a locator the person types ("§3"), and the sentence
holding the figure as the quote. Both see the located passage first (`claims reread` shows it and
asks; the queue shows it beside the form, quote prefilled). The CLI's keystrokes are the commands as
typed (with CLAIMS_DB set, so no --db) plus "y" and Enter to confirm; the queue's are the name typed
once on the first visit and each locator. The seconds are the machine's: each command is a real
process, each queue step a real click and page load. What a person takes to read the page is the
same for both and is not measured.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.httpserver import LocalHTTPServer  # noqa: E402

CLAIMS = str(Path(sys.executable).with_name("claims"))
CHROMIUM = os.environ.get("CLAIMS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
READER = "Ada Lovelace"


def sentence(i: int) -> str:
    return f"System {i} was trained on {1024 + i:,} GPUs for {10 + i} days."


def data(base: str, n: int) -> str:
    import json

    return json.dumps({
        "sources": [{"key": f"s{i}", "title": f"Report {i}", "kind": "report", "url": f"{base}/p{i}.html"}
                    for i in range(n)],
        "claims": [{"key": f"c{i}", "subject": f"System {i}", "stage": "Pretrain",
                    "statement": f"System {i} used {1024 + i:,} GPUs.", "tag": "agent-reported",
                    "basis": "benchmark", "figures": [f"{1024 + i:,} GPUs"],
                    "evidence": [{"source": f"s{i}", "locator": None, "quote": None}]} for i in range(n)],
    })


def claims(env: dict, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([CLAIMS, *args], env=env, input=stdin, capture_output=True, text=True, check=False)


def prepare(tmp: Path, server: LocalHTTPServer, n: int) -> dict:
    """The claims imported and verified once (a snapshot of each page), as both ways start."""
    for i in range(n):
        server.add(f"/p{i}.html", f"<html><body><h1>System {i}</h1><p>{sentence(i)} It worked.</p></body></html>"
                   .encode())
    (tmp / "data.json").write_text(data(server.url("").rstrip("/"), n), encoding="utf-8")
    env = {**os.environ, "CLAIMS_DB": str(tmp / "claims.db"), "CLAIMS_SOURCES": str(tmp / "sources"),
           "NO_PROXY": "127.0.0.1,localhost", "COLUMNS": "200", "CLAIMS_VERIFY_ALLOW_LOCAL": "1"}
    assert claims(env, "import", str(tmp / "data.json")).returncode == 0
    assert claims(env, "verify", "--all").returncode == 0
    return env


def copy(env: dict, tmp: Path, name: str) -> dict:
    shutil.copy(env["CLAIMS_DB"], tmp / name)
    return {**env, "CLAIMS_DB": str(tmp / name)}


def by_cli(env: dict, n: int) -> tuple[int, int, float]:
    keys = clicks = 0
    start = time.perf_counter()
    for i in range(n):
        argv = ["reread", f"c{i}", "--source", f"s{i}", "--locator", f"§{i + 1}", "--quote", sentence(i)]
        keys += len(shlex.join(["claims", *argv])) + 1 + 2  # the command, Enter; "y", Enter
        done = claims(env, *argv, stdin="y\n")
        assert done.returncode == 0, done.stderr
    return clicks, keys, time.perf_counter() - start


def by_queue(env: dict, n: int) -> tuple[int, int, float]:
    from playwright.sync_api import sync_playwright

    serve = subprocess.Popen([CLAIMS, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, text=True)
    url = serve.stdout.readline().split()[2].rstrip("/")
    clicks = keys = 0
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync"])
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(url + "/queue")
            page.get_by_role("link", name="Say who you are", exact=True).click()
            page.keyboard.type(READER)  # the name field has the focus
            page.get_by_role("button", name="Continue").click()
            clicks, keys = 2, len(READER)
            for i in range(n):
                assert page.locator("h2 a.key-name").inner_text() == f"c{i}"
                assert page.locator("#quote").input_value() == sentence(i)  # prefilled from the passage
                page.click("#locator")
                page.keyboard.type(f"§{i + 1}")
                page.get_by_role("button", name=f"Record re-read as {READER}").click()
                page.locator(".flash").wait_for()
                clicks, keys = clicks + 2, keys + len(f"§{i + 1}")
            elapsed = time.perf_counter() - start
            browser.close()
    finally:
        serve.terminate()
        serve.wait(timeout=10)
    return clicks, keys, elapsed


def recorded(env: dict, n: int) -> list[tuple]:
    import json

    out = []
    for i in range(n):
        event = json.loads(claims(env, "history", f"c{i}", "--format", "json").stdout)["events"][-1]
        out.append((event["kind"], event["detail"]["source"], event["detail"]["locator"], event["detail"]["quote"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=10)
    n = parser.parse_args().claims
    with tempfile.TemporaryDirectory() as root, LocalHTTPServer() as server:
        tmp = Path(root)
        env = prepare(tmp, server, n)
        cli_env, queue_env = copy(env, tmp, "cli.db"), copy(env, tmp, "queue.db")
        cli = by_cli(cli_env, n)
        queue = by_queue(queue_env, n)
        assert recorded(cli_env, n) == recorded(queue_env, n), "the two ways recorded different re-reads"
    print(f"clearing {n} agent-reported claims (same page, locator and quote recorded both ways)")
    print(f"{'':<24}{'clicks':>8}{'keystrokes':>12}{'seconds':>10}")
    print(f"{'claims reread x ' + str(n):<24}{cli[0]:>8}{cli[1]:>12}{cli[2]:>10.2f}")
    print(f"{'re-read queue':<24}{queue[0]:>8}{queue[1]:>12}{queue[2]:>10.2f}")
    print(f"per claim: CLI {cli[1] / n:.0f} keystrokes, {cli[2] / n:.2f} s; "
          f"queue {(queue[0] - 2) / n:.0f} clicks and {(queue[1] - len(READER)) / n:.0f} keystrokes, {queue[2] / n:.2f} s "
          f"(plus the name, once)")


if __name__ == "__main__":
    main()
