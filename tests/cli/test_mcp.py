"""`claims mcp` over the real protocol: the server in a subprocess (`python -m claimsdb.cli mcp`), driven by
the MCP SDK's stdio client, over the bundled data set on the engine under test. What it records is read
back with the real CLI (`claims history`, `claims export`) and the real web page.

Three servers per module (each starts in about a second): the main one (the initialize handshake, `--agent`
and `--by`), a read-only one, and one with a write cap of 2 that a client reaches on the 2026-07-28
protocol (its info in every request) with nobody named as the reader.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re

import httpx
import pytest
from jsonschema import Draft202012Validator
from markdown_it import MarkdownIt
from markupsafe import escape
from prov.model import (
    ProvAgent,
    ProvAssociation,
    ProvAttribution,
    ProvDelegation,
    ProvDocument,
    ProvGeneration,
)
from typer.testing import CliRunner

from claimsdb.cli.app import app
from claimsdb.mcp_answers import BUDGET_BYTES
from tests.cli.test_hostile_export import HTML_ATTACKS, TEX_ATTACK
from tests.conftest import DATA_FILES, store_digest
from tests.mcpclient import McpServer
from tests.test_lineage import attrs, ident, relations

TOOLS = ["trace", "show", "search", "values", "sources", "add_claim"]
AGENT = "sweep-7"
PERSON = "Ada Lovelace"
CLIENT = ("probe-client", "1.2.3")
ACTOR = f'"{AGENT}" ("probe-client" "1.2.3" over MCP) for "{PERSON}"'
PAGE = {
    "source": "https://example.org/orchard",
    "locator": "§2",
    "quote": "Orchard runs 4,096 sandboxes",
}
NOTE = "note-production-pipelines"  # a note of the bundled data: no page


def run(db: str, *args: str):
    result = CliRunner().invoke(app, [*map(str, args), "--db", db], catch_exceptions=False)
    return result


@pytest.fixture(scope="module")
def mcp_store(tmp_path_factory, stores):
    """The bundled data set, on the engine under test, shared by the module's servers."""
    folder = tmp_path_factory.mktemp("mcp")
    db = stores.new(folder)
    result = run(db, "import", *DATA_FILES)
    assert result.exit_code == 0, result.output
    yield db
    stores.drop(db)


@pytest.fixture(scope="module")
def server_env(tmp_path_factory):
    """The servers' environment: nobody's settings, no git name (the reader is named only where a test says)."""
    home = tmp_path_factory.mktemp("mcp-home")
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / "data"),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(home.parent),
        # the server runs the code under test (PYTHONPATH=src in a checkout not installed in the venv)
        "PYTHONPATH": os.pathsep.join(
            os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p
        ),
    }


@pytest.fixture(scope="module")
def server(mcp_store, server_env, tmp_path_factory):
    with McpServer(
        mcp_store,
        "--agent",
        AGENT,
        "--by",
        PERSON,
        env=server_env,
        client=CLIENT,
        folder=tmp_path_factory.mktemp("main"),
    ) as s:
        yield s


@pytest.fixture(scope="module")
def read_only(mcp_store, server_env, tmp_path_factory):
    with McpServer(
        mcp_store,
        "--read-only",
        env={**server_env, "CLAIMS_READER": PERSON},
        mode="auto",
        folder=tmp_path_factory.mktemp("read-only"),
    ) as s:
        yield s


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert (
        json.loads(result.content[0].text) == result.structured_content
    )  # the same JSON for every client
    return result.structured_content


def refused(result) -> str:
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "Traceback" not in text and text.startswith("error: "), text
    return text


def add(server, subject: str, statement: str, figures: list[str], **more):
    return server.call(
        "add_claim",
        {"subject": subject, "statement": statement, "figures": figures, **PAGE, **more},
    )


