"""The people registry: who may vouch for a figure, and with which keys.

A person is registered with an SSH public key (`claims people add NAME --key FILE.pub`). The registry is a
table of rows (models.Person) that is append-only (database triggers; on PostgreSQL a writer may only
insert) and hash-chained like the history: each row stores the SHA-256 of its fields and of the row before
it. The first row registers the first person and may be unsigned (nobody could sign it); every later row
(another person or key, a key removed, a passkey, signatures required) is signed by a key registered and
not removed before it, with the namespace PEOPLE_NAMESPACE, over the row's message (`row_message`: its
kind, person, key, actor, time and the digest of the row before it, so a signed row cannot be replayed
elsewhere in the chain).

`load` replays the rows into a Registry: each key with the time it was added and removed, the passkeys,
and when signatures became required. A row that does not verify (a broken link, a hash that does not match,
a missing or bad signature, a signer not registered then) is reported in `Registry.problems` and ignored:
it grants nothing. `claims db check` fails on any.

Domain code: no output; errors are claimsdb.errors (exit 2).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import history
from claimsdb.errors import BadQuery, InvalidField, InvalidName
from claimsdb.models import Person, table_of, utcnow
from claimsdb.trust import invites
from claimsdb.trust.confusables import confusable
from claimsdb.trust.identity import person_name

if TYPE_CHECKING:  # the checks load it (and cryptography) only for a store with people
    from claimsdb.trust import sshsig

# The SSHSIG namespaces claims signs in: the registry's rows, and re-reads (trust.signatures)
PEOPLE_NAMESPACE = "claimsdb-people"
REREAD_NAMESPACE = "claimsdb-reread"
MESSAGE_FORMAT = "claimsdb-people/1"
PASSKEY_PREFIX = (
    "passkey "  # how a passkey is named where a key's fingerprint stands ("passkey ID")
)
ROW_FIELDS = ("at", "kind", "name", "key", "fingerprint", "actor", "signer", "signature")
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

# What export and lint say, in one line, while the store does not require signatures.
UNSIGNED_NOTICE = (
    "re-reads are not signed: anyone who can run claims here can vouch; see `claims people`"
)
# A signer: given a message and a namespace, the armored SSH signature a person's key makes over it.
Signer = Callable[[bytes, str], str]


@dataclass(frozen=True)
class Key:
    """One key of one person, and when it was registered and removed (None: still registered)."""

    name: str
    key: sshsig.PublicKey
    added_at: str
    added_by: str
    removed_at: str | None = None
    removed_by: str | None = None

    @property
    def fingerprint(self) -> str:
        return self.key.fingerprint

    def held_at(self, at: str, *, signed_later: bool = False) -> bool:
        """Whether the key was its person's on the day of `at` (ISO 8601 UTC text) and not removed by
        then. `signed_later`: the re-read was signed after that day (a data file's, dated the day of the
        reading): the key need only not have been removed by then."""
        added = signed_later or self.added_at[:10] <= at[:10]
        return added and (self.removed_at is None or at < self.removed_at)


@dataclass
class Registry:
    """The people registry as its rows imply: keys by fingerprint, passkeys, and the requirement."""

    keys: dict[str, Key] = field(default_factory=dict)
    # registered passkeys: {"name", "at", "credential" (passkeys.Credential), "rp_id", "invite"}
    passkeys: list[dict[str, Any]] = field(default_factory=list)
    # passkey invitations by their row's sha256: {"name", "at", "hash", "expires", "used"}
    invitations: dict[str, dict[str, Any]] = field(default_factory=dict)
    required_at: str | None = None
    required_by: str | None = None
    problems: list[str] = field(default_factory=list)
    rows: int = 0
    head: str | None = None
    # verdicts of re-read signatures already checked, by event digest (trust.signatures)
    verdicts: dict[str, str | None] = field(default_factory=dict)

    @property
    def required(self) -> bool:
        """Signatures are required: a signed row said so, or the registry does not verify (a row removed,
        edited or forged: it fails closed, so cutting the requirement out of the registry frees nothing)."""
        return self.required_at is not None or bool(self.problems)

    @property
    def empty(self) -> bool:
        return not self.keys

    def current(self, fingerprint: str) -> Key | None:
        """The registered key with this fingerprint, if it is not removed."""
        key = self.keys.get(fingerprint)
        return key if key is not None and key.removed_at is None else None

    def people(self) -> list[str]:
        """The names of everyone with a registered key, in the order they were added."""
        return list(dict.fromkeys(k.name for k in self.keys.values() if k.removed_at is None))

    def keys_of(self, name: str) -> list[Key]:
        return [k for k in self.keys.values() if k.name == name and k.removed_at is None]

    def passkeys_of(self, name: str) -> list[dict[str, Any]]:
        """The passkeys registered to this person and not removed: {"name", "at", "credential", "rp_id",
        "invite"} (and "removed_at", "removed_by" once removed)."""
        return [p for p in self.passkeys if p["name"] == name and p.get("removed_at") is None]

    def passkey(self, credential_id: str) -> dict[str, Any] | None:
        """The registered passkey with this credential id (removed or not), if any."""
        return next(
            (p for p in self.passkeys if p["credential"].credential_id == credential_id), None
        )


def lookalike(reg: Registry, name: str) -> str | None:
    """The registered person's name that `name` reads as but is not spelt as ("Grace Hоpper" with a
    Cyrillic о, for Grace Hopper): compared by skeleton (trust.confusables); None when there is none."""
    names = dict.fromkeys(
        [*(k.name for k in reg.keys.values()), *(p["name"] for p in reg.passkeys)]
    )
    return next((n for n in names if n != name and confusable(n, name)), None)


def recorded_name(session: Session, text: object, *, field: str) -> str:
    """A person's name as a recording names it (identity.person_name), refused (InvalidName) when it reads
    as a registered person's name but is spelt otherwise: the history would show one person's name for
    another's acts."""
    name = person_name(text, field=field)
    _refuse_lookalike(load(session), name, field)
    return name


