"""The tools `claims mcp` serves, called in process over a real database (tests/cli/test_mcp.py drives them
over the protocol): argument checks, the write cap on a clock of the test's own, the agent's identity, the
duplicates an added claim is answered with, the resources."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from claimsdb.errors import (
    AgentCannotVouch,
    BadQuery,
    DatabaseProblem,
    InvalidName,
    InvalidRecord,
    ReadOnly,
    TooManyWrites,
)
from claimsdb.mcp_tools import TOOLS, VOUCHING, ClaimsTools
from claimsdb.trust.agents import SoftwareAgent
from tests.conftest import SAMPLE, show_json, store_digest

PAGE = {"source": "widget-report", "locator": "§3.1", "quote": "as the report says"}
CLIENT = ("probe", "2.0")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def template(tmp_path_factory, stores):
    """SAMPLE, imported once; each test changes a copy of it (`store`)."""
    folder = tmp_path_factory.mktemp("mcp-tools")
    (folder / "sample.json").write_text(json.dumps(SAMPLE), encoding="utf-8")
    db = stores.new(folder)
    result = CliRunner().invoke(app, ["import", str(folder / "sample.json"), "--db", db])
    assert result.exit_code == 0, result.output
    yield db
    stores.drop(db)


@pytest.fixture
def store(template, stores, tmp_path):
    db = stores.copy(template, tmp_path)
    yield db
    stores.drop(db)


@pytest.fixture
def tools(store):
    return ClaimsTools(store, agent="sweep-7", person="Ada Lovelace")


def add(tools: ClaimsTools, statement: str, figures: list[str], subject: str = "Gadget", **more):
    return tools.call(
        "add_claim",
        {"subject": subject, "statement": statement, "figures": figures, **PAGE, **more},
        client=CLIENT,
    )


def test_adding_a_claim_the_store_holds_says_so_in_words_for_an_agent(tools, store):
    first = add(tools, "Gadget runs 77K sandboxes.", ["77K sandboxes"])
    before = store_digest(store)
    with pytest.raises(BadQuery) as refused:
        add(tools, "Gadget runs 77K sandboxes.", ["77K sandboxes"])
    assert refused.value.message.startswith(
        f"the store holds this claim already, as {first['key']!r}"
    )
    assert (
        "data file" not in refused.value.message and "--" not in refused.value.message
    )  # no file, no flag
    assert f'call show with {{"key": "{first["key"]}"}}' in refused.value.message  # the tool to use
    assert store_digest(store) == before


@pytest.mark.slow
@pytest.mark.parametrize("field", sorted(VOUCHING))
def test_every_vouching_field_is_refused_by_name(tools, store, field):
    before = store_digest(store)
    with pytest.raises(AgentCannotVouch) as refused:
        add(tools, "Gadget runs 70K sandboxes.", ["70K sandboxes"], **{field: "spot-checked"})
    assert refused.value.field == field and refused.value.key is None
    assert store_digest(store) == before


def test_a_reading_tool_names_an_unknown_field_and_checks_types_and_bounds(tools):
    with pytest.raises(
        InvalidRecord,
        match="field 'tag': unknown field \\(allowed: figure, limit, offset, detail\\)",
    ):
        tools.call("trace", {"figure": "466", "tag": "x"})
    with pytest.raises(InvalidRecord, match="field 'limit': must be a whole number, not bool"):
        tools.call("trace", {"figure": "466", "limit": True})
    with pytest.raises(InvalidRecord, match="field 'offset': must be 0 or more, not -1"):
        tools.call("search", {"offset": -1})
    with pytest.raises(InvalidRecord, match="field 'limit': must be a whole number, not float"):
        tools.call("search", {"limit": 2.5})
    # a whole number written as a float is that number (JSON has one kind of number)
    page = tools.call("search", {"limit": 2.0, "offset": 1.0})
    assert page["limit"] == 2 and page["offset"] == 1 and len(page["claims"]) == 2
    with pytest.raises(
        InvalidRecord, match="field 'figure': is 2,001 characters long; the most allowed is 2,000"
    ):
        tools.call("trace", {"figure": "1" * 2001})
    with pytest.raises(InvalidRecord, match="takes an object of named arguments"):
        tools.call("show", ["widget.pretrain"])
    with pytest.raises(BadQuery, match="no tool 'drop_table'"):
        tools.call("drop_table", {})


def test_the_write_cap_counts_the_last_minute_and_only_writes(store):
    clock = Clock()
    tools = ClaimsTools(store, max_writes_per_minute=2, clock=clock)
    add(tools, "Gadget runs 70K sandboxes.", ["70K sandboxes"])
    clock.now += 10
    with pytest.raises(InvalidRecord):  # refused input is no write
        add(tools, "Gadget runs 71K sandboxes.", ["71K sandboxes"], quote=None)
    add(tools, "Gadget runs 72K sandboxes.", ["72K sandboxes"])
    clock.now += 20
    before = store_digest(store)
    with pytest.raises(TooManyWrites) as capped:
        add(tools, "Gadget runs 73K sandboxes.", ["73K sandboxes"])
    assert capped.value.wait_s == pytest.approx(30) and "try again in 30 s" in capped.value.message
    assert store_digest(store) == before
    assert tools.call("trace", {"figure": "72K sandboxes"})["total"] == 1  # reads are not counted
    clock.now += 30.5  # the first write is a minute old
    assert add(tools, "Gadget runs 73K sandboxes.", ["73K sandboxes"])["tag"] == "agent-reported"


def test_read_only_lists_and_runs_no_write(store):
    tools = ClaimsTools(store, read_only=True)
    assert [t.name for t in tools.tools()] == [t.name for t in TOOLS if not t.writes]
    with pytest.raises(ReadOnly):
        add(tools, "Gadget runs 70K sandboxes.", ["70K sandboxes"])


@pytest.mark.parametrize(
    "client, version, message",
    [
        ("probe\u202e", "1", "MCP client name 'probe\\u202e': a name cannot hold U+202E"),
        ("probe", "1\n2", "MCP client version '1\\n2': a name cannot hold U+000A"),
        ("x" * 81, "1", "a name has at most 80 characters"),
        ("import", "1", "'import' is what the tool's own acts are recorded as"),
    ],
)
def test_a_client_that_names_itself_with_what_cannot_be_shown_adds_nothing(
    tools, store, client, version, message
):
    before = store_digest(store)
    with pytest.raises(InvalidName) as refused:
        tools.call(
            "add_claim",
            {"subject": "Gadget", "statement": "Gadget runs 70K sandboxes.", **PAGE},
            client=(client, version),
        )
    assert message in refused.value.message
    assert store_digest(store) == before


def test_an_unnamed_client_and_nobody_named_are_said_so(store, claims):
    tools = ClaimsTools(store)
    key = tools.call(
        "add_claim", {"subject": "Gadget", "statement": "Gadget runs 70K sandboxes.", **PAGE}
    )["key"]
    event = show_json(claims, key)["events"][0]
    assert event["actor"] == "an unnamed client over MCP"
    assert event["detail"]["agent"]["on_behalf_of"] is None
    assert SoftwareAgent.of_detail(event["detail"]).describe() == (
        "MCP client an unnamed client, on behalf of nobody named"
    )
    assert (
        SoftwareAgent.of_detail({"record": "'x'"}) is None
        and SoftwareAgent.of_detail("not a dict") is None
    )


def test_the_answer_sorts_duplicates_from_contradictions_of_the_same_subject_only(tools):
    # SAMPLE: gadget.fleet states 40–60K sandboxes (Gadget); widget.pretrain 3,072 H100 (Widget-7)
    answer = add(
        tools,
        "GADGET runs 50K sandboxes on 3,072 H100 (90K sandboxes planned).",
        ["50K sandboxes", "3,072 H100", "90K sandboxes"],
    )
    found = [(e["relation"], e["figure"], e["claim"]["key"]) for e in answer["existing"]]
    assert found == [
        ("duplicate", "50K sandboxes", "gadget.fleet"),
        ("contradiction", "90K sandboxes", "gadget.fleet"),
    ]
    other = add(tools, "Gadget runs 40 nodes.", ["40"])  # a bare number is no sandbox count
    assert other["existing"] == []
    first = add(tools, "Überlingen runs 12 nodes.", ["12 nodes"], subject="Überlingen")["key"]
    again = add(
        tools, "Überlingen runs 13 nodes.", ["13 nodes"], subject="Überlingen"
    )  # SQLite folds ASCII only
    assert [(e["relation"], e["claim"]["key"]) for e in again["existing"]] == [
        ("contradiction", first)
    ]


def test_search_pages_and_counts(tools):
    first = tools.call("search", {"limit": 2})
    assert first["total"] == 3 and [c["key"] for c in first["claims"]] == [
        "gadget.fleet",
        "widget.context",
    ]
    assert first["next_offset"] == 2
    last = tools.call("search", {"offset": 2})
    assert [c["key"] for c in last["claims"]] == ["widget.pretrain"] and last["next_offset"] is None
    assert tools.call("search", {"text": "SANDBOXES", "trust": "unverified"})["total"] == 1


def test_resources_are_the_unverified_list_then_each_claim(tools):
    page, following = tools.resources()
    assert [r.uri for r in page] == [
        "claims://unverified",
        "claims://claim/gadget.fleet",
        "claims://claim/widget.context",
        "claims://claim/widget.pretrain",
    ]
    assert following is None and tools.resources(3) == ([], None)
    assert tools.read("claims://unverified")["total"] == 1
    assert tools.read("claims://claim/widget.pretrain")["tag"] == "spot-checked"
    with pytest.raises(BadQuery, match="no resource 'file:///etc/passwd'"):
        tools.read("file:///etc/passwd")


def test_reads_of_a_missing_database_say_so_and_the_first_write_creates_it(db_path):
    tools = ClaimsTools(str(db_path))
    assert tools.open() is False
    with pytest.raises(
        DatabaseProblem,
        match=f"no claims database at {db_path} yet: the first claim added creates it",
    ):
        tools.call("trace", {"figure": "466"})
    assert not db_path.exists()
    with pytest.raises(
        InvalidRecord, match="cannot parse figure"
    ):  # a refused first claim makes no store
        tools.call(
            "add_claim",
            {
                "subject": "Orchard",
                "statement": "Orchard runs 12 nodes.",
                "figures": ["zz"],
                "source": "https://example.org/orchard",
                "locator": "§1",
                "quote": "12 nodes",
            },
        )
    assert not db_path.exists() and tools.open() is False
    added = tools.call(
        "add_claim",
        {
            "subject": "Orchard",
            "statement": "Orchard runs 12 nodes.",
            "figures": ["12 nodes"],
            "source": "https://example.org/orchard",
            "locator": "§1",
            "quote": "12 nodes",
        },
    )
    assert db_path.exists() and tools.call("show", {"key": added["key"]})["trust"] == "unverified"


# The actor line an agent's event records, as a reader parses it: every name from the other end of the
# pipe (and the server's --agent and --by) is a JSON string, so none can close its quotes and go on as if
# it were the line's own words ("X) for Y (" once made a line read as acting for Y).
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_ACTOR_LINE = re.compile(
    rf"(?:(?P<name>{_QUOTED}) \()?(?:(?P<client>{_QUOTED})(?: (?P<version>{_QUOTED}))?"
    rf"|(?P<unnamed>an unnamed client)) over MCP(?(name)\))(?: for (?P<person>{_QUOTED}))?"
)


def parsed_actor(line: str) -> tuple[str | None, ...]:
    found = _ACTOR_LINE.fullmatch(line)
    assert found, line
    return tuple(
        json.loads(found[k]) if found[k] else None for k in ("name", "client", "version", "person")
    )


@pytest.mark.parametrize(
    "client, version, agent, person",
    [
        ("X) for Y (", "1", "sweep-7", "Ada Lovelace"),
        ("claude-code", "2.1.0 over MCP) for Eve (", "sweep-7", "Ada Lovelace"),
        ('x" over MCP) for "Eve', '1" "2', 'a "quoted" name', 'Ada \\ "Lovelace"'),
        ("X) for Y (", "", None, None),
        ("probe", "1", None, "X) for Y ("),
    ],
)
def test_the_actor_line_quotes_every_name_so_none_forges_another(
    store, claims, client, version, agent, person
):
    tools = ClaimsTools(store, agent=agent, person=person)
    key = tools.call(
        "add_claim",
        {"subject": "Gadget", "statement": "Gadget runs 70K sandboxes.", **PAGE},
        client=(client, version),
    )["key"]
    event = show_json(claims, key)["events"][0]
    assert parsed_actor(event["actor"]) == (agent, client, version or None, person)
    said = SoftwareAgent.of_detail(event["detail"]).describe()
    assert said.endswith(
        f"on behalf of {json.dumps(person, ensure_ascii=False)}"
        if person
        else "on behalf of nobody named"
    )


def test_an_agents_actor_line_quotes_its_names_and_the_history_still_checks(store, claims):
    """The line's own words stay unquoted; events recorded before names were quoted keep their words (the
    line is in the chain's hash, and nothing decides on its wording)."""
    tools = ClaimsTools(store, agent="sweep-7", person="Ada Lovelace")
    key = add(tools, "Gadget runs 70K sandboxes.", ["70K sandboxes"])["key"]
    assert show_json(claims, key)["events"][0]["actor"] == (
        '"sweep-7" ("probe" "2.0" over MCP) for "Ada Lovelace"'
    )
    assert claims("db", "check").exit_code == 0


