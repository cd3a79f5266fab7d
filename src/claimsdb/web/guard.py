"""Who may talk to `claims serve`, and which writes count as the person's own.

- Clients: loopback only (127.0.0.0/8, ::1, and IPv4-mapped loopback on a dual-stack socket), unless
  the server was started with networks to allow. The address is the socket's peer: the server never
  reads X-Forwarded-For, so a client cannot claim another address.
- Names: a fixed list, whatever the networks allowed: the loopback names (localhost, 127.0.0.1, [::1])
  and the address the server listens on (unless a wildcard), at the server's own port, and the names
  given with --public-name. The Host header must be one of them. A web page whose own name was made to
  resolve to this machine (DNS rebinding) sends its own name as Host, so it can never read a page or
  its form token as "same origin", from loopback or from an allowed network alike.
- Writes: a POST must come from a page of this server: its Origin (or Referer) must be one of the
  origins of that list (http, an allowed name, its port) and the origin the request was sent to (its
  Host), never just "whatever Host says"; Sec-Fetch-Site, when the browser sends it, must be
  "same-origin", and the form must carry the token tied to the browser's session cookie (HMAC with a
  secret made at start). Another page, even one served from another port of 127.0.0.1 (same site,
  other origin), is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
HTTP_PORT = 80  # the port a Host header or an origin without one means
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "
        b"form-action 'self'; frame-ancestors 'none'; "
        b"base-uri 'none'",
    ),
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


_AUTHORITY = re.compile(r"(\[[^\[\]]*\]|[^:\[\]]*)(?::([0-9]{1,5}))?")
_LABEL = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
_DOTTED = re.compile(r"[0-9.]+")


def host_literal(text: str) -> str | None:
    """A host as the name list keeps it: a lowercase DNS name, a dotted IPv4 address, or an IPv6 address
    (bracketed in a Host header, bare here); None for anything else (a trailing dot, "127.1", a zone)."""
    text = text.lower()
    if "%" in text:  # an IPv6 zone ("fe80::1%eth0") names an interface of one machine, not a host
        return None
    if text.startswith("[") and text.endswith("]"):
        try:
            return str(ipaddress.IPv6Address(text[1:-1]))
        except ValueError:
            return None
    if _DOTTED.fullmatch(text):
        try:
            return str(ipaddress.IPv4Address(text))
        except ValueError:
            return None
    labels = text.split(".")
    if len(text) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return None
    return text


def authority(text: str | None) -> tuple[str, int | None] | None:
    """A Host header or an origin's host[:port], read strictly: (host, port or None); None when it is
    not one (userinfo, a path, spaces, a port out of range)."""
    m = _AUTHORITY.fullmatch(text or "")
    if m is None:
        return None
    host, port = host_literal(m.group(1)), int(m.group(2)) if m.group(2) else None
    if host is None or (port is not None and not 0 < port < 65536):
        return None
    return host, port


def public_name(text: str) -> tuple[str, int | None]:
    """A --public-name: a host name or an IP address, optionally with :port. ValueError says why not."""
    text = text.strip()
    bare_ipv6 = text.count(":") > 1 and not text.startswith(
        "["
    )  # "fd00::5": its colons are not a port
    parsed = authority(f"[{text}]" if bare_ipv6 else text)
    if parsed is None:
        raise ValueError(
            f"not a host name or an IP address, with an optional :port: {text!r} "
            "(like claims.lab.example, 192.168.1.5, [fd00::5] or claims.lab.example:8421)"
        )
    if parsed[0] in ("0.0.0.0", "::"):
        raise ValueError(
            f"{text!r} is a wildcard address, not a name a client uses to reach this machine"
        )
    return parsed


def origin_of(host: str, port: int) -> str:
    """The origin a browser sends for a page at host:port."""
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


@dataclass(frozen=True)
class Access:
    """Which clients the server answers, and by which names (host, port; None: the server's own port)."""

    networks: tuple = ()  # ip_network objects allowed besides loopback
    names: tuple[tuple[str, int | None], ...] = tuple((name, None) for name in LOOPBACK_NAMES)

    @classmethod
    def build(
        cls, listen_host: str, allow_from: Iterable[str] = (), public_names: Iterable[str] = ()
    ) -> Access:
        """From `--host`, `--allow-from` and `--public-name`; ValueError names what cannot be read."""
        networks = []
        for text in allow_from:
            try:
                networks.append(ipaddress.ip_network(text.strip(), strict=False))
            except ValueError:
                raise ValueError(
                    f"not a network or address: {text!r} (like 192.168.1.0/24 or 10.0.0.7)"
                ) from None
        names = [(name, None) for name in LOOPBACK_NAMES]
        listen = listen_host.strip("[]")
        listen = (
            None
            if listen in WILDCARD_HOSTS
            else host_literal(f"[{listen}]" if ":" in listen else listen)
        )
        if listen is not None:
            names.append((listen, None))
        names += [public_name(text) for text in public_names]
        return cls(tuple(networks), tuple(dict.fromkeys(names)))

    def client_allowed(self, address: str | None) -> bool:
        if is_loopback(address):
            return True
        ip = _address(address) if address else None
        return ip is not None and any(ip in net for net in self.networks)

    def _allowed(self, host: str, port: int, server_port: int | None) -> bool:
        return any(
            name == host and (want if want is not None else server_port) == port
            for name, want in self.names
        )

    def host_allowed(self, header: str | None, server_port: int | None) -> bool:
        """Whether a Host header names this server: a name of the list, at its port."""
        parsed = authority(header)
        return parsed is not None and self._allowed(parsed[0], parsed[1] or HTTP_PORT, server_port)

    def origin_allowed(self, origin: str | None, host: str | None, server_port: int | None) -> bool:
        """Whether a write's Origin is one of this server's origins, and the one the request was sent to."""
        if not origin or not origin.lower().startswith("http://"):
            return False
        parsed, sent_to = authority(origin[len("http://") :]), authority(host)
        if parsed is None or sent_to is None:
            return False
        origin_at = (parsed[0], parsed[1] or HTTP_PORT)
        return origin_at == (sent_to[0], sent_to[1] or HTTP_PORT) and self._allowed(
            *origin_at, server_port
        )

    def origins(self, server_port: int) -> list[str]:
        """The addresses the server answers at, as a browser's address bar would show them."""
        return [
            origin_of(name, port if port is not None else server_port) for name, port in self.names
        ]


class Guard:
    """ASGI middleware: refuses clients and Host names that `access` does not allow, and adds the
    security headers to every answer."""

    def __init__(self, app, access: Access):
        self.app, self.access = app, access

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        client, server = scope.get("client"), scope.get("server")
        hosts = [
            value.decode("latin-1") for name, value in scope.get("headers") or () if name == b"host"
        ]
        host = (
            hosts[0] if len(hosts) == 1 else None
        )  # two Host headers: which one would the app read?
        port = server[1] if server else None  # the socket's own port: what the client connected to
        if not self.access.client_allowed(client[0] if client else None):
            return await _plain(
                send,
                403,
                "refused: this server answers loopback clients only "
                "(start it with --allow-from NETWORK to allow others)\n",
            )
        if port is None or not self.access.host_allowed(host, port):
            known = ", ".join(self.access.origins(port)) if port is not None else "its own names"
            return await _plain(
                send,
                421,
                f"refused: unexpected Host header (this server answers as {known} only; "
                "start it with --public-name NAME to be reached by another name)\n",
            )

        async def send_secured(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        return await self.app(scope, receive, send_secured)


async def _plain(send, status: int, text: str) -> None:
    body = text.encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
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
        return (
            bool(value)
            and len(value) <= 2 * SESSION_BYTES
            and value.replace("-", "").replace("_", "").isalnum()
        )

    def token(self, session: str) -> str:
        return hmac.new(self.secret, session.encode("ascii"), hashlib.sha256).hexdigest()

    def check(
        self,
        *,
        method: str,
        origin_allowed: Callable[[str], bool],
        headers,
        session: str | None,
        token: str | None,
    ) -> None:
        """Raise Refused(403) unless this write comes from one of this server's own pages:
        `origin_allowed` says whether an origin is one of them (Access.origin_allowed)."""
        site = headers.get("sec-fetch-site")
        if site is not None and site != "same-origin":
            raise Refused(403, f"refused: a cross-site {method} (Sec-Fetch-Site: {site})")
        origin = headers.get("origin")
        if origin is None and headers.get("referer"):
            try:
                parts = urlsplit(headers["referer"])
            except ValueError:
                raise Refused(403, f"refused: a {method} from an unreadable Referer") from None
            origin = f"{parts.scheme}://{parts.netloc}"
        if origin is not None and not origin_allowed(origin):
            raise Refused(403, f"refused: a {method} from another origin ({origin})")
        if not (
            self.valid_session(session)
            and token
            and hmac.compare_digest(token, self.token(session))
        ):
            raise Refused(
                403,
                "refused: the form's token does not match this browser's session "
                "(the server may have restarted): reload the page and send it again",
            )
