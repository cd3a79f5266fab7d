"""SSH signatures (SSHSIG): keys and signatures made by the real ssh-keygen, checked by ours and by
`ssh-keygen -Y verify`. ssh-keygen cannot make security-key (sk-) keys without a device, so those
are made here the way a FIDO authenticator signs, and ssh-keygen confirms they are sound."""

from __future__ import annotations

import base64
import hashlib
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from claimsdb.trust.sshsig import (
    SUPPORTED,
    BadKey,
    PublicKey,
    SigningFailed,
    allowed_signers_line,
    exposure,
    parse_public_key,
    read_public_key,
    sign,
    signer,
    verify,
)

SSH_KEYGEN = shutil.which("ssh-keygen")
pytestmark = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen (OpenSSH) is not installed")

NS = "claimsdb-reread"
MESSAGE = b"widget.pretrain: 1.2T tokens, Widget technical report p. 4\n"
KEY_TYPES = {  # name: ssh-keygen's options, the algorithm of the key it makes
    "ed25519": (["-t", "ed25519"], "ssh-ed25519"),
    "ecdsa256": (["-t", "ecdsa", "-b", "256"], "ecdsa-sha2-nistp256"),
    "ecdsa384": (["-t", "ecdsa", "-b", "384"], "ecdsa-sha2-nistp384"),
    "ecdsa521": (["-t", "ecdsa", "-b", "521"], "ecdsa-sha2-nistp521"),
}


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(SSH_KEYGEN), *args], input=stdin, capture_output=True, timeout=30)


def keygen(path: Path, options: list[str], passphrase: str = "") -> Path:
    done = run("-q", *options, "-N", passphrase, "-C", f"{path.name}@test", "-f", str(path))
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(autouse=True)
def no_agent_no_prompt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No ssh-agent of the person running the tests; a passphrase prompt goes to an askpass that
    fails at once, never to the terminal (where it would wait)."""
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.setenv("SSH_ASKPASS", str(askpass(tmp_path / "fail-askpass", "exit 1")))
    monkeypatch.setenv("SSH_ASKPASS_REQUIRE", "force")


def askpass(path: Path, body: str) -> Path:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o700)
    return path


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Private key paths by name, each with its .pub; `other` a second Ed25519 key."""
    folder = tmp_path_factory.mktemp("keys")
    made = {name: keygen(folder / name, options) for name, (options, _) in KEY_TYPES.items()}
    made["other"] = keygen(folder / "other", ["-t", "ed25519"])
    return made


def pub(path: Path) -> PublicKey:
    return read_public_key(Path(f"{path}.pub"))


def keygen_sign(path: Path, *options: str, namespace: str = NS) -> str:
    done = run("-Y", "sign", "-f", str(path), "-n", namespace, *options, stdin=MESSAGE)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def keygen_verify(
    tmp_path: Path, line: str, principal: str, armored: str, namespace: str = NS
) -> subprocess.CompletedProcess[bytes]:
    (tmp_path / "allowed_signers").write_text(line + "\n")
    (tmp_path / "message.sig").write_text(armored)
    return run(
        "-Y", "verify", "-f", str(tmp_path / "allowed_signers"), "-I", principal,
        "-n", namespace, "-s", str(tmp_path / "message.sig"), stdin=MESSAGE,
    )  # fmt: skip


def s(data: bytes) -> bytes:
    """An SSH wire-format string."""
    return len(data).to_bytes(4, "big") + data


