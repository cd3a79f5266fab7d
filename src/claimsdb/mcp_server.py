"""`claims mcp`'s protocol side: the official MCP Python SDK's low-level server, over standard input and
output, serving the tools and resources of `mcp_tools.ClaimsTools`.

Only `claims mcp` imports this module (the SDK takes most of a second to load; no other command pays for
it). Tools run in a worker thread, one at a time, each in its own transaction. The client's name and
version come from the protocol: the `initialize` handshake's clientInfo, or on the 2026-07-28 protocol
the clientInfo each request carries; the SDK presents both as the session's client parameters.

`tool_error` is this door's one mapping from an error to what the agent reads: a tool error (isError)
carrying the message the command line prints for the same error, never a traceback. A resource that
cannot be read is a protocol error with that message.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from claimsdb import __version__
from claimsdb.errors import AgentCannotVouch, ClaimsError, UnknownClaim
from claimsdb.mcp_answers import as_text
from claimsdb.mcp_http import HOLDER
from claimsdb.mcp_tokens import Holder
from claimsdb.mcp_tools import CLAIM_URI_TEMPLATE, MIME, ClaimsTools, ResourceInfo, ToolSpec
from claimsdb.trust.rule import with_reread

INSTRUCTIONS = (
    "claimsdb keeps figures (numbers from papers, reports and READMEs) with the sources that support them and a "
    "provenance tag saying how far each was checked. Before adding a figure, `trace` it (and `search` the subject) "
    "to see whether the store has it already, and from which page. `add_claim` records what you read in a page "
    "(its URL or source key, the locator, the page's own words) as agent-reported: unverified until a person "
    "re-reads the page. You cannot raise a claim's trust, re-read, retag or prefer a value: tell the person which "
    "claims to re-read instead."
)


def tool_error(exc: BaseException) -> str:
    """What the agent reads for an error, as the command line prints it (cli/app.describe)."""
    if isinstance(exc, AgentCannotVouch):
        return f"error: {with_reread(exc)}"
    if isinstance(exc, UnknownClaim):
        return f"error: {exc.with_suggestions()}"
    if isinstance(exc, ClaimsError):
        return f"error: {exc.message}"
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"error: cannot use{where}: {exc.strerror or exc}"
    if type(exc).__module__.split(".")[0] in ("sqlalchemy", "sqlite3", "psycopg"):
        from claimsdb.db import describe_database_error

        return f"error: {describe_database_error(exc)}"
    return f"internal error: {type(exc).__name__}: {exc} (please report this)"


def _holder(ctx: Any) -> Holder | None:
    """Whom the request's bearer token stands for (http.TokenGate put it in the request); None over
    standard input and output."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    return scope.get(HOLDER) if isinstance(scope, dict) else None


def _client(ctx: Any) -> tuple[str | None, str | None]:
    """The client's name and version as it gave them, or (None, None) when it gave none."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    return (info.name, info.version) if info is not None else (None, None)


def build(tools: ClaimsTools) -> Server:
    """The MCP server over these tools."""
    handlers = Handlers(tools)
    return Server(
        "claimsdb",
        version=__version__,
        title="claimsdb",
        instructions=INSTRUCTIONS,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_list_resource_templates=handlers.list_templates,
        on_read_resource=handlers.read_resource,
    )


class Handlers:
    """The server's answer to each request, over the tools; a tool or a read runs in a worker thread."""

    def __init__(self, tools: ClaimsTools):
        self.tools = tools

    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(t) for t in self.tools.tools(_holder(ctx))])

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        run = partial(
            self.tools.call,
            params.name,
            params.arguments,
            client=_client(ctx),
            holder=_holder(ctx),
        )
        try:
            result = await anyio.to_thread.run_sync(run)
        except (
            Exception
        ) as exc:  # every error is the agent's to read, as a tool error; nothing was written
            return types.CallToolResult(
                content=[types.TextContent(text=tool_error(exc))], is_error=True
            )
        return types.CallToolResult(
            content=[types.TextContent(text=as_text(result))], structured_content=result
        )

    async def list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        if cursor is not None and not _offset(cursor):
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"error: not a cursor this server gave: {cursor[:40]!r}",
            )
        try:
            page, following = await anyio.to_thread.run_sync(self.tools.resources, int(cursor or 0))
        except Exception as exc:
            raise MCPError(code=INVALID_PARAMS, message=tool_error(exc)) from None
        return types.ListResourcesResult(
            resources=[_resource(r) for r in page],
            next_cursor=str(following) if following is not None else None,
        )

    async def list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[CLAIM_TEMPLATE])

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            data = await anyio.to_thread.run_sync(self.tools.read, uri)
        except Exception as exc:
            raise MCPError(code=INVALID_PARAMS, message=tool_error(exc)) from None
        contents = types.TextResourceContents(uri=uri, mime_type=MIME, text=as_text(data))
        return types.ReadResourceResult(contents=[contents])


def _tool(t: ToolSpec) -> types.Tool:
    """A tool as the protocol lists it: one that writes is neither read-only nor idempotent; none
    destroys anything or reaches beyond the store."""
    hints = types.ToolAnnotations(
        title=t.title,
        read_only_hint=not t.writes,
        destructive_hint=False,
        idempotent_hint=not t.writes,
        open_world_hint=False,
    )
    return types.Tool(
        name=t.name,
        title=t.title,
        description=t.description,
        input_schema=t.schema,
        annotations=hints,
    )


def _resource(r: ResourceInfo) -> types.Resource:
    return types.Resource(
        uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type
    )


CLAIM_TEMPLATE = types.ResourceTemplate(
    uri_template=CLAIM_URI_TEMPLATE,
    name="claim",
    title="A claim with its history",
    description="One claim as `show` gives it: tag, trust, sources, figures, its whole history.",
    mime_type=MIME,
)


def serve(tools: ClaimsTools) -> None:
    """Serve over standard input and output until the client closes them."""
    server = build(tools)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def _offset(cursor: str) -> bool:
    """A cursor this server may have given: an offset a database takes (records.types.MAX_INTEGER)."""
    from claimsdb.records.types import MAX_INTEGER

    return (
        cursor.isascii() and cursor.isdigit() and len(cursor) <= 19 and int(cursor) <= MAX_INTEGER
    )