def _refuse_lookalike(reg: Registry, name: str, field: str) -> None:
    other = lookalike(reg, name)
    if other is not None:
        raise InvalidName(
            field,
            name,
            f"reads as {other!r}, a registered person, but is spelt otherwise: "
            "give the name as registered, or another that does not read as it",
        )


def row_message(row: dict[str, Any]) -> bytes:
    """What a row's signature signs: its kind, person, key, actor and time, and the row before it."""
    return _ENCODE(
        [
            MESSAGE_FORMAT,
            row["kind"],
            row["name"],
            row["key"],
            row["fingerprint"],
            row["actor"],
            row["at"],
            row["prev_sha256"],
        ]
    ).encode("utf-8", "surrogatepass")


def row_digest(row: dict[str, Any]) -> str:
    payload = [history.HASH_VERSION, "person", *(row[k] for k in ROW_FIELDS), row["prev_sha256"]]
    return hashlib.sha256(_ENCODE(payload).encode("utf-8", "surrogatepass")).hexdigest()


_TABLE = table_of(Person)


def _rows(session: Session) -> list[dict[str, Any]]:
    table = _TABLE
    return [dict(r._mapping) for r in session.execute(select(table).order_by(table.c.id))]


def load(session: Session) -> Registry:
    """The registry its rows imply; kept on the session until a row is added (one read per command)."""
    cached = session.info.get("claims.people")
    last = session.execute(
        select(_TABLE.c.id, _TABLE.c.sha256).order_by(_TABLE.c.id.desc()).limit(1)
    ).first()
    mark = tuple(last) if last is not None else None
    if cached is not None and cached[0] == mark:
        return cached[1]
    registry = replay(_rows(session))
    session.info["claims.people"] = (mark, registry)
    return registry


