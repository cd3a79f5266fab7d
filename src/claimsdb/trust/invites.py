"""Passkeys in the people registry: an invitation, signed by a registered person, and the passkey it admits.

`claims people passkey NAME --sign-with KEY` records a signed row of kind "passkey" whose key is an
invitation, JSON {"invite": sha256 hex of a random one-time token, "expires": ISO time}; the token itself
is shown once, in a link to the web view. The person opens it, their authenticator makes a passkey, and
the web view appends an unsigned row of kind "passkey" whose key is JSON {"credential", "rp_id", "invite":
the invitation row's sha256, "token"}: it is authorised by the token whose hash the signed invitation holds.

Such a row is valid only when it names an earlier valid invitation for the same person, not expired at the
row's time and not used by an earlier passkey, and the token's hash is the invitation's. Anything else is a
registry problem (`claims db check` fails on it) and grants nothing.

Domain code: no output.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claimsdb.trust.passkeys import Credential
    from claimsdb.trust.people import Registry

INVITE_FIELDS = {"invite", "expires"}
PASSKEY_FIELDS = {"credential", "rp_id", "invite", "token"}
VALID_FOR = timedelta(days=1)
_HEX = re.compile(r"[0-9a-f]{64}")


def new_token() -> tuple[str, str]:
    """(a random one-time token, the sha256 hex an invitation keeps of it)."""
    token = secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def expiry(now: str | None = None) -> str:
    """When an invitation made now expires (ISO 8601 UTC, as models.utcnow writes times)."""
    start = datetime.fromisoformat(now) if now else datetime.now(UTC)
    return (start + VALID_FOR).isoformat(timespec="microseconds")


def invitation_key(hashed: str, expires: str) -> str:
    return json.dumps({"invite": hashed, "expires": expires}, separators=(",", ":"))


def passkey_key(credential: Credential, rp_id: str, invite: str, token: str) -> str:
    entry = {"credential": credential.to_json(), "rp_id": rp_id, "invite": invite, "token": token}
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def _entry(row: dict[str, Any]) -> dict[str, Any] | None:
    try:
        value = json.loads(row["key"] or "")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def row_problem(reg: Registry, row: dict[str, Any]) -> str | None:
    """Why a "passkey" row is not valid (its SSH signature aside, which a signed invitation also needs)."""
    entry = _entry(row)
    if entry is None:
        return "its passkey entry is not a JSON object"
    if row["signature"] is not None:  # an invitation, signed by a registered person
        if set(entry) != INVITE_FIELDS or not _HEX.fullmatch(str(entry["invite"])):
            return "a signed passkey row is an invitation: {invite: sha256 hex, expires: time}"
        return None if isinstance(entry["expires"], str) else "its invitation has no expiry time"
    if set(entry) != PASSKEY_FIELDS:
        return "an unsigned passkey row holds a credential, its site, its invitation and token"
    return _admitted(reg, row, entry)


def _admitted(reg: Registry, row: dict[str, Any], entry: dict[str, Any]) -> str | None:
    """Why a passkey row is not admitted by the invitation it names (None: it is)."""
    invite = reg.invitations.get(str(entry["invite"]))
    if invite is None:
        return "it names no valid invitation of the registry before it"
    if invite["name"] != row["name"] or row["actor"] != row["name"]:
        return f"its invitation was for {invite['name']}, not {row['name']}"
    if invite["used"]:
        return "its invitation was used already: a link registers one passkey"
    if str(row["at"]) > invite["expires"]:
        return f"its invitation expired on {invite['expires'][:19]}Z"
    token = entry["token"]
    if not isinstance(token, str) or not hmac.compare_digest(token_hash(token), invite["hash"]):
        return "its token is not the invitation's"
    from claimsdb.trust.passkeys import Credential, PasskeyError, check_rp_id  # fido2: only here

    try:
        credential = Credential.from_json(entry["credential"])
        check_rp_id(entry["rp_id"])
    except PasskeyError as exc:
        return f"its passkey is unusable: {exc}"
    if credential.name != row["name"]:
        return f"its credential is {credential.name}'s, not {row['name']}'s"
    if any(p["credential"].credential_id == credential.credential_id for p in reg.passkeys):
        return "its credential is registered already"
    return None


def apply(reg: Registry, row: dict[str, Any]) -> None:
    """Add a valid row's invitation or passkey to the registry."""
    entry = _entry(row) or {}
    if row["signature"] is not None:
        reg.invitations[row["sha256"]] = {
            "name": row["name"],
            "at": row["at"],
            "hash": entry["invite"],
            "expires": entry["expires"],
            "used": False,
        }
        return
    reg.invitations[entry["invite"]]["used"] = True
    from claimsdb.trust.passkeys import Credential

    reg.passkeys.append(
        {
            "name": row["name"],
            "at": row["at"],
            "credential": Credential.from_json(entry["credential"]),
            "rp_id": entry["rp_id"],
            "invite": entry["invite"],
        }
    )


def open_invitation(reg: Registry, token: str, now: str) -> tuple[str, dict[str, Any]]:
    """(the invitation row's sha256, the invitation) that this token opens now; ValueError says why not."""
    hashed = token_hash(token)
    for digest, invite in reg.invitations.items():
        if hmac.compare_digest(invite["hash"], hashed):
            if invite["used"]:
                raise ValueError("this passkey link was used already: ask for a new one")
            if now > invite["expires"]:
                raise ValueError(
                    f"this passkey link expired on {invite['expires'][:19]}Z: ask for a new one"
                )
            return digest, invite
    raise ValueError("this is no passkey link of this store (or it was mistyped)")
