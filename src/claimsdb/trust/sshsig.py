"""SSH signatures of a person's re-read: checked in process, made through ssh-keygen.

SSHSIG (OpenSSH's PROTOCOL.sshsig) is what `ssh-keygen -Y sign` writes and git signs commits with:
armored text holding the signer's public key, a namespace (what the signature is for: one made for
git is no re-read), a hash algorithm, and the signature of "SSHSIG" || namespace || reserved || hash
algorithm || H(message). This module checks them with `cryptography`, no process per check (a store
may hold 100,000), for Ed25519 and ECDSA keys and their FIDO (sk-) forms; signs through ssh-keygen,
so ssh-agent, passphrases and security keys work as for git; reads public keys; warns of a private
key any process can use; writes an allowed signers line.

It does not: decide who may vouch (`people`, `signatures` do); take RSA, DSA or certificate keys, or
allowed signers options beyond namespaces; speak to ssh-agent or a security key itself; prompt or
print (ssh-keygen asks for a passphrase on the terminal or via SSH_ASKPASS; a caller signing with a
security key says "touch your key" first).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

SUPPORTED = (
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
MAX_LINE = 16 * 1024  # a public-key line; an Ed25519 or ECDSA one is under 300 characters
MAX_ARMORED = 64 * 1024  # an armored signature; ssh-keygen's are under 1 KB
MAX_KEY_FILE = 64 * 1024  # a .pub or private key file read here
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
USER_PRESENT = 0x01  # the flag a FIDO authenticator sets when it was touched

_MAGIC = b"SSHSIG"
_VERSION = 1
_HASHES = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}
# An ECDSA key type: the curve its blob names, that curve, the hash its signatures use.
_ECDSA: dict[str, tuple[str, ec.EllipticCurve, hashes.HashAlgorithm]] = {
    "ecdsa-sha2-nistp256": ("nistp256", ec.SECP256R1(), hashes.SHA256()),
    "ecdsa-sha2-nistp384": ("nistp384", ec.SECP384R1(), hashes.SHA384()),
    "ecdsa-sha2-nistp521": ("nistp521", ec.SECP521R1(), hashes.SHA512()),
    "sk-ecdsa-sha2-nistp256@openssh.com": ("nistp256", ec.SECP256R1(), hashes.SHA256()),
}
_KEY_TYPE_LIKE = re.compile(r"(ssh|ecdsa|sk|rsa|x509v3)-[A-Za-z0-9@.+-]+")
_OPENSSH_PRIVATE = ("-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----")
_OPENSSH_KEY_MAGIC = b"openssh-key-v1\0"
_PLAIN_PRINCIPAL = re.compile(r"[A-Za-z0-9._@+-]+")
_PATTERN_CHARS = frozenset('"*?!,')  # what ssh-keygen reads as a quote, a wildcard or a list

_CryptoKey = ed25519.Ed25519PublicKey | ec.EllipticCurvePublicKey


class BadKey(ValueError):
    """A public key claimsdb cannot use: the message says which and why."""


class SigningFailed(Exception):
    """ssh-keygen did not sign, or wrote no signature that checks: the message says why."""


class _Unsupported(BadKey):
    """A key line of a type this module does not check (ssh-rsa, ssh-dss, certificates)."""


class _Malformed(ValueError):
    """Bytes that end early, hold more than they should, or break the wire format."""


def _split(data: bytes, count: int) -> tuple[list[bytes], bytes]:
    """`count` SSH wire-format strings (uint32 length, then bytes) from the start of `data`, and the
    bytes after them; _Malformed when `data` ends early."""
    fields = []
    for _ in range(count):
        size = int.from_bytes(data[:4], "big")
        if len(data) < 4 or size > len(data) - 4:
            raise _Malformed("it ends early")
        fields.append(data[4 : 4 + size])
        data = data[4 + size :]
    return fields, data


def _exactly(data: bytes, count: int) -> list[bytes]:
    """`data` as exactly `count` SSH strings; _Malformed when it holds fewer or more."""
    fields, rest = _split(data, count)
    if rest:
        raise _Malformed("bytes follow its end")
    return fields


def _type(blob: bytes) -> str:
    """The type name a key or signature blob starts with."""
    return _split(blob, 1)[0][0].decode("utf-8", errors="replace")


@dataclass(frozen=True)
class PublicKey:
    """An OpenSSH public key: its type, its wire-format blob, and the comment of its .pub line."""

    algorithm: str
    blob: bytes
    comment: str = ""

    @property
    def fingerprint(self) -> str:
        """What `ssh-keygen -lf` prints: SHA256: and the unpadded base64 of the blob's SHA-256."""
        return _fingerprint(self.blob)

    @property
    def line(self) -> str:
        """TYPE BASE64: the key as a .pub or an allowed signers file writes it, without comment."""
        return f"{self.algorithm} {base64.b64encode(self.blob).decode('ascii')}"

    @property
    def security_key(self) -> bool:
        """A FIDO security key (sk- type): every signature needs a touch of the device."""
        return self.algorithm.startswith("sk-")


