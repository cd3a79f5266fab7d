"""A person's passkey in the web view, in a real Chromium with DevTools' virtual authenticator; no mocks.

`claims people passkey` invites Ada; her invitation link registers a passkey (at http://localhost:PORT: a
passkey belongs to a domain, and the link refuses 127.0.0.1 with the address to open); once signatures are
required, her re-read recorded through the queue is signed with it and vouches (`claims export` includes
it); the stored assertion copied onto another re-read event (appended with the store's own code) is
reported by `claims db check` and vouches for nothing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from claimsdb import db
from claimsdb.cli.app import app
from claimsdb.models import Claim
from claimsdb.recording import record

pytestmark = [
    pytest.mark.slow,  # Chromium
    pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is needed"),
]
AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def expect(target):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


@pytest.fixture
def claims(web_db, monkeypatch):
    monkeypatch.delenv("CLAIMS_DB", raising=False)
    runner = CliRunner()

    def run(*args):
        return runner.invoke(app, [*map(str, args), "--db", str(web_db)], catch_exceptions=False)

    return run


@pytest.fixture
def invited(claims, tmp_path) -> tuple[str, object]:
    """Ada Lovelace registered with an SSH key, and invited to register a passkey: (token, key path)."""
    key = tmp_path / "ada"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    assert claims("people", "add", "Ada Lovelace", "--key", f"{key}.pub").exit_code == 0
    done = claims("people", "passkey", "Ada Lovelace", "--sign-with", key, "--format", "json")
    assert done.exit_code == 0, done.output
    return parse_qs(urlsplit(json.loads(done.stdout)["path"]).query)["token"][0], key


@pytest.fixture
def tab(browser):
    """A tab with a virtual authenticator (a platform passkey the test "touches" automatically)."""
    context = browser.new_context(viewport={"width": 1360, "height": 860})
    page = context.new_page()
    page.set_default_timeout(15_000)
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    yield page
    context.close()


def test_an_invitation_registers_a_passkey_that_signs_a_reread(
    serve, client, tab, claims, invited, history, web_db, screenshots
):
    token, key = invited
    server = serve()
    local = server.url.replace("127.0.0.1", "localhost")
    by_ip = client(server).get(f"/passkey?token={token}")
    assert by_ip.status_code == 400 and f"{local}/passkey?token={token}" in by_ip.text

    tab.goto(f"{local}/passkey?token={token}")
    tab.get_by_role("button", name="Register a passkey for Ada Lovelace").click()
    expect(tab.locator(".passkey-status")).to_contain_text(
        "A passkey is registered for Ada Lovelace"
    )
    tab.screenshot(path=screenshots / "serve-passkey.png", full_page=True)
    listed = json.loads(claims("people", "list", "--format", "json").stdout)["rows"]
    assert [r["kind"] for r in listed] == ["added", "passkey", "passkey"]
    tab.goto(f"{local}/passkey?token={token}")
    expect(tab.locator("p.error")).to_contain_text("used already")
    assert claims("people", "require-signatures", "--sign-with", key).exit_code == 0

    tab.goto(f"{local}/queue?key=gadget.pretrain")
    tab.fill("#name", "Ada Lovelace")
    tab.get_by_role("button", name="Continue").click()
    expect(tab).to_have_url(re.compile(r"/queue\?key=gadget\.pretrain$"))
    tab.fill("#locator", "§2")
    tab.get_by_role(
        "button", name="Record re-read as Ada Lovelace, signed with your passkey"
    ).click()
    expect(tab.locator(".flash")).to_contain_text("re-read by Ada Lovelace")
    last = history("gadget.pretrain")["events"][-1]
    assert (last["kind"], last["actor"]) == ("reread", "Ada Lovelace")
    signature = last["detail"]["signature"]
    assert signature["format"] == "webauthn" and signature["assertion"]["credential_id"]

    def exported() -> list[str]:
        done = claims("export", "--format", "json", "--skip-unsafe")
        return [r["key"] for r in json.loads(done.stdout)["rows"]]

    def signature_check() -> dict:
        checks = json.loads(claims("db", "check", "--format", "json").stdout)["checks"]
        return {c["name"]: c for c in checks}["re-read signatures"]

    assert "gadget.pretrain" in exported() and signature_check()["ok"] is True

    # The stored assertion put on another re-read, appended with the store's own code: reported, not vouching.
    with db.session_scope(db.open_engine(web_db)) as session:
        claim = session.exec(select(Claim).where(Claim.key == "gadget.fleet")).one()
        forged = {
            "kind": "reread",
            "actor": "Ada Lovelace",
            "tag_before": claim.tag,
            "tag_after": "spot-checked",
            "origin": "gadget-report",
            "detail": json.dumps({**last["detail"], "signature": signature}),
        }
        record(session, claim, forged, tag="spot-checked")
    check = signature_check()
    assert check["ok"] is False and re.search(r"gadget\.fleet.*another message", check["detail"])
    assert "gadget.fleet" not in exported() and "gadget.pretrain" in exported()