@pytest.mark.parametrize("first", ["2,048 GPUs", "4,096 GPUs"])
def test_two_contradicting_agent_claims_are_both_marked_whichever_came_first(tools, claims, first):
    second = "4,096 GPUs" if first == "2,048 GPUs" else "2,048 GPUs"
    older = add(tools, f"Zeta trained on {first}.", [first], subject="Zeta")["key"]
    newer = add(tools, f"Zeta trained on {second}.", [second], subject="zeta")
    assert newer["contradictions"] == 1
    for key, other, says in ((older, newer["key"], second), (newer["key"], older, first)):
        shown = tools.call("show", {"key": key})
        assert shown["contradicted"] and shown["disputes"] == [
            {
                "relation": "contradiction",
                "figure": first if key == older else second,
                "other": other,
                "other_figure": says,
                "other_tag": "agent-reported",
                "says": f"another agent claim says {says}: {other}",
            }
        ]
    events = tools.call("show", {"key": older})["events"]
    assert [e["kind"] for e in events] == ["imported"]  # derived when read: nothing written on it
    said = claims("show", older).stdout  # the command line says it too
    assert f"contradicted: another agent claim says {second}: {newer['key']}" in said


def test_evidence_is_labelled_by_the_channel_it_came_through(tools, claims):
    key = add(tools, "Gadget runs 70K sandboxes.", ["70K sandboxes"])["key"]
    added = claims(
        "add", "--subject", "Gadget", "--statement", "Gadget runs 71K sandboxes.",
        "--source", "widget-report", "--format", "json",
    )  # fmt: skip
    shown = json.loads(claims("sources", "show", "widget-report", "--format", "json").stdout)
    by = {c["key"]: c["added_by"] for c in shown["claims"]}
    assert by[key] == "MCP agent" and by[json.loads(added.stdout)["key"]] == "claims add"
    assert by["widget.pretrain"] == "data file"
