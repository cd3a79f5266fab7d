"""What `claims verify` may fetch: local files inside one root, and web pages on public addresses.

A source's `path` and `url` come from data files written by agents and colleagues, and redirects
come from the open web, so both are checked before anything is read:

- a local path is expanded (`~`) and resolved (`..`, symlinks) first, then must lie inside the root
  the user named, and never under /proc, /dev or /sys; it is opened without following a symlink
  swapped in since, and only a regular file is read;
- a URL must be http or https; its host is resolved and every address it resolves to must be
  public: loopback, private and shared addresses only with `allow_local` (a local mirror, a test
  server), link-local (cloud metadata at 169.254.169.254), multicast, unspecified and reserved
  addresses never. The check runs when each connection is made, for the first request and for every
  redirect, and the connection goes to the address that was checked (so a second DNS answer cannot
  swap in another one).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path

import httpcore
import httpx

# Named verdicts of `classify`.
PUBLIC = "public"
LOOPBACK = "loopback"
PRIVATE = "private"
LINK_LOCAL = "link-local"
MULTICAST = "multicast"
UNSPECIFIED = "unspecified"
RESERVED = "reserved"
LOCAL_KINDS = (LOOPBACK, PRIVATE)  # what allow_local lets through

NEVER_READ = (Path("/proc"), Path("/dev"), Path("/sys"))
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class Refused(Exception):
    """The policy forbids this path or address; the message says why, on one line."""


def classify(address: str) -> str:
    """The kind of an IP address (a literal, as DNS returns it): one of the verdicts above."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone ("fe80::1%eth0")
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv4 address inside an IPv6 one reaches that IPv4 host: judge the IPv4 address.
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return classify(str(embedded))
    if ip.is_unspecified:
        return UNSPECIFIED
    if ip.is_loopback:
        return LOOPBACK
    if ip.is_link_local:
        return LINK_LOCAL
    if ip.is_multicast:
        return MULTICAST
    if ip.is_reserved or ip == ipaddress.IPv4Address("255.255.255.255"):
        return RESERVED
    if ip.is_global:
        return PUBLIC
    return PRIVATE  # RFC 1918, unique-local, shared, documentation and benchmarking ranges


@dataclass(frozen=True)
class FetchPolicy:
    allow_local: bool = False  # loopback and private addresses (a local mirror or test server)
    local_root: Path | None = (
        None  # local copies are read only inside this folder; None: none are read
    )

    # ---------------------------------------------------------------- addresses

    def check_address(self, host: str, address: str) -> None:
        kind = classify(address)
        if kind == PUBLIC or (kind in LOCAL_KINDS and self.allow_local):
            return
        shown = host if host == address else f"{host} ({address})"
        hint = (
            " (--allow-local allows loopback and private addresses)" if kind in LOCAL_KINDS else ""
        )
        raise Refused(f"{shown} is a {kind} address: refused{hint}")

    async def resolve(self, host: str, port: int) -> list[str]:
        """Every address `host` resolves to, each checked: one forbidden address refuses the host."""
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except socket.gaierror as error:
            raise httpcore.ConnectError(f"cannot resolve host {host}") from error
        addresses = list(dict.fromkeys(info[4][0] for info in infos))
        for address in addresses:
            self.check_address(host, address)
        return addresses

    # ---------------------------------------------------------------- local files

    def local_path(self, path: str) -> Path:
        """The real path of a local copy, when the policy allows reading it; Refused otherwise."""
        if self.local_root is None:
            raise Refused(f"local copy {path} not read: no local root (name one with --local-root)")
        root = self.local_root.expanduser().resolve()
        given = Path(path).expanduser()
        real = (given if given.is_absolute() else root / given).resolve()
        for system in NEVER_READ:
            if real == system or system in real.parents:
                raise Refused(f"local copy {path} not read: {system} is never read")
        if real != root and root not in real.parents:
            raise Refused(f"local copy {path} not read: it is outside the local root {root}")
        return real


# -------------------------------------------------------------------- the connection layer


class _CheckedBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections only to addresses the policy allows, and only to the address it checked."""

    def __init__(self, policy: FetchPolicy) -> None:
        self._policy = policy
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        addresses = await self._policy.resolve(host, port)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None  # getaddrinfo never answers with no address
        raise failure

    async def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise Refused("unix sockets are never fetched")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class CheckedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with every connection made through the policy.

    httpx offers no public way to give its connection pool a network backend, so the pool is
    replaced by one with the same settings and ours. Proxies from the environment are not used:
    a proxy resolves names where the policy cannot check the addresses.
    """

    def __init__(self, policy: FetchPolicy, limits: httpx.Limits) -> None:
        super().__init__(limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_CheckedBackend(policy),
        )
