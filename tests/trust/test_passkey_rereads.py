"""A re-read signed with a passkey, without a browser (a software authenticator: a real P-256 key): the
re-read is prepared (nothing recorded), the assertion over its message records it and it vouches in a store
that requires signatures; an assertion over another message, by another person's passkey or at another
origin is refused; a stored assertion copied onto another re-read event (appended with the store's own
code) is reported by `claims db check` and vouches for nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import select

from claimsdb import db, provenance
from claimsdb.errors import BadQuery
from claimsdb.models import Claim
from claimsdb.recording import record
from claimsdb.trust import people, signatures
from tests.trust.softkey import ORIGIN, SoftKey
from tests.trust.test_invites import invite

pytestmark = [
    pytest.mark.usefixtures("loaded"),
    pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is needed"),
]
REREAD = {
    "source": "widget-report",
    "locator": "§3.1",
    "quote": "pretrained on 3,072 H100 GPUs",
    "attest": "read in the printed copy",
}


@pytest.fixture
def ada(claims, store, tmp_path: Path) -> SoftKey:
    """Ada registered (ssh key), her passkey registered through an invitation; signatures required."""
    path = tmp_path / "ada"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    assert claims("people", "add", "Ada", "--key", f"{path}.pub").exit_code == 0
    token = invite(claims, path, "Ada")
    soft = SoftKey("Ada")
    with db.session_scope(db.open_engine(store)) as session:
        people.register_passkey(session, token, soft.credential, "localhost")
    assert claims("people", "require-signatures", "--sign-with", path).exit_code == 0
    return soft


def prepare(store: str, key: str, actor: str = "Ada") -> signatures.Prepared:
    with pytest.raises(signatures.Prepared) as prepared:
        with db.session_scope(db.open_engine(store)) as session:
            provenance.reread(session, key, actor=actor, sign=signatures.Prepare(), **REREAD)
    return prepared.value


def record_signed(store: str, key: str, prepared, assertion: dict, actor: str = "Ada") -> dict:
    signer = signatures.Passkey(
        prepared.event["at"], prepared.message, assertion, ORIGIN, "localhost"
    )
    with db.session_scope(db.open_engine(store)) as session:
        return provenance.reread(session, key, actor=actor, sign=signer, **REREAD)


def exported(claims) -> list[str]:
    result = claims("export", "--format", "json", "--skip-unsafe")
    return [r["key"] for r in json.loads(result.stdout)["rows"]] if result.stdout else []


def signature_check(claims) -> dict:
    checks = json.loads(claims("db", "check", "--format", "json").stdout)["checks"]
    return {c["name"]: c for c in checks}["re-read signatures"]


def test_a_passkey_signed_reread_vouches(claims, store, ada):
    prepared = prepare(store, "widget.pretrain")
    assert "widget.pretrain" not in exported(claims)  # preparing recorded nothing
    done = record_signed(store, "widget.pretrain", prepared, ada.assertion(prepared.message))
    signature = done["event"]["detail"]["signature"]
    assert signature["format"] == "webauthn"
    assert signature["credential_id"] == ada.credential.credential_id
    assert done["event"]["at"] == prepared.event["at"]
    assert "widget.pretrain" in exported(claims)
    assert signature_check(claims)["ok"] is True


def test_wrong_assertions_are_refused(claims, store, ada):
    prepared = prepare(store, "widget.pretrain")
    cases = {
        "another message": ada.assertion(b"something else"),
        "wrong site": ada.assertion(prepared.message, origin="http://evil.localhost"),
        "unknown credential": SoftKey("Ada").assertion(prepared.message),
        "user-presence": ada.assertion(prepared.message, flags=0x04),
    }
    for expected, assertion in cases.items():
        with pytest.raises(BadQuery, match=expected):
            record_signed(store, "widget.pretrain", prepared, assertion)
    with pytest.raises(BadQuery, match="changed after the passkey signed"):
        record_signed(
            store, "widget.pretrain", prepare(store, "widget.context"), ada.assertion(b"")
        )
    assert "widget.pretrain" not in exported(claims)


def test_a_replayed_assertion_is_reported_and_does_not_vouch(claims, store, ada):
    prepared = prepare(store, "widget.pretrain")
    done = record_signed(store, "widget.pretrain", prepared, ada.assertion(prepared.message))
    copied = done["event"]["detail"]["signature"]
    with db.session_scope(db.open_engine(store)) as session:
        claim = session.exec(select(Claim).where(Claim.key == "widget.context")).one()
        detail = {**REREAD, "signature": copied}
        event = {
            "kind": "reread",
            "actor": "Ada",
            "tag_before": claim.tag,
            "tag_after": "spot-checked",
            "origin": "widget-report",
            "detail": json.dumps(detail),
        }
        record(session, claim, event, tag="spot-checked")
    check = signature_check(claims)
    assert check["ok"] is False and "widget.context" in check["detail"]
    assert "another message" in check["detail"]
    assert "widget.context" not in exported(claims) and "widget.pretrain" in exported(claims)


def test_an_assertion_stored_twice_is_a_replay(claims, store, ada):
    """Even a copy of the whole signed event, on the same claim, at the same time, is a replay."""
    prepared = prepare(store, "widget.pretrain")
    done = record_signed(store, "widget.pretrain", prepared, ada.assertion(prepared.message))
    assert signature_check(claims)["ok"] is True
    fields = (
        "kind",
        "actor",
        "tag_before",
        "tag_after",
        "origin",
        "content_sha256",
        "at",
        "detail",
    )
    with db.session_scope(db.open_engine(store)) as session:
        claim = session.exec(select(Claim).where(Claim.key == "widget.pretrain")).one()
        row = session.execute(
            text(f"SELECT {', '.join(fields)} FROM event WHERE id = :id"),
            {"id": done["event"]["id"]},
        ).one()
        event = dict(zip(fields, row))
        record(session, claim, event, tag="spot-checked")
    check = signature_check(claims)
    assert check["ok"] is False and "replays the passkey assertion" in check["detail"]


def test_a_removed_passkey_signs_nothing_after_its_removal(claims, store, ada, tmp_path):
    """`claims people remove NAME --key "passkey ID"` (signed): the re-read the passkey signed before
    still vouches; it can sign no later one, and a later event carrying its assertion vouches for
    nothing."""
    prepared = prepare(store, "widget.pretrain")
    record_signed(store, "widget.pretrain", prepared, ada.assertion(prepared.message))
    named = f"passkey {ada.credential.credential_id}"
    removed = claims("people", "remove", "Ada", "--key", named, "--sign-with", tmp_path / "ada")
    assert removed.exit_code == 0, removed.output
    rows = json.loads(claims("people", "list", "--format", "json").stdout)["rows"]
    assert [(r["kind"], r["fingerprint"]) for r in rows][-1] == ("removed", named)
    assert "widget.pretrain" in exported(claims)  # signed before the removal
    later = prepare(store, "widget.context")
    with pytest.raises(BadQuery, match="passkey"):
        record_signed(store, "widget.context", later, ada.assertion(later.message))
    reg = people.Registry()
    with db.session_scope(db.open_engine(store)) as session:
        reg = people.load(session)
    event = {"kind": "reread", "actor": "Ada", "at": "2999-01-01T00:00:00Z", "detail": {}}
    event["detail"] = {
        "signature": {
            "format": "webauthn",
            "credential_id": ada.credential.credential_id,
            "assertion": {**ada.assertion(b"x"), "credential_id": ada.credential.credential_id},
        }
    }
    why = signatures.problem(reg, "widget.context", event)
    assert why is not None and "removed" in why
    assert (
        claims("people", "remove", "Ada", "--key", named, "--sign-with", tmp_path / "ada").exit_code
        == 2
    )
