"""Options shared by many commands, declared once. Nothing here loads the domain or the database layer."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

R = TypeVar("R")


class OutputFormat(str, Enum):
    """What every command but `export` and `serve` writes: a table for people, JSON and CSV for scripts."""

    table = "table"
    json = "json"
    csv = "csv"


class HistoryFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    prov = "prov"


DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="CLAIMS_DB",
        help="Database: a SQLite file path or a SQLAlchemy URL. Env: CLAIMS_DB. "
        "Default: the embedded SQLite file under $XDG_DATA_HOME/claimsdb (~/.local/share/claimsdb).",
        show_default=False,
    ),
]
FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        help="table (for people), json (stable, for scripts) or csv (a header, "
        "then one row per item).",
    ),
]
AnchorOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--anchor",
        help="An anchor file (`claims db anchor`): fail (exit 1) unless the history still holds "
        "its head at its position; repeatable.",
        show_default=False,
        metavar="FILE",
    ),
]
TagFilter = Annotated[str | None, typer.Option("--tag", help="Only claims with this tag.")]
TrustFilter = Annotated[
    str | None,
    typer.Option(
        "--trust", help="Only claims whose tag has this trust: verified, secondary, unverified."
    ),
]
SubjectFilter = Annotated[
    str | None, typer.Option("--subject", help="Subject contains this text (any case).")
]
StageFilter = Annotated[
    str | None, typer.Option("--stage", help="Stage or topic equals this (any case).")
]
SourceFilter = Annotated[
    str | None, typer.Option("--source", help="Only claims citing this source key.")
]
SearchFilter = Annotated[
    str | None, typer.Option("--search", "-s", help="Statement contains this text (any case).")
]
StatusFilter = Annotated[
    str | None, typer.Option("--status", help="active, superseded or withdrawn.")
]


# The claim filters (queries.ClaimFilter) as options, in the order a command's help lists them.
CLAIM_FILTERS = {
    "tag": TagFilter,
    "trust": TrustFilter,
    "subject": SubjectFilter,
    "stage": StageFilter,
    "source": SourceFilter,
    "search": SearchFilter,
    "status": StatusFilter,
}


def filtered(command: Callable[..., R]) -> Callable[..., R]:
    """A command that takes the claim filters (--tag, --trust, --subject, --stage, --source, --search,
    --status) where its signature has the parameter `filters`, and gets them as one ClaimFilter, which
    validates them (a bad --trust or --status: InvalidField, named by its flag in cli/app.py)."""
    signature = inspect.signature(command)
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name != "filters":
            parameters.append(_evaluated(parameter, command))
            continue
        parameters += [
            inspect.Parameter(name, parameter.kind, default=None, annotation=option)
            for name, option in CLAIM_FILTERS.items()
        ]

    @functools.wraps(command)
    def run(**given: Any) -> R:
        from claimsdb.queries import ClaimFilter

        chosen = ClaimFilter(**{name: given.pop(name) for name in CLAIM_FILTERS})
        return command(filters=chosen, **given)

    run.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=parameters, return_annotation=None
    )
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run


def _evaluated(parameter: inspect.Parameter, command: Callable[..., Any]) -> inspect.Parameter:
    """The parameter with its annotation evaluated (the command's module postpones them), as Typer reads
    it; only `filters`, typed for the checker alone, is left unevaluated."""
    if not isinstance(parameter.annotation, str):
        return parameter
    return parameter.replace(annotation=eval(parameter.annotation, command.__globals__))


ActorOption = Annotated[
    str | None,
    typer.Option(
        "--by",
        help="Who is recording this (a person's name). Default: CLAIMS_READER, else reader in $XDG_CONFIG_HOME/claimsdb/config.toml, else git's user.name; never the login name.",
        show_default=False,
    ),
]


def _said(reason: str | None) -> str | None:
    if reason is not None and not reason.strip():
        raise typer.BadParameter("say why: the reason is kept in the claim's history")
    return reason


ReasonOption = Annotated[
    str,
    typer.Option(
        "--reason",
        help="Why (required): kept in the claim's history.",
        show_default=False,
        callback=_said,
    ),
]
KeyArgument = Annotated[
    str, typer.Argument(help="The claim's key.", metavar="KEY", show_default=False)
]

SourcesDirOption = Annotated[
    Path | None,
    typer.Option(
        "--sources-dir",
        envvar="CLAIMS_SOURCES",
        show_default=False,
        help="Folder for the snapshots of fetched pages (kept in its snapshots/ folder). Env: CLAIMS_SOURCES. "
        "Default: the folder holding the database file; for a server database, the user's claimsdb "
        "data folder ($XDG_DATA_HOME/claimsdb).",
    ),
]


AllowLocalOption = Annotated[
    bool,
    typer.Option(
        "--allow-local",
        envvar="CLAIMS_VERIFY_ALLOW_LOCAL",
        help="Also fetch from loopback and private addresses (a local mirror, a test server). "
        "Env: CLAIMS_VERIFY_ALLOW_LOCAL=1. Link-local, multicast and reserved addresses are never fetched.",
    ),
]
LocalRootOption = Annotated[
    Path | None,
    typer.Option(
        "--local-root",
        envvar="CLAIMS_VERIFY_ROOT",
        show_default=False,
        help="Read sources' local copies (their path) only inside this folder; a relative path is taken "
        "from it. Env: CLAIMS_VERIFY_ROOT. Default: the folder holding the database file.",
    ),
]


def local_root(given: Path | None, db_: str | None) -> Path | None:
    """The folder sources' local copies must lie in (the fetch policy of `verify` and `serve`): the one
    named, else the database file's; None for a server database (no local copy is read)."""
    from claimsdb import db
    from claimsdb.errors import BadQuery

    if given is not None:
        if not given.expanduser().is_dir():
            raise BadQuery(f"--local-root {given} is not a folder")
        return given.expanduser().resolve()
    database = db.sqlite_file(db.resolve_url(db_))
    return database.parent if database is not None else None


def snapshots_root(given: Path | None, db_: str | None) -> Path:
    """The folder whose snapshots/ holds the pages' bodies: the one named, else the database's own."""
    if given is not None:
        return given.expanduser()
    from claimsdb import db

    return db.files_folder(db.resolve_url(db_))


# -- `claims export` -------------------------------------------------------------------------------


class ExportFormat(str, Enum):
    markdown = "markdown"
    csv = "csv"
    json = "json"
    latex = "latex"
    bibtex = "bibtex"
    biblatex = "biblatex"
    macros = "macros"
    quarto = "quarto"
    prov = "prov"
    html = "html"


ExportFormatOption = Annotated[
    ExportFormat,
    typer.Option(
        "--format",
        "-f",
        help="markdown, csv, json, latex, bibtex (the entries the paper-safe claims cite; biblatex: the same for biber), macros (\\claim{KEY} for LaTeX), quarto (variables), prov (W3C PROV-JSON of the claims' histories) or html (a self-contained page; -o names a folder).",
    ),
]
ExportOutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write to this file (- or none: standard output). A CSV file's manifest goes beside it, as FILE.manifest.json; on standard output, to standard error.",
    ),
]
GridOption = Annotated[
    bool,
    typer.Option(
        "--grid",
        help="Subjects by stages, like the note's stage table (markdown, csv, json and latex).",
    ),
]
ExportStrictOption = Annotated[
    bool,
    typer.Option("--strict", help="Only verified tags pass (default: verified and secondary)."),
]
SkipUnsafeOption = Annotated[
    bool,
    typer.Option("--skip-unsafe", help="Export the paper-safe claims; list the rest on stderr."),
]
CaptionOption = Annotated[
    str | None,
    typer.Option(
        "--caption",
        help="LaTeX: the table's caption (the list's is 'Figures and the sources they come from').",
    ),
]
LabelOption = Annotated[
    str | None,
    typer.Option(
        "--label",
        help=r"LaTeX: the label a paper's \ref names the table by (letters, digits, :._-).",
    ),
]
ExplainOption = Annotated[
    bool,
    typer.Option(
        "--explain",
        help="List every blocked claim (up to 200) with how to clear it; without it, the first 10.",
    ),
]
DraftOption = Annotated[
    bool,
    typer.Option(
        "--draft", help="Include every claim; mark the unsafe ones; head the output as a draft."
    ),
]
CiteNotesOption = Annotated[
    bool,
    typer.Option(
        "--cite-notes",
        help="latex, bibtex, biblatex: a claim whose only sources are notes cites them (by default a note is not a reference).",
    ),
]