def replay(rows: Iterable[dict[str, Any]]) -> Registry:
    """Replay registry rows, oldest first; a row that does not verify is reported and grants nothing."""
    reg = Registry()
    prev: str | None = None
    for row in rows:
        reg.rows += 1
        where = f"people row {row['id']} ({row['kind']} {row['name']} by {row['actor']})"
        if row["prev_sha256"] != prev:
            reg.problems.append(
                f"{where} does not follow the row before it: the registry was edited"
            )
        elif row["sha256"] != row_digest(row):
            reg.problems.append(f"{where} does not match its hash: it was edited")
        else:
            why = _signed_problem(reg, row)
            if why:
                reg.problems.append(f"{where}: {why}")
            else:
                _apply(reg, row)
        prev = row["sha256"]
    reg.head = prev
    return reg


def _signed_problem(reg: Registry, row: dict[str, Any]) -> str | None:
    """Why a row is not one a registered person signed (None: it is, or it is the unsigned first person,
    or a passkey registered with a valid invitation's one-time token)."""
    from claimsdb.trust import sshsig

    if row["kind"] == "passkey":
        why = invites.row_problem(reg, row)
        if why or row["signature"] is None:
            return why
    if reg.empty and not reg.problems and row["kind"] == "added" and row["signature"] is None:
        return None  # the first person, added freely
    if row["signature"] is None or row["signer"] is None:
        return "it is not signed, and only the first person is added unsigned"
    signer = reg.current(row["signer"])
    if (
        signer is None
        and reg.empty
        and row["kind"] == "added"
        and row["fingerprint"] == row["signer"]
    ):
        signer_key = sshsig.parse_public_key(row["key"])  # the first person, signing their own key
        return sshsig.verify(row["signature"], row_message(row), PEOPLE_NAMESPACE, signer_key)
    if signer is None:
        return f"signed by {row['signer']}, which no registered person held then"
    if signer.name != row["actor"]:
        return f"signed by {signer.name}'s key but recorded as by {row['actor']}"
    return sshsig.verify(row["signature"], row_message(row), PEOPLE_NAMESPACE, signer.key)


def _apply(reg: Registry, row: dict[str, Any]) -> None:
    from claimsdb.trust import sshsig

    kind = row["kind"]
    if kind == "added":
        key = sshsig.parse_public_key(row["key"])
        reg.keys[key.fingerprint] = Key(row["name"], key, row["at"], row["actor"])
    elif kind == "removed" and str(row["fingerprint"]).startswith(PASSKEY_PREFIX):
        held = reg.passkey(str(row["fingerprint"])[len(PASSKEY_PREFIX) :])
        if held is not None and held.get("removed_at") is None:
            held["removed_at"], held["removed_by"] = row["at"], row["actor"]
    elif kind == "removed":
        old = reg.keys.get(row["fingerprint"])
        if old is not None and old.removed_at is None:
            reg.keys[old.fingerprint] = Key(
                old.name, old.key, old.added_at, old.added_by, row["at"], row["actor"]
            )
    elif kind == "passkey":
        invites.apply(reg, row)
    elif kind == "required" and reg.required_at is None:
        reg.required_at, reg.required_by = row["at"], row["actor"]


def _append(
    session: Session, row: dict[str, Any], sign: Signer | None, signer: Key | None
) -> dict[str, Any]:
    """Sign the row (when a signer is given), chain it to the registry's head and insert it."""
    from claimsdb.trust import sshsig

    if sign is not None:
        row["signature"] = sign(row_message(row), PEOPLE_NAMESPACE)
        embedded = sshsig.signer(row["signature"])
        expected = signer.key if signer is not None else sshsig.parse_public_key(row["key"])
        why = sshsig.verify(row["signature"], row_message(row), PEOPLE_NAMESPACE, expected)
        if why:
            made_by = f" (made by {embedded.fingerprint})" if embedded is not None else ""
            raise BadQuery(f"the signature does not verify{made_by}: {why}; nothing was recorded")
    row["sha256"] = row_digest(row)
    session.execute(_TABLE.insert().values(**row))
    session.info.pop("claims.people", None)
    return row