@lru_cache(maxsize=256)
def _fingerprint(blob: bytes) -> str:
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode("ascii")
    return "SHA256:" + digest.rstrip("=")


@lru_cache(maxsize=256)  # in process only: a key is rebuilt once, not per signature checked
def _load_blob(algorithm: str, blob: bytes) -> tuple[_CryptoKey, bytes]:
    """The key in `blob` for cryptography and its FIDO application (b"" unless an sk- key): string
    type, [string curve, for ECDSA], string key, [string application]. BadKey, or _Malformed for a
    broken structure."""
    if (inner := _type(blob)) != algorithm:
        raise BadKey(f"the key says it is {inner[:60]!r}, its line says {algorithm!r}")
    security = algorithm.startswith("sk-")
    fields = _exactly(blob, 2 + (algorithm in _ECDSA) + security)
    application = fields[-1] if security else b""  # usually "ssh:"
    if algorithm not in _ECDSA:
        if len(fields[1]) != 32:
            raise _Malformed(f"an Ed25519 key is 32 bytes, not {len(fields[1])}")
        return ed25519.Ed25519PublicKey.from_public_bytes(fields[1]), application
    name, curve, _ = _ECDSA[algorithm]
    if fields[1] != name.encode():
        raise BadKey(f"a {algorithm} key on curve {_shown(fields[1])}, not {name!r}")
    point = fields[2]
    if point[:1] != b"\x04":  # OpenSSH writes and reads uncompressed points only
        raise _Malformed("its point is not in uncompressed form")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(curve, point), application
    except ValueError:
        raise BadKey(f"its point is not on the curve {name}") from None


def parse_public_key(text: str) -> PublicKey:
    """The key of one OpenSSH public-key line, "TYPE BASE64 [COMMENT]"; BadKey saying why not."""
    if len(text) > MAX_LINE:
        raise BadKey(f"not a public key: a line of {len(text)} characters (at most {MAX_LINE})")
    line = text.strip()
    if "\n" in line or "\r" in line:
        raise BadKey("not a public key line: more than one line")
    parts = line.split(None, 2)
    if len(parts) < 2:
        raise BadKey("not an OpenSSH public key line (TYPE BASE64 [COMMENT])")
    algorithm, encoded = parts[0], parts[1]
    if algorithm not in SUPPORTED:
        if _KEY_TYPE_LIKE.fullmatch(algorithm):
            raise _Unsupported(
                f"unsupported key type {algorithm[:60]!r}: supported are {', '.join(SUPPORTED)}"
            )
        raise BadKey("not an OpenSSH public key line (TYPE BASE64 [COMMENT])")
    try:
        blob = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise BadKey(f"malformed {algorithm} key: not base64") from None
    try:
        _load_blob(algorithm, blob)
    except _Malformed as error:
        raise BadKey(f"malformed {algorithm} key: {error}") from None
    return PublicKey(algorithm, blob, parts[2].strip() if len(parts) > 2 else "")


def _read_text(path: Path) -> str:
    """At most MAX_KEY_FILE characters of a key file; BadKey naming it."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_KEY_FILE + 1)
    except OSError as error:
        raise BadKey(f"{path}: {error.strerror or error}") from None
    if len(data) > MAX_KEY_FILE:
        raise BadKey(f"{path}: not a key file (over {MAX_KEY_FILE // 1024} KB)")
    return data.decode("utf-8", errors="replace")


def read_public_key(path: str | Path) -> PublicKey:
    """The key of a .pub file, or of a private key KEY's KEY.pub (else the public key stored in
    KEY's openssh-key-v1 header, which is never encrypted); BadKey naming the file."""
    path = Path(path)
    text = _read_text(path)
    if "PRIVATE KEY-----" in text:
        companion = Path(f"{path}.pub")
        if companion.exists():
            return read_public_key(companion)
        parsed = _openssh_private(text)
        if parsed is None:
            raise BadKey(f"{path}: a private key without {companion.name} beside it")
        text = f"{_type(parsed[1])} {base64.b64encode(parsed[1]).decode('ascii')}"
    try:
        return parse_public_key(text)
    except BadKey as error:
        raise type(error)(f"{path}: {error}") from None  # an _Unsupported stays one


