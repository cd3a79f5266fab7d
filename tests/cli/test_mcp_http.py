"""`claims mcp --http` for a team: the server in a subprocess on 127.0.0.1, reached with the MCP SDK's
streamable HTTP client, each agent with its bearer token (`claims mcp token NAME`): the claims it adds
record the token's agent, a read-only token writes nothing, a replaced or revoked token and a request
without one get a 401, and the Host and Origin rules of `claims serve` hold."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import httpx
import pytest

from tests.conftest import SAMPLE, show_json
from tests.mcpclient import McpHttpClient

pytestmark = pytest.mark.slow  # a server process and several clients


@pytest.fixture
def team(tmp_path, claims, write_json):
    """SAMPLE on the engine under test, a settings folder of the test's own, and `cli(*args)`."""
    assert claims("import", write_json(SAMPLE)).exit_code == 0
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PYTHONPATH": os.pathsep.join(
            os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p
        ),
    }
    return env


def cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "claimsdb.cli", "mcp", "token", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def http_server(team, store):
    server = subprocess.Popen(
        [sys.executable, "-m", "claimsdb.cli", "mcp", "--http", "--port", "0", "--db", store],
        env=team,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = re.search(r"(http://\S+/mcp)", server.stderr.readline())[1]
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def token(team: dict, store: str, name: str, *more: str) -> str:
    made = cli(team, name, *more)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def test_each_agents_token_is_its_own_and_revoked_ones_are_refused(
    team, store, http_server, claims
):
    sweep = token(team, store, "sweep-9")
    reader = token(team, store, "reader-1", "--read-only")
    kept = team["XDG_CONFIG_HOME"] + "/claimsdb/mcp-tokens.json"
    assert sweep not in open(kept, encoding="utf-8").read()  # only its hash is kept
    assert os.stat(kept).st_mode & 0o077 == 0
    page = {"source": "widget-report", "locator": "§3.1", "quote": "Gadget runs 70K sandboxes"}
    with McpHttpClient(http_server, sweep) as agent:
        added = agent.call(
            "add_claim", {"subject": "Gadget", "statement": "Gadget runs 70K sandboxes.", **page}
        )
        assert not added.is_error, added.content[0].text
        key = json.loads(added.content[0].text)["key"]
    assert show_json(claims, key)["events"][0]["actor"].startswith('"sweep-9" ("probe-client"')
    with McpHttpClient(http_server, reader) as agent:
        assert "add_claim" not in [t.name for t in agent.list_tools().tools]
        said = agent.call(
            "add_claim", {"subject": "Gadget", "statement": "Gadget runs 71K sandboxes.", **page}
        )
        assert (
            said.is_error and "the token of agent 'reader-1' is read-only" in said.content[0].text
        )
        assert not agent.call("trace", {"figure": "70K sandboxes"}).is_error
    replaced = sweep
    sweep = token(team, store, "sweep-9")  # a new token for the agent ends the old one
    assert cli(team, "reader-1", "--revoke").returncode == 0
    for refused in (replaced, reader, "claims_mcp_made-up", None):
        headers = {"Authorization": f"Bearer {refused}"} if refused else {}
        answer = httpx.post(http_server, json={}, headers=headers, trust_env=False)
        assert answer.status_code == 401 and "claims mcp token NAME" in answer.text
    with McpHttpClient(http_server, sweep) as agent:
        assert not agent.call("search", {"limit": 1}).is_error
    other_host = httpx.post(
        http_server,
        json={},
        headers={"Authorization": f"Bearer {sweep}", "Host": "evil.example"},
        trust_env=False,
    )
    assert other_host.status_code == 421
    other_page = httpx.post(
        http_server,
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={
            "Authorization": f"Bearer {sweep}",
            "Origin": "http://evil.example",
            "Accept": "application/json, text/event-stream",
        },
        trust_env=False,
    )
    assert other_page.status_code == 403
