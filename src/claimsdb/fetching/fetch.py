"""Fetch claim sources: over HTTP(S) with httpx, or from a local copy on disk.

One synchronous entry point, `fetch_all`, runs an asyncio loop inside. What may be fetched is
the limits' FetchPolicy (fetching/targets.py): local copies inside one root, public addresses only.
Every failure (bad scheme, address or path the policy refuses, refused connection, timeout, HTTP
error, oversized or undecodable body, missing file) comes back as a result with outcome
"unreachable" and a one-line error; nothing raises out of `fetch_all` for a source's sake.
Nothing here prints.
"""

from __future__ import annotations

import asyncio
import mimetypes
import os
import socket
import ssl
import stat
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from claimsdb import __version__
from claimsdb.escaping import http_url_problem
from claimsdb.fetching.targets import CheckedTransport, FetchPolicy, Refused

USER_AGENT = f"claimsdb/{__version__} (claims verify)"

FETCHED = "fetched"
NOT_MODIFIED = "not-modified"
UNREACHABLE = "unreachable"

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_EXTRA_TYPES = {".md": "text/markdown", ".mdx": "text/markdown", ".markdown": "text/markdown"}
_MAX_ERROR_CHARS = 300


@dataclass(frozen=True)
class FetchRequest:
    source: str  # the source key
    url: str | None = None  # http(s) URL, or None when only a local path is known
    path: str | None = None  # local copy: read from disk instead of fetching (wins over url)
    etag: str | None = None  # from the previous snapshot, for a conditional request
    last_modified: str | None = None


@dataclass(frozen=True)
class FetchResult:
    source: str
    url: str | None  # the final URL after redirects (or the path)
    status: int | None  # HTTP status; None for local files and for failures before a response
    outcome: str  # "fetched" | "not-modified" | "unreachable"
    content: bytes | None  # body when fetched (None for not-modified and unreachable)
    content_type: str | None
    etag: str | None
    last_modified: str | None
    error: str | None  # one line, why unreachable
    fetched_at: str  # UTC ISO 8601, when the fetch started
    elapsed_s: float


@dataclass(frozen=True)
class FetchLimits:
    concurrency: int = 8
    timeout_s: float = 20.0  # whole request, redirects and body included
    max_bytes: int = 20_000_000  # the body is streamed and abandoned as soon as it exceeds this
    max_redirects: int = 5
    policy: FetchPolicy = field(default_factory=FetchPolicy)  # what may be fetched at all

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be positive, not {self.timeout_s}")
        if self.max_bytes < 0:
            raise ValueError(f"max_bytes must not be negative, not {self.max_bytes}")
        if self.max_redirects < 0:
            raise ValueError(f"max_redirects must not be negative, not {self.max_redirects}")


def fetch_all(
    requests: Iterable[FetchRequest],
    limits: FetchLimits = FetchLimits(),
    *,
    on_result: Callable[[FetchResult], None] | None = None,
) -> list[FetchResult]:
    """Fetch every request; results in the order of `requests`, one per request.

    Requests that would fetch the same thing (same local path, or same URL with the same
    etag/last_modified) are fetched once and the result is shared, each copy carrying its
    own request's `source`. `on_result` is called once per returned result, as its fetch
    finishes: on the calling thread, or, when the caller already runs an event loop (a notebook,
    Playwright's sync API in a test), on the one thread the fetches then get for a loop of their own.
    """
    requests = list(requests)
    if not requests:
        return []
    try:
        asyncio.get_running_loop()
        in_a_loop = True
    except RuntimeError:
        in_a_loop = False
    if (
        not in_a_loop
    ):  # run outside the except block: a failed fetch's cause chain must not hold that RuntimeError
        return asyncio.run(_fetch_all(requests, limits, on_result))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="claims-fetch") as pool:
        return pool.submit(lambda: asyncio.run(_fetch_all(requests, limits, on_result))).result()


# --------------------------------------------------------------------------- internals


def _key(request: FetchRequest) -> tuple:
    if request.path is not None:
        return ("path", request.path)
    return ("url", request.url, request.etag, request.last_modified)