def _begin(session: Session) -> tuple[Registry, str | None]:
    """The registry read under the writers' lock, and the head a new row extends."""
    history.begin_write(session)
    session.info.pop("claims.people", None)
    reg = load(session)
    if reg.problems:
        raise BadQuery(
            f"the people registry does not verify ({reg.problems[0]}): nothing was recorded; "
            "run `claims db check`"
        )
    return reg, reg.head


def signing_person(reg: Registry, signed_with: sshsig.PublicKey | None, what: str) -> Key:
    """The registered person whose key signs a change to the registry; refused otherwise."""
    if signed_with is None:
        raise BadQuery(
            f"{what} must be signed by a registered person: give --sign-with KEY "
            f"(registered: {', '.join(reg.people())}); nothing was recorded"
        )
    held = reg.current(signed_with.fingerprint)
    if held is None:
        raise BadQuery(
            f"{signed_with.fingerprint} is no registered person's key: {what} must be signed by one "
            f"of {', '.join(reg.people())}; nothing was recorded"
        )
    return held


def add(
    session: Session,
    name: str,
    key: sshsig.PublicKey,
    *,
    sign: Signer | None = None,
    signed_with: sshsig.PublicKey | None = None,
) -> dict[str, Any]:
    """Register `key` for the person `name`: the first person freely, anyone later signed by a registered
    person (`sign` makes the signature with the key `signed_with`)."""
    name = person_name(name, field="name")
    reg, prev = _begin(session)
    _refuse_lookalike(reg, name, "name")
    taken = reg.keys.get(key.fingerprint)
    if taken is not None:
        raise InvalidField(
            "key",
            f"{key.fingerprint} was registered to {taken.name} on {taken.added_at[:10]}"
            + (" and removed: a removed key is not registered again" if taken.removed_at else ""),
        )
    if reg.empty and signed_with is None:
        signer, actor = None, name
    elif reg.empty:
        if signed_with is None or signed_with.fingerprint != key.fingerprint:
            raise BadQuery(
                "the first person signs with the key they register, or not at all; nothing was recorded"
            )
        signer, actor = None, name
    else:
        signer = signing_person(reg, signed_with, f"adding {name}")
        actor = signer.name
    row = _row("added", name, key.line, key.fingerprint, actor, prev, signed_with)
    return _append(session, row, sign if signed_with is not None else None, signer)


def remove(
    session: Session,
    name: str,
    fingerprint: str | None,
    *,
    sign: Signer | None,
    signed_with: sshsig.PublicKey | None,
) -> list[dict[str, Any]]:
    """Remove a person's key (or all their keys and passkeys; `fingerprint` names one SSH key, or a
    passkey as "passkey CREDENTIAL-ID"), signed by a registered person; refused when it would leave
    nobody registered."""
    name = person_name(name, field="name")
    reg, prev = _begin(session)
    keys = [k for k in reg.keys_of(name) if fingerprint in (None, k.fingerprint)]
    passkeys = [
        PASSKEY_PREFIX + p["credential"].credential_id
        for p in reg.passkeys_of(name)
        if fingerprint in (None, PASSKEY_PREFIX + p["credential"].credential_id)
    ]
    if not keys and not passkeys:
        raise InvalidField(
            "name", f"{name} holds no registered key{' ' + fingerprint if fingerprint else ''}"
        )
    signer = signing_person(reg, signed_with, f"removing {name}'s key")
    left = [k for k in reg.keys.values() if k.removed_at is None and k not in keys]
    if not left:
        raise BadQuery(
            "that would leave nobody registered, so nobody could sign again; add another person first"
        )
    rows = []
    for credential in passkeys:  # a passkey's removal names it by its credential id
        row = _row("removed", name, None, credential, signer.name, prev, signed_with)
        rows.append(_append(session, row, sign, signer))
        prev = row["sha256"]
    # the signer's own key is removed last: no later row can be signed with a removed key
    for k in sorted(keys, key=lambda k: k.fingerprint == signer.fingerprint):
        row = _row("removed", name, k.key.line, k.fingerprint, signer.name, prev, signed_with)
        rows.append(_append(session, row, sign, signer))
        prev = row["sha256"]
    return rows


