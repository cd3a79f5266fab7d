"""An address with user information (`https://user:password@host/`) is refused at every door: `claims
sources add`, a data file, `claims add` and MCP's add_claim (exit 2 or a tool error, the store
unchanged, the password never printed), and `claims verify` sends no request to a redirect that names
one."""

from __future__ import annotations

import json

import pytest

from claimsdb.errors import InvalidField
from claimsdb.mcp_tools import ClaimsTools
from tests.conftest import store_digest
from tests.httpserver import LocalHTTPServer

SECRET = "s3cret-pass"
URL = f"https://ada:{SECRET}@example.org/report"


@pytest.mark.usefixtures("loaded")
def test_every_door_refuses_an_address_with_user_information(claims, store, write_json):
    before = store_digest(store)
    added = claims("sources", "add", "private", "--url", URL, "--kind", "report")
    doc = {"sources": [{"key": "private", "title": "P", "kind": "report", "url": URL}]}
    imported = claims("import", write_json(doc))
    argv = ["--subject", "Orchard", "--statement", "Orchard runs 12 nodes.", "--source", URL]
    by_option = claims("add", *argv)
    for result in (added, imported, by_option):
        assert result.exit_code == 2, result.output
        assert "URL holds user information" in result.stderr and SECRET not in result.stderr
        assert "https://…@example.org/report" in result.stderr
    page = {"source": URL, "locator": "§1", "quote": "12 nodes"}
    with pytest.raises(InvalidField) as refused:
        ClaimsTools(store).call(
            "add_claim", {"subject": "Orchard", "statement": "Orchard runs 12 nodes.", **page}
        )
    assert "URL holds user information" in refused.value.message
    assert SECRET not in refused.value.message
    assert store_digest(store) == before


@pytest.mark.slow
def test_verify_follows_no_redirect_to_an_address_with_user_information(
    claims, write_json, tmp_path, monkeypatch
):
    monkeypatch.setenv("CLAIMS_VERIFY_ALLOW_LOCAL", "1")
    with LocalHTTPServer() as server:
        server.redirect("/moved", f"http://ada:{SECRET}@127.0.0.1:{server.port}/page")
        doc = {
            "sources": [{"key": "s", "title": "S", "kind": "report", "url": server.url("/moved")}],
            "claims": [
                {
                    "key": "c.one",
                    "subject": "Orchard",
                    "statement": "Orchard runs 12 nodes.",
                    "tag": "agent-reported",
                    "basis": "test",
                    "figures": ["12 nodes"],
                    "evidence": [{"source": "s", "locator": "§1", "quote": "12 nodes"}],
                }
            ],
        }
        assert claims("import", write_json(doc)).exit_code == 0
        result = claims("verify", "--all", "--sources-dir", tmp_path / "snap", "--format", "json")
        requested = list(server.requests)
    assert result.exit_code == 1
    (checked,) = json.loads(result.stdout)["results"]
    assert checked["outcome"] == "unreachable" and "URL holds user information" in checked["error"]
    assert SECRET not in result.stdout and [r.path for r in requested] == ["/moved"]
