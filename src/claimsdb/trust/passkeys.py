"""Passkeys (WebAuthn) for re-reads recorded in the browser, over the maintained `fido2` library.

A re-read made in the web view is signed by a passkey: the server computes the re-read's canonical
message, asks the browser for an assertion whose challenge is sha256(message), and stores the assertion
with the re-read. Anyone holding the person's registered credential public key can verify it later,
offline (`verify_assertion`).

What a valid assertion proves: someone was present at the browser with the person's authenticator (the
user-presence flag: a touch; a PIN or fingerprint too when it verified the user) and let it sign exactly
this message, on this site.
A coding agent running as the person has the person's files and shell, not the authenticator, so it
cannot produce one. What it does not prove: that they read the page, or read it well; it is a signature
on the re-read, not a witness of the reading.

The relying party ID must be a domain (WebAuthn refuses IP addresses): the web view is opened at
http://localhost:PORT, a secure context, with rp_id "localhost".
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fido2 import cbor
from fido2.cose import CoseKey, UnsupportedKey
from fido2.server import Fido2Server
from fido2.webauthn import (
    AuthenticationResponse,
    AuthenticatorData,
    PublicKeyCredentialDescriptor,
    PublicKeyCredentialRpEntity,
    PublicKeyCredentialType,
    PublicKeyCredentialUserEntity,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

MAX_RECORD_BYTES = 16 * 1024  # a stored assertion is a few hundred bytes; anything over is refused
MAX_RESPONSE_BYTES = 64 * 1024  # a registration response, attestation certificates included
MAX_CREDENTIAL_ID_BYTES = 1023  # WebAuthn's bound on a credential id
TIMEOUT_MS = 120_000  # how long the browser waits for the person to touch the authenticator
RECORD_FIELDS = ("credential_id", "authenticator_data", "client_data_json", "signature")
_B64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")
_USER_PRESENT = AuthenticatorData.FLAG.UP


class PasskeyError(ValueError):
    """A passkey step refused: the reason says why."""


@dataclass(frozen=True)
class Credential:
    """A person's registered passkey, as the people registry stores it.

    credential_id: the credential's id, base64url; public_key: its COSE public key's bytes, base64url;
    name: whose credential it is (the name it was registered under)."""

    credential_id: str
    public_key: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {
            "credential_id": self.credential_id,
            "public_key": self.public_key,
            "name": self.name,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Credential:
        """The credential a registry entry holds; PasskeyError when it is not one."""
        if not isinstance(data, Mapping):
            raise PasskeyError("a credential is a JSON object")
        values = [data.get(key) for key in ("credential_id", "public_key", "name")]
        if not all(isinstance(value, str) and value for value in values):
            raise PasskeyError("a credential needs credential_id, public_key and name (strings)")
        credential = cls(*values)  # type: ignore[arg-type]
        credential.raw_id()
        credential.cose_key()
        return credential

    def raw_id(self) -> bytes:
        raw = _b64decode(self.credential_id, "credential id")
        if not raw or len(raw) > MAX_CREDENTIAL_ID_BYTES:
            raise PasskeyError("a credential id is 1 to 1023 bytes")
        return raw

    def cose_key(self) -> CoseKey:
        """The credential's public key; PasskeyError when unreadable or of an unsupported algorithm."""
        raw = _b64decode(self.public_key, "public key")
        try:
            decoded = cbor.decode(raw)
            key = CoseKey.parse(decoded) if isinstance(decoded, Mapping) else None
        except Exception as exc:  # a stored key may break the CBOR or COSE parser in any way
            raise PasskeyError(f"the public key is unreadable ({exc})") from None
        if key is None:
            raise PasskeyError("the public key is not a COSE key")
        if isinstance(key, UnsupportedKey):
            raise PasskeyError("the public key's algorithm is not supported")
        return key


