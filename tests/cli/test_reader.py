"""Who a recording command records: --by, CLAIMS_READER, the settings file or git's user.name, checked by
the one rule for names; with none, the command stops (exit 2) and the database is untouched."""

from __future__ import annotations

import json

import pytest

from claimsdb.trust import identity
from tests.cli.test_values import DATA
from tests.conftest import store_digest
from tests.names import REFUSED_PARAMS
from tests.pages import WIDGET_CONTEXT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.engine_free,
]  # refused names, every command recording a person

# Every command that records a person's act, on the claims of tests/cli/test_values.py's data set (the
# `acts` fixture adds the page the re-read quotes).
PERSONS_ACTS = {
    "reread": ("reread", "widget.context", "--yes"),
    "retag": ("retag", "widget.pretrain", "prior-note", "--reason", "the March note"),
    "withdraw": ("withdraw", "widget.pretrain", "--reason", "wrong system"),
    "supersede": ("supersede", "widget.context", "--with", "widget.pretrain", "--reason", "merged"),
    "prefer": ("prefer", "orchard.readme", "--reason", "the README measures it"),
    "deprecate": ("deprecate", "orchard.table", "--reason", "the README measures it"),
}


@pytest.fixture
def acts(claims, write_json, page) -> dict[str, tuple[str, ...]]:
    """The data set imported; each person's act on it, as its command's arguments (a re-read that
    records: its page holds the quote)."""
    assert claims("import", write_json(DATA, "acts.json")).exit_code == 0
    return {**PERSONS_ACTS, "reread": (*PERSONS_ACTS["reread"], *WIDGET_CONTEXT.flags(page))}


def last_event(claims, key: str) -> dict:
    return json.loads(claims("history", key, "--format", "json").stdout)["events"][-1]


def toml_string(text: str) -> str:
    """A TOML basic string holding exactly `text` (its control characters, quote and backslash escaped)."""
    return (
        '"'
        + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or c in '\x7f"\\' else c for c in text)
        + '"'
    )


def write_settings(text: str):
    path = identity.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("command", sorted(PERSONS_ACTS))
def test_with_nobody_named_a_persons_act_is_refused_and_changes_nothing(
    claims, store, acts, no_reader, monkeypatch, command
):
    monkeypatch.setenv("LOGNAME", "mlogin")  # never used
    monkeypatch.setenv("USER", "mlogin")
    before = store_digest(store)
    result = claims(*acts[command])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        "error: no reader's name is set, and the login name is never used: "
        'pass --by "Your Name", set CLAIMS_READER="Your Name", write reader = "Your Name" in '
        f"{no_reader / '.config' / 'claimsdb' / 'config.toml'}, or run git config --global "
        'user.name "Your Name"'
    ), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "mlogin" not in result.stderr
    assert store_digest(store) == before
    assert (
        claims(*acts[command], "--by", "Ada Lovelace").exit_code == 0
    )  # and with a name, it records


@pytest.mark.parametrize("command", sorted(PERSONS_ACTS))
def test_every_persons_act_checks_the_name(claims, store, acts, command):
    before = store_digest(store)
    result = claims(*acts[command], "--by", "\u3164")
    assert result.exit_code == 2 and result.stderr.startswith(
        "error: --by 'ㅤ': a name cannot hold U+3164 HANGUL FILLER"
    )
    assert store_digest(store) == before


@pytest.mark.parametrize("name, reason", REFUSED_PARAMS)
def test_reread_refuses_a_name_that_is_no_name(claims, store, acts, name, reason):
    before = store_digest(store)
    result = claims(*acts["reread"], "--by", name)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --by ") and reason in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert store_digest(store) == before