async def _fetch_all(
    requests: list[FetchRequest],
    limits: FetchLimits,
    on_result: Callable[[FetchResult], None] | None,
) -> list[FetchResult]:
    wanted: dict[tuple, list[int]] = {}
    for index, request in enumerate(requests):
        wanted.setdefault(_key(request), []).append(index)

    results: list[FetchResult | None] = [None] * len(requests)
    semaphore = asyncio.Semaphore(limits.concurrency)
    pool = httpx.Limits(
        max_connections=limits.concurrency, max_keepalive_connections=limits.concurrency
    )
    client = httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT},
        timeout=httpx.Timeout(limits.timeout_s),
        transport=CheckedTransport(limits.policy, pool),  # every connection's address is checked
        follow_redirects=False,  # followed by hand: counted, scheme-checked, final URL kept
    )

    async def one(key: tuple, request: FetchRequest) -> tuple[tuple, FetchResult]:
        async with semaphore:
            return key, await _fetch_one(client, request, limits)

    async with client:
        tasks = [asyncio.create_task(one(key, requests[idx[0]])) for key, idx in wanted.items()]
        try:
            for next_done in asyncio.as_completed(tasks):
                key, result = await next_done
                for index in wanted[key]:
                    source = requests[index].source
                    mine = result if result.source == source else replace(result, source=source)
                    results[index] = mine
                    if on_result is not None:
                        on_result(mine)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return results  # type: ignore[return-value]  # every index was filled above


class _Unreachable(Exception):
    """A failure with a ready-made one-line reason."""


@dataclass
class _Progress:
    """How far an HTTP fetch got, for reporting a failure."""

    url: str | None
    status: int | None = None
    content_type: str | None = None


def _utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"


def _seconds(value: float) -> str:
    return f"{value:.1f}" if round(value, 1) == value else f"{value:g}"


def _too_large(limit: int) -> str:
    return f"body larger than {limit:,} bytes"


async def _fetch_one(
    client: httpx.AsyncClient, request: FetchRequest, limits: FetchLimits
) -> FetchResult:
    started = time.monotonic()
    fetched_at = _utcnow()

    def result(**fields) -> FetchResult:
        fields.setdefault("status", None)
        fields.setdefault("content", None)
        fields.setdefault("content_type", None)
        fields.setdefault("etag", None)
        fields.setdefault("last_modified", None)
        fields.setdefault("error", None)
        return FetchResult(
            source=request.source,
            fetched_at=fetched_at,
            elapsed_s=time.monotonic() - started,
            **fields,
        )

    if request.path is not None:
        try:
            content = _read_local(request.path, limits)
        except _Unreachable as error:
            return result(url=request.path, outcome=UNREACHABLE, error=str(error))
        return result(
            url=request.path,
            outcome=FETCHED,
            content=content,
            content_type=_guess_type(request.path),
        )

    if not request.url:
        return result(url=None, outcome=UNREACHABLE, error="no URL or local path")

    progress = _Progress(url=request.url)
    try:
        async with asyncio.timeout(limits.timeout_s):
            fields = await _get(client, request, limits, progress)
        return result(**fields)
    except _Unreachable as error:
        message = str(error)
    except Refused as error:
        message = (
            str(error) if progress.url == request.url else f"redirect to {progress.url}: {error}"
        )
    except (TimeoutError, httpx.TimeoutException):
        message = f"timed out after {_seconds(limits.timeout_s)} s"
    except httpx.ConnectError as error:
        message = _connect_error(error, progress.url)
    except httpx.DecodingError as error:
        message = f"could not decode the body: {_one_line(error)}"
    except httpx.RemoteProtocolError as error:
        message = f"protocol error: {_one_line(error)}"
    except httpx.InvalidURL as error:
        message = f"invalid URL: {_one_line(error)}"
    except Exception as error:  # noqa: BLE001 - a source's failure must never escape fetch_all
        message = f"{type(error).__name__}: {_one_line(error)}"
    return result(
        url=progress.url,
        status=progress.status,
        outcome=UNREACHABLE,
        content_type=progress.content_type,
        error=message,
    )


def _check_url(url: str, *, redirected: bool) -> None:
    prefix = "redirect to " if redirected else ""
    problem = http_url_problem(url)
    if problem is not None:
        raise _Unreachable(prefix + problem)


