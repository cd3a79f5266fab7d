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
def start(web_db, web_template):
    """start(*options): `claims serve --port 0 ...` in its own process; returns (process, URL, first line);
    stopped with SIGINT at the end of the test."""
    env = {**os.environ, "CLAIMS_DB": str(web_db), "CLAIMS_SOURCES": str(web_template.sources)}
    started = []

    def run_server(*options):
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from claimsdb.cli.app import main; main()",
                "serve",
                "--port",
                "0",
                *options,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        started.append(proc)
        line = proc.stdout.readline()
        assert line.startswith("claims serve: http://127.0.0.1:"), line + proc.stderr.read()
        return proc, line.split()[2].rstrip("/"), line

    yield run_server
    for proc in started:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stdout.close()
        proc.stderr.close()


@pytest.fixture
def process(start):
    """`claims serve --port 0` in its own process: (process, URL, first line)."""
    return start()


def get(url: str, **headers) -> httpx.Response:
    deadline = time.monotonic() + START_S
    while True:
        try:
            return httpx.get(url, headers=headers, trust_env=False, timeout=10)
        except httpx.ConnectError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.mark.slow
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
    assert (
        get(
            url + "/", **{"x-forwarded-for": "203.0.113.9", "forwarded": "for=203.0.113.9"}
        ).status_code
        == 200
    )


def test_a_public_name_is_answered_and_no_other(start):
    """--public-name wired through the command: the name given is answered (and printed), a rebound one is not."""
    proc, url, _ = start("--allow-from", "127.0.0.0/8", "--public-name", "claims.lab.example")
    port = url.rsplit(":", 1)[1]
    assert proc.stdout.readline().strip() == f"also at http://claims.lab.example:{port}/"
    assert get(url + "/", host=f"claims.lab.example:{port}").status_code == 200
    refused = get(url + "/", host=f"evil.example:{port}")
    assert refused.status_code == 421 and f"http://claims.lab.example:{port}" in refused.text


@pytest.mark.slow
def test_serve_with_networks_and_no_public_name_says_how_to_be_reached(start):
    proc, url, _ = start("--allow-from", "192.168.1.0/24")
    hint = proc.stderr.readline()
    assert hint.startswith(
        "  other machines reach it only by a name given with --public-name (this machine's LAN name "
        "or address, like --public-name "
    ), hint
    port = url.rsplit(":", 1)[1]
    answers = f"http://localhost:{port}, http://127.0.0.1:{port}, http://[::1]:{port}"
    assert hint.rstrip().endswith(f"it answers as {answers}")


@pytest.mark.parametrize(
    "name", ["evil.example/x", "http://claims.lab.example", "0.0.0.0", "claims:0", "a b", ""]
)
def test_serve_refuses_a_public_name_that_is_no_name(web_db, name):
    bad = run("serve", "--public-name", name, "--db", web_db)
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --public-name: "), bad.output
    assert len(bad.stderr.strip().splitlines()) == 1


def test_serve_refuses_what_it_cannot_do(web_db, tmp_path):
    bad = run("serve", "--allow-from", "the office", "--db", web_db)
    assert bad.exit_code == 2 and "not a network" in bad.stderr
    nameless = run("serve", "--by", "  ", "--db", web_db)
    assert nameless.exit_code == 2 and nameless.stderr.startswith(
        "error: --by '  ': a name must not be empty"
    )
    blank = run("serve", "--by", "\u3164", "--db", web_db)
    assert blank.exit_code == 2
    assert blank.stderr.startswith("error: --by 'ㅤ': a name cannot hold U+3164 HANGUL FILLER")
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
