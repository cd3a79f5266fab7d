"""`claims mcp`: the store as a Model Context Protocol server, for AI agents (over standard input and output)."""

from __future__ import annotations

from typing import Annotated

import typer

from claimsdb.cli.options import DbOption

# 30 is mcp_tools.DEFAULT_MAX_WRITES, written out so that building the command loads nothing of the server
MaxWritesOption = Annotated[
    int,
    typer.Option(
        "--max-writes-per-minute",
        min=1,
        help="Refuse add_claim past this many claims in a minute (a tool error; nothing written).",
    ),
]


def mcp(
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help='A name for the agent, recorded with the client\'s own name and version on every claim it adds ("sweep-7").',
            show_default=False,
        ),
    ] = None,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only",
            help="Offer the reading tools only: add_claim is not listed, and refused if called.",
        ),
    ] = False,
    max_writes: MaxWritesOption = 30,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="The person the agent acts for, recorded with each claim it adds. Default: CLAIMS_READER, else reader in $XDG_CONFIG_HOME/claimsdb/config.toml, else git's user.name; with none, the record says nobody was named.",
            show_default=False,
        ),
    ] = None,
    db_: DbOption = None,
) -> None:
    """Serve the store to AI agents over MCP (standard input and output), for an MCP client to start.

    Tools: trace, show, search, values and sources read; add_claim records a claim the agent read in a page,
    always agent-reported (unverified) through the agent channel, with its page, locator and quote, and
    answers with the claims of the same subject that already state the figure. Resources:
    claims://claim/KEY and claims://unverified. Each claim added records the agent (the client's name and
    version from the protocol, and --agent) acting for the person (--by). A missing database is created by
    the first claim added; until then reads say it is missing. An MCP client starts it (`claude mcp add claims
    -- claims mcp --db PATH`; docs/guide/agents.md has the JSON for other clients).

    Example: claims mcp --db ~/review/claims.db --agent sweep-7 --by "Ada Lovelace"
    """
    from claimsdb import db
    from claimsdb.errors import DatabaseProblem
    from claimsdb.mcp_tools import ClaimsTools
    from claimsdb.trust import identity

    # Nobody vouches by adding (the claims are unverified), so with no person named the record says so.
    person = (
        identity.person_name(by, field="actor") if by is not None else identity.configured_reader()
    )
    name = identity.person_name(agent, field="agent") if agent is not None else None
    tools = ClaimsTools(
        db_, agent=name, person=person, read_only=read_only, max_writes_per_minute=max_writes
    )
    where = db.describe_url(db.resolve_url(db_))
    if not tools.open():
        if read_only:  # nothing to read, and nothing will ever be written: a mistyped --db
            raise DatabaseProblem(db.missing_database(db.resolve_url(db_)))
        typer.echo(
            f"claims mcp: no database at {where} yet: the first claim added creates it", err=True
        )
    writes = (
        "read-only"
        if read_only
        else f"at most {max_writes} claim(s) added a minute, each agent-reported"
    )
    typer.echo(
        f"claims mcp: serving {where} over standard input and output ({writes}; for "
        f"{person or 'nobody named'})",
        err=True,
    )
    from claimsdb.mcp_server import serve  # the SDK loads only now

    serve(tools)
