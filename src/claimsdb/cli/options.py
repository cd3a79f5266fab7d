"""Options shared by many commands, declared once. Nothing here loads the domain or the database layer."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer


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


def claim_filter(tag, trust, subject, stage, source, search, status):
    from claimsdb.errors import BadQuery
    from claimsdb.models import CLAIM_STATUSES, TRUST_LEVELS
    from claimsdb.queries import ClaimFilter

    if trust is not None and trust not in TRUST_LEVELS:
        raise BadQuery(f"--trust must be one of: {', '.join(TRUST_LEVELS)}")
    if status is not None and status not in CLAIM_STATUSES:
        raise BadQuery(f"--status must be one of: {', '.join(CLAIM_STATUSES)}")
    return ClaimFilter(
        tag=tag,
        trust=trust,
        subject=subject,
        stage=stage,
        source=source,
        search=search,
        status=status,
    )


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
