"""Passkey invitations in the people registry, without a browser: `claims people passkey` records a signed
invitation and prints a one-time link; a passkey registered with its token is granted; a passkey row with a
wrong token, someone else's invitation, a used or an expired one (appended with the store's own code) is a
registry problem that `claims db check` reports, and grants nothing. Keys are real (ssh-keygen, P-256)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from claimsdb import db
from claimsdb.errors import BadQuery
from claimsdb.trust import invites, people
from tests.trust.softkey import SoftKey

pytestmark = [
    pytest.mark.usefixtures("loaded"),
    pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is needed"),
]


@pytest.fixture
def ada(claims, tmp_path: Path) -> Path:
    """Ada, the first person, registered with a fresh ed25519 key (returned)."""
    path = tmp_path / "ada"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    done = claims("people", "add", "Ada", "--key", f"{path}.pub")
    assert done.exit_code == 0, done.output
    return path


def invite(claims, ada: Path, name: str = "Grace") -> str:
    done = claims("people", "passkey", name, "--sign-with", ada, "--format", "json")
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert record["kind"] == "passkey" and record["name"] == name and record["actor"] == "Ada"
    path = urlsplit(record["path"])
    assert path.path == "/passkey"
    return parse_qs(path.query)["token"][0]


def registry_check(claims) -> dict:
    checks = json.loads(claims("db", "check", "--format", "json").stdout)["checks"]
    return {c["name"]: c for c in checks}["people registry"]


def append(store: str, name: str, entry: dict, at: str | None = None) -> None:
    """A passkey row appended with the store's own code, as a writer with the database could."""
    with db.session_scope(db.open_engine(store)) as session:
        reg = people.load(session)
        row = people._row("passkey", name, None, None, name, reg.head, None)
        row["key"] = json.dumps(entry)
        if at is not None:
            row["at"] = at
        people._append(session, row, None, None)


def granted(store: str, name: str) -> tuple[list, list[str]]:
    with db.session_scope(db.open_engine(store)) as session:
        reg = people.load(session)
        return reg.passkeys_of(name), reg.problems


def test_an_invitation_link_registers_one_passkey(claims, store, ada):
    table = claims("people", "passkey", "Grace", "--sign-with", ada)
    assert table.exit_code == 0, table.output
    assert (
        "http://localhost:PORT/passkey?token=" in table.stdout and "not 127.0.0.1" in table.stdout
    )
    token = invite(claims, ada)
    grace = SoftKey("Grace")
    with db.session_scope(db.open_engine(store)) as session:
        assert people.invitation(session, token)["name"] == "Grace"
        row = people.register_passkey(session, token, grace.credential, "localhost")
    assert row["signature"] is None and row["actor"] == "Grace"
    (held,), problems = granted(store, "Grace")
    assert (
        problems == [] and held["credential"] == grace.credential and held["rp_id"] == "localhost"
    )
    assert registry_check(claims)["ok"] is True
    # the link is used: it registers nothing more
    with db.session_scope(db.open_engine(store)) as session, pytest.raises(BadQuery, match="used"):
        people.register_passkey(session, token, SoftKey("Grace").credential, "localhost")
    with (
        db.session_scope(db.open_engine(store)) as session,
        pytest.raises(BadQuery, match="no passkey link"),
    ):
        people.invitation(session, "not-a-token")


def test_an_invitation_must_be_signed_by_a_registered_person(claims, ada, tmp_path):
    refused = claims("people", "passkey", "Grace")
    assert refused.exit_code == 2 and "--sign-with" in refused.stderr
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)], check=True)
    refused = claims("people", "passkey", "Grace", "--sign-with", stranger)
    assert refused.exit_code == 2 and "is no registered person's key" in refused.stderr


def test_a_passkey_row_with_a_wrong_token_is_a_registry_problem(claims, store, ada):
    token = invite(claims, ada)
    with db.session_scope(db.open_engine(store)) as session:
        digest = next(iter(people.load(session).invitations))
    entry = {
        "credential": SoftKey("Grace").credential.to_json(),
        "rp_id": "localhost",
        "invite": digest,
        "token": token + "x",
    }
    append(store, "Grace", entry)
    passkeys, problems = granted(store, "Grace")
    assert passkeys == [] and "its token is not the invitation's" in problems[0]
    check = registry_check(claims)
    assert check["ok"] is False and "token" in check["detail"]
    # the right token after it: a valid row (the invitation was not used by the bad one)
    append(store, "Grace", {**entry, "token": token})
    passkeys, problems = granted(store, "Grace")
    assert len(passkeys) == 1 and len(problems) == 1


@pytest.mark.parametrize(
    "case", ["other person", "used", "expired", "no invitation", "unsigned invite"]
)
def test_replay_rules_for_passkey_rows(claims, store, ada, case):
    token = invite(claims, ada)
    with db.session_scope(db.open_engine(store)) as session:
        reg = people.load(session)
        digest, invitation = next(iter(reg.invitations.items()))
    entry = {
        "credential": SoftKey("Grace").credential.to_json(),
        "rp_id": "localhost",
        "invite": digest,
        "token": token,
    }
    name, at, expected = "Grace", None, ""
    if case == "other person":
        name, expected = "Mallory", "its invitation was for Grace"
        entry["credential"] = SoftKey("Mallory").credential.to_json()
    elif case == "used":
        append(store, "Grace", entry)
        entry["credential"] = SoftKey("Grace").credential.to_json()
        expected = "used already"
    elif case == "expired":
        at, expected = invites.expiry(invitation["expires"]), "expired"
    elif case == "no invitation":
        entry["invite"], expected = "0" * 64, "no valid invitation"
    else:  # an invitation of one's own, unsigned
        hashed = invites.token_hash("mine")
        entry, expected = {"invite": hashed, "expires": "9999"}, "holds a credential"
    append(store, name, entry, at=at)
    passkeys, problems = granted(store, name)
    assert len(passkeys) == (1 if case == "used" else 0)
    assert len(problems) == 1 and expected in problems[0], problems
    assert registry_check(claims)["ok"] is False