def _openssh_private(text: str) -> tuple[str, bytes] | None:
    """(cipher name, first public key blob) of an openssh-key-v1 private key (PROTOCOL.key), read
    from its unencrypted header; None when `text` is not such a key."""
    begin, end = _OPENSSH_PRIVATE
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        return None
    body = "".join(text[start + len(begin) : stop].split())
    try:
        raw = base64.b64decode(body, validate=True)
        if not raw.startswith(_OPENSSH_KEY_MAGIC):
            return None
        # string cipher name, string kdf name, string kdf options, uint32 keys, string public key
        (cipher, _kdf, _options), rest = _split(raw[len(_OPENSSH_KEY_MAGIC) :], 3)
        if int.from_bytes(rest[:4], "big") < 1:
            return None
        blob = _split(rest[4:], 1)[0][0]
        _type(blob)
    except (binascii.Error, ValueError):
        return None
    return cipher.decode("utf-8", errors="replace"), blob


def exposure(key_path: str | Path) -> str | None:
    """A warning when `key_path` is an unencrypted private key file that any process of the user can
    read and sign with; None for an encrypted or security (sk-) key, a .pub (the agent holds the
    key) or a file that cannot be read (signing will say why)."""
    path = Path(key_path)
    if path.suffix == ".pub":
        return None
    try:
        text = _read_text(path)
    except BadKey:
        return None
    parsed = _openssh_private(text)
    if parsed is None or parsed[0] != "none" or _type(parsed[1]).startswith("sk-"):
        return None
    return (
        f"{path} is an unencrypted private key: any process you run (a coding agent too) can read "
        "it and sign as you; use a security key (ed25519-sk), a passphrase, or ssh-agent with "
        "confirmation (ssh-add -c)"
    )


def _parse(armored: str) -> list[bytes]:
    """An armored SSHSIG signature's public key, namespace, reserved field, hash algorithm and
    signature; _Malformed saying why there are none."""
    if not isinstance(armored, str) or len(armored) > MAX_ARMORED:
        raise _Malformed(f"not an SSH signature (over {MAX_ARMORED // 1024} KB)")
    text = armored.strip()
    if not text.startswith(BEGIN) or not text.endswith(END) or len(text) < len(BEGIN + END):
        raise _Malformed("not an SSH signature")
    try:
        raw = base64.b64decode("".join(text[len(BEGIN) : -len(END)].split()), validate=True)
    except (binascii.Error, ValueError):
        raise _Malformed("not an SSH signature (its body is not base64)") from None
    if not raw.startswith(_MAGIC):
        raise _Malformed("not an SSH signature (no SSHSIG preamble)")
    version = int.from_bytes(raw[len(_MAGIC) : len(_MAGIC) + 4], "big")
    try:
        fields = _exactly(raw[len(_MAGIC) + 4 :], 5)
    except _Malformed as error:
        raise _Malformed(f"a malformed SSH signature: {error}") from None
    if version != _VERSION:
        raise _Malformed(f"an SSH signature of version {version}, not {_VERSION}")
    return fields


def _shown(raw: bytes) -> str:
    """A name from a signature, quoted for a message: at most 60 characters, controls escaped."""
    text = raw[:60].decode("utf-8", errors="replace")
    return repr(text + ("…" if len(raw) > 60 else ""))


def _signed_data(namespace: bytes, hash_name: str, message: bytes) -> bytes:
    """What an SSHSIG signature signs; the reserved field empty, as ssh-keygen signs and checks
    (ignoring what a signature's own reserved field holds)."""
    fields = (namespace, b"", hash_name.encode("ascii"), _HASHES[hash_name](message).digest())
    return _MAGIC + b"".join(len(field).to_bytes(4, "big") + field for field in fields)


