"""`claims serve` as a person starts it: a real process, its printed URL, Ctrl-C; and its refusals."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app

START_S = 20


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def process(web_db, web_template):
    """`claims serve --port 0` in its own process; yields (process, URL, first line); stopped with SIGINT."""
    env = {**os.environ, "CLAIMS_DB": str(web_db), "CLAIMS_SOURCES": str(web_template.sources)}
    proc = subprocess.Popen([sys.executable, "-c", "from claimsdb.cli.app import main; main()", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("claims serve: http://127.0.0.1:"), line + proc.stderr.read()
        yield proc, line.split()[2].rstrip("/"), line
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def get(url: str, **headers) -> httpx.Response:
    deadline = time.monotonic() + START_S
    while True:
        try:
            return httpx.get(url, headers=headers, trust_env=False, timeout=10)
        except httpx.ConnectError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_serve_prints_its_url_serves_the_grid_and_stops_on_ctrl_c(process):
    proc, url, line = process
    assert "loopback clients only" in line
    page = get(url + "/")
    assert page.status_code == 200 and 'data-key="gadget.fleet"' in page.text
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 0


def test_the_server_believes_the_socket_not_x_forwarded_for(process):
    """Were forwarded headers trusted, this request would come from 203.0.113.9 and be refused; a remote
    client could as well claim 127.0.0.1."""
    _, url, _ = process
    assert get(url + "/", **{"x-forwarded-for": "203.0.113.9", "forwarded": "for=203.0.113.9"}).status_code == 200


def test_serve_refuses_what_it_cannot_do(web_db, tmp_path):
    bad = run("serve", "--allow-from", "the office", "--db", web_db)
    assert bad.exit_code == 2 and "not a network" in bad.stderr
    nameless = run("serve", "--by", "  ", "--db", web_db)
    assert nameless.exit_code == 2 and "--by" in nameless.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = run("serve", "--port", taken.getsockname()[1], "--db", web_db)
    assert busy.exit_code == 2 and "cannot listen on 127.0.0.1" in busy.stderr
    old = tmp_path / "old.db"
    from claimsdb import db

    db.upgrade(db.resolve_url(str(old)), "0001")
    stale = run("serve", "--db", old)
    assert stale.exit_code == 2 and "claims db upgrade" in stale.stderr
