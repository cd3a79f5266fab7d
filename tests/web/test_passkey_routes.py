"""The passkey routes without a browser: the scripts are served under a CSP that allows only this
server's own; an invitation link that is not one, a re-read to sign by a reader without a passkey, and a
signature for nothing prepared are refused with a reason, and nothing is recorded."""

from __future__ import annotations

from tests.conftest import store_digest
from tests.web.conftest import csrf_token


def local(client, server):
    """A client that names the server localhost (as a browser at http://localhost:PORT does)."""
    c = client(server)
    c.headers["host"] = server.url.replace("http://127.0.0.1", "localhost")
    return c


def test_the_scripts_are_served_under_a_policy_that_allows_only_them(serve, client):
    c = client(serve())
    for name in ("passkey.js", "webpass.js"):
        script = c.get(f"/static/{name}")
        assert script.status_code == 200 and script.headers["content-type"].startswith(
            "text/javascript"
        )
    assert c.get("/static/other.js").status_code == 404
    policy = c.get("/queue").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert "<script" not in c.get("/queue?key=gadget.pretrain").text  # no passkey: no script


def test_a_link_that_is_no_invitation_is_refused(serve, client):
    page = local(client, serve()).get("/passkey?token=nothing")
    assert page.status_code == 400 and "no passkey link of this store" in page.text
    assert "<script" not in page.text


def test_signing_without_a_passkey_or_a_prepared_reread_is_refused(serve, client, web_db):
    server = serve(reader="Ada Lovelace")
    c = local(client, server)
    token = csrf_token(c.get("/queue?key=gadget.pretrain").text)
    before = store_digest(web_db)
    form = {
        "csrf": token,
        "key": "gadget.pretrain",
        "source": "gadget-report",
        "locator": "§2",
        "quote": "Its pretraining used 2,048 H800 GPUs for 54 days.",
    }
    prepared = c.post("/queue/prepare", data=form)
    assert prepared.status_code == 400
    assert "no passkey is registered for Ada Lovelace" in prepared.json()["error"]
    signed = c.post("/queue/sign", data={"csrf": token, "id": "nothing", "assertion": "{}"})
    assert signed.status_code == 400 and "nothing waits" in signed.json()["error"]
    assert c.post("/queue/sign", data={"id": "x"}).status_code == 403  # no form token
    by_ip = client(server)
    by_ip.cookies = c.cookies
    refused = by_ip.post("/queue/prepare", data=form)
    assert refused.status_code == 400 and "not an IP address" in refused.json()["error"]
    assert store_digest(web_db) == before
