"""Who may talk to `claims serve`, and which writes count as the person's own.

- Clients: loopback only (127.0.0.0/8, ::1, and IPv4-mapped loopback on a dual-stack socket), unless
  the server was started with networks to allow. The address is the socket's peer: the server never
  reads X-Forwarded-For, so a client cannot claim another address.
- Hosts: the Host header must name this machine's loopback (or the address the server was told to
  listen on). A web page whose own name resolves to 127.0.0.1 (DNS rebinding) is refused, so it can
  never read a page or its form token as "same origin".
- Writes: a POST must come from a page of this server: its Origin (or Referer) must be this server's
  own origin, Sec-Fetch-Site, when the browser sends it, must be "same-origin", and the form must carry
  the token tied to the browser's session cookie (HMAC with a secret made at start). Another page,
  even one served from another port of 127.0.0.1 (same site, other origin), is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
SECURITY_HEADERS = (
    (b"content-security-policy",
     b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
     b"base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # Not "no-referrer": with it a browser sends "Origin: null" on the server's own form posts.
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
SESSION_BYTES = 32


class Refused(Exception):
    """A request the server will not serve; `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _address(text: str):
    try:
        ip = ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    # Python before 3.13 does not count ::ffff:127.0.0.1 (a dual-stack socket's IPv4 peer) as loopback.
    return ip.ipv4_mapped if ip.version == 6 and ip.ipv4_mapped else ip


def is_loopback(address: str | None) -> bool:
    ip = _address(address) if address else None
    return ip is not None and ip.is_loopback


def host_name(header: str | None) -> str | None:
    """The name part of a Host header ("127.0.0.1:8421" -> "127.0.0.1", "[::1]:80" -> "::1"), lowercase."""
    if not header:
        return None
    try:
        name = urlsplit(f"//{header.strip()}").hostname
    except ValueError:
        return None
    return name.lower() if name else None


@dataclass(frozen=True)
class Access:
    """Which clients and Host names the server answers."""

    networks: tuple = ()  # ip_network objects allowed besides loopback
    hosts: tuple[str, ...] = LOOPBACK_HOSTS
    any_host: bool = False  # listening on every interface for allowed networks: any Host name

    @classmethod
    def build(cls, listen_host: str, allow_from: Iterable[str] = ()) -> Access:
        """From `--host` and `--allow-from`; ValueError names a network that cannot be read."""
        networks = []
        for text in allow_from:
            try:
                networks.append(ipaddress.ip_network(text.strip(), strict=False))
            except ValueError:
                raise ValueError(f"not a network or address: {text!r} (like 192.168.1.0/24 or 10.0.0.7)") from None
        listen = host_name(listen_host) or listen_host.lower()
        wildcard = listen_host in WILDCARD_HOSTS
        hosts = LOOPBACK_HOSTS if wildcard or listen in LOOPBACK_HOSTS else (*LOOPBACK_HOSTS, listen)
        return cls(tuple(networks), hosts, any_host=wildcard and bool(networks))

    def client_allowed(self, address: str | None) -> bool:
        if is_loopback(address):
            return True
        ip = _address(address) if address else None
        return ip is not None and any(ip in net for net in self.networks)

    def host_allowed(self, header: str | None) -> bool:
        name = host_name(header)
        return name is not None and (self.any_host or name in self.hosts)


class Guard:
    """ASGI middleware: refuses clients and Host names that `access` does not allow, and adds the
    security headers to every answer."""

    def __init__(self, app, access: Access):
        self.app, self.access = app, access

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        client = scope.get("client")
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if not self.access.client_allowed(client[0] if client else None):
            return await _plain(send, 403, "refused: this server answers loopback clients only "
                                           "(start it with --allow-from NETWORK to allow others)\n")
        if not self.access.host_allowed(host):
            return await _plain(send, 421, "refused: unexpected Host header (this server answers for "
                                           "localhost and 127.0.0.1 only)\n")

        async def send_secured(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        return await self.app(scope, receive, send_secured)


async def _plain(send, status: int, text: str) -> None:
    body = text.encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


@dataclass
class Csrf:
    """Form tokens tied to a session cookie, and the same-origin check of every write."""

    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    @staticmethod
    def new_session() -> str:
        return secrets.token_urlsafe(SESSION_BYTES)

    @staticmethod
    def valid_session(value: str | None) -> bool:
        return bool(value) and len(value) <= 2 * SESSION_BYTES and value.replace("-", "").replace("_", "").isalnum()

    def token(self, session: str) -> str:
        return hmac.new(self.secret, session.encode("ascii"), hashlib.sha256).hexdigest()

    def check(self, *, method: str, origin_of_server: str, headers, session: str | None, token: str | None) -> None:
        """Raise Refused(403) unless this write comes from one of this server's own pages."""
        site = headers.get("sec-fetch-site")
        if site is not None and site != "same-origin":
            raise Refused(403, f"refused: a cross-site {method} (Sec-Fetch-Site: {site})")
        origin = headers.get("origin")
        if origin is None and headers.get("referer"):
            parts = urlsplit(headers["referer"])
            origin = f"{parts.scheme}://{parts.netloc}"
        if origin is not None and origin.lower() != origin_of_server.lower():
            raise Refused(403, f"refused: a {method} from another origin ({origin})")
        if not (self.valid_session(session) and token and hmac.compare_digest(token, self.token(session))):
            raise Refused(403, "refused: the form's token does not match this browser's session "
                               "(the server may have restarted): reload the page and send it again")
