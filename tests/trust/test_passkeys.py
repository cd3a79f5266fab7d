"""Passkeys end to end: a real Chromium, its virtual authenticator (DevTools' WebAuthn domain), passkey.js
under a strict CSP, and `claimsdb.trust.passkeys` on a real uvicorn server; no mocks.

The page is opened at http://localhost:PORT (WebAuthn refuses an IP address as the site), the server
listens on 127.0.0.1. A credential is registered, a message is signed, and the stored assertion is
verified offline: valid over its message; refused over another message (a replayed re-read), with one
byte of its signature changed, from a credential not in the person's list, without the user-presence flag.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import uvicorn
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse
from starlette.routing import Route

from claimsdb.cli.serve import listen
from claimsdb.trust import passkeys
from claimsdb.trust.passkeys import Credential, PasskeyError

pytestmark = pytest.mark.slow  # Chromium

PASSKEY_JS = Path(passkeys.__file__).resolve().parent.parent / "web" / "static" / "passkey.js"
RP_ID = "localhost"
MESSAGE = b"claimsdb reread v1\nclaim gadget.pretrain\nquote Its pretraining used 2,048 H800 GPUs."
OTHER = b"claimsdb reread v1\nclaim widget.serve\nquote served on 512 GPUs"
PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>passkey</title>"
    "<script src='/static/passkey.js'></script></head><body><p>Passkey test page</p></body></html>"
)
# The page's policy: no inline script, no eval; passkey.js must work under it.
CSP = "default-src 'none'; script-src 'self'; connect-src 'self'"
AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def passkey_app(origin: str) -> tuple[Starlette, SimpleNamespace]:
    """The page and two JSON endpoints per flow; `held` is what the server keeps (states, credentials,
    the raw registration responses)."""
    held = SimpleNamespace(states={}, credentials={}, registrations={})

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE, headers={"Content-Security-Policy": CSP})

    async def script(request: Request) -> FileResponse:
        return FileResponse(PASSKEY_JS, media_type="text/javascript")

    async def register_options(request: Request) -> JSONResponse:
        name = (await request.json())["name"]
        existing = held.credentials.setdefault(name, [])
        options, held.states[name] = passkeys.registration_options(
            name, RP_ID, "claimsdb test", existing
        )
        return JSONResponse(options)

    async def register_complete(request: Request) -> JSONResponse:
        body = await request.json()
        name, response = body["name"], body["response"]
        held.registrations[name] = response
        credential = passkeys.complete_registration(
            held.states[name], response, origin=origin, rp_id=RP_ID, name=name
        )
        held.credentials[name].append(credential)
        return JSONResponse(credential.to_json())

    async def assert_options(request: Request) -> JSONResponse:
        body = await request.json()
        message = body["message"].encode("utf-8")
        return JSONResponse(
            passkeys.assertion_options(message, RP_ID, held.credentials[body["name"]])
        )

    async def assert_complete(request: Request) -> JSONResponse:
        return JSONResponse(passkeys.assertion_record(await request.json()))

    routes = [
        Route("/", page),
        Route("/static/passkey.js", script),
        Route("/register/options", register_options, methods=["POST"]),
        Route("/register/complete", register_complete, methods=["POST"]),
        Route("/assert/options", assert_options, methods=["POST"]),
        Route("/assert/complete", assert_complete, methods=["POST"]),
    ]
    return Starlette(routes=routes), held


@pytest.fixture(scope="module")
def site() -> Iterator[SimpleNamespace]:
    """The app under uvicorn on 127.0.0.1 (a free port), in a thread; its URL names localhost."""
    sock = listen("127.0.0.1", 0)
    origin = f"http://localhost:{sock.getsockname()[1]}"
    app, held = passkey_app(origin)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.01)
    yield SimpleNamespace(origin=origin, held=held)
    server.should_exit = True
    thread.join(timeout=5)
    sock.close()


@pytest.fixture(scope="module")
def tab(site, browser):
    """A Chromium tab on the page, with DevTools' WebAuthn domain enabled (no authenticator yet)."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(site.origin + "/")
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    yield SimpleNamespace(page=page, cdp=cdp)
    context.close()


