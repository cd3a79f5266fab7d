"""`claims mcp` in a subprocess, driven over the real protocol by the MCP SDK's own client, from synchronous
tests: the client runs in an event loop of its own thread (anyio's blocking portal).

    with McpServer(db, "--agent", "sweep-7", env=..., folder=tmp) as server:
        server.call("trace", {"figure": "466"})      # the CallToolResult
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation


class McpServer:
    """One `claims mcp --db DB ARGS...` and a client session with it. `client`: the name and version the
    client gives in the handshake; `mode`: the SDK's "legacy" (the initialize handshake) or "auto" (the
    2026-07-28 protocol, each request carrying the client's info). The server's stderr goes to a file in
    `folder` (`log()`)."""

    def __init__(
        self,
        db: str,
        *args: str,
        env: dict[str, str],
        folder: Path,
        client: tuple[str, str] = ("probe-client", "1.2.3"),
        mode: str = "legacy",
    ) -> None:
        self.params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "claimsdb.cli", "mcp", "--db", db, *args],
            env=env,
            cwd=str(folder),
        )
        self.client_info = Implementation(name=client[0], version=client[1])
        self.mode = mode
        self.errors = folder / f"mcp-{id(self)}.log"
        self._stack = ExitStack()

    def __enter__(self) -> McpServer:
        errlog = self._stack.enter_context(self.errors.open("w", encoding="utf-8"))
        self.portal = self._stack.enter_context(start_blocking_portal())
        client = Client(
            stdio_client(self.params, errlog=errlog), client_info=self.client_info, mode=self.mode
        )
        self.client = self._stack.enter_context(self.portal.wrap_async_context_manager(client))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def log(self) -> str:
        return self.errors.read_text(encoding="utf-8")

    def list_tools(self):
        return self.portal.call(self.client.list_tools)

    def call(self, name: str, arguments: dict[str, Any] | None = None):
        return self.portal.call(self.client.call_tool, name, arguments or {})

    def list_resources(self, cursor: str | None = None):
        return self.portal.call(lambda: self.client.list_resources(cursor=cursor))

    def list_resource_templates(self):
        return self.portal.call(self.client.list_resource_templates)

    def read(self, uri: str):
        return self.portal.call(self.client.read_resource, uri)

    @property
    def protocol_version(self) -> str:
        return self.client.protocol_version


class McpHttpClient(McpServer):
    """A client session with a `claims mcp --http` already running at `url`, sending `token` as its
    bearer token (the SDK's streamable HTTP client)."""

    def __init__(
        self, url: str, token: str, *, client: tuple[str, str] = ("probe-client", "1.2.3")
    ):
        self.url, self.token = url, token
        self.client_info = Implementation(name=client[0], version=client[1])
        self._stack = ExitStack()

    def __enter__(self) -> McpHttpClient:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        self.portal = self._stack.enter_context(start_blocking_portal())
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=30)
        transport = streamable_http_client(self.url, http_client=http)
        client = Client(transport, client_info=self.client_info, mode="legacy")
        self.client = self._stack.enter_context(self.portal.wrap_async_context_manager(client))
        return self