@pytest.mark.parametrize("name, reason", REFUSED_PARAMS)
def test_a_reader_set_on_the_machine_is_checked_too(
    claims, store, acts, no_reader, tmp_path, monkeypatch, name, reason
):
    """CLAIMS_READER, the settings file and git's user.name: each refused name is named with where it was set."""
    before = store_digest(store)
    reread = acts["reread"]
    places = []
    if (
        "\x00" not in name
    ):  # neither an environment variable nor TOML can hold NUL; every other character they can
        monkeypatch.setenv("CLAIMS_READER", name)
        places.append(("CLAIMS_READER", claims(*reread)))
        monkeypatch.delenv("CLAIMS_READER")
        path = write_settings(f"reader = {toml_string(name)}\n")
        places.append((str(path), claims(*reread)))
        path.unlink()
    if name == name.strip() and not any(
        c in name for c in '\x00\n\\"'
    ):  # what git config can hold as written
        gitconfig = tmp_path / "gitconfig"
        gitconfig.write_text(f'[user]\n\tname = "{name}"\n', encoding="utf-8")
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
        places.append(("git config user.name", claims(*reread)))
    for origin, result in places:
        if result.exit_code == 2 and "no reader's name is set" in result.stderr:
            continue  # git (or CLAIMS_READER's empty value) holds no name at all: nobody is named
        assert result.exit_code == 2, (origin, result.output)
        assert result.stderr.startswith("error: reader ") and f"(from {origin})" in result.stderr, (
            result.stderr
        )
        assert reason in result.stderr
    assert store_digest(store) == before


def test_claims_reader_names_the_reader(claims, acts, no_reader, monkeypatch):
    monkeypatch.setenv("CLAIMS_READER", "Barbara Liskov")
    assert claims(*acts["reread"]).exit_code == 0
    assert last_event(claims, "widget.context")["actor"] == "Barbara Liskov"


def test_the_settings_file_names_the_reader(claims, acts, no_reader):
    write_settings('# who re-reads on this machine\nreader = "Ada Lovelace"\n')
    result = claims(*acts["reread"], "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["event"]["actor"] == "Ada Lovelace"


def test_git_user_name_names_the_reader(claims, acts, no_reader, tmp_path, monkeypatch):
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Grace Hopper\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    result = claims(*acts["reread"], "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["event"]["actor"] == "Grace Hopper"


def test_a_settings_file_claims_cannot_read_stops_the_command(claims, store, acts, no_reader):
    before = store_digest(store)
    path = write_settings('reeder = "Ada"\n')
    result = claims(*acts["reread"])
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"error: settings file {path}: unknown setting 'reeder' (known: reader, signing_key)"
    )
    assert store_digest(store) == before


@pytest.mark.usefixtures("acts")
def test_claims_add_records_the_reader_or_the_tool_never_the_login(claims, no_reader, monkeypatch):
    """Adding vouches for nothing (the claim is agent-reported): with nobody named, the tool records it."""
    monkeypatch.setenv("LOGNAME", "root")
    added = claims(
        "add",
        "--subject",
        "Gizmo",
        "--statement",
        "Gizmo runs 12 GPUs.",
        "--source",
        "widget-report",
        "--figure",
        "12 GPUs",
        "--key",
        "gizmo.one",
    )
    assert added.exit_code == 0, added.output
    event = last_event(claims, "gizmo.one")
    assert event["actor"] == "import"
    basis = json.loads(claims("show", "gizmo.one", "--format", "json").stdout)["basis"]
    assert basis == "Recorded with claims add; nobody has re-read it."
    monkeypatch.setenv("CLAIMS_READER", "Ada Lovelace")
    claims(
        "add",
        "--subject",
        "Gizmo",
        "--statement",
        "Gizmo runs 13 GPUs.",
        "--source",
        "widget-report",
        "--key",
        "gizmo.two",
    )
    assert last_event(claims, "gizmo.two")["actor"] == "Ada Lovelace"
    refused = claims(
        "add",
        "--subject",
        "Gizmo",
        "--statement",
        "Gizmo runs 14 GPUs.",
        "--source",
        "widget-report",
        "--key",
        "gizmo.three",
        "--by",
        "\u2800",
    )
    assert refused.exit_code == 2 and refused.stderr.startswith(
        "error: --by '⠀': a name cannot hold U+2800"
    )
    assert claims("show", "gizmo.three").exit_code == 2


@pytest.mark.usefixtures("terminal")
def test_on_a_terminal_nobody_is_asked_before_a_reader_is_named(claims, store, acts, no_reader):
    before = store_digest(store)
    reread = [
        arg for arg in acts["reread"] if arg != "--yes"
    ]  # it would ask: the page holds the quote
    result = claims(*reread, input="y\n")
    assert result.exit_code == 2 and "no reader's name is set" in result.stderr
    assert "Record that you re-read" not in result.output
    assert store_digest(store) == before