def require(
    session: Session, *, sign: Signer | None, signed_with: sshsig.PublicKey | None
) -> dict[str, Any]:
    """From now on only a signed re-read vouches (every door's check, trust.signatures)."""
    reg, prev = _begin(session)
    if reg.empty:
        raise BadQuery("register a person first (`claims people add NAME --key FILE.pub`)")
    if reg.required_at is not None:
        raise BadQuery(f"signatures are required already, since {reg.required_at[:19]}Z")
    signer = signing_person(reg, signed_with, "requiring signatures")
    row = _row("required", signer.name, None, None, signer.name, prev, signed_with)
    return _append(session, row, sign, signer)


def invite(
    session: Session, name: str, *, sign: Signer | None, signed_with: sshsig.PublicKey | None
) -> tuple[dict[str, Any], str]:
    """Invite `name` to register a passkey: a row signed by a registered person holding the hash of a
    one-time token, valid for a day (trust.invites). Returns (the row, the token: shown once)."""
    name = person_name(name, field="name")
    reg, prev = _begin(session)
    _refuse_lookalike(reg, name, "name")
    signer = signing_person(reg, signed_with, f"inviting {name} to register a passkey")
    token, hashed = invites.new_token()
    row = _row("passkey", name, None, None, signer.name, prev, signed_with)
    row["key"] = invites.invitation_key(hashed, invites.expiry(row["at"]))
    return _append(session, row, sign, signer), token


def invitation(session: Session, token: str) -> dict[str, Any]:
    """The open invitation this one-time token names ({"name", "at", "expires", ...}); BadQuery says why
    not (unknown, used, expired)."""
    reg = load(session)
    try:
        return invites.open_invitation(reg, token, utcnow())[1]
    except ValueError as exc:
        raise BadQuery(str(exc)) from None


def register_passkey(session: Session, token: str, credential: Any, rp_id: str) -> dict[str, Any]:
    """Register the passkey `credential` (passkeys.Credential) for the person the token's invitation names,
    on the site `rp_id`: an unsigned row the token authorises. BadQuery when the token opens nothing."""
    reg, prev = _begin(session)
    try:
        digest, invited = invites.open_invitation(reg, token, utcnow())
    except ValueError as exc:
        raise BadQuery(f"{exc}; nothing was recorded") from None
    name = invited["name"]
    row = _row("passkey", name, None, None, name, prev, None)
    row["key"] = invites.passkey_key(credential, rp_id, digest, token)
    why = invites.row_problem(reg, row)
    if why:
        raise BadQuery(f"the passkey was not registered: {why}")
    return _append(session, row, None, None)


def _row(
    kind: str,
    name: str,
    key: str | None,
    fingerprint: str | None,
    actor: str,
    prev: str | None,
    signed_with: sshsig.PublicKey | None,
) -> dict[str, Any]:
    return {
        "at": utcnow(),
        "kind": kind,
        "name": name,
        "key": key,
        "fingerprint": fingerprint,
        "actor": actor,
        "signer": signed_with.fingerprint if signed_with is not None else None,
        "signature": None,
        "prev_sha256": prev,
    }


def listing(session: Session) -> list[dict[str, Any]]:
    """Every registry row for people to read: kind, person, key fingerprint, who recorded it, when."""
    return [
        {
            "at": r["at"],
            "kind": r["kind"],
            "name": r["name"],
            "fingerprint": r["fingerprint"],
            "by": r["actor"],
            "signed": r["signer"],
        }
        for r in _rows(session)
    ]


def allowed_signers(reg: Registry) -> list[str]:
    """The registered keys as lines of an allowed-signers file (git's gpg.ssh.allowedSignersFile)."""
    from claimsdb.trust import sshsig

    return [
        sshsig.allowed_signers_line(k.name, k.key, (REREAD_NAMESPACE, PEOPLE_NAMESPACE))
        for k in reg.keys.values()
        if k.removed_at is None
    ]
