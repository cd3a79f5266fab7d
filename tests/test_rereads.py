"""Thirty agent claims re-read against ten pages served on 127.0.0.1, as an agent in the author's shell
would try them with its own words: fifteen honest (quote and figure on the page), eight wrong (four whose
page states another value, four whose quote the page does not hold) and seven with a vague locator.
None of the eight is recorded without `--correct` or `--attest`; all fifteen honest ones are; the seven
vague ones are refused and flagged. On the engine under test (SQLite, or PostgreSQL in CI)."""

from __future__ import annotations

import json

import pytest

from claimsdb.locating.reread import vague_locator
from tests.httpserver import LocalHTTPServer

SYSTEMS = [
    "Aster",
    "Birch",
    "Cobalt",
    "Dune",
    "Ember",
    "Fjord",
    "Garnet",
    "Harbor",
    "Iris",
    "Juniper",
]
# Each page: a heading per section and one sentence a figure each (the page's own words).
GPUS = [512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288]
ENVS = [1200, 2400, 3600, 4800, 6000, 7200, 8400, 9600, 10800, 12000]
TOKENS = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]


def _page(i: int) -> str:
    name = SYSTEMS[i]
    return (
        f"# {name} technical report\n\n"
        f"## 2.1 Compute\n\nThe {name} model was pretrained on {GPUS[i]:,} H100 GPUs over eleven weeks.\n\n"
        f"## 3.2 Data\n\nIts pretraining corpus holds {TOKENS[i]}T tokens after deduplication.\n\n"
        f"## 4.1 Agentic RL\n\nThe rollout service keeps {ENVS[i]:,} environments running at once.\n"
    )


def _claim(i: int, kind: str, value: str, figure: str, quote: str, locator: str) -> dict:
    name = SYSTEMS[i]
    statements = {
        "gpus": f"{name} was pretrained on {figure}.",
        "tokens": f"{name}'s pretraining corpus holds {figure}.",
        "envs": f"{name} keeps {figure} running.",
    }
    return {
        "key": f"t.{name.lower()}.{kind}.{value}",
        "subject": name,
        "stage": "Pretrain",
        "statement": statements[kind],
        "tag": "agent-reported",
        "basis": "An agent's sweep.",
        "figures": [figure],
        "evidence": [{"source": f"{name.lower()}-report", "locator": locator, "quote": quote}],
    }


def _claims() -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    """(honest, changed, invented, vague) claims, as the agent reported them."""
    honest, changed, invented, vague = [], [], [], []
    for i in range(10):
        honest.append(
            _claim(i, "tokens", "ok", f"{TOKENS[i]}T tokens", f"holds {TOKENS[i]}T tokens", "§3.2")
        )
        if i < 5:
            honest.append(
                _claim(
                    i,
                    "envs",
                    "ok",
                    f"{ENVS[i]:,} environments",
                    f"keeps {ENVS[i]:,} environments running at once",
                    "§4.1",
                )
            )
        elif i < 9:  # the page says GPUS[i]; the agent doubled it
            wrong = GPUS[i] * 2
            quote = (
                f"pretrained on {GPUS[i]:,} H100 GPUs"  # the page's words, the agent's figure
                if i < 7
                else f"pretrained on {wrong:,} H100 GPUs"  # an invented quote with its own figure
            )
            changed.append(_claim(i, "gpus", "wrong", f"{wrong:,} H100", quote, "§2.1"))
    for i in range(4):  # a quote the page does not hold, a figure it never states
        invented.append(
            _claim(
                i,
                "envs",
                "invented",
                f"{ENVS[i] * 3:,} environments",
                f"{SYSTEMS[i]} scales to {ENVS[i] * 3:,} environments per region",
                "§4.1",
            )
        )
    vague_locators = ["the report", "p.", "README", "the blog post", "see above", "passim", "ibid"]
    for j, locator in enumerate(vague_locators):
        i = 3 + j
        vague.append(
            _claim(
                i,
                "envs",
                "vague",
                f"{ENVS[i]:,} environments",
                f"keeps {ENVS[i]:,} environments running at once",
                locator,
            )
        )
    return honest, changed, invented, vague


