"""Who may talk to `claims serve`: loopback clients, loopback Host names, and writes from its own pages."""

from __future__ import annotations

import asyncio
import ipaddress
import threading

import pytest

from claimsdb.web.guard import Access, Csrf, Guard, is_loopback
from tests.web.conftest import csrf_token


@pytest.mark.parametrize("address, loopback", [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("::ffff:127.0.0.1", True),
    ("::ffff:10.1.2.3", False), ("10.1.2.3", False), ("203.0.113.9", False), ("fe80::1%eth0", False),
    ("localhost", False), ("testclient", False), ("", False), (None, False),
])
def test_loopback_is_an_address_not_a_name(address, loopback):
    assert is_loopback(address) is loopback


def call(access, client, host=b"127.0.0.1:8421"):
    """One GET through the ASGI app with `client` as the socket's peer; returns (status, body, app reached)."""
    reached, sent = [], []

    async def inner(scope, receive, send):
        reached.append(scope["client"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"host", host)], "client": client}
    # In a thread of its own: Playwright's sync API may hold this thread's event loop.
    worker = threading.Thread(target=asyncio.run, args=(Guard(inner, access)(scope, receive, send),))
    worker.start()
    worker.join(timeout=10)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body.decode(), bool(reached)


def test_a_non_loopback_client_is_refused_before_the_application_runs():
    status, body, reached = call(Access(), ("203.0.113.9", 51000))
    assert (status, reached) == (403, False) and "loopback clients only" in body
    assert call(Access(), ("::ffff:127.0.0.1", 51000))[0] == 200
    assert call(Access(), None)[0] == 403  # no peer address (a Unix socket): refused, not guessed


def test_allow_from_lets_one_network_in_and_no_other():
    access = Access.build("0.0.0.0", ["203.0.113.0/24"])
    assert call(access, ("203.0.113.9", 51000), host=b"claims.lan:8421")[0] == 200
    assert call(access, ("198.51.100.7", 51000), host=b"claims.lan:8421")[0] == 403
    assert access.networks == (ipaddress.ip_network("203.0.113.0/24"),)
    with pytest.raises(ValueError, match="not a network"):
        Access.build("127.0.0.1", ["the office"])


@pytest.mark.parametrize("host, allowed", [
    (b"127.0.0.1:8421", True), (b"localhost:8421", True), (b"[::1]:8421", True), (b"LOCALHOST", True),
    (b"evil.example:8421", False), (b"127.0.0.1.evil.example", False), (b"", False),
])
def test_a_host_header_that_is_not_loopback_is_refused(host, allowed):
    """A page of evil.example whose name was made to resolve to 127.0.0.1 (DNS rebinding) gets nothing."""
    assert (call(Access(), ("127.0.0.1", 51000), host=host)[0] == 200) is allowed


def test_listening_on_a_named_address_accepts_that_host():
    access = Access.build("192.0.2.5", ["192.0.2.0/24"])
    assert access.host_allowed("192.0.2.5:8421") and access.host_allowed("localhost")
    assert not access.host_allowed("evil.example")


def test_the_real_server_refuses_a_rebound_host_and_sends_security_headers(serve, client):
    c = client(serve())
    assert c.get("/", headers={"host": "evil.example"}).status_code == 421
    page = c.get("/")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["cache-control"] == "no-store"
    cookie = page.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie


def _post(c, token, **headers):
    data = {"csrf": token, "key": "gadget.pretrain", "source": "gadget-report", "locator": "§2", "quote": "2,048 H800"}
    return c.post("/queue", data=data, headers=headers)


@pytest.mark.parametrize("headers", [
    {"origin": "http://127.0.0.1:1"},  # another port of this machine: same site, other origin
    {"origin": "http://evil.example"},
    {"origin": "null"},
    {"referer": "http://evil.example/page.html"},
    {"sec-fetch-site": "same-site"},
    {"sec-fetch-site": "cross-site", "origin": "SERVER"},
])
def test_a_cross_site_post_is_refused_even_with_the_session_and_its_token(serve, client, history, headers):
    server = serve(reader="Ada")
    c = client(server)
    token = csrf_token(c.get("/queue?key=gadget.pretrain").text)
    headers = {k: server.url if v == "SERVER" else v for k, v in headers.items()}
    answer = _post(c, token, **headers)
    assert answer.status_code == 403 and "refused" in answer.text
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]


def test_a_post_without_the_token_or_with_another_sessions_token_is_refused(serve, client, history):
    server = serve(reader="Ada")
    c, other = client(server), client(server)
    csrf_token(c.get("/queue").text)
    theirs = csrf_token(other.get("/queue").text)
    assert _post(c, "", origin=server.url).status_code == 403
    assert _post(c, theirs, origin=server.url).status_code == 403
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]


def test_a_same_origin_post_with_its_token_is_recorded(serve, client, history):
    server = serve(reader="Ada")
    c = client(server)
    token = csrf_token(c.get("/queue").text)
    answer = _post(c, token, origin=server.url, **{"sec-fetch-site": "same-origin"})
    assert answer.status_code == 303
    assert history("gadget.pretrain")["events"][-1]["actor"] == "Ada"


def test_a_token_from_before_a_restart_is_refused_with_a_reason(serve, client):
    server = serve(reader="Ada")
    c = client(server)
    token = csrf_token(c.get("/queue").text)
    server.app.state.site.csrf = Csrf()  # what a restart does: a new secret
    answer = _post(c, token, origin=server.url)
    assert answer.status_code == 403 and "reload the page" in answer.text