def armor(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    lines = [text[i : i + 70] for i in range(0, len(text), 70)]
    return "-----BEGIN SSH SIGNATURE-----\n" + "\n".join(lines) + "\n-----END SSH SIGNATURE-----\n"


def dearmor(armored: str) -> bytes:
    return base64.b64decode("".join(armored.strip().splitlines()[1:-1]))


def sshsig_blob(
    key_blob: bytes, signature: bytes, namespace: str = NS, hash_name: bytes = b"sha512"
):
    return (
        b"SSHSIG"
        + (1).to_bytes(4, "big")
        + s(key_blob)
        + s(namespace.encode())
        + s(b"")
        + (s(hash_name) + s(signature))
    )


# --- Keys ssh-keygen makes: each type signs (through ssh-keygen) and verifies (in process) --------


@pytest.mark.parametrize("name", KEY_TYPES)
def test_each_key_type_signs_and_verifies(name: str, keys: dict[str, Path], tmp_path: Path) -> None:
    key = pub(keys[name])
    assert key.algorithm == KEY_TYPES[name][1] and not key.security_key
    ours = sign(MESSAGE, NS, keys[name])
    assert verify(ours, MESSAGE, NS, key) is None
    assert signer(ours) == PublicKey(key.algorithm, key.blob)
    # What ssh-keygen writes directly, with either hash algorithm, checks too.
    for options in ((), ("-O", "hashalg=sha256")):
        assert verify(keygen_sign(keys[name], *options), MESSAGE, NS, key) is None
    assert keygen_verify(tmp_path, f"ada {key.line}", "ada", ours).returncode == 0


@pytest.mark.parametrize("name", [*KEY_TYPES, "other"])
def test_fingerprint_line_and_comment_are_ssh_keygen_s(name: str, keys: dict[str, Path]) -> None:
    key = pub(keys[name])
    listed = run("-lf", f"{keys[name]}.pub").stdout.decode().split()
    assert key.fingerprint == listed[1]
    kind, encoded, comment = Path(f"{keys[name]}.pub").read_text().split()
    assert key.line == f"{kind} {encoded}" and key.comment == comment == f"{name}@test"


def test_a_private_key_path_reads_its_pub_or_else_its_header(keys: dict[str, Path], tmp_path: Path):
    assert read_public_key(keys["ecdsa384"]) == pub(keys["ecdsa384"])
    alone = tmp_path / "alone"
    shutil.copy(keys["ed25519"], alone)  # no alone.pub: the openssh-key-v1 header holds the key
    assert read_public_key(alone).blob == pub(keys["ed25519"]).blob
    with pytest.raises(BadKey, match="missing.pub"):
        read_public_key(tmp_path / "missing.pub")
    (tmp_path / "notes.pub").write_text("shopping list\n")
    with pytest.raises(BadKey, match="notes.pub: not an OpenSSH public key line"):
        read_public_key(tmp_path / "notes.pub")


# --- What does not verify gives a reason, never an exception --------------------------------------


@pytest.mark.parametrize("name", ["ed25519", "ecdsa256"])
def test_a_changed_message_namespace_or_key_is_refused(name: str, keys: dict[str, Path]) -> None:
    key, armored = pub(keys[name]), keygen_sign(keys[name])
    assert verify(armored, MESSAGE + b" ", NS, key) == (
        "does not verify: the message or the signature was changed"
    )
    assert verify(armored, MESSAGE, "git", key) == f"signed for namespace '{NS}', not 'git'"
    other = pub(keys["other"])
    assert verify(armored, MESSAGE, NS, other) == f"made by another key ({key.fingerprint})"
    git = keygen_sign(keys[name], namespace="git")
    assert verify(git, MESSAGE, NS, key) == f"signed for namespace 'git', not '{NS}'"


@pytest.mark.parametrize("name", ["ed25519", "ecdsa256", "ecdsa521"])
def test_every_truncation_and_bit_flip_is_refused(name: str, keys: dict[str, Path]) -> None:
    key, armored = pub(keys[name]), keygen_sign(keys[name])
    blob = dearmor(armored)
    assert verify(armor(blob), MESSAGE, NS, key) is None
    for end in range(len(blob)):
        assert isinstance(verify(armor(blob[:end]), MESSAGE, NS, key), str)
    for end in range(0, len(armored) - 1, 7):
        assert isinstance(verify(armored[:end], MESSAGE, NS, key), str)
    for at in range(len(blob)):
        for bit in range(8):
            changed = blob[:at] + bytes([blob[at] ^ (1 << bit)]) + blob[at + 1 :]
            assert isinstance(verify(armor(changed), MESSAGE, NS, key), str), (at, bit)


def test_garbage_and_hostile_signatures_give_a_reason(keys: dict[str, Path]) -> None:
    key = pub(keys["ed25519"])
    begin, end = "-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----"
    for garbage in [
        "",
        "hello",
        begin,
        f"{begin}\n{end}",
        f"{begin}\n!!!\n{end}",
        f"{begin}\né\n{end}",
    ]:
        assert str(verify(garbage, MESSAGE, NS, key)).startswith("not an SSH signature")
    huge = f"{begin}\n{'A' * 100_000}\n{end}\n"
    assert "64 KB" in verify(huge, MESSAGE, NS, key)
    # Lengths that claim 4 GB; a string where the signature should end.
    claims = b"SSHSIG" + (1).to_bytes(4, "big") + b"\xff\xff\xff\xff" + b"x" * 40
    assert verify(armor(claims), MESSAGE, NS, key).startswith("a malformed SSH signature")
    blob = dearmor(keygen_sign(keys["ed25519"]))
    assert verify(armor(blob + b"\0"), MESSAGE, NS, key).startswith("a malformed SSH signature")
    version2 = blob[:6] + (2).to_bytes(4, "big") + blob[10:]
    assert "version 2" in verify(armor(version2), MESSAGE, NS, key)
    sha1 = blob.replace(s(b"sha512"), s(b"sha1"))
    assert verify(armor(sha1), MESSAGE, NS, key) == (
        "unsupported hash algorithm 'sha1' (sha256 or sha512)"
    )
    noise = random.Random(7)
    for size in (0, 10, 100, 1000):
        assert isinstance(verify(armor(noise.randbytes(size)), MESSAGE, NS, key), str)
        assert signer(armor(noise.randbytes(size))) is None
    assert signer("hello") is None


def test_a_signature_by_an_unsupported_key_names_it_unchecked(tmp_path: Path) -> None:
    rsa = keygen(tmp_path / "rsa", ["-t", "rsa", "-b", "1024"])
    armored = keygen_sign(rsa)
    assert signer(armored) is None
    with pytest.raises(SigningFailed, match="unsupported key type 'ssh-rsa'"):
        sign(MESSAGE, NS, rsa)


# --- Security keys (sk-), signed as a FIDO authenticator signs ------------------------------------


def sk_key(kind: str) -> tuple[ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey, PublicKey]:
    """A security key's private half (inside the device) and its OpenSSH public key (application
    "ssh:", as ssh-keygen -t ed25519-sk writes it)."""
    raw, point = serialization.Encoding.Raw, serialization.Encoding.X962
    if kind == "sk-ssh-ed25519@openssh.com":
        private: ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey
        private = ed25519.Ed25519PrivateKey.generate()
        body = s(private.public_key().public_bytes(raw, serialization.PublicFormat.Raw))
    else:
        private = ec.generate_private_key(ec.SECP256R1())
        uncompressed = serialization.PublicFormat.UncompressedPoint
        body = s(b"nistp256") + s(private.public_key().public_bytes(point, uncompressed))
    return private, parse_public_key(
        f"{kind} {base64.b64encode(s(kind.encode()) + body + s(b'ssh:')).decode()}"
    )


def sk_sign(
    private, key: PublicKey, flags: int, counter: int = 41, message: bytes = MESSAGE
) -> str:
    """An SSHSIG signature as ssh-keygen writes one from what the authenticator returns: it signs
    sha256(application) || flags || counter || sha256(SSHSIG signed data)."""
    digest = hashlib.sha512(message).digest()
    data = b"SSHSIG" + s(NS.encode()) + s(b"") + s(b"sha512") + s(digest)
    tail = bytes([flags]) + counter.to_bytes(4, "big")
    signed = hashlib.sha256(b"ssh:").digest() + tail + hashlib.sha256(data).digest()
    if isinstance(private, ed25519.Ed25519PrivateKey):
        raw = private.sign(signed)
    else:
        r, s_ = decode_dss_signature(private.sign(signed, ec.ECDSA(hashes.SHA256())))
        raw = b"".join(s(n.to_bytes((n.bit_length() + 8) // 8, "big")) for n in (r, s_))
    return armor(sshsig_blob(key.blob, s(key.algorithm.encode()) + s(raw) + tail))


SK_TYPES = ["sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com"]


@pytest.mark.parametrize("kind", SK_TYPES)
def test_a_touched_security_key_signature_verifies_here_and_in_ssh_keygen(
    kind: str, tmp_path: Path
):
    private, key = sk_key(kind)
    assert key.security_key and key.algorithm in SUPPORTED
    armored = sk_sign(private, key, flags=0x01)
    assert verify(armored, MESSAGE, NS, key) is None
    assert signer(armored) == key
    line = allowed_signers_line("Ada Lovelace", key, (NS,))
    done = keygen_verify(tmp_path, line, "Ada Lovelace", armored)
    assert done.returncode == 0, done.stderr
    (tmp_path / "sk.pub").write_text(key.line + "\n")
    assert run("-lf", str(tmp_path / "sk.pub")).stdout.decode().split()[1] == key.fingerprint
    # The counter and flags are signed: another counter does not verify.
    blob = dearmor(armored)
    bumped = blob[:-4] + (42).to_bytes(4, "big")
    assert verify(armor(bumped), MESSAGE, NS, key) == (
        "does not verify: the message or the signature was changed"
    )
    assert verify(sk_sign(private, key, 0x05), MESSAGE, NS, key) is None  # touched and verified


@pytest.mark.parametrize("kind", SK_TYPES)
def test_an_untouched_security_key_signature_is_refused(kind: str, tmp_path: Path) -> None:
    private, key = sk_key(kind)
    armored = sk_sign(private, key, flags=0x00)
    assert verify(armored, MESSAGE, NS, key) == (
        "the security key was not touched (user-presence flag not set)"
    )
    # ssh-keygen -Y verify (OpenSSH 9.2) does not look at the flag: only sshd enforces a touch. Its
    # "Good signature" shows the signature itself is sound: the refusal above is the flag's alone.
    done = keygen_verify(tmp_path, allowed_signers_line("ada", key, (NS,)), "ada", armored)
    assert done.returncode == 0, done.stderr


def test_security_key_blobs_are_checked_for_their_structure() -> None:
    _, key = sk_key("sk-ecdsa-sha2-nistp256@openssh.com")
    no_application = key.blob[: -len(s(b"ssh:"))]
    with pytest.raises(BadKey, match="malformed"):
        parse_public_key(f"{key.algorithm} {base64.b64encode(no_application).decode()}")
    _, ed = sk_key("sk-ssh-ed25519@openssh.com")
    with pytest.raises(BadKey, match="says it is 'sk-ssh-ed25519@openssh.com'"):
        parse_public_key(f"ssh-ed25519 {base64.b64encode(ed.blob).decode()}")


# --- Public key lines that are refused ------------------------------------------------------------


def test_unsupported_and_malformed_key_lines_are_refused(
    keys: dict[str, Path], tmp_path: Path
) -> None:
    rsa = keygen(tmp_path / "rsa", ["-t", "rsa", "-b", "1024"])
    with pytest.raises(
        BadKey, match=r"unsupported key type 'ssh-rsa': supported are ssh-ed25519, "
    ):
        parse_public_key(Path(f"{rsa}.pub").read_text())
    with pytest.raises(BadKey, match="rsa.pub: unsupported key type"):
        read_public_key(Path(f"{rsa}.pub"))
    with pytest.raises(BadKey, match="unsupported key type 'ssh-dss'"):
        parse_public_key("ssh-dss AAAAB3NzaC1kc3MAAACBAP== x")
    ed = pub(keys["ed25519"])
    ed_b64, p256 = base64.b64encode(ed.blob).decode(), pub(keys["ecdsa256"])
    refused = {
        "garbage": ("hello world", "not an OpenSSH public key line"),
        "one word": ("ssh-ed25519", "not an OpenSSH public key line"),
        "options first": (f"no-pty {ed.line}", "not an OpenSSH public key line"),
        "not base64": ("ssh-ed25519 !!!!", "not base64"),
        "mismatched type": (f"ecdsa-sha2-nistp256 {ed_b64}", "says it is 'ssh-ed25519'"),
        "two lines": (f"{ed.line}\n{ed.line}", "more than one line"),
        "over-long": (f"{ed.line} {'x' * 17_000}", "at most 16384"),
        "truncated": (f"ssh-ed25519 {base64.b64encode(ed.blob[:-1]).decode()}", "ends early"),
        "trailing": (f"ssh-ed25519 {base64.b64encode(ed.blob + b'x').decode()}", "follow its end"),
    }
    point = p256.blob[-65:]
    off_curve = point[:-1] + bytes([point[-1] ^ 1])
    refused["off the curve"] = (
        f"{p256.algorithm} {base64.b64encode(p256.blob[:-65] + off_curve).decode()}",
        "not on the curve nistp256",
    )
    other_curve = s(b"ecdsa-sha2-nistp256") + s(b"nistp384") + s(point)
    refused["curve"] = (f"ecdsa-sha2-nistp256 {base64.b64encode(other_curve).decode()}", "curve")
    for line, why in refused.values():
        with pytest.raises(BadKey, match=why):
            parse_public_key(line)


# --- exposure: a private key any process can use --------------------------------------------------


def test_exposure_warns_of_an_unencrypted_key_only(keys: dict[str, Path], tmp_path: Path) -> None:
    for name in KEY_TYPES:
        warning = exposure(keys[name])
        assert warning is not None and warning.startswith(
            f"{keys[name]} is an unencrypted private key"
        )
        assert "ssh-add -c" in warning and "ed25519-sk" in warning
    locked = keygen(tmp_path / "locked", ["-t", "ed25519"], passphrase="secret")
    assert exposure(locked) is None
    assert exposure(f"{keys['ed25519']}.pub") is None
    assert exposure(tmp_path / "missing") is None
    (tmp_path / "notes").write_text("not a key\n")
    assert exposure(tmp_path / "notes") is None
    # An unencrypted security-key file holds only a handle: the device signs, after a touch.
    _, sk = sk_key("sk-ssh-ed25519@openssh.com")
    body = b"openssh-key-v1\0" + s(b"none") + s(b"none") + s(b"") + (1).to_bytes(4, "big")
    body += s(sk.blob) + s(b"\0" * 64)
    text = base64.b64encode(body).decode()
    (tmp_path / "id_ed25519_sk").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{text}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    assert exposure(tmp_path / "id_ed25519_sk") is None


# --- allowed_signers_line: what ssh-keygen and git read -------------------------------------------


def test_allowed_signers_line_is_what_ssh_keygen_reads(
    keys: dict[str, Path], tmp_path: Path
) -> None:
    key, armored = pub(keys["ed25519"]), sign(MESSAGE, NS, keys["ed25519"])
    line = allowed_signers_line("Ada Lovelace", key, (NS, "git"))
    assert line == f'"Ada Lovelace" namespaces="{NS},git" {key.line}'
    assert keygen_verify(tmp_path, line, "Ada Lovelace", armored).returncode == 0
    assert keygen_verify(tmp_path, line, "Ada", armored).returncode != 0
    assert keygen_verify(tmp_path, line, "Lovelace", armored).returncode != 0
    git = keygen_sign(keys["ed25519"], namespace="git")
    assert keygen_verify(tmp_path, line, "Ada Lovelace", git, namespace="git").returncode == 0
    narrow = allowed_signers_line("ada@example.org", key, ("git",))
    assert narrow.startswith("ada@example.org namespaces=")
    assert keygen_verify(tmp_path, narrow, "ada@example.org", armored).returncode != 0
    wide = allowed_signers_line("ada@example.org", key, (NS,))
    assert keygen_verify(tmp_path, wide, "ada@example.org", armored).returncode == 0


@pytest.mark.parametrize(
    "principal",
    [
        'Ada "The Countess"',
        "*",
        "Ada*",
        "A?a",
        "!ada",
        "Lovelace, Ada",
        "Ada\nLovelace",
        "Ada\tL",
        "",
        " Ada",
    ],
)
def test_allowed_signers_line_refuses_a_principal_that_would_mean_another(principal: str) -> None:
    _, key = sk_key("sk-ssh-ed25519@openssh.com")
    with pytest.raises(ValueError):
        allowed_signers_line(principal, key, (NS,))


@pytest.mark.parametrize("namespaces", [(), ("a b",), ("*",), ("a,b",), ('a"',), ("a\\b",)])
def test_allowed_signers_line_refuses_such_namespaces(namespaces: tuple[str, ...]) -> None:
    _, key = sk_key("sk-ssh-ed25519@openssh.com")
    with pytest.raises(ValueError):
        allowed_signers_line("ada", key, namespaces)


# --- sign: through ssh-keygen, its failures said --------------------------------------------------


def test_signing_with_a_missing_key_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "id_missing"
    with pytest.raises(SigningFailed, match=f"{missing}.*No such file"):
        sign(MESSAGE, NS, missing)


def test_signing_without_ssh_keygen_says_it_is_needed(
    keys: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SigningFailed, match=r"^ssh-keygen \(OpenSSH\) is needed to sign$"):
        sign(MESSAGE, NS, keys["ed25519"])


def test_a_passphrase_is_asked_by_ssh_keygen_itself(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    locked = keygen(tmp_path / "locked", ["-t", "ecdsa", "-b", "256"], passphrase="secret")
    monkeypatch.setenv("SSH_ASKPASS", str(askpass(tmp_path / "right", "echo secret")))
    assert verify(sign(MESSAGE, NS, locked), MESSAGE, NS, pub(locked)) is None
    monkeypatch.setenv("SSH_ASKPASS", str(askpass(tmp_path / "wrong", "echo guess")))
    with pytest.raises(SigningFailed, match="incorrect passphrase") as refused:
        sign(MESSAGE, NS, locked)
    assert str(locked) in str(refused.value) and "Traceback" not in str(refused.value)
    monkeypatch.setenv("SSH_ASKPASS", str(askpass(tmp_path / "slow", "sleep 2; echo secret")))
    started = time.monotonic()
    with pytest.raises(SigningFailed, match="did not sign .* within 0.3 s"):
        sign(MESSAGE, NS, locked, timeout=0.3)
    assert time.monotonic() - started < 1.5


def test_a_pub_whose_private_half_is_in_ssh_agent_signs(
    keys: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = shutil.which("ssh-agent")
    add = shutil.which("ssh-add")
    if agent is None or add is None:
        pytest.skip("ssh-agent and ssh-add (OpenSSH) are not installed")
    folder = tmp_path / "only-pub"
    folder.mkdir()
    private, public = folder / "id", folder / "id.pub"
    shutil.copy(keys["ecdsa384"], private)
    shutil.copy(f"{keys['ecdsa384']}.pub", public)
    socket = tmp_path / "agent.sock"
    process = subprocess.Popen(
        [agent, "-D", "-a", str(socket)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(200):
            if socket.exists():
                break
            time.sleep(0.01)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket))
        subprocess.run([add, "-q", str(private)], check=True, capture_output=True, timeout=10)
        private.unlink()  # only the agent holds it now
        armored = sign(MESSAGE, NS, public)
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert verify(armored, MESSAGE, NS, read_public_key(public)) is None
    assert exposure(public) is None


def test_a_pub_that_is_not_the_private_key_s_is_caught(
    keys: dict[str, Path], tmp_path: Path
) -> None:
    private = tmp_path / "id"
    shutil.copy(keys["ed25519"], private)
    shutil.copy(f"{keys['other']}.pub", f"{private}.pub")
    # ssh-keygen refuses first; sign's own comparison of the key signed with is the second guard.
    with pytest.raises(SigningFailed, match=f"{private}.*(doesn't match|not .*'s key)"):
        sign(MESSAGE, NS, private)