def registration_options(
    name: str, rp_id: str, rp_name: str, existing: list[Credential]
) -> tuple[dict, dict]:
    """(options for navigator.credentials.create, JSON-ready with base64url fields; the state to keep on
    the server until `complete_registration`). The person's existing credentials are excluded, so one
    authenticator is not registered twice."""
    if not name:
        raise PasskeyError("a passkey is registered for a named person")
    server = _server(rp_id, rp_name)
    user = PublicKeyCredentialUserEntity(name=name, id=_user_handle(name), display_name=name)
    options, state = server.register_begin(
        user,
        credentials=[_descriptor(credential) for credential in existing],
        resident_key_requirement=ResidentKeyRequirement.DISCOURAGED,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    kept = {
        "challenge": state["challenge"],
        "user_verification": str(state["user_verification"]),
        "user": _b64encode(user.id),
    }
    return _plain(options), kept


def complete_registration(
    state: dict, response: dict, *, origin: str, rp_id: str, name: str
) -> Credential:
    """The credential the browser's registration `response` created; PasskeyError on any failure (another
    challenge, another site, no user presence, someone else's registration, a malformed response)."""
    if not isinstance(state, dict) or not isinstance(state.get("challenge"), str):
        raise PasskeyError("no registration was begun")
    if state.get("user") != _b64encode(_user_handle(name)):
        raise PasskeyError(f"this registration was not begun for {name!r}")
    if not isinstance(response, dict) or _json_size(response) > MAX_RESPONSE_BYTES:
        raise PasskeyError("the registration response is not a JSON object of at most 64 KB")
    server = _server(rp_id, rp_id, verify_origin=lambda seen: seen == origin)
    try:
        auth_data = server.register_complete(state, response)
    except Exception as exc:  # fido2 raises ValueError for a refusal; a hostile response, anything
        raise PasskeyError(f"registration refused: {exc}") from None
    attested = auth_data.credential_data
    if attested is None:
        raise PasskeyError("registration refused: the authenticator returned no credential")
    credential = Credential(
        credential_id=_b64encode(attested.credential_id),
        public_key=_b64encode(cbor.encode(dict(attested.public_key))),
        name=name,
    )
    credential.raw_id()
    credential.cose_key()
    return credential


def assertion_options(message: bytes, rp_id: str, credentials: list[Credential]) -> dict:
    """Options for navigator.credentials.get (JSON-ready, base64url fields): the challenge is
    sha256(message), and only the person's own credentials are allowed."""
    if not credentials:
        raise PasskeyError("no passkey is registered for this person")
    server = _server(rp_id, rp_id)
    options, _state = server.authenticate_begin(
        credentials=[_descriptor(credential) for credential in credentials],
        user_verification=UserVerificationRequirement.PREFERRED,
        challenge=hashlib.sha256(message).digest(),
    )
    return _plain(options)


def assertion_record(response: dict) -> dict:
    """What is stored with the re-read, from the browser's assertion `response`: the credential id,
    authenticatorData, clientDataJSON and signature (base64url), nothing else. It is not verified here:
    call `verify_assertion` before storing it. PasskeyError when the response is not an assertion."""
    if not isinstance(response, dict) or _json_size(response) > MAX_RESPONSE_BYTES:
        raise PasskeyError("the assertion response is not a JSON object of at most 64 KB")
    try:
        parsed = AuthenticationResponse.from_dict(response)
    except Exception as exc:  # a hostile response may break the parser in any way
        raise PasskeyError(f"not an assertion response: {exc}") from None
    assertion = parsed.response
    record = {
        "credential_id": _b64encode(parsed.raw_id),
        "authenticator_data": _b64encode(bytes(assertion.authenticator_data)),
        "client_data_json": _b64encode(bytes(assertion.client_data)),
        "signature": _b64encode(assertion.signature),
    }
    if sum(len(value) for value in record.values()) > MAX_RECORD_BYTES:
        raise PasskeyError("the assertion is over 16 KB")
    return record


def verify_assertion(
    record: dict,
    message: bytes,
    credentials: list[Credential],
    *,
    origin: str | tuple[str, ...] | None,
    rp_id: str,
) -> str | None:
    """None when `record` is a valid assertion over `message` by one of `credentials`, on the site
    `rp_id` (and, when given, at one of the `origin`s), with the user present; else a short reason.
    Never raises: the record may come from anywhere."""
    try:
        return _refusal(record, message, credentials, origin, rp_id)
    except PasskeyError as exc:
        return str(exc)
    except Exception as exc:  # hostile input must yield a reason, whatever breaks
        return f"unreadable assertion ({type(exc).__name__})"


def _refusal(
    record: object,
    message: bytes,
    credentials: list[Credential],
    origin: str | tuple[str, ...] | None,
    rp_id: str,
) -> str | None:
    raw = _record_bytes(record)
    auth_data, client_json, signature = (
        raw["authenticator_data"],
        raw["client_data_json"],
        raw["signature"],
    )
    if len(auth_data) < 37:
        return "the authenticator data is too short"
    credential = next(
        (c for c in credentials if _same_id(c.credential_id, raw["credential_id"])), None
    )
    if credential is None:
        return "unknown credential: not one of this person's passkeys"
    try:
        credential.cose_key().verify(auth_data + hashlib.sha256(client_json).digest(), signature)
    except PasskeyError as exc:
        return f"the registered credential is unusable: {exc}"
    except Exception:  # cryptography's InvalidSignature, or a signature that is not even DER
        return "bad signature"
    return _content_refusal(auth_data, client_json, message, origin, rp_id)


def _content_refusal(
    auth_data: bytes,
    client_json: bytes,
    message: bytes,
    origin: str | tuple[str, ...] | None,
    rp_id: str,
) -> str | None:
    """Once the signature holds: is it an assertion of this message, for this site, with a touch?"""
    client = json.loads(client_json.decode("utf-8"))
    if not isinstance(client, dict):
        return "the client data is not a JSON object"
    if client.get("type") != "webauthn.get":
        return "not an assertion (client data type is not webauthn.get)"
    challenge = client.get("challenge")
    expected = hashlib.sha256(message).digest()
    if not isinstance(challenge, str) or not hmac.compare_digest(
        _b64decode(challenge, "challenge"), expected
    ):
        return "signed over another message (a replay of another re-read?)"
    if not hmac.compare_digest(auth_data[:32], hashlib.sha256(rp_id.encode("utf-8")).digest()):
        return f"wrong site: not signed for {rp_id!r}"
    if not AuthenticatorData(auth_data).flags & _USER_PRESENT:
        return "not touched: the user-presence flag is not set"
    if origin is not None:
        allowed = (origin,) if isinstance(origin, str) else origin
        if client.get("origin") not in allowed:
            return f"wrong site: signed at {str(client.get('origin'))[:100]!r}"
        if client.get("crossOrigin") is True:
            return "wrong site: signed in a frame of another site"
    return None


def _record_bytes(record: object) -> dict[str, bytes]:
    """The stored record's four fields, decoded; PasskeyError when it is not one (or over 16 KB)."""
    if not isinstance(record, dict) or set(record) != set(RECORD_FIELDS):
        raise PasskeyError(f"not an assertion record (fields {', '.join(RECORD_FIELDS)})")
    if not all(isinstance(record[key], str) for key in RECORD_FIELDS):
        raise PasskeyError("an assertion record's fields are base64url strings")
    if sum(len(record[key]) for key in RECORD_FIELDS) > MAX_RECORD_BYTES:
        raise PasskeyError("the assertion record is over 16 KB")
    return {key: _b64decode(record[key], key.replace("_", " ")) for key in RECORD_FIELDS}


def _same_id(stored: str, seen: bytes) -> bool:
    try:
        return hmac.compare_digest(_b64decode(stored, "credential id"), seen)
    except PasskeyError:
        return False


def check_rp_id(rp_id: object) -> str:
    """The relying party id, when it is a lower-case domain ("localhost" or a DNS name); PasskeyError
    otherwise (WebAuthn refuses an IP address)."""
    if not isinstance(rp_id, str) or not rp_id or rp_id != rp_id.strip().lower():
        raise PasskeyError("the relying party id is a lower-case domain, e.g. 'localhost'")
    try:
        ipaddress.ip_address(rp_id.strip("[]"))
    except ValueError:
        return rp_id
    raise PasskeyError("the relying party id is a domain, not an IP address: open localhost")


def _server(rp_id: str, rp_name: str, **kwargs: Any) -> Fido2Server:
    check_rp_id(rp_id)
    return Fido2Server(PublicKeyCredentialRpEntity(name=rp_name, id=rp_id), **kwargs)


def _descriptor(credential: Credential) -> PublicKeyCredentialDescriptor:
    return PublicKeyCredentialDescriptor(
        type=PublicKeyCredentialType.PUBLIC_KEY, id=credential.raw_id()
    )


def _user_handle(name: str) -> bytes:
    """A stable, opaque WebAuthn user handle for a person: the same person, the same handle."""
    return hashlib.sha256(b"claimsdb person\0" + name.encode("utf-8")).digest()


def _plain(options: Mapping[str, Any]) -> dict:
    """fido2's options as plain JSON data: the `publicKey` member, bytes as base64url, enums as strings."""
    plain = json.loads(json.dumps(dict(options)["publicKey"]))
    plain["timeout"] = TIMEOUT_MS
    return plain


def _json_size(data: object) -> int:
    try:
        return len(json.dumps(data))
    except (TypeError, ValueError, RecursionError):
        return MAX_RESPONSE_BYTES + 1


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(value: str, what: str) -> bytes:
    """Strict base64url (padding optional); PasskeyError naming `what` when it is not."""
    if not isinstance(value, str) or not _B64URL.fullmatch(value):
        raise PasskeyError(f"the {what} is not base64url")
    data = value.rstrip("=")
    try:
        return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        raise PasskeyError(f"the {what} is not base64url") from None
