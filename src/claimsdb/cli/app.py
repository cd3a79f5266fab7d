"""The `claims` application: names the commands, loads each only when it runs, and maps every error to
one exit code.

Nothing here imports a command module, the domain or the database layer: `claims --help` and a read
command load only what they use (tests/test_db.py checks which modules a read command loads).
"""

from __future__ import annotations

import gc
import sys

import typer

from claimsdb import __version__
from claimsdb.cli.commands import LazyGroup
from claimsdb.errors import EXIT_CODES_HELP, ExitCode

# Every command, in the order `claims --help` lists them: "module:attribute" (a function or a group).
COMMANDS = {
    "import": "claimsdb.cli.importing:import_",
    "add": "claimsdb.cli.importing:add",
    "trace": "claimsdb.cli.query:trace",
    "show": "claimsdb.cli.query:show",
    "list": "claimsdb.cli.query:list_",
    "tags": "claimsdb.cli.query:tags",
    "history": "claimsdb.cli.provenance:history",
    "reread": "claimsdb.cli.provenance:reread",
    "retag": "claimsdb.cli.provenance:retag",
    "withdraw": "claimsdb.cli.provenance:withdraw",
    "supersede": "claimsdb.cli.provenance:supersede",
    "values": "claimsdb.cli.query:values",
    "prefer": "claimsdb.cli.provenance:prefer",
    "deprecate": "claimsdb.cli.provenance:deprecate",
    "export": "claimsdb.cli.export:export",
    "verify": "claimsdb.cli.verify:verify",
    "lint": "claimsdb.cli.lint:lint",
    "serve": "claimsdb.cli.serve:serve",
    "mcp": "claimsdb.cli.mcp:app",
    "sources": "claimsdb.cli.sources:app",
    "people": "claimsdb.cli.people:app",
    "db": "claimsdb.cli.database:app",
}

# The options that set a domain error's field (errors.FieldError), where a message names it.
FLAGS = {
    "reader": "--by",
    "actor": "--by",
    "agent": "--agent",
    "source": "--source",
    "locator": "--locator",
    "quote": "--quote",
    "correct": "--correct",
    "attest": "--attest",
    "copy": "--copy",
    "note": "--note",
    "reason": "--reason",
    "path": "--path",
    "trust": "--trust",
    "status": "--status",
    "output": "-o",
    "access": "--as",
    "sign_with": "--sign-with",
    "key": "--key",
    "name": "NAME",
}


class ClaimsGroup(LazyGroup):
    """The one place where errors become a message on stderr and an exit code."""

    targets = COMMANDS

    def get_command(self, ctx, name):
        try:
            return super().get_command(ctx, name)
        finally:
            _loaded()

    def parse_args(self, ctx, args):
        # A byte that is no UTF-8 character reaches Python as a lone surrogate ("\udcff"), which no
        # database, file or terminal can take: refuse it here, once for every command and option.
        for arg in args:
            if not _is_text(arg):
                from claimsdb.errors import shown

                fail(f"error: the argument {shown(arg)} is not UTF-8 text", ExitCode.USAGE)
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # `claims list | head`: the reader has all it wanted
            end_on_closed_pipe()
        except Exception as exc:
            if _is_cli_framework_exception(exc):  # usage errors, --help, exits: Typer reports those
                raise
            message, code = describe(exc)
            fail(message, code)