# One flow in the page: ask for options, let passkey.js drive the authenticator, post the response back.
REGISTER = """async (name) => {
  const post = async (path, body) => {
    const answer = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                      body: JSON.stringify(body)});
    if (!answer.ok) throw new Error(path + ": " + answer.status);
    return answer.json();
  };
  const options = await post("/register/options", {name});
  const response = await window.claimsPasskey.register(options);
  return post("/register/complete", {name, response});
}"""
ASSERT = """async ([name, message]) => {
  const post = async (path, body) => {
    const answer = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                      body: JSON.stringify(body)});
    if (!answer.ok) throw new Error(path + ": " + answer.status);
    return answer.json();
  };
  const options = await post("/assert/options", {name, message});
  return post("/assert/complete", await window.claimsPasskey.assert(options));
}"""


def add_authenticator(tab) -> str:
    return tab.cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})[
        "authenticatorId"
    ]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def resigned(
    record: dict, key: ec.EllipticCurvePrivateKey, flags_off: int = 0, client: bytes | None = None
) -> dict:
    """`record` with flags cleared in its authenticatorData (or other client data), signed again with
    the credential's own key: what only a holder of the authenticator's secret could make."""
    auth_data = bytearray(unb64(record["authenticator_data"]))
    auth_data[32] &= ~flags_off & 0xFF
    client = unb64(record["client_data_json"]) if client is None else client
    signature = key.sign(
        bytes(auth_data) + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256())
    )
    return {
        **record,
        "authenticator_data": b64(bytes(auth_data)),
        "client_data_json": b64(client),
        "signature": b64(signature),
    }


@pytest.fixture(scope="module")
def signed(site, tab) -> SimpleNamespace:
    """Grace registers a passkey on one authenticator and signs MESSAGE; Mallory, on a second
    authenticator, signs it too. Their credentials, records, and Grace's private key (from DevTools)."""
    assert tab.page.evaluate("typeof window.claimsPasskey.register") == "function"
    grace_authenticator = add_authenticator(tab)
    grace = Credential.from_json(tab.page.evaluate(REGISTER, "Grace Hopper"))
    record = tab.page.evaluate(ASSERT, ["Grace Hopper", MESSAGE.decode()])
    stored = tab.cdp.send("WebAuthn.getCredentials", {"authenticatorId": grace_authenticator})
    (held_key,) = stored["credentials"]
    tab.cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": grace_authenticator})
    add_authenticator(tab)
    mallory = Credential.from_json(tab.page.evaluate(REGISTER, "Mallory"))
    mallory_record = tab.page.evaluate(ASSERT, ["Mallory", MESSAGE.decode()])
    private_key = serialization.load_der_private_key(
        base64.b64decode(held_key["privateKey"]), password=None
    )
    assert isinstance(private_key, ec.EllipticCurvePrivateKey)
    return SimpleNamespace(
        grace=grace,
        record=record,
        key=private_key,
        mallory=mallory,
        mallory_record=mallory_record,
        key_id=held_key["credentialId"],
    )


def verify(record: dict, message: bytes, credentials: list[Credential], origin) -> str | None:
    return passkeys.verify_assertion(record, message, credentials, origin=origin, rp_id=RP_ID)


def test_a_registered_passkey_signs_one_message(site, signed):
    grace, record = signed.grace, signed.record
    assert grace.name == "Grace Hopper"
    assert unb64(grace.credential_id) == base64.b64decode(signed.key_id)
    assert set(record) == {"credential_id", "authenticator_data", "client_data_json", "signature"}
    assert record["credential_id"] == grace.credential_id
    client_data = json.loads(unb64(record["client_data_json"]))
    assert client_data["type"] == "webauthn.get" and client_data["origin"] == site.origin
    assert client_data["challenge"] == b64(hashlib.sha256(MESSAGE).digest())

    assert verify(record, MESSAGE, [grace], site.origin) is None
    assert verify(record, MESSAGE, [signed.mallory, grace], (site.origin, "https:x")) is None
    stored = json.loads(json.dumps(record))  # as the database keeps it
    assert verify(stored, MESSAGE, [grace], None) is None  # offline, origin not checked
    # The credential as the registry stores it, read back, verifies the same.
    assert verify(record, MESSAGE, [Credential.from_json(grace.to_json())], site.origin) is None


