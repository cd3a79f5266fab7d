"""The application shell: help on every command, and help that the README mentions."""

from __future__ import annotations

import pytest

from claimsdb.cli.app import app
from tests.conftest import REPO


def all_commands():
    import typer.main

    group = typer.main.get_command(app)
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            for sub_name, sub in cmd.commands.items():
                yield f"{name} {sub_name}", sub
        else:
            yield name, cmd


COMMANDS = dict(all_commands())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_with_an_example_and_is_in_the_readme(name):
    cmd = COMMANDS[name]
    assert cmd.help and "Example: claims " in cmd.help, name
    assert f"claims {name}" in (REPO / "README.md").read_text(encoding="utf-8"), name


def test_commands_exist():
    assert {"import", "add", "trace", "show", "list", "sources list", "sources add", "sources show", "tags",
            "db upgrade", "db current", "db check"} <= set(COMMANDS)


def test_help_and_version_run(claims):
    assert "trace" in claims("--help", db=None).stdout
    assert claims("--version", db=None).stdout.startswith("claims ")