def _check(key: PublicKey, signature: bytes, data: bytes) -> str | None:
    """None when `signature` (SSH wire format) is `key`'s signature of `data`, else why not."""
    crypto_key, application = _load_blob(key.algorithm, key.blob)
    (kind, raw), rest = _split(signature, 2)
    if kind != key.algorithm.encode():
        return f"a {_shown(kind)} signature, not {key.algorithm}"
    signed, flags = data, USER_PRESENT
    if key.security_key:
        if len(rest) != 5:  # byte flags, uint32 counter
            raise _Malformed("a security key's signature without its flags and counter")
        # What the authenticator signed: sha256(application) || flags || counter || sha256(data).
        flags = rest[0]
        signed = hashlib.sha256(application).digest() + rest + hashlib.sha256(data).digest()
    elif rest:
        raise _Malformed("bytes follow its end")
    try:
        if isinstance(crypto_key, ed25519.Ed25519PublicKey):
            if len(raw) != 64:
                raise _Malformed(f"an Ed25519 signature is 64 bytes, not {len(raw)}")
            if not _ed25519_verifies(crypto_key.public_bytes_raw(), raw, signed):
                raise InvalidSignature()
        else:
            # A security key's ECDSA signature hashes with SHA-256; others by curve.
            digest = hashes.SHA256() if key.security_key else _ECDSA[key.algorithm][2]
            crypto_key.verify(_der(raw), signed, ec.ECDSA(digest))
    except InvalidSignature:
        return "does not verify: the message or the signature was changed"
    if not flags & USER_PRESENT:
        return "the security key was not touched (user-presence flag not set)"
    return None


def _ed25519_verifies(public: bytes, signature: bytes, data: bytes) -> bool:
    """An Ed25519 check through libsodium (PyNaCl): about twice as fast as OpenSSL's on the machines
    measured (55 against 102 microseconds), which a store of 100,000 signed re-reads feels on every
    command. libsodium also refuses non-canonical and small-order encodings that OpenSSL takes; a
    signature ssh-keygen makes is never one of them."""
    from nacl.bindings import crypto_sign_open
    from nacl.exceptions import BadSignatureError

    try:
        crypto_sign_open(signature + data, public)
    except BadSignatureError:
        return False
    return True


def _der(raw: bytes) -> bytes:
    """An SSH ECDSA signature blob, string(mpint r || mpint s), as DER for cryptography."""
    r, s = _exactly(raw, 2)
    if any(n[:1] >= b"\x80" or len(n) > 67 for n in (r, s)):  # negative, or over 521 bits
        raise _Malformed("an ECDSA signature's numbers are out of range")
    return encode_dss_signature(int.from_bytes(r, "big"), int.from_bytes(s, "big"))


@dataclass(frozen=True)
class Signature:
    """An armored SSHSIG signature read once (`read_signature`): its parts (public key blob, namespace,
    reserved field, hash algorithm, signature) or why it has none, and the key it embeds (None when it
    holds no usable key). `signer` and `verify` share it, so a signature is decoded once a check."""

    parts: tuple[bytes, ...] = ()
    malformed: str | None = None
    signer: PublicKey | None = None


def read_signature(armored: str) -> Signature:
    """An armored signature decoded once; never raises for what it holds."""
    try:
        parts = tuple(_parse(armored))
    except _Malformed as error:
        return Signature(malformed=str(error))
    blob = parts[0]
    try:
        algorithm = _type(blob)
        if algorithm not in SUPPORTED:
            return Signature(parts)
        _load_blob(algorithm, blob)
    except (_Malformed, ValueError):
        return Signature(parts)
    return Signature(parts, None, PublicKey(algorithm, blob))


def verify(armored: str, message: bytes, namespace: str, key: PublicKey) -> str | None:
    """None when `armored` is a valid SSHSIG signature of `message` under `namespace` by exactly
    `key`; otherwise a short reason. Never raises for what a signature holds."""
    return verify_read(read_signature(armored), message, namespace, key)


def verify_read(read: Signature, message: bytes, namespace: str, key: PublicKey) -> str | None:
    """`verify` of a signature already decoded (`read_signature`)."""
    if read.malformed is not None:
        return read.malformed
    key_blob, signed_namespace, _reserved, hash_algorithm, signature = read.parts
    expected_namespace = namespace.encode("utf-8", errors="surrogatepass")
    if signed_namespace != expected_namespace:
        return f"signed for namespace {_shown(signed_namespace)}, not {namespace!r}"
    if key_blob != key.blob:
        return f"made by another key ({PublicKey('', key_blob).fingerprint})"
    hash_name = hash_algorithm.decode("ascii", errors="replace")
    if hash_name not in _HASHES:
        return f"unsupported hash algorithm {_shown(hash_algorithm)} (sha256 or sha512)"
    if key.algorithm not in SUPPORTED:
        return f"unsupported key type {key.algorithm[:60]!r}"
    try:
        return _check(key, signature, _signed_data(expected_namespace, hash_name, message))
    except BadKey as error:
        return f"the key is unusable: {error}"
    except (_Malformed, ValueError, UnsupportedAlgorithm) as error:
        return f"a malformed SSH signature: {error}"


