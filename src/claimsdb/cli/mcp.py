"""`claims mcp`: the store as a Model Context Protocol server, for AI agents (over standard input and output)."""

from __future__ import annotations

from typing import Annotated

import typer

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
    http: Annotated[
        bool,
        typer.Option(
            "--http",
            help="Serve over HTTP (the protocol's streamable HTTP, at /mcp) for a team's agents, each with a bearer token from --token; the same clients and names as claims serve answer.",
        ),
    ] = False,
    port: PortOption = 8422,
    host: HostOption = "127.0.0.1",
    allow_from: AllowFromOption = None,
    public_names: PublicNameOption = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            metavar="NAME",
            help="Make a bearer token for the agent NAME (with --read-only: one that only reads), print it once and exit; it replaces the agent's old token, and only its hash is kept.",
            show_default=False,
        ),
    ] = None,
    revoke: Annotated[
        str | None,
        typer.Option(
            "--revoke",
            metavar="NAME",
            help="End the bearer token of the agent NAME, and exit.",
            show_default=False,
        ),
    ] = None,
    db_: DbOption = None,
) -> None:
    """Serve the store to AI agents over MCP (standard input and output, or HTTP), for an MCP client.

    Tools: trace, show, search, values and sources read; add_claim records a claim the agent read in a page,
    always agent-reported (unverified) through the agent channel, with its page, locator and quote, and
    answers with the claims of the same subject that already state the figure. Resources:
    claims://claim/KEY and claims://unverified. Each claim added records the agent (the client's name and
    version from the protocol, and --agent) acting for the person (--by). A missing database is created by
    the first claim added; until then reads say it is missing. An MCP client starts it (`claude mcp add claims
    -- claims mcp --db PATH`; docs/guide/agents.md has the JSON for other clients).

    With --http it listens on 127.0.0.1:8422 for a team's agents: each request carries a bearer token
    made by `claims mcp --token NAME`, whose agent the claims it adds record.

    Example: claims mcp --db ~/review/claims.db --agent sweep-7 --by "Ada Lovelace"
    """
    if token is not None or revoke is not None:
        return _tokens(token, revoke, read_only)
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


def _tokens(make: str | None, revoke: str | None, read_only: bool) -> None:
    """`--token NAME` / `--revoke NAME`: the token file, changed; the new token printed once."""
    from claimsdb import mcp_tokens
    from claimsdb.errors import BadQuery
    from claimsdb.trust import identity

    if make is not None and revoke is not None:
        raise BadQuery("--token makes a token and --revoke ends one: give one of them")
    if revoke is not None:
        ended = mcp_tokens.revoke(identity.person_name(revoke, field="agent"))
        typer.echo(f"claims mcp: ended {ended} token(s) of agent {revoke!r}", err=True)
        return
    assert make is not None
    made = mcp_tokens.make(identity.person_name(make, field="agent"), read_only=read_only)
    kind = "read-only token" if read_only else "token"
    typer.echo(
        f"claims mcp: a {kind} for agent {make!r} (kept only as its hash in "
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
        "each request with a bearer token from `claims mcp --token NAME`)",
        err=True,
    )
    _run(mcp_http.app(build(tools), access, bound), sock, lifespan="on")
