"""A small real HTTP server for tests, on 127.0.0.1 and an ephemeral port.

    with LocalHTTPServer() as server:
        server.add("/page", b"<p>hi</p>", etag='"v1"')
        server.redirect("/old", "/page")
        url = server.url("/page")
        ...
        server.requests      # what arrived: method, path (with query) and headers (lower-case names)

Routes match on the full path with its query first, then on the path alone; anything else
is a 404. The server speaks HTTP/1.0 (one request per connection, the body may end at the
close), runs every request on a daemon thread, bounds every wait, and wakes sleeping
handlers when it stops, so teardown never hangs.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

MAX_DELAY_S = 10.0  # no handler sleeps longer than this, whatever a test asks
SOCKET_TIMEOUT_S = 10.0  # a client that stops reading or writing is dropped after this
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Route:
    body: bytes
    content_type: str | None
    status: int
    headers: dict[str, str]
    delay_s: float  # sleep before the status line
    etag: str | None
    last_modified: str | None
    repeat: int  # the body is `body` sent this many times (a large body without the memory)
    stream: bool  # no Content-Length: the body ends when the connection closes
    content_length: int | None  # a Content-Length to declare instead of the true one (a lie)
    trickle_s: float  # sleep before each repeat of the body


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str  # as on the request line, query included
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names


def _etag_matches(header: str, etag: str) -> bool:
    def strong(tag: str) -> str:
        tag = tag.strip()
        return tag[2:] if tag.startswith("W/") else tag

    tags = [strong(tag) for tag in header.split(",")]
    return "*" in tags or strong(etag) in tags


def _not_modified_since(header: str, last_modified: str) -> bool:
    try:
        return parsedate_to_datetime(header) >= parsedate_to_datetime(last_modified)
    except (TypeError, ValueError):
        return False


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server_version = "claimsdb-test-server"
    timeout = SOCKET_TIMEOUT_S

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.server.owner._handle(self, head=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self.server.owner._handle(self, head=True)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - quiet
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a burst of concurrent connects must not overflow the backlog
    owner: LocalHTTPServer


class LocalHTTPServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = (
            host  # any loopback address (127.0.0.2 stands in for a public host in policy tests)
        )
        self._routes: dict[str, Route] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._requests: list[ReceivedRequest] = []
        self._sent: Counter[str] = Counter()
        self._in_flight = 0
        self._max_in_flight = 0
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> LocalHTTPServer:
        httpd = _Server((self.host, 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="test-http-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes handlers sleeping in a delay or a trickle
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> LocalHTTPServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    # ------------------------------------------------------------------ routes

    def add(
        self,
        path: str,
        body: bytes = b"",
        content_type: str | None = "text/html; charset=utf-8",
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay_s: float = 0,
        etag: str | None = None,
        last_modified: str | None = None,
        *,
        repeat: int = 1,
        stream: bool = False,
        content_length: int | None = None,
        trickle_s: float = 0,
    ) -> str:
        """Serve `body` at `path`; returns the route's URL."""
        route = Route(
            body=bytes(body),
            content_type=content_type,
            status=status,
            headers=dict(headers or {}),
            delay_s=min(max(delay_s, 0), MAX_DELAY_S),
            etag=etag,
            last_modified=last_modified,
            repeat=max(repeat, 0),
            stream=stream,
            content_length=content_length,
            trickle_s=min(max(trickle_s, 0), MAX_DELAY_S),
        )
        with self._lock:
            self._routes[path] = route
        return self.url(path)

    def redirect(self, path: str, to: str, status: int = 302) -> str:
        """Answer `path` with a redirect; `to` goes into Location as given (relative or absolute)."""
        return self.add(path, b"", content_type=None, status=status, headers={"Location": to})

    # ------------------------------------------------------------------ what happened

    @property
    def requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return list(self._requests)

    def count(self, path: str) -> int:
        """Requests received for `path` (matched like routes: exact, or ignoring the query)."""
        return sum(1 for r in self.requests if r.path == path or urlsplit(r.path).path == path)

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    def sent(self, path: str) -> int:
        """Body bytes written so far for requests to `path` (exactly as requested)."""
        with self._lock:
            return self._sent[path]

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no request is being handled; False if that took longer than `timeout`."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout=timeout)

    # ------------------------------------------------------------------ handling

    def _handle(self, handler: _Handler, *, head: bool) -> None:
        received = ReceivedRequest(
            method=handler.command,
            path=handler.path,
            headers={name.lower(): value for name, value in handler.headers.items()},
        )
        with self._lock:
            self._requests.append(received)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            self._respond(handler, head=head)
        except OSError:  # the client went away or stalled (reset, broken pipe, socket timeout)
            handler.close_connection = True
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    def _respond(self, handler: _Handler, *, head: bool) -> None:
        with self._lock:
            route = self._routes.get(handler.path) or self._routes.get(urlsplit(handler.path).path)
        if route is None:
            route = Route(b"not found\n", "text/plain", 404, {}, 0, None, None, 1, False, None, 0)
        if route.delay_s and self._stop.wait(route.delay_s):
            return

        none_match = handler.headers.get("If-None-Match")
        modified_since = handler.headers.get("If-Modified-Since")
        if route.etag is not None and none_match is not None:
            not_modified = _etag_matches(none_match, route.etag)
        elif route.last_modified is not None and modified_since is not None and none_match is None:
            not_modified = _not_modified_since(modified_since, route.last_modified)
        else:
            not_modified = False

        if not_modified:
            handler.send_response(304)
            self._validators(handler, route)
            handler.end_headers()
            return

        handler.send_response(route.status)
        if route.content_type is not None:
            handler.send_header("Content-Type", route.content_type)
        self._validators(handler, route)
        for name, value in route.headers.items():
            handler.send_header(name, value)
        if route.content_length is not None:
            handler.send_header("Content-Length", str(route.content_length))
        elif not route.stream:
            handler.send_header("Content-Length", str(len(route.body) * route.repeat))
        handler.end_headers()
        if head:
            return
        for _ in range(route.repeat):
            if route.trickle_s and self._stop.wait(route.trickle_s):
                return
            for start in range(0, len(route.body), CHUNK):
                piece = route.body[start : start + CHUNK]
                handler.wfile.write(piece)
                with self._lock:
                    self._sent[handler.path] += len(piece)
            if self._stop.is_set():
                return

    @staticmethod
    def _validators(handler: _Handler, route: Route) -> None:
        if route.etag is not None:
            handler.send_header("ETag", route.etag)
        if route.last_modified is not None:
            handler.send_header("Last-Modified", route.last_modified)
