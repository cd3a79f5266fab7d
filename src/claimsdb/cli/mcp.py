"""`claims mcp`: the store as a Model Context Protocol server, for AI agents (over standard input and output)."""

from __future__ import annotations

from typing import Annotated

import typer

from claimsdb.cli.commands import command, group, verbatim_example
from claimsdb.cli.options import (
    AllowFromOption,
    DbOption,
    HostOption,
    PortOption,
    PublicNameOption,
)

# 30 is mcp_tools.DEFAULT_MAX_WRITES, written out so that building the command loads nothing of the server
MaxWritesOption = Annotated[
    int,
    typer.Option(
        "--max-writes-per-minute",
        min=1,
        help="Refuse add_claim past this many claims in a minute (a tool error; nothing written).",
    ),
]


HELP = """Serve the store to AI agents over MCP (standard input and output, or HTTP), for an MCP client.

Tools: trace, show, search, values and sources read; add_claim records a claim the agent read in a page,
always agent-reported (unverified) through the agent channel, with its page, locator and quote, and
answers with the claims of the same subject that already state the figure. Resources:
claims://claim/KEY and claims://unverified. Each claim added records the agent (the client's name and
version from the protocol, and --agent) acting for the person (--by). A missing database is created by
the first claim added; until then reads say it is missing. An MCP client starts it (`claude mcp add claims
-- claims mcp --db PATH`; docs/guide/agents.md has the JSON for other clients).

With --http it listens on 127.0.0.1:8422 for a team's agents: each request carries a bearer token
made by `claims mcp token NAME`, whose agent the claims it adds record.

Example: claims mcp --db ~/review/claims.db --agent sweep-7 --by "Ada Lovelace"
"""

app = group(verbatim_example(HELP), invoke_without_command=True)


@app.callback()
def mcp(
    ctx: typer.Context,
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
    http: Annotated[
        bool,
        typer.Option(
            "--http",
            help="Serve over HTTP (the protocol's streamable HTTP, at /mcp) for a team's agents, each with a bearer token from `claims mcp token NAME`; the same clients and names as claims serve answer.",
        ),
    ] = False,
    port: PortOption = 8422,
    host: HostOption = "127.0.0.1",
    allow_from: AllowFromOption = None,
    public_names: PublicNameOption = None,
    db_: DbOption = None,
) -> None:
    """Serve the store to AI agents over MCP: the help is the group's (HELP)."""
    if ctx.invoked_subcommand is not None:
        return
    if not http and (port != 8422 or host != "127.0.0.1" or allow_from or public_names):
        from claimsdb.errors import BadQuery

        raise BadQuery("--port, --host, --allow-from and --public-name are for --http")
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
    if http:
        return _http(tools, host, port, allow_from or [], public_names or [], where, writes)
    typer.echo(
        f"claims mcp: serving {where} over standard input and output ({writes}; for "
        f"{person or 'nobody named'})",
        err=True,
    )
    from claimsdb.mcp_server import serve  # the SDK loads only now

    serve(tools)


@command(app, "token")
def token(
    name: Annotated[
        str,
        typer.Argument(
            help="The agent's name, recorded on every claim it adds.", show_default=False
        ),
    ],
    read_only: Annotated[
        bool, typer.Option("--read-only", help="A token that only reads: add_claim is refused.")
    ] = False,
    revoke: Annotated[
        bool, typer.Option("--revoke", help="End the agent's token instead of making one.")
    ] = False,
) -> None:
    """Make the bearer token an agent sends to `claims mcp --http`, printed once; only its hash is kept.

    A new token for a name ends the old one; --revoke ends it outright. The tokens live in the settings
    folder of the machine that serves ($XDG_CONFIG_HOME/claimsdb/mcp-tokens.json).

    Example: claims mcp token sweep-7 --read-only
    """
    from claimsdb import mcp_tokens
    from claimsdb.errors import BadQuery
    from claimsdb.trust import identity

    agent = identity.person_name(name, field="agent")
    if revoke:
        if read_only:
            raise BadQuery("--revoke ends a token; --read-only is for making one")
        ended = mcp_tokens.revoke(agent)
        typer.echo(f"claims mcp: ended {ended} token(s) of agent {agent!r}", err=True)
        return
    made = mcp_tokens.make(agent, read_only=read_only)
    kind = "read-only token" if read_only else "token"
    typer.echo(
        f"claims mcp: a {kind} for agent {agent!r} (kept only as its hash in "
        f"{mcp_tokens.tokens_path()}; shown once):",
        err=True,
    )
    typer.echo(made)


def _http(tools, host: str, port: int, allow_from, public_names, where: str, writes: str) -> None:
    """Serve over HTTP at /mcp, behind the guard of `claims serve` and the token gate."""
    from claimsdb import mcp_http
    from claimsdb.cli.serve import _reach, _run, listen
    from claimsdb.mcp_server import build  # the SDK loads only now

    _, access = _reach(host, allow_from, public_names)
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    typer.echo(
        f"claims mcp: serving {where} at http://{shown}:{bound}{mcp_http.PATH} ({writes}; "
        "each request with a bearer token from `claims mcp token NAME`)",
        err=True,
    )
    _run(mcp_http.app(build(tools), access, bound), sock, lifespan="on")
