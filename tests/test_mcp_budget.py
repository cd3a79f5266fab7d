"""Every answer `claims mcp` gives fits the budget an agent client can take (mcp_answers.BUDGET_BYTES,
8,000 tokens), on a generated store of 10,000 claims as long as the records allow: every page stops at
the last claim that fits and the next page resumes there, a claim too long for a page is given in brief,
and one claim's answer keeps its latest events; in process, then over the protocol (`claims mcp` driven by
the SDK's client). tests/cli/test_mcp.py checks the bundled data over the protocol."""

from __future__ import annotations

import json
import os
from dataclasses import asdict

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from claimsdb.mcp_answers import BUDGET_BYTES, as_text
from claimsdb.mcp_tools import ClaimsTools
from tests.mcpclient import McpServer

CLAIMS = 10_000
LONG = "ü" * 6_000  # two bytes a character: text as long as it gets, in bytes


def generated(n: int) -> dict:
    """n claims of 50 subjects, each stating 2,048 GPUs with long words and quotes; one in 100 as long
    as the records allow (a statement of 19,000 characters, 100 figures, 40 evidence rows)."""
    sources = [
        {
            "key": f"page-{i}",
            "title": f"Page {i}",
            "kind": "docs",
            "url": f"https://example.org/{i}",
        }
        for i in range(40)
    ]
    claims = []
    for i in range(n):
        huge = i % 100 == 0
        figures = ["2,048 GPUs"] + ([f"{k + 1} nodes" for k in range(99)] if huge else [])
        words = " ".join(figures)
        statement = f"Model-{i % 50} ran on {words}. " + (LONG * 3 if huge else LONG[:400])
        claims.append(
            {
                "key": f"gen.{i:05d}",
                "subject": f"Model-{i % 50}",
                "statement": statement,
                "tag": "agent-reported",
                "basis": "Generated.",
                "figures": figures,
                "evidence": [
                    {"source": f"page-{k}", "locator": f"§{k}", "quote": "2,048 GPUs " + LONG}
                    for k in range(40 if huge else 2)
                ],
            }
        )
    return {"sources": sources, "claims": claims}


@pytest.fixture(scope="module")
def big(tmp_path_factory, stores):
    folder = tmp_path_factory.mktemp("mcp-budget")
    (folder / "big.json").write_text(json.dumps(generated(CLAIMS)), encoding="utf-8")
    db = stores.new(folder)
    result = CliRunner().invoke(app, ["import", str(folder / "big.json"), "--db", db])
    assert result.exit_code == 0, result.output
    yield ClaimsTools(db)
    stores.drop(db)


def fits(answer) -> dict:
    assert len(as_text(answer).encode("utf-8")) <= BUDGET_BYTES
    return answer


@pytest.mark.slow
def test_every_answer_fits_the_budget_on_ten_thousand_long_claims(big):
    default = fits(big.call("search", {}))
    assert default["total"] == CLAIMS and 0 < len(default["claims"]) <= 20
    assert default["claims"][0]["key"] == "gen.00000"  # as long as the records allow, in brief
    assert default["claims"][0]["statement"].endswith("…")
    resumed = fits(big.call("search", {"offset": default["next_offset"]}))
    assert resumed["claims"][0]["key"] == f"gen.{default['next_offset']:05d}"
    for detail in ("compact", "full"):
        page = fits(big.call("search", {"limit": 100, "detail": detail}))
        assert page["next_offset"] == len(page["claims"]) >= 1
        traced = fits(big.call("trace", {"figure": "2,048 GPUs", "limit": 100, "detail": detail}))
        assert traced["total"] == CLAIMS and traced["next_offset"] == len(traced["matches"]) >= 1
    whole = fits(big.call("search", {"limit": 1, "detail": "full"}))["claims"][0]
    assert whole["left_out"] == "too long for a page: show 'gen.00000'"
    shown = fits(big.call("show", {"key": "gen.00000"}))
    assert shown["key"] == "gen.00000" and shown["cut"]
    unverified = fits(big.read("claims://unverified"))
    assert unverified["total"] == CLAIMS and unverified["next"].startswith("claims://unverified?")
    fits(big.read(unverified["next"]))
    fits(big.read("claims://claim/gen.00000"))
    page, following = big.resources()
    fits([asdict(r) for r in page])
    assert following == len(page) - 1  # the unverified list comes first


@pytest.mark.slow
def test_every_answer_over_the_protocol_fits_the_budget_on_ten_thousand_claims(big, tmp_path):
    env = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / ".config"),
        "PYTHONPATH": os.pathsep.join(
            os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p
        ),
    }

    def text(result) -> dict:
        assert not result.is_error, result.content[0].text
        assert len(result.content[0].text.encode("utf-8")) <= BUDGET_BYTES
        return json.loads(result.content[0].text)

    with McpServer(big.db, "--read-only", env=env, folder=tmp_path) as server:
        assert text(server.call("search", {}))["total"] == CLAIMS
        for detail in ("compact", "full"):
            text(server.call("search", {"limit": 100, "detail": detail}))
            text(server.call("trace", {"figure": "2,048 GPUs", "limit": 100, "detail": detail}))
        text(server.call("show", {"key": "gen.00000"}))
        unverified = server.read("claims://unverified").contents[0].text
        assert len(unverified.encode("utf-8")) <= BUDGET_BYTES
        listed = server.list_resources()
        assert len(listed.model_dump_json().encode("utf-8")) <= BUDGET_BYTES
        assert listed.next_cursor is not None