def test_a_replayed_or_altered_assertion_is_refused(site, signed):
    grace, record = signed.grace, signed.record
    replay = verify(record, OTHER, [grace], site.origin)
    assert replay and "another message" in replay

    signature = bytearray(unb64(record["signature"]))
    signature[len(signature) // 2] ^= 0x01
    forged = {**record, "signature": b64(bytes(signature))}
    assert verify(forged, MESSAGE, [grace], site.origin) == "bad signature"

    stranger = verify(signed.mallory_record, MESSAGE, [grace], site.origin)
    assert stranger and "unknown credential" in stranger
    assert verify(signed.mallory_record, MESSAGE, [signed.mallory], site.origin) is None

    assert verify(record, MESSAGE, [grace], "http://localhost:1") == (
        f"wrong site: signed at {site.origin!r}"
    )
    wrong_rp = passkeys.verify_assertion(
        record, MESSAGE, [grace], origin=site.origin, rp_id="example.org"
    )
    assert wrong_rp and "wrong site" in wrong_rp


def test_an_assertion_without_user_presence_is_refused(site, signed):
    grace, record = signed.grace, signed.record
    auth_data = bytearray(unb64(record["authenticator_data"]))
    assert auth_data[32] & 0x01  # the virtual authenticator was "touched"
    auth_data[32] &= 0xFE
    cleared = {**record, "authenticator_data": b64(bytes(auth_data))}
    assert verify(cleared, MESSAGE, [grace], site.origin) == "bad signature"
    # Even signed again by the credential's own key (taken from DevTools), no presence is refused.
    assert verify(resigned(record, signed.key), MESSAGE, [grace], site.origin) is None
    untouched = verify(resigned(record, signed.key, flags_off=0x01), MESSAGE, [grace], site.origin)
    assert untouched and "user-presence" in untouched


def test_validly_signed_odd_client_data_gets_a_reason(site, signed):
    """Client data only the key's holder could sign, yet not an assertion of this message here."""
    grace, record = signed.grace, signed.record
    client = json.loads(unb64(record["client_data_json"]))
    cases = {
        "webauthn.get": json.dumps({**client, "type": "webauthn.create"}).encode(),
        "frame": json.dumps({**client, "crossOrigin": True}).encode(),
        "JSON object": b"[1, 2]",
        "unreadable": b"\xff{",
        "another message": json.dumps({**client, "challenge": 7}).encode(),
        "base64url": json.dumps({**client, "challenge": "**"}).encode(),
    }
    for expected, body in cases.items():
        reason = verify(resigned(record, signed.key, client=body), MESSAGE, [grace], site.origin)
        assert reason and expected in reason, (expected, reason)


def test_hostile_records_get_a_reason_not_an_exception(site, signed):
    grace, record = signed.grace, signed.record
    hostile = [
        None,
        [],
        "record",
        {},
        {**record, "extra": "x"},
        {**record, "signature": 7},
        {**record, "signature": "not base64!"},
        {**record, "authenticator_data": "AAAA"},
        {**record, "client_data_json": b64(b"[1, 2")},
        {**record, "credential_id": "A" * 20_000},  # over 16 KB
    ]
    for bad in hostile:
        reason = verify(bad, MESSAGE, [grace], site.origin)  # type: ignore[arg-type]
        assert isinstance(reason, str) and reason, bad
    assert "16 KB" in (verify(hostile[-1], MESSAGE, [grace], site.origin) or "")
    broken = Credential(
        grace.credential_id, b64(b"\xa1\x03\x26"), grace.name
    )  # a key with no curve
    assert verify(record, MESSAGE, [broken], site.origin)


def test_registration_is_refused_from_another_site(site, signed):
    held = site.held
    state, response = held.states["Grace Hopper"], held.registrations["Grace Hopper"]
    with pytest.raises(PasskeyError, match="origin"):
        passkeys.complete_registration(
            state, response, origin="http://evil.localhost", rp_id=RP_ID, name="Grace Hopper"
        )
    with pytest.raises(PasskeyError, match="not begun for"):
        passkeys.complete_registration(
            state, response, origin=site.origin, rp_id=RP_ID, name="Mallory"
        )
    with pytest.raises(PasskeyError, match="IP address"):
        passkeys.assertion_options(MESSAGE, "127.0.0.1", [signed.grace])
    # The person's existing credential is excluded from a second registration.
    options, _ = passkeys.registration_options("Grace Hopper", RP_ID, "t", [signed.grace])
    assert [d["id"] for d in options["excludeCredentials"]] == [signed.grace.credential_id]
    assert options["authenticatorSelection"]["userVerification"] == "preferred"