# -- `claims serve` --------------------------------------------------------------------------------

PortOption = Annotated[
    int,
    typer.Option(
        "--port",
        "-p",
        min=0,
        max=65535,
        help="Port to listen on (0: any free port; the URL is printed).",
    ),
]
HostOption = Annotated[
    str,
    typer.Option("--host", help="Address to listen on. Default: 127.0.0.1, this machine only."),
]
AllowFromOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-from",
        help="Also answer clients from this network (192.168.1.0/24) or address; repeatable. Default: loopback clients only.",
        show_default=False,
    ),
]
PublicNameOption = Annotated[
    list[str] | None,
    typer.Option(
        "--public-name",
        metavar="HOST[:PORT]",
        help="Also answer to this name: the host name or address other machines use in the URL (this machine's LAN name or IP, like claims.lab.example or 192.168.1.5), at --port unless given; repeatable. Without it the server answers only as localhost, 127.0.0.1, [::1] and the --host address, so with --host 0.0.0.0 other machines need it.",
        show_default=False,
    ),
]
ServeReaderOption = Annotated[
    str | None,
    typer.Option(
        "--by",
        help="Record every re-read as this person. Default: the browser asks on the first visit (never guessed).",
        show_default=False,
    ),
]
ServeStrictOption = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Only verified tags are paper-safe (the queue then holds secondary claims too).",
    ),
]


