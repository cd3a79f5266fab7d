"""A software authenticator for tests that need no browser: a real P-256 key, its credential as the
registry stores it, and assertions made the way an authenticator makes them (authenticatorData, then
the signature over it and sha256(clientDataJSON)). Real cryptography, no mocks."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor
from fido2.cose import ES256

from claimsdb.trust.passkeys import Credential

ORIGIN = "http://localhost:8421"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class SoftKey:
    def __init__(self, name: str, rp_id: str = "localhost"):
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.rp_id = rp_id
        self.credential = Credential(
            credential_id=b64(secrets.token_bytes(16)),
            public_key=b64(
                cbor.encode(dict(ES256.from_cryptography_key(self.private.public_key())))
            ),
            name=name,
        )

    def assertion(self, message: bytes, origin: str = ORIGIN, flags: int = 0x05) -> dict:
        """The stored assertion record (passkeys.assertion_record's fields) over `message`."""
        auth_data = hashlib.sha256(self.rp_id.encode()).digest() + bytes([flags]) + b"\0\0\0\1"
        client = json.dumps(
            {
                "type": "webauthn.get",
                "challenge": b64(hashlib.sha256(message).digest()),
                "origin": origin,
                "crossOrigin": False,
            }
        ).encode()
        signature = self.private.sign(
            auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "credential_id": self.credential.credential_id,
            "authenticator_data": b64(auth_data),
            "client_data_json": b64(client),
            "signature": b64(signature),
        }
