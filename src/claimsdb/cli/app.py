"""The `claims` application: wires the command modules and maps every error to one exit code."""

from __future__ import annotations

import typer
from sqlalchemy.exc import SQLAlchemyError
from typer.core import TyperGroup

from claimsdb import __version__
from claimsdb.cli import database, export, importing, lint, provenance, query, sources, verify
from claimsdb.cli.output import err_console
from claimsdb.errors import ClaimsError, ExitCode


class ClaimsGroup(TyperGroup):
    """The one place where domain errors become a message on stderr and an exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ClaimsError as exc:
            fail(f"error: {exc.message}", exc.exit_code)
        except SQLAlchemyError as exc:
            reason = getattr(exc, "orig", None) or exc
            fail(f"error: database: {reason}", ExitCode.USAGE)
        except Exception as exc:
            if _is_cli_framework_exception(exc):  # usage errors, --help, exits: Typer reports those
                raise
            # A bug: still no traceback for the user.
            fail(f"internal error: {type(exc).__name__}: {exc} (please report this)", ExitCode.INTERNAL)


def _is_cli_framework_exception(exc: Exception) -> bool:
    return type(exc).__module__.split(".")[0] in ("typer", "click")


def fail(message: str, code: int) -> None:
    err_console.print(message, markup=False, soft_wrap=True)
    raise typer.Exit(int(code))


app = typer.Typer(
    cls=ClaimsGroup,
    help="claimsdb: every figure with where it came from and how far it was checked.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"claims {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """claimsdb: every figure with where it came from and how far it was checked."""


app.command("import")(importing.import_)
app.command("add")(importing.add)
app.command("trace")(query.trace)
app.command("show")(query.show)
app.command("list")(query.list_)
app.add_typer(sources.app, name="sources")
app.command("tags")(query.tags)
app.command("history")(provenance.history)
app.command("reread")(provenance.reread)
app.command("retag")(provenance.retag)
app.command("withdraw")(provenance.withdraw)
app.command("supersede")(provenance.supersede)
app.command("values")(query.values)
app.command("prefer")(provenance.prefer)
app.command("deprecate")(provenance.deprecate)
app.command("export")(export.export)
app.command("verify")(verify.verify)
app.command("lint")(lint.lint)
app.add_typer(database.app, name="db")


def main() -> None:
    app()