@pytest.fixture
def pages(claims, write_json):
    """The ten pages on 127.0.0.1 and the thirty claims imported, their sources pointing there."""
    with LocalHTTPServer() as server:
        for i, name in enumerate(SYSTEMS):
            server.add(
                f"/{name.lower()}.md",
                _page(i).encode(),
                content_type="text/markdown; charset=utf-8",
            )
        honest, changed, invented, vague = _claims()
        doc = {
            "sources": [
                {
                    "key": f"{name.lower()}-report",
                    "title": f"{name} technical report",
                    "kind": "report",
                    "url": server.url(f"/{name.lower()}.md"),
                }
                for name in SYSTEMS
            ],
            "claims": honest + changed + invented + vague,
        }
        assert claims("import", write_json(doc)).exit_code == 0
        yield honest, changed, invented, vague


def _reread(claims, claim: dict, *extra: str):
    cited = claim["evidence"][0]
    return claims(
        "reread",
        claim["key"],
        "--source",
        cited["source"],
        "--locator",
        cited["locator"],
        "--quote",
        cited["quote"],
        "--allow-local",
        "--yes",
        *extra,
    )


def _events(claims, key: str) -> list[str]:
    return [
        e["kind"] for e in json.loads(claims("history", key, "--format", "json").stdout)["events"]
    ]


def test_thirty_agent_claims_against_ten_pages(claims, pages):
    honest, changed, invented, vague = pages
    assert (len(honest), len(changed), len(invented), len(vague)) == (15, 4, 4, 7)

    recorded = [c["key"] for c in honest if _reread(claims, c).exit_code == 0]
    assert len(recorded) == 15

    for c in changed + invented:  # the agent's own words: refused, nothing recorded
        done = _reread(claims, c)
        assert done.exit_code == 2, done.output
        assert "nothing recorded" in done.output
        assert _events(claims, c["key"]) == ["imported"]
    for c in changed:
        said = _reread(claims, c).output
        page_value = c["key"].split(".")[1]
        assert "the page says" in said and "where the claim says" in said, (page_value, said)

    # With the page's value as the correction (and the page's own quote), each changed claim records.
    for c in changed:
        i = SYSTEMS.index(c["subject"])
        c["evidence"][0]["quote"] = f"pretrained on {GPUS[i]:,} H100 GPUs"
        done = _reread(claims, c, "--correct", f"{GPUS[i]:,} H100")
        assert done.exit_code == 0, done.output
        shown = json.loads(claims("show", c["key"], "--format", "json").stdout)
        assert [f["raw"] for f in shown["figures"]] == [f"{GPUS[i]:,} H100"]
        assert f"{GPUS[i]:,} H100" in shown["statement"]
    # A correction cannot make an invented quote true: only an attestation records it, marked so.
    for c in invented:
        i = SYSTEMS.index(c["subject"])
        assert _reread(claims, c, "--correct", f"{ENVS[i]:,} environments").exit_code == 2
        done = _reread(claims, c, "--attest", "the page is behind a login")
        assert done.exit_code == 0, done.output
        shown = json.loads(claims("show", c["key"], "--format", "json").stdout)
        assert shown["reread_check"] == "attested"

    for c in vague:
        assert vague_locator(c["evidence"][0]["locator"])  # what the queue flags
        done = _reread(claims, c)
        assert done.exit_code == 2
        assert "names no section, table, figure, page or heading" in done.output
        assert _events(claims, c["key"]) == ["imported"]

    assert claims("db", "check").exit_code == 0
    strict = claims("export", "--strict", "--skip-unsafe", "--format", "json")
    written = {row["key"] for row in json.loads(strict.stdout)["rows"]}
    assert written == set(recorded) | {c["key"] for c in changed}  # attested: not under --strict
