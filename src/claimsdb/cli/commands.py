"""How every command is built: plain help with the usual metavars, and commands loaded only when run.

Help is click's plain formatter (no rich panels: `claims --help` stays as light as the stack allows, and a
docstring's paragraphs are rewrapped to the terminal instead of breaking where the source line did).
Options show TEXT, INTEGER, FLOAT, PATH or their choices; flags show nothing; arguments show their
name (KEY, FILE...), also in the usage line.
"""

from __future__ import annotations

import importlib
import inspect
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

import typer
import typer.main
from typer._click.exceptions import UsageError
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

METAVARS = {str: "TEXT", int: "INTEGER", float: "FLOAT", Path: "PATH"}
SHORT_HELP = 160  # characters of a command's first sentence that `claims --help` shows


def metavar(param: TyperOption | TyperArgument) -> str:
    """Typer's usual metavar for a parameter: TEXT, INTEGER, PATH, [a|b|c]; nothing for a flag."""
    if isinstance(param, TyperArgument):
        return param.name.upper()
    if param.is_flag or param.count:
        return ""
    described = param.type_descriptor
    if described.is_choice:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in described.choices or ()) + "]"
    annotation = described.annotation
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "[" + "|".join(str(m.value) for m in annotation) + "]"
    return METAVARS.get(annotation, "TEXT")


def verbatim_example(help: str) -> str:
    """Paragraphs are rewrapped to the terminal, but the example is a command to copy: kept as written."""
    return help.replace("\n\nExample: ", "\n\n\b\nExample: ")


def _argument_name(param: TyperArgument) -> str:
    return param.metavar + ("..." if param.nargs != 1 else "")


class ClaimsCommand(TyperCommand):
    """A command whose help reads as click's: `claims show [OPTIONS] KEY`, `--db TEXT`, `--strict`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["rich_markup_mode"] = None
        if kwargs.get("help"):
            kwargs["help"] = verbatim_example(kwargs["help"])
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.metavar is None:
                param.metavar = metavar(param)

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: typer.Context, formatter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if isinstance(param, TyperArgument):
                arguments.append((_argument_name(param), record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def group(help: str, **kwargs: Any) -> typer.Typer:
    """A command group (`claims sources`, `claims db`) whose commands are ClaimsCommands."""
    return typer.Typer(help=help, rich_markup_mode=None, add_completion=False, **kwargs)


def command(app: typer.Typer, name: str):
    """Register a function as a command of a group, built as a ClaimsCommand."""
    return app.command(name, cls=ClaimsCommand)


class LazyGroup(TyperGroup):
    """A group that imports a command's module only when that command runs (or its help is shown).

    `targets` maps each command name to "module:attribute", a function or a group (typer.Typer).
    """

    targets: dict[str, str] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["rich_markup_mode"] = None
        super().__init__(*args, **kwargs)
        self._built: dict[str, Any] = {}

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return list(self.targets)

    def get_command(self, ctx: typer.Context, name: str):
        if name not in self.targets:
            return None
        if name not in self._built:
            self._built[name] = build(name, load(self.targets[name]))
        return self._built[name]

    def resolve_command(self, ctx: typer.Context, args: list[str]):
        """An unknown command suggests the closest names (`claims tarce`: did you mean 'trace'?), as a
        TyperGroup does for the commands it holds (a lazy group holds them only once they are built)."""
        try:
            return super().resolve_command(ctx, args)
        except UsageError as exc:
            from difflib import get_close_matches

            if (
                not args
                or args[0].startswith("-")
                or not (close := get_close_matches(args[0], self.targets))
            ):
                raise
            exc.message = (
                f"No such command {args[0]!r}. Did you mean {', '.join(repr(c) for c in close)}?"
            )
            raise

    def format_commands(self, ctx: typer.Context, formatter) -> None:
        """The command list from the docstrings alone (no command is built to list it): each command's
        first sentence, whole."""
        rows = [
            (name, short_help(load(target), SHORT_HELP)) for name, target in self.targets.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def load(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def build(name: str, target: Any):
    """The click command for a function or a Typer group."""
    if isinstance(target, typer.Typer):
        built = typer.main.get_group(target)
    else:
        single = typer.Typer(rich_markup_mode=None, add_completion=False)
        single.command(name, cls=ClaimsCommand)(target)
        built = typer.main.get_command(single)
    built.name = name
    return built


def short_help(target: Any, limit: int) -> str:
    from typer._click.utils import make_default_short_help

    text = target.info.help if isinstance(target, typer.Typer) else inspect.getdoc(target)
    return make_default_short_help(text or "", limit)