# -- `claims lint` ---------------------------------------------------------------------------------

ManuscriptsArgument = Annotated[
    list[Path],
    typer.Argument(
        help=".tex, .md, .qmd, .html or .txt manuscripts.", metavar="FILE", show_default=False
    ),
]
LintStrictOption = Annotated[
    bool, typer.Option("--strict", help="Only verified tags pass; stale claims are errors.")
]
NotesOption = Annotated[
    bool,
    typer.Option(
        "--notes",
        help="List every untracked and every skipped figure (with why), not only their number.",
    ),
]


# -- `claims db` -----------------------------------------------------------------------------------

AnchorOutputOption = Annotated[
    Path,
    typer.Option(
        "--output", "-o", help="The anchor file to write (a paper repository commits it)."
    ),
]
CopyTargetOption = Annotated[
    str,
    typer.Option(
        "--to",
        help="The empty target: a SQLite file path or a SQLAlchemy URL.",
        show_default=False,
    ),
]
RoleArgument = Annotated[
    str,
    typer.Argument(
        help="An existing PostgreSQL role (create it with its login first).",
        metavar="ROLE",
        show_default=False,
    ),
]
AccessOption = Annotated[
    str,
    typer.Option(
        "--as",
        help="writer (import, add, re-read; never rewrite history) or reader.",
        show_default=False,
    ),
]


# -- `claims verify`: what to check, how to fetch ---------------------------------------------------


def _switch(flag: str, help: str) -> Any:
    """An on/off option of `claims verify`."""
    return Annotated[bool, typer.Option(flag, help=help)]


VerifyKeys = Annotated[
    list[str] | None, typer.Argument(help="Claim keys to check.", show_default=False)
]
CheckSourceOption = Annotated[
    str | None, typer.Option("--source", help="Check the claims that cite this source.")
]
CheckAllOption = _switch("--all", "Check every active claim's primary pages.")
UnverifiedOption = _switch(
    "--unverified",
    "Check the claims the re-read queue of `claims serve` holds: the active claims the "
    "export gate blocks (unverified tags, changed since their re-read; --strict: the strict policy's).",
)
QueueStrictOption = _switch(
    "--strict",
    "With --unverified: the queue of `claims serve --strict` (secondary tags and stale claims too).",
)
RereadsOption = _switch(
    "--rereads",
    "Check each recorded re-read (the one behind each active claim's tag) against the latest snapshot "
    "of its page; fetches nothing, records nothing.",
)
OfflineOption = _switch("--offline", "Use the latest snapshots only; fetch nothing.")
ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", min=1, max=64, help="Fetches at once.")
]
TimeoutOption = Annotated[float, typer.Option("--timeout", min=0.1, help="Seconds per fetch.")]
MaxBytesOption = Annotated[int, typer.Option("--max-bytes", min=1, help="Largest body accepted.")]
SignWithOption = Annotated[
    str | None,
    typer.Option(
        "--sign-with",
        help="Sign with this SSH key (a private key file, or a .pub whose key ssh-agent holds). "
        "Default: CLAIMS_SIGNING_KEY, else signing_key in the config file, else git's user.signingkey "
        "when git's gpg.format is ssh.",
        show_default=False,
    ),
]
