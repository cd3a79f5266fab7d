"""The application shell: help on every command, and every command shown in the user guide."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from claimsdb.cli.app import app
from tests.conftest import DATA_FILES, REPO


def all_commands():
    import typer.main

    group = typer.main.get_command(app)
    for name in group.list_commands(None):
        cmd = group.get_command(None, name)
        if hasattr(cmd, "commands"):
            for sub_name, sub in cmd.commands.items():
                yield f"{name} {sub_name}", sub
        else:
            yield name, cmd


COMMANDS = dict(all_commands())


def guide_text() -> str:
    """The README and the docs a person writes (the command reference is generated from the help)."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    return "\n".join(p.read_text(encoding="utf-8") for p in pages if p.name != "commands.md")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_with_an_example_and_is_in_the_guide(name):
    cmd = COMMANDS[name]
    assert cmd.help and "Example: claims " in cmd.help, name
    assert f"claims {name}" in guide_text(), name


def test_commands_exist():
    assert {
        "import",
        "add",
        "trace",
        "show",
        "list",
        "sources list",
        "sources add",
        "sources show",
        "tags",
        "db upgrade",
        "db current",
        "db check",
    } <= set(COMMANDS)


def test_help_and_version_run(claims):
    assert "trace" in claims("--help", db=None).stdout
    assert claims("--version", db=None).stdout.startswith("claims ")


def help_of(name: str) -> str:
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, [*name.split(), "--help"], terminal_width=120)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_uses_the_usual_metavars_and_names_arguments_in_the_usage(name):
    text = help_of(name)
    assert not re_any(r"<(str|bool|int|float|Path|list\[.*?\])>|\{[a-z_]+\}", text), text
    usage = text.splitlines()[0]
    arguments = [p for p in COMMANDS[name].params if p.param_type_name == "argument"]
    for p in arguments:
        assert p.metavar.isupper() and p.metavar in usage, usage
    for p in COMMANDS[name].params:
        if p.param_type_name == "option" and not p.is_flag:
            assert (
                p.metavar in ("TEXT", "INTEGER", "FLOAT", "PATH")
                or p.metavar.startswith("[")
                or p.metavar.isupper()
            )


def re_any(pattern: str, text: str) -> list[str]:
    import re

    return re.findall(pattern, text)


def test_show_reads_as_a_person_would_type_it():
    text = help_of("show")
    assert text.splitlines()[0] == "Usage: root show [OPTIONS] KEY"
    assert "  --db TEXT " in text and "  -f, --format [table|json|csv] " in text
    assert "  lint " not in text
    assert "Usage: root lint [OPTIONS] FILE..." in help_of("lint")
    assert "  --port INTEGER RANGE " in help_of("serve") or "  -p, --port INTEGER" in help_of(
        "serve"
    )


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_paragraphs_are_rewrapped_never_broken_where_the_source_line_was(name):
    """Every line of a description paragraph but its last is filled to the width (120 here)."""
    text = help_of(name)
    body = text.split("\n\n", 1)[1].split("\nArguments:", 1)[0].split("\nOptions:", 1)[0]
    for paragraph in body.split("\n\n"):
        lines = paragraph.splitlines()
        for line, following in zip(lines, lines[1:]):
            assert len(line) + 1 + len(following.split()[0]) > 118, (line, following)


def test_root_help_lists_every_command_with_its_first_sentence_and_the_exit_codes():
    text = help_of("")
    for name in ("import", "trace", "export", "lint", "db", "sources"):
        assert f"\n  {name} " in text
    assert "..." not in text.split("Commands:", 1)[1]  # no first sentence cut short
    assert "Exit codes: 0 success; 1 " in text


SCRIPT = """
import gc, json, sys
from claimsdb import db, queries
from claimsdb.cli.app import main

seen = {}
real_trace = queries.trace

def trace(*args, **kwargs):  # what the command's own work sees
    seen.update(collecting=gc.isenabled(), frozen=gc.get_freeze_count())
    return real_trace(*args, **kwargs)

queries.trace = trace
sys.argv = ["claims", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    seen["exit"] = exc.code
seen["after"] = gc.isenabled()
seen["open_connections"] = sum(engine.pool.checkedin() + engine.pool.checkedout() for engine in db._ENGINES)
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_the_script_resumes_the_collector_for_the_command_and_closes_its_connections(db_path):
    env = {"CLAIMS_DB": str(db_path), "PATH": "/usr/bin:/bin"}

    def run(*args):
        return subprocess.run(
            [sys.executable, "-c", SCRIPT, *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )

    assert run("import", *map(str, DATA_FILES)).returncode == 0
    done = run("trace", "466")
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # the collector was paused only while the command loaded: its work runs with it, past the frozen modules
    assert seen["collecting"] is True and seen["frozen"] > 0
    assert seen["exit"] in (0, None) and seen["after"] is True
    assert seen["open_connections"] == 0


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["tarce", "466"],
            "No such command 'tarce'. Did you mean 'trace'?",
        ),  # a command loaded only when it runs
        (["lst"], "No such command 'lst'. Did you mean 'list'?"),
        (["db", "chek"], "No such command 'chek'. Did you mean 'check'?"),  # a group's command
        (
            ["list", "--tga", "x"],
            "No such option: --tga (Possible options: --stage, --stale, --tag)",
        ),
        (["show", "k", "--dbb", "x"], "No such option: --dbb (Possible options: --db)"),
    ],
)
def test_a_mistyped_command_or_option_suggests_the_closest_and_exits_2(claims, args, says):
    result = claims(*args, db=None)
    assert result.exit_code == 2 and says in result.stderr, result.output


def test_a_command_nothing_like_any_suggests_nothing(claims):
    result = claims("xyzzy", db=None)
    assert (
        result.exit_code == 2
        and "No such command 'xyzzy'." in result.stderr
        and "Did you mean" not in result.stderr
    )


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["list", "--format", "json"],
        ["list", "--format", "csv"],
        ["show", "widget.pretrain"],
        ["trace", "3072"],
        ["export", "--skip-unsafe"],
        ["sources"],
        ["--help"],
        ["show", "--help"],
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(store, loaded, args):
    """`claims list | head`: the reader goes away; no message, the exit code of SIGPIPE (141), as Unix tools."""
    import os

    from claimsdb.cli.output import PIPE_CLOSED

    read, write = os.pipe()
    os.close(read)  # gone before the command writes anything: its first write meets a closed pipe
    try:
        argv = [*args, "--db", store] if "--help" not in args else args
        done = subprocess.run(
            [sys.executable, "-m", "claimsdb.cli", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (PIPE_CLOSED, "")
    assert PIPE_CLOSED == 141


@pytest.mark.parametrize(
    "args",
    [["list"], ["sources", "show", "widget-report"], ["list", "--trust", "unverified"]],
)
def test_terminal_tables_never_break_a_key(store, loaded, args):
    """At a narrow terminal (80 columns) the other columns wrap; a claim's key and a tag stay whole on
    one line, so a person can copy them into the next command."""
    done = subprocess.run(
        [sys.executable, "-m", "claimsdb.cli", *args, "--db", store],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    keys = ("widget.pretrain", "widget.context", "gadget.fleet", "note-2026-10-04")
    cells = [c.strip() for line in done.stdout.splitlines() for c in line.split("│")]
    assert any(c in keys for c in cells), done.stdout  # each table shows some of them
    broken = [c for c in cells if len(c) > 2 and any(k.startswith(c) and k != c for k in keys)]
    assert broken == [], done.stdout  # the first part of a key, the rest on the next line