async def _get(
    client: httpx.AsyncClient, request: FetchRequest, limits: FetchLimits, progress: _Progress
) -> dict:
    headers: dict[str, str] = {}
    if request.etag:
        headers["If-None-Match"] = request.etag
    if request.last_modified:
        headers["If-Modified-Since"] = request.last_modified

    url = request.url
    assert url is not None
    seen: set[str] = set()
    looped = False
    for hop in range(limits.max_redirects + 1):
        _check_url(url, redirected=hop > 0)
        looped = looped or url in seen
        seen.add(url)
        progress.url, progress.status, progress.content_type = url, None, None
        async with client.stream("GET", url, headers=headers) as response:
            status = response.status_code
            progress.url = str(response.url)
            progress.status = status
            progress.content_type = response.headers.get("content-type")
            location = response.headers.get("location")
            if status in _REDIRECTS and location:
                url = str(response.url.join(location))
                continue
            if status == 304:
                if not headers:
                    raise _Unreachable("HTTP 304 to an unconditional request")
                return {
                    "url": progress.url,
                    "status": status,
                    "outcome": NOT_MODIFIED,
                    "etag": response.headers.get("etag") or request.etag,
                    "last_modified": response.headers.get("last-modified") or request.last_modified,
                }
            if not 200 <= status < 300:
                raise _Unreachable(f"HTTP {status}")
            content = await _read_body(response, limits.max_bytes)
            return {
                "url": progress.url,
                "status": status,
                "outcome": FETCHED,
                "content": content,
                "content_type": progress.content_type,
                "etag": response.headers.get("etag"),
                "last_modified": response.headers.get("last-modified"),
            }
    message = f"too many redirects ({limits.max_redirects})"
    if looped or url in seen:
        message += f": redirect loop via {url}"
    raise _Unreachable(message)


async def _read_body(response: httpx.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > max_bytes:
        raise _Unreachable(_too_large(max_bytes))  # said so up front: do not read a byte of it
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():  # decoded (gzip etc.): the limit is on what we keep
        size += len(chunk)
        if size > max_bytes:
            raise _Unreachable(_too_large(max_bytes))
        chunks.append(chunk)
    return b"".join(chunks)


def _causes(error: BaseException):
    """The error, what it was raised from or during, and the members of exception groups."""
    seen: set[int] = set()
    stack = [error]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(getattr(current, "exceptions", ()) or ())
        stack.extend([current.__cause__, current.__context__])


def _connect_error(error: httpx.ConnectError, url: str | None) -> str:
    causes = list(_causes(error))
    host = urlsplit(url).hostname if url else None
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return "connection refused"
    if any(isinstance(c, socket.gaierror) for c in causes):
        return f"cannot resolve host {host}" if host else f"cannot resolve host: {_one_line(error)}"
    for cause in causes:
        if isinstance(cause, ssl.SSLError):
            return f"TLS error: {_one_line(cause)}"
    # The innermost OS-level reason says the most ("network is unreachable", ...).
    detail = next((c for c in reversed(causes) if isinstance(c, OSError) and str(c)), error)
    return f"cannot connect: {_one_line(detail)}"


def _guess_type(path: str) -> str | None:
    suffix = Path(path).suffix.lower()
    if suffix in _EXTRA_TYPES:
        return _EXTRA_TYPES[suffix]
    return mimetypes.guess_type(Path(path).name)[0]


def _read_local(path: str, limits: FetchLimits) -> bytes:
    try:
        real = limits.policy.local_path(path)
        # O_NOFOLLOW: not through a symlink swapped in since the check; O_NONBLOCK: a FIFO cannot hang us.
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise _Unreachable(f"not a file: {path}")
            if info.st_size > limits.max_bytes:
                raise _Unreachable(_too_large(limits.max_bytes))
            chunks, left = [], limits.max_bytes + 1
            while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
    except Refused as error:
        raise _Unreachable(str(error)) from None
    except FileNotFoundError:
        raise _Unreachable(f"no such file: {path}") from None
    except PermissionError:
        raise _Unreachable(f"permission denied: {path}") from None
    except OSError as error:
        raise _Unreachable(f"cannot read {path}: {error.strerror or _one_line(error)}") from None
    content = b"".join(chunks)
    if len(content) > limits.max_bytes:  # grew since the stat
        raise _Unreachable(_too_large(limits.max_bytes))
    return content