def describe(exc: Exception) -> tuple[str, ExitCode]:
    """The message and exit code for an error that reached the command line."""
    from claimsdb.errors import (
        AgentCannotVouch,
        ClaimsError,
        FieldError,
        NoReader,
        RetagRaisesTrust,
        UnknownClaim,
    )

    if (
        isinstance(exc, FieldError) and exc.origin is None
    ):  # typed on the command line: name the flag
        return f"error: {exc.named(FLAGS.get(exc.field, exc.field))}", exc.exit_code
    if isinstance(
        exc, (AgentCannotVouch, RetagRaisesTrust)
    ):  # with the way a person raises the claim instead
        from claimsdb.trust.rule import with_reread

        return f"error: {with_reread(exc)}", exc.exit_code
    if isinstance(exc, UnknownClaim):  # with the closest stored keys
        return f"error: {exc.with_suggestions()}", exc.exit_code
    if isinstance(exc, NoReader):
        return "error: " + exc.told(f'pass {FLAGS["reader"]} "Your Name"'), exc.exit_code
    if isinstance(exc, ClaimsError):
        return f"error: {exc.message}", exc.exit_code
    if isinstance(exc, OSError):  # a file or folder the user named: missing, unreadable, unwritable
        where = f" {exc.filename}" if exc.filename else ""
        return f"error: cannot use{where}: {exc.strerror or exc}", ExitCode.USAGE
    if type(exc).__module__.split(".")[0] in (
        "sqlalchemy",
        "sqlite3",
        "psycopg",
    ):  # raw reads use the driver
        from claimsdb.db import describe_database_error

        return f"error: {describe_database_error(exc)}", ExitCode.USAGE
    # A bug: still no traceback for the user.
    return f"internal error: {type(exc).__name__}: {exc} (please report this)", ExitCode.INTERNAL


def _is_text(arg: str) -> bool:
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_cli_framework_exception(exc: Exception) -> bool:
    return type(exc).__module__.split(".")[0] in ("typer", "click")


def end_on_closed_pipe() -> None:
    """End quietly, as Unix tools do when the program reading their output stops (`claims list | head`):
    no message, and the exit code of a process ended by SIGPIPE (PIPE_CLOSED). Whatever the command was
    writing in the database is rolled back, as for any error."""
    from claimsdb.cli.output import PIPE_CLOSED, drop_stdout

    drop_stdout()
    sys.exit(PIPE_CLOSED)


def fail(message: str, code: int) -> None:
    from claimsdb.cli.output import err_console

    err_console.print(message, markup=False, soft_wrap=True)
    raise typer.Exit(int(code))


app = typer.Typer(
    cls=ClaimsGroup,
    help="claimsdb: every figure with where it came from and how far it was checked.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"max_content_width": 120},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"claims {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """claimsdb: every figure with where it came from and how far it was checked.

    Every command takes --db (or CLAIMS_DB); every command but serve and mcp takes --format. `claims COMMAND
    --help` shows a command's options and an example.
    """


# True while the `claims` script loads its command with the cyclic garbage collector paused.
_loading = False


def main() -> None:
    """The `claims` script: the command's modules load with the cyclic garbage collector paused, and the
    process ends without its last collections.

    The modules a command loads (SQLAlchemy, pydantic, SQLModel, the tables) make hundreds of thousands
    of objects that live until the process ends, and no garbage; Python's collector would walk them all
    again and again while they load, and again at shutdown (together about a third of a read command's
    time). So the collector waits until the command is loaded, those objects are then frozen out of its
    sight (gc.freeze) and it runs as usual for the command's own work. When the command is done, its
    database connections are closed and what is left is frozen too: Python still flushes its streams and
    runs its exit handlers, and what a collection would have freed goes with the process.
    """
    global _loading
    _loading = gc.isenabled()
    gc.disable()
    try:
        try:
            app()
        finally:
            sys.stdout.flush()  # what a command left in the buffer: a closed pipe shows here at the latest
    except BrokenPipeError:
        end_on_closed_pipe()
    except SystemExit:
        from typer._click.utils import PacifyFlushWrapper

        if isinstance(
            sys.stdout, PacifyFlushWrapper
        ):  # click met the closed pipe (`claims --help | true`)
            end_on_closed_pipe()
        raise
    finally:
        _loaded()
        if "claimsdb.db" in sys.modules:
            sys.modules["claimsdb.db"].dispose_engines()
        gc.freeze()


def _loaded() -> None:
    """The command is loaded: what loading made is frozen, and the collector resumes."""
    global _loading
    if _loading:
        _loading = False
        gc.freeze()
        gc.enable()