def history(db: str, key: str) -> dict:
    result = run(db, "history", key, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- what the server offers ---------------------------------------------------------------------------


@pytest.mark.slow
def test_tools_are_listed_with_closed_json_schemas(server):
    tools = {t.name: t for t in server.list_tools().tools}
    assert list(tools) == TOOLS
    for tool in tools.values():
        Draft202012Validator.check_schema(tool.input_schema)
        assert (
            tool.input_schema["type"] == "object"
            and tool.input_schema["additionalProperties"] is False
        )
        assert tool.description and tool.annotations.read_only_hint is (tool.name != "add_claim")
    add_schema = tools["add_claim"].input_schema
    assert add_schema["required"] == ["subject", "statement", "source", "locator", "quote"]
    assert not {"tag", "trust", "reread", "key", "rank"} & set(add_schema["properties"])
    checker = Draft202012Validator(add_schema)
    assert not checker.is_valid({"subject": "s", "statement": "t", **PAGE, "tag": "spot-checked"})
    assert checker.is_valid({"subject": "s", "statement": "t", "figures": ["12 GPUs"], **PAGE})
    assert tools["trace"].input_schema["required"] == ["figure"]
    assert tools["search"].input_schema["properties"]["limit"]["maximum"] == 100


def test_trace_answers_with_the_claims_json_and_near_misses(server, mcp_store):
    traced = data(server.call("trace", {"figure": "466"}))
    cli = json.loads(run(mcp_store, "trace", "466", "--format", "json").stdout)
    assert traced["total"] == cli["total"] >= 1
    assert [m["claim"]["key"] for m in traced["matches"]] == [
        m["claim"]["key"] for m in cli["matches"]
    ]
    hit = next(m for m in traced["matches"] if m["claim"]["key"] == "pipelines.obs.llama3-failures")
    assert hit["claim"]["tag"] and hit["claim"]["trust"] and hit["claim"]["sources"]
    missed = data(
        server.call("trace", {"figure": "2,048 H100"})
    )  # nothing matches: an answer, not an error
    assert missed["matches"] == [] and missed["total"] == 0
    assert {m["claim"]["key"] for m in missed["nearest"]} >= {"pipelines.deepseek-v3.pretrain"}
    said = run(mcp_store, "trace", "no number")
    assert (
        said.exit_code == 2
        and refused(server.call("trace", {"figure": "no number"})) == said.stderr.strip()
    )


def test_search_show_values_and_sources_read_as_the_commands_do(server, mcp_store):
    page = data(server.call("search", {"trust": "unverified", "subject": "kimi", "limit": 2}))
    listed = json.loads(
        run(
            mcp_store, "list", "--trust", "unverified", "--subject", "kimi", "--format", "json"
        ).stdout
    )
    assert page["total"] == len(listed) > 2 and page["next_offset"] == 2
    assert [c["key"] for c in page["claims"]] == [c["key"] for c in listed[:2]]
    assert set(page["claims"][0]) >= {"key", "subject", "statement", "figures", "tag", "trust"}
    assert page["claims"][0]["source"]["key"] == listed[0]["sources"][0]["key"]
    rest = data(
        server.call(
            "search",
            {"trust": "unverified", "subject": "kimi", "offset": 2, "limit": 100, "detail": "full"},
        )
    )
    assert rest["claims"] == listed[2:] and rest["next_offset"] is None
    shown = data(server.call("show", {"key": "rl.buffer.slime"}))
    assert shown == json.loads(run(mcp_store, "show", "rl.buffer.slime", "--format", "json").stdout)
    assert [e["kind"] for e in shown["events"]] == ["imported", "reread"]
    values = data(server.call("values", {"quantity": "kimi.checkpoint-engine.update-1t"}))
    assert [len(q["values"]) for q in values["quantities"]] == [2]
    sources = data(server.call("sources"))["sources"]
    assert {"llama3-report"} <= {s["key"] for s in sources}
    assert data(server.call("sources", {"key": "llama3-report"}))["source"]["claims"]
    assert (
        refused(server.call("show", {"key": "no.such-claim"}))
        == "error: no claim with key 'no.such-claim'"
    )
    assert refused(server.call("show", {"key": "rl.bufer.slime"})) == (
        "error: no claim with key 'rl.bufer.slime'; did you mean 'rl.buffer.slime'?"
    )
    assert "field 'trust'" in refused(server.call("search", {"trust": "trusted"}))
    assert "field 'limit'" in refused(server.call("search", {"limit": 10_000}))


def test_resources_name_each_claim_and_the_unverified_list(server, mcp_store):
    first = server.list_resources()
    uris = [r.uri for r in first.resources]
    assert (
        uris[0] == "claims://unverified" and "claims://claim/pipelines.obs.llama3-failures" in uris
    )
    assert first.next_cursor is not None
    more = server.list_resources(first.next_cursor)
    assert [r.uri for r in more.resources][0].startswith("claims://claim/") and not set(uris) & {
        r.uri for r in more.resources
    }
    templates = server.list_resource_templates().resource_templates
    assert [t.uri_template for t in templates] == ["claims://claim/{key}"]
    claim = json.loads(server.read("claims://claim/rl.buffer.slime").contents[0].text)
    assert claim["key"] == "rl.buffer.slime" and claim["events"]
    listed = json.loads(
        run(
            mcp_store, "list", "--trust", "unverified", "--status", "active", "--format", "json"
        ).stdout
    )
    uri, keys = "claims://unverified", []
    while uri is not None:  # a page at a time, each within the budget
        text = server.read(uri).contents[0].text
        unverified = json.loads(text)
        assert len(text.encode()) <= BUDGET_BYTES and unverified["total"] == len(listed)
        keys += [c["key"] for c in unverified["claims"]]
        uri = unverified["next"]
    assert keys == [c["key"] for c in listed]
    assert all(c["trust"] == "unverified" for c in unverified["claims"])


def test_every_answer_fits_an_agent_clients_budget(server):
    """A page stops at the last claim that fits 8,000 tokens (bounded as bytes), in brief by default."""

    def text(result) -> str:
        data(result)
        assert len(result.content[0].text.encode()) <= BUDGET_BYTES
        return result.content[0].text

    page = json.loads(text(server.call("search", {})))
    assert len(page["claims"]) == 20 and page["next_offset"] == 20  # the default page, whole
    assert len(text(server.call("search", {}))) < 12_000  # in brief: about a quarter of the budget
    for detail in ("compact", "full"):
        big = json.loads(text(server.call("search", {"limit": 100, "detail": detail})))
        assert big["next_offset"] == len(big["claims"]) < 100  # stopped short of the limit
    traced = json.loads(text(server.call("trace", {"figure": "8", "limit": 100, "detail": "full"})))
    assert traced["matches"] and "events" in traced["matches"][0]["claim"]
    cursor = None
    while True:
        listed = server.list_resources(cursor)
        assert len(listed.model_dump_json().encode()) <= BUDGET_BYTES
        if (cursor := listed.next_cursor) is None:
            break


# --- adding a claim -----------------------------------------------------------------------------------


def test_an_added_claim_lands_agent_reported_with_the_agent_in_its_history_and_prov(
    server, mcp_store
):
    added = data(
        add(
            server,
            "Orchard",
            "Orchard runs 4,096 sandboxes at once.",
            ["4,096 sandboxes"],
            stage="Agentic RL",
        )
    )
    key = added["key"]
    assert (added["tag"], added["trust"], added["actor"]) == ("agent-reported", "unverified", ACTOR)
    assert added["source_registered"] and added["existing"] == []
    shown = json.loads(run(mcp_store, "show", key, "--format", "json").stdout)
    assert (shown["tag"], shown["trust"], shown["stage"]) == (
        "agent-reported",
        "unverified",
        "Agentic RL",
    )
    assert [(s["url"], s["locator"], s["quote"]) for s in shown["sources"]] == [
        (PAGE["source"], PAGE["locator"], PAGE["quote"])
    ]
    traced = data(server.call("trace", {"figure": "4096 sandboxes"}))
    assert [m["claim"]["key"] for m in traced["matches"]] == [key]
    listed = data(server.call("search", {"trust": "unverified", "subject": "orchard"}))
    assert key in [c["key"] for c in listed["claims"]]

    events = history(mcp_store, key)["events"]
    assert [(e["kind"], e["actor"], e["origin"]) for e in events] == [
        ("imported", ACTOR, "claims mcp")
    ]
    assert events[0]["detail"]["agent"] == {
        "protocol": "MCP",
        "client": "probe-client",
        "client_version": "1.2.3",
        "name": AGENT,
        "on_behalf_of": PERSON,
    }
    rows = list(
        csv.DictReader(
            io.StringIO(run(mcp_store, "history", key, "--format", "csv").stdout, newline="")
        )
    )
    assert [r["actor"] for r in rows] == [ACTOR] and json.loads(rows[0]["detail"])["agent"][
        "name"
    ] == AGENT
    table = run(mcp_store, "history", key).stdout  # rich wraps the cells: each word is there
    said = 'agent: MCP client "probe-client" "1.2.3", named "sweep-7" by the server, on behalf of "Ada Lovelace"'
    assert all(word in table for word in said.split()), table

    prov = run(mcp_store, "history", key, "--format", "prov")
    doc = ProvDocument.deserialize(content=prov.stdout, format="json")
    agents = {ident(a): attrs(a) for a in doc.get_records(ProvAgent)}
    software = next(i for i, a in agents.items() if a.get("label") == ACTOR)
    assert str(agents[software]["type"]) == "prov:SoftwareAgent"
    assert (agents[software]["client"], agents[software]["client_version"]) == CLIENT
    assert (
        agents["person/ada-lovelace"]["label"] == PERSON and "agent/ai-research-agent" not in agents
    )
    assert not [
        i for i in agents if i.startswith("person/") and i != "person/ada-lovelace"
    ]  # the actor is no person
    activity = {r["entity"]: r["activity"] for r in relations(doc, ProvGeneration)}[
        f"claim/{key}/v1"
    ]
    assert (activity, software) in {
        (r["activity"], r["agent"]) for r in relations(doc, ProvAssociation)
    }
    delegations = {(r["delegate"], r["responsible"]) for r in relations(doc, ProvDelegation)}
    assert (software, "person/ada-lovelace") in delegations and (
        "tool/claimsdb-0.1.0",
        software,
    ) in delegations
    assert (f"claim/{key}/v1", software) in {
        (r["entity"], r["agent"]) for r in relations(doc, ProvAttribution)
    }

    blocked = run(mcp_store, "export", "--subject", "Orchard")
    assert (
        blocked.exit_code == 1 and key in blocked.stderr
    )  # not paper-safe until a person re-reads it


def test_a_claims_figures_are_read_from_its_statement_and_none_it_does_not_state(server, mcp_store):
    before = store_digest(mcp_store)
    said = refused(
        add(
            server, "Quince", "Quince runs 4,096 sandboxes.", ["4,096 sandboxes", "8,192 sandboxes"]
        )
    )
    assert "field 'figures[1]': '8,192 sandboxes' is not stated in the statement" in said
    assert store_digest(mcp_store) == before
    page = {**PAGE, "quote": "Quince runs 3,584 sandboxes on 448 nodes"}
    added = data(
        server.call(
            "add_claim",
            {"subject": "Quince", "statement": "Quince runs 3,584 sandboxes on 448 nodes.", **page},
        )
    )
    assert added["figures"] == ["3,584 sandboxes", "448 nodes"] and added["figures_read"]
    traced = data(server.call("trace", {"figure": "3,584 sandboxes"}))
    assert [m["claim"]["key"] for m in traced["matches"]] == [added["key"]]


def test_the_answer_names_the_claims_that_already_state_the_figure(server):
    # the bundled Llama 3 claim says 466 interruptions in a 54-day period
    added = data(
        add(
            server,
            "llama 3",
            "Llama 3 saw 470 job interruptions over 54 days.",
            ["470 interruptions", "54 days"],
        )
    )
    found = {
        (e["relation"], e["figure"], e["stored"]["raw"], e["claim"]["key"])
        for e in added["existing"]
    }
    assert ("duplicate", "54 days", "54 days", "pipelines.obs.llama3-failures") in found
    assert (
        "contradiction",
        "470 interruptions",
        "466 interruptions",
        "pipelines.obs.llama3-failures",
    ) in found
    assert (added["duplicates"], added["contradictions"]) == (1, 1)
    assert all(e["claim"]["subject"].lower() == "llama 3" for e in added["existing"])


@pytest.mark.parametrize(
    "field, value",
    [
        ("tag", "spot-checked"),
        ("trust", "verified"),
        ("tags", [{"name": "mine", "trust": "verified"}]),
        (
            "reread",
            {
                "by": PERSON,
                "at": "2026-10-01",
                "source": "llama3-report",
                "locator": "x",
                "quote": "y",
            },
        ),
        ("rank", "preferred"),
    ],
)
def test_a_call_that_would_vouch_is_refused_naming_the_field_and_writes_nothing(
    server, mcp_store, field, value
):
    before = store_digest(mcp_store)
    text = refused(add(server, "Quince", "Quince runs 12 nodes.", ["12 nodes"], **{field: value}))
    assert f"claims mcp, field '{field}': is not taken: " in text, text
    assert store_digest(mcp_store) == before


@pytest.mark.parametrize(
    "drop, message",
    [
        ("quote", "field 'quote': is required: the page's own words"),
        ("locator", "field 'locator': is required: where in the page"),
        ("source", "field 'source': is required: the page the figure was read in"),
    ],
)
def test_a_claim_without_its_page_locator_or_quote_is_refused(server, mcp_store, drop, message):
    before = store_digest(mcp_store)
    arguments = {
        "subject": "Quince",
        "statement": "Quince runs 12 nodes.",
        "figures": ["12 nodes"],
        **PAGE,
    }
    del arguments[drop]
    assert message in refused(server.call("add_claim", arguments))
    blank = refused(server.call("add_claim", {**arguments, drop: " \t"}))
    assert message.replace("is required", "must not be empty") in blank
    assert store_digest(mcp_store) == before


def test_a_note_is_not_a_page(server, mcp_store):
    before = store_digest(mcp_store)
    text = refused(add(server, "Quince", "Quince runs 12 nodes.", ["12 nodes"], source=NOTE))
    assert f"claims mcp, field 'source': '{NOTE}' is a note, not a page" in text
    assert store_digest(mcp_store) == before


def test_bad_input_gets_the_messages_claims_add_prints(server, mcp_store):
    before = store_digest(mcp_store)
    cases = [
        ({"figures": ["12..5 GPUs"]}, ["--figure", "12..5 GPUs"]),
        ({"statement": "x" * 20_001}, ["--statement", "x" * 20_001]),
        ({"stage": "two\nlines"}, ["--stage", "two\nlines"]),
        ({"source": "nowhere"}, ["--source", "nowhere"]),
    ]
    base = {"subject": "Quince", "statement": "Quince runs 12 nodes.", **PAGE}
    for change, flags in cases:
        over_mcp = refused(server.call("add_claim", {**base, **change}))
        cli = run(
            mcp_store,
            "add",
            "--subject",
            "Quince",
            "--statement",
            "Quince runs 12 nodes.",
            "--source",
            PAGE["source"],
            "--locator",
            PAGE["locator"],
            "--quote",
            PAGE["quote"],
            *flags,
        )
        assert cli.exit_code == 2
        assert (
            over_mcp.replace("claims mcp, ", "claims add, ") == cli.stderr.strip()
        )  # only the door's name differs
    assert "field 'subject': must be text, not int" in refused(
        server.call("add_claim", {**base, "subject": 7})
    )
    assert "field 'figures[0]': must be text" in refused(
        server.call("add_claim", {**base, "figures": [{"raw": "1"}]})
    )
    assert "field 'colour': unknown field" in refused(
        server.call("add_claim", {**base, "colour": "red"})
    )
    assert store_digest(mcp_store) == before


SUBJECT = "@SUM(A1) Evil & Co <b>"
HOSTILE = (
    f'{TEX_ATTACK} {HTML_ATTACKS} =HYPERLINK("http://evil.example") @SUM(A1) 50% & $x$ '
    "\u0007bell \u001b[31mred"
)


def test_a_hostile_statement_is_refused_for_its_control_characters_then_escaped_everywhere(
    server, mcp_store, tmp_path
):
    before = store_digest(mcp_store)
    assert (
        "field 'statement': holds '\\x07', a control or bidirectional-override character"
        in refused(add(server, SUBJECT, HOSTILE, ["7,777 GPUs"]))
    )
    assert store_digest(mcp_store) == before
    statement = re.sub(r"[\x00-\x1f]", "", HOSTILE) + " 7,777 GPUs"
    key = data(
        add(
            server,
            SUBJECT,
            statement,
            ["7,777 GPUs"],
            locator="<i>§1</i>",
            quote="=cmd|' /C calc'!A0",
        )
    )["key"]

    markdown = run(mcp_store, "export", "--subject", "Evil & Co", "--draft").stdout
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;" in markdown
        and "<script" not in html
        and "<img" not in html
    )
    latex = run(
        mcp_store, "export", "--subject", "Evil & Co", "--draft", "--format", "latex"
    ).stdout
    assert (
        "\\input{" not in latex and "\\textbackslash{}input" in latex and "\\write18" not in latex
    )
    cells = [
        c
        for row in csv.reader(
            io.StringIO(
                run(
                    mcp_store, "export", "--subject", "Evil & Co", "--draft", "--format", "csv"
                ).stdout,
                newline="",
            )
        )
        for c in row
    ]
    assert "'" + SUBJECT in cells and not [
        c for c in cells if c.lstrip().startswith(("=", "+", "-", "@"))
    ]
    page_dir = tmp_path / "site"
    assert (
        run(
            mcp_store,
            "export",
            "--subject",
            "Evil & Co",
            "--draft",
            "--format",
            "html",
            "-o",
            page_dir,
        ).exit_code
        == 0
    )
    exported = (page_dir / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in exported and "&lt;script&gt;alert(1)&lt;/script&gt;" in exported

    from claimsdb.web.app import Settings
    from tests.web.live import LiveServer

    with LiveServer(Settings(db=mcp_store, sources_dir=tmp_path)) as web:
        page = httpx.get(f"{web.url}/claims/{key}")
        queue = httpx.get(
            f"{web.url}/queue", params={"key": key}
        )  # unverified: waiting for a person's re-read
    assert (
        queue.status_code == 200
        and key in queue.text
        and "&lt;script&gt;alert(1)&lt;/script&gt;" in queue.text
    )
    assert "<script>alert" not in queue.text
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "<img src=x" not in page.text and str(escape(ACTOR)) in page.text


# --- the limits ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_read_only_server_lists_no_write_tool_and_refuses_one(read_only, mcp_store):
    assert [t.name for t in read_only.list_tools().tools] == TOOLS[:-1]
    before = store_digest(mcp_store)
    text = refused(add(read_only, "Quince", "Quince runs 12 nodes.", ["12 nodes"]))
    assert text == "error: this server was started read-only: add_claim records nothing here"
    assert store_digest(mcp_store) == before
    assert data(read_only.call("trace", {"figure": "466"}))["total"] >= 1


@pytest.mark.slow
def test_the_write_cap_refuses_past_its_count_over_the_new_protocol_with_nobody_named(
    mcp_store, server_env, tmp_path
):
    with McpServer(
        mcp_store,
        "--max-writes-per-minute",
        "2",
        env=server_env,
        mode="auto",
        client=("capped", "0.9"),
        folder=tmp_path,
    ) as capped:
        assert (
            capped.protocol_version == "2026-07-28"
        )  # no handshake: the client's info rides every request
        keys = [
            data(add(capped, "Plum", f"Plum runs {n} nodes.", [f"{n} nodes"]))["key"]
            for n in (10, 11)
        ]
        before = store_digest(mcp_store)
        text = refused(add(capped, "Plum", "Plum runs 12 nodes.", ["12 nodes"]))
        assert (
            "at most 2 claim(s) a minute may be added through this server" in text
            and "nothing was written" in text
        )
        assert store_digest(mcp_store) == before
        assert (
            data(capped.call("trace", {"figure": "10 nodes"}))["total"] >= 1
        )  # reads are not capped
    events = history(mcp_store, keys[0])["events"]
    assert events[0]["actor"] == '"capped" "0.9" over MCP'
    agent = events[0]["detail"]["agent"]
    assert agent["on_behalf_of"] is None and agent["on_behalf_of_note"].startswith("nobody")
    doc = ProvDocument.deserialize(
        content=run(mcp_store, "history", keys[0], "--format", "prov").stdout, format="json"
    )
    agents = {ident(a): attrs(a) for a in doc.get_records(ProvAgent)}
    software = next(i for i, a in agents.items() if a.get("label") == '"capped" "0.9" over MCP')
    assert agents[software]["on_behalf_of"].startswith("nobody named")
    assert not [i for i in agents if i.startswith("person/")]  # nobody invented
    assert "claims mcp: serving" in capped.log() and "for nobody named" in capped.log()


def test_the_command_refuses_bad_options_before_serving(tmp_path):
    missing = tmp_path / "missing.db"
    result = run(str(missing), "mcp", "--read-only")
    assert result.exit_code == 2 and f"no claims database at {missing}" in result.stderr
    result = run(str(missing), "mcp", "--agent", "sweep\u202e7")
    assert (
        result.exit_code == 2
        and "--agent 'sweep\\u202e7': a name cannot hold U+202E" in result.stderr
    )
    result = run(str(missing), "mcp", "--max-writes-per-minute", "0")
    assert result.exit_code == 2
    assert not missing.exists()