def signer(armored: str) -> PublicKey | None:
    """The key embedded in an armored signature; None when it holds no usable key."""
    return read_signature(armored).signer


def sign(message: bytes, namespace: str, key_path: str | Path, *, timeout: float = 120) -> str:
    """The armored SSHSIG signature of `message` under `namespace`, made by `ssh-keygen -Y sign`
    with the private key `key_path`, or with a .pub whose private half is in ssh-agent; ssh-keygen
    asks for a passphrase or a touch itself. SigningFailed saying why it could not."""
    path = Path(key_path)
    try:
        expected: PublicKey | None = read_public_key(path)
    except _Unsupported as error:
        raise SigningFailed(str(error)) from None
    except BadKey:
        expected = None  # ssh-keygen says why, or reads the key its own way
    armored = _run_ssh_keygen(message, namespace, path, timeout)
    embedded = signer(armored)
    if embedded is None:
        raise SigningFailed(f"ssh-keygen wrote no SSH signature claimsdb can check for {path}")
    if expected is not None and embedded.blob != expected.blob:
        raise SigningFailed(f"ssh-keygen signed with {embedded.fingerprint}, not {path}'s key")
    reason = verify(armored, message, namespace, embedded)
    if reason is not None:
        raise SigningFailed(f"the signature ssh-keygen made for {path} does not check: {reason}")
    return armored


def _run_ssh_keygen(message: bytes, namespace: str, path: Path, timeout: float) -> str:
    """ssh-keygen -Y sign's standard output, the message on its standard input."""
    program = shutil.which("ssh-keygen")
    if program is None:
        raise SigningFailed("ssh-keygen (OpenSSH) is needed to sign")
    command = [program, "-Y", "sign", "-f", str(path), "-n", namespace]
    try:
        done = subprocess.run(command, input=message, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SigningFailed(
            f"ssh-keygen did not sign with {path} within {timeout:g} s "
            "(waiting for a passphrase or a touch of the security key?)"
        ) from None
    except OSError as error:
        raise SigningFailed(f"ssh-keygen (OpenSSH) is needed to sign: {error}") from None
    if done.returncode != 0:
        raise SigningFailed(_failure(done.stderr, path))
    return done.stdout.decode("utf-8", errors="replace")


def _failure(stderr: bytes, path: Path) -> str:
    """ssh-keygen's own last line of complaint, naming the key file."""
    lines = [line.strip() for line in stderr.decode("utf-8", errors="replace").splitlines()]
    said = [line for line in lines if line and line != "Signing data on standard input"]
    last = said[-1].removeprefix("Enter passphrase:").strip() if said else ""
    detail = last or "ssh-keygen -Y sign failed"
    return detail if str(path) in detail else f"{path}: {detail}"


def allowed_signers_line(principal: str, key: PublicKey, namespaces: tuple[str, ...]) -> str:
    """One line of an allowed signers file (ssh-keygen's ALLOWED SIGNERS, git's
    gpg.ssh.allowedSignersFile): PRINCIPAL namespaces="A,B" TYPE BASE64. ValueError for a principal
    or a namespace the file would read as something else (a pattern, a list, a quote, a newline)."""
    _check_name("principal", principal)
    if not namespaces:
        raise ValueError("an allowed signer needs at least one namespace")
    for namespace in namespaces:
        _check_name("namespace", namespace)
        if any(c.isspace() or c == "\\" for c in namespace):
            raise ValueError(f"namespace {namespace!r}: no spaces or backslashes")
    shown = principal if _PLAIN_PRINCIPAL.fullmatch(principal) else f'"{principal}"'
    return f'{shown} namespaces="{",".join(namespaces)}" {key.line}'


def _check_name(what: str, name: str) -> None:
    if not name or name != name.strip():
        raise ValueError(f"{what} {name!r}: empty, or spaces around it")
    if any(c in _PATTERN_CHARS for c in name):
        raise ValueError(f'{what} {name!r}: " * ? ! and , mean quotes, patterns and lists there')
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise ValueError(f"{what} {name!r}: control characters")
