"""`claims mcp --http`: the MCP server over the SDK's streamable HTTP transport, for a team's agents
reaching one database.

Every request passes, in order: `web.guard.Guard` (the clients and Host names `claims serve` answers:
loopback unless --allow-from, its own names at its port and --public-name), `TokenGate` (a bearer token
made by `claims mcp token NAME`, checked against the token file on every request: none, an unknown one
or a revoked one is a 401), then the SDK's transport, which refuses an Origin that is not one of the
server's own origins (a web page's script). The token's agent is what the claims added with it record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claimsdb.errors import ClaimsError
from claimsdb.mcp_tokens import holder

HOLDER = "claimsdb.holder"  # the request's token holder, in the ASGI scope (mcp_server reads it)
PATH = "/mcp"


class TokenGate:
    """ASGI middleware: a request without a valid bearer token is answered 401, and never reaches MCP."""

    def __init__(self, app: Any, tokens: Path | None = None):
        self.app, self.tokens = app, tokens

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        given = [
            v.decode("latin-1") for k, v in scope.get("headers") or () if k == b"authorization"
        ]
        scheme, _, token = (given[0] if len(given) == 1 else "").partition(" ")
        why = "this one is missing, unknown or revoked"
        try:
            found = holder(token.strip(), path=self.tokens) if scheme.lower() == "bearer" else None
        except ClaimsError as exc:  # a token file claims cannot read: nobody is let in
            found, why = None, exc.message
        if found is None:
            body = (
                "refused: give a bearer token made by `claims mcp token NAME` "
                f"(Authorization: Bearer TOKEN); {why}\n"
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"www-authenticate", b'Bearer realm="claims mcp"'),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            return await send({"type": "http.response.body", "body": body})
        return await self.app({**scope, HOLDER: found}, receive, send)


def app(server: Any, access: Any, port: int, tokens: Path | None = None) -> Any:
    """The ASGI application: the guard, the token gate and the SDK's streamable HTTP app."""
    from mcp.server.transport_security import TransportSecuritySettings

    from claimsdb.web.guard import Guard

    origins = access.origins(port)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[o.removeprefix("http://") for o in origins],
        allowed_origins=origins,
    )
    inner = server.streamable_http_app(
        streamable_http_path=PATH, transport_security=security, stateless_http=False
    )
    gated = TokenGate(inner, tokens)

    async def with_lifespan(scope, receive, send):  # the SDK's session manager runs in the lifespan
        if scope["type"] == "lifespan":
            return await inner(scope, receive, send)
        return await gated(scope, receive, send)

    return Guard(with_lifespan, access)
