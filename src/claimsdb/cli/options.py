"""Options shared by many commands, declared once."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from claimsdb.errors import BadQuery
from claimsdb.models import CLAIM_STATUSES, TRUST_LEVELS
from claimsdb.queries import ClaimFilter


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


DbOption = Annotated[
    Optional[str],
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
    typer.Option("--format", "-f", help="table (for people), json (stable, for scripts) or csv."),
]
TagFilter = Annotated[Optional[str], typer.Option("--tag", help="Only claims with this tag.")]
TrustFilter = Annotated[
    Optional[str], typer.Option("--trust", help="Only claims whose tag has this trust: verified, secondary, unverified.")
]
SubjectFilter = Annotated[Optional[str], typer.Option("--subject", help="Subject contains this text (any case).")]
StageFilter = Annotated[Optional[str], typer.Option("--stage", help="Stage or topic equals this (any case).")]
SourceFilter = Annotated[Optional[str], typer.Option("--source", help="Only claims citing this source key.")]
SearchFilter = Annotated[Optional[str], typer.Option("--search", "-s", help="Statement contains this text (any case).")]
StatusFilter = Annotated[Optional[str], typer.Option("--status", help="active, superseded or withdrawn.")]


def claim_filter(tag, trust, subject, stage, source, search, status) -> ClaimFilter:
    if trust is not None and trust not in TRUST_LEVELS:
        raise BadQuery(f"--trust must be one of: {', '.join(TRUST_LEVELS)}")
    if status is not None and status not in CLAIM_STATUSES:
        raise BadQuery(f"--status must be one of: {', '.join(CLAIM_STATUSES)}")
    return ClaimFilter(tag=tag, trust=trust, subject=subject, stage=stage, source=source, search=search, status=status)

ActorOption = Annotated[
    Optional[str],
    typer.Option("--by", help="Who is recording this. Default: git's user.name, else the login name.", show_default=False),
]
