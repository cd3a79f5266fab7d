"""The key a person signs with, as the command line names it (trust.identity.signing_key): its public half, how
it signs (ssh-keygen, so ssh-agent, passphrases and security keys work as for git) and a warning when it is
a key any process of the user can read. Errors are claimsdb.errors (exit 2); nothing here prints."""

from __future__ import annotations

import atexit
import tempfile
from dataclasses import dataclass
from pathlib import Path

from claimsdb.errors import BadQuery, InvalidField
from claimsdb.trust import identity, sshsig

GIT_LITERAL = "key::"


@dataclass(frozen=True)
class SigningKey:
    path: Path  # a private key file, or a public key whose private half ssh-agent holds
    public: sshsig.PublicKey
    origin: str  # where it was named: --sign-with, CLAIMS_SIGNING_KEY, the config file, git
    warning: str | None  # sshsig.exposure: an unencrypted key file any process can read

    def sign(self, message: bytes, namespace: str) -> str:
        try:
            return sshsig.sign(message, namespace, self.path)
        except sshsig.SigningFailed as exc:
            raise BadQuery(
                f"signing with {self.path} failed: {exc}; nothing was recorded"
            ) from None


def signing_key(given: str | None) -> SigningKey | None:
    """The key named by --sign-with, else by the settings (trust.identity.signing_key); None when none is."""
    setting = identity.signing_key(given)
    if setting is None:
        return None
    try:
        if setting.value.startswith(GIT_LITERAL):  # git's literal key: the agent signs with it
            public = sshsig.parse_public_key(setting.value[len(GIT_LITERAL) :])
            path = _public_file(public)
        else:
            path = Path(setting.value).expanduser()
            public = sshsig.read_public_key(path)
    except sshsig.BadKey as exc:
        raise InvalidField("sign_with", f"{setting.value} (from {setting.origin}): {exc}") from None
    return SigningKey(path, public, setting.origin, sshsig.exposure(path))


def public_key(path: Path) -> sshsig.PublicKey:
    """A public key file a person registers (`claims people add --key`)."""
    try:
        return sshsig.read_public_key(path)
    except sshsig.BadKey as exc:
        raise InvalidField("key", str(exc)) from None


def _public_file(public: sshsig.PublicKey) -> Path:
    """git's literal key as a .pub file for ssh-keygen (which then asks ssh-agent), gone when claims ends."""
    handle = tempfile.NamedTemporaryFile(
        "w", suffix=".pub", prefix="claims-key-", delete=False, encoding="ascii"
    )
    with handle:
        handle.write(public.line + "\n")
    path = Path(handle.name)
    atexit.register(path.unlink, missing_ok=True)
    return path
