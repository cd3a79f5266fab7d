"""Whether a re-read is signed by the person it names: the rule every door applies once signatures are
required (`claims people require-signatures`).

A re-read's signature is an SSH signature (SSHSIG, namespace REREAD_NAMESPACE) over its message
(`reread_message`): the claim's key, the content the re-read vouches for (its digest), the page, the
place and the quote, the corrections, the attestation, the digest of the page text it was checked against,
the person and the time. It is stored in the event's detail (`signature`: the format, the key's
fingerprint and the armored signature), so the history's hash covers it too.

`problem(registry, claim_key, event)` says why the event a verified tag stands on does not vouch under
required signatures: it is not a re-read (an import set the tag), it is not signed, its key is no one's,
another person's, or one its person did not hold on that day, or the signature does not verify. Verdicts
are kept per event digest for the registry's life (one command), so a claim read twice costs one check.

What a signature proves: the holder of a registered key approved exactly these words for this claim. It
does not prove they read the page (the page check, rereads.py, is what ties the quote to the page), and it
protects nothing against someone who holds the key: a key an agent can read signs for the agent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, func, select
from sqlmodel import Session

from claimsdb.errors import BadQuery
from claimsdb.history import IMPORT_KINDS, REREAD_KIND, VERIFIED
from claimsdb.models import Claim, Event, Tag, table_of, utcnow
from claimsdb.trust import people

if TYPE_CHECKING:
    from claimsdb.trust import prefetch

REREAD_NAMESPACE = people.REREAD_NAMESPACE
MESSAGE_FORMAT = "claimsdb-reread/1"
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)
class Prepare:
    """A signer for a re-read signed in two steps (a passkey in the browser): the recording stops at the
    event, raising Prepared with it and its message; nothing is recorded."""


class Prepared(Exception):
    """The event a re-read would record (its time fixed) and the message its signature must sign."""

    def __init__(self, event: dict[str, Any], message: bytes):
        super().__init__("prepared")
        self.event, self.message = event, message


@dataclass(frozen=True)
class Passkey:
    """A signer for the second step: the browser's assertion (passkeys.assertion_record) over the
    prepared message, checked at `origin` for the site `rp_id`; the event keeps the prepared time."""

    at: str
    message: bytes
    record: dict[str, Any] = field(hash=False)
    origin: str
    rp_id: str


def _detail(event: Mapping[str, Any]) -> dict[str, Any]:
    raw = event.get("detail")
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def reread_message(
    claim_key: str, event: Mapping[str, Any], detail: Mapping[str, Any] | None = None
) -> bytes:
    """What a re-read's signature signs, from the event's own fields. A data file's re-read signs what the
    file states: the import's own findings (its attestation, the copy it checked) are not the person's.
    `detail`: the event's detail already decoded (else it is decoded here)."""
    d = _detail(event) if detail is None else detail
    from_file = "data_file" in d
    checked = d.get("checked")
    page_sha = checked.get("sha256") if isinstance(checked, dict) and not from_file else None
    return _ENCODE(
        [
            MESSAGE_FORMAT,
            claim_key,
            event.get("content_sha256"),
            event.get("origin"),
            d.get("locator"),
            d.get("quote"),
            d.get("corrected") or [],
            None if from_file else d.get("attested"),
            page_sha,
            event.get("actor"),
            str(event.get("at")),
        ]
    ).encode("utf-8", "surrogatepass")


def fingerprint(event: Mapping[str, Any]) -> str | None:
    """The fingerprint of the key that signed a re-read (as its detail records it), None when unsigned."""
    sig = _detail(event).get("signature")
    if isinstance(sig, dict) and sig.get("format") == "webauthn":
        return f"{people.PASSKEY_PREFIX}{sig.get('credential_id')}"
    return sig.get("fingerprint") if isinstance(sig, dict) else None


def problem(reg: people.Registry, claim_key: str, event: Mapping[str, Any] | None) -> str | None:
    """Why the event a verified tag stands on does not vouch as a signed re-read; None when it does."""
    if reg.problems:
        return f"the people registry does not verify ({reg.problems[0]}): run `claims db check`"
    if event is None:
        return "nothing vouches for its tag"
    if event.get("kind") != REREAD_KIND:
        return "its verified tag was set by an import, not by a person's signed re-read"
    key = verdict_key(claim_key, event)
    if key in reg.verdicts:
        return reg.verdicts[key]
    why = reg.verdicts[key] = _problem(reg, claim_key, event)
    return why


def verdict_key(claim_key: str, event: Mapping[str, Any]) -> str:
    """What a verdict is kept under for the command's life: the digest of every field the check reads
    (not the event's own stored sha256, which a forged row could copy from a real one)."""
    detail = event.get("detail")
    if not isinstance(detail, str):
        detail = json.dumps(detail, sort_keys=True, ensure_ascii=False)
    fields = ("kind", "actor", "at", "origin", "content_sha256")
    payload = [claim_key, *(str(event.get(f)) for f in fields), detail]
    return hashlib.sha256(_ENCODE(payload).encode("utf-8", "surrogatepass")).hexdigest()


def _problem(reg: people.Registry, claim_key: str, event: Mapping[str, Any]) -> str | None:
    from claimsdb.trust import sshsig

    detail = _detail(event)
    sig = detail.get("signature")
    actor, at = str(event.get("actor")), str(event.get("at"))
    if not isinstance(sig, dict):
        return f"the re-read by {actor} on {at[:10]} is not signed"
    if sig.get("format") == "webauthn":
        return _passkey_problem(reg, claim_key, event, sig)
    if sig.get("format") != "sshsig" or not isinstance(sig.get("signature"), str):
        return f"the re-read by {actor} on {at[:10]} carries no SSH signature"
    read = sshsig.read_signature(sig["signature"])  # decoded once: its key, then its check
    embedded = read.signer
    if embedded is None:
        return f"the re-read by {actor} on {at[:10]} carries something that is not an SSH signature"
    key = reg.keys.get(embedded.fingerprint)
    if key is None:
        return (
            f"the re-read by {actor} is signed by {embedded.fingerprint}, a key no one registered"
        )
    if key.name != actor:
        return f"the re-read recorded as {actor}'s is signed by {key.name}'s key"
    # a data file's re-read is dated the day of the reading and signed afterwards (`claims people sign`)
    if not key.held_at(at, signed_later="data_file" in detail):
        return f"the re-read by {actor} on {at[:10]} is signed by a key {actor} did not hold then"
    message = reread_message(claim_key, event, detail)
    why = sshsig.verify_read(read, message, REREAD_NAMESPACE, key.key)
    return f"the signature of the re-read by {actor} does not verify: {why}" if why else None


def _passkey_problem(
    reg: people.Registry, claim_key: str, event: Mapping[str, Any], sig: dict[str, Any]
) -> str | None:
    """Why a re-read's passkey assertion does not vouch: the credential must be one of the named person's
    passkeys, registered on or before the re-read's day, and the assertion must be over this re-read."""
    actor, at = str(event.get("actor")), str(event.get("at"))
    record, credential_id = sig.get("assertion"), sig.get("credential_id")
    if not isinstance(record, dict) or record.get("credential_id") != credential_id:
        return f"the re-read by {actor} on {at[:10]} carries no passkey assertion"
    held = [p for p in reg.passkeys if p["credential"].credential_id == credential_id]
    if not held:
        return f"the re-read by {actor} is signed by a passkey no one registered"
    if held[0]["name"] != actor:
        return f"the re-read recorded as {actor}'s is signed by {held[0]['name']}'s passkey"
    if held[0]["at"][:10] > at[:10]:
        return f"the re-read by {actor} on {at[:10]} is signed by a passkey registered after it"
    removed = held[0].get("removed_at")
    if removed is not None and at >= removed:
        return (
            f"the re-read by {actor} on {at[:10]} is signed by a passkey removed on {removed[:10]}"
        )
    from claimsdb.trust import passkeys  # fido2: loaded only for a passkey's re-read

    why = passkeys.verify_assertion(
        record,
        reread_message(claim_key, event),
        [held[0]["credential"]],
        origin=None,
        rp_id=held[0]["rp_id"],
    )
    return (
        f"the passkey signature of the re-read by {actor} does not verify: {why}" if why else None
    )


def _passkey_signed(
    reg: people.Registry, claim_key: str, event: dict[str, Any], signer: Passkey
) -> dict[str, Any]:
    """The event as prepared (its time), with the browser's assertion; refused unless the assertion
    is over exactly this event, made at this server's origin, by one of the person's passkeys."""
    event = {**event, "at": signer.at}
    message = reread_message(claim_key, event)
    if message != signer.message:
        raise BadQuery(
            f"{claim_key}: the claim, its page or the entries changed after the passkey signed: "
            "nothing was recorded; record the re-read again"
        )
    actor = str(event.get("actor"))
    mine = [p for p in reg.passkeys_of(actor) if p["rp_id"] == signer.rp_id]
    from claimsdb.trust import passkeys

    why = passkeys.verify_assertion(
        signer.record,
        message,
        [p["credential"] for p in mine],
        origin=signer.origin,
        rp_id=signer.rp_id,
    )
    if why:
        raise BadQuery(
            f"{claim_key}: the passkey signature is refused ({why}); nothing was recorded"
        )
    detail = _detail(event)
    detail["signature"] = {
        "format": "webauthn",
        "credential_id": signer.record["credential_id"],
        "assertion": signer.record,
    }
    signed = {**event, "detail": json.dumps(detail, ensure_ascii=False)}
    why = _problem(reg, claim_key, signed)
    if why:
        raise BadQuery(f"{claim_key}: {why}; nothing was recorded")
    return signed


def _replayed(seen: dict[str, Any], event: dict[str, Any]) -> str | None:
    """Why a passkey assertion that verifies is still a replay: an earlier re-read carries it already."""
    sig = _detail(event).get("signature")
    record = sig.get("assertion") if isinstance(sig, dict) else None
    mark = record.get("signature") if isinstance(record, dict) else None
    if not isinstance(mark, str):
        return None
    if mark in seen:
        return f"it replays the passkey assertion of event {seen[mark]}"
    seen[mark] = event["id"]
    return None


def sign(
    session: Session,
    claim_key: str,
    event: dict[str, Any],
    signer: people.Signer | Prepare | Passkey | None,
) -> dict[str, Any]:
    """The re-read event as it is recorded: signed by `signer` (its time fixed now, then its message
    signed), refused when signatures are required and no signer is given or its key is not the person's.
    Prepare stops here with the event (Prepared); Passkey records the prepared event with its assertion."""
    reg = people.load(session)
    if isinstance(signer, Prepare):
        event = {**event, "at": utcnow()}
        raise Prepared(event, reread_message(claim_key, event))
    if isinstance(signer, Passkey):
        return _passkey_signed(reg, claim_key, event, signer)
    if signer is None:
        if reg.required:
            since = (
                f"since {str(reg.required_at)[:10]}, by {reg.required_by}"
                if reg.required_at
                else "the people registry does not verify"
            )
            raise BadQuery(
                f"signatures are required in this store ({since}): sign the re-read with "
                "--sign-with KEY (or CLAIMS_SIGNING_KEY); nothing was recorded"
            )
        return event
    if reg.empty:
        raise BadQuery(
            "no one is registered to sign: `claims people add NAME --key FILE.pub` first; nothing was recorded"
        )
    event = {**event, "at": utcnow()}
    signature = signer(reread_message(claim_key, event), REREAD_NAMESPACE)
    detail = _detail(event)
    detail["signature"] = stored(signature)
    signed = {**event, "detail": json.dumps(detail, ensure_ascii=False)}
    why = _problem(reg, claim_key, signed)
    if why:
        raise BadQuery(f"{claim_key}: {why}; nothing was recorded")
    return signed


def unsigned(session: Session) -> list[dict[str, str]]:
    """Every verified claim whose tag does not stand on a re-read signed by its person, required or not
    (`claims people unsigned`): the claims that vouch for nothing once signatures are required."""
    reg = people.load(session)
    out = []
    for _id, key, event in vouching_events(session):
        why = problem(reg, key, event)
        if why:
            out.append({"key": key, "reason": why})
    return out


_AUDITED = "FROM event e JOIN claim c ON c.id = e.claim_id WHERE e.kind = 'reread' ORDER BY e.id"


def start_audit(session: Session) -> prefetch.Prefetch:
    """`audit`'s worker, started early: with many signed re-reads it checks their signatures on another
    core while the caller's other checks run (trust.prefetch); the caller closes it. It is handed the
    signed ones only (their positions are `audit`'s count of signed re-reads): a store of unsigned
    re-reads starts no worker, whose start would cost more than the little `audit` checks then."""
    from claimsdb.db import parameter_mark, stream_rows
    from claimsdb.trust import prefetch

    signed = f"AND e.detail LIKE {parameter_mark(session.connection())} "
    sql = f"SELECT e.id {_AUDITED.replace('ORDER BY', signed + 'ORDER BY')}"
    ids = [row[0] for row in stream_rows(session, sql, ('%"signature": %',))]
    return prefetch.Prefetch(session, people.load(session), prefetch.REREADS, ids)


def audit(session: Session, started: prefetch.Prefetch | None = None) -> tuple[bool, str]:
    """`claims db check`'s pass over every re-read: each signature must verify against the key its person
    held then, and, once signatures are required, every re-read since must be signed (a data file's may
    come unsigned: it vouches for nothing). An event appended with correct hashes but no valid signature
    is one that claims did not record. `started`: this session's `start_audit`."""
    from claimsdb.db import stream_rows

    names = ("id", "key", "kind", "actor", "at", "origin", "content_sha256", "detail", "sha256")
    bad: list[str] = []
    signed = 0
    seen: dict[str, Any] = {}  # each passkey assertion by the event that first carried it
    with started or start_audit(session) as ahead:
        reg = ahead.registry
        rows = stream_rows(
            session,
            "SELECT e.id, c.key, e.kind, e.actor, e.at, e.origin, e.content_sha256, e.detail, "
            f"e.sha256 {_AUDITED}",
        )
        for row in rows:
            event = dict(zip(names, row))
            detail = str(event["detail"] or "")
            if '"signature": ' in detail:
                ahead.merge(signed)  # what the worker has sent so far (it checks the signed ones)
                signed += 1
                why = problem(reg, event["key"], event) or _replayed(seen, event)
            elif (
                reg.required
                and reg.required_at is not None
                and str(event["at"]) >= reg.required_at
                and '"data_file": ' not in detail
            ):
                why = "not signed, though signatures were required before it: claims did not record it"
            else:
                continue
            if why:
                bad.append(f"event {event['id']} ({event['key']}): {why}")
    if bad:
        more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
        return False, f"{len(bad)} re-read(s) do not verify: " + "; ".join(bad[:3]) + more
    required = f"required since {reg.required_at[:10]}" if reg.required_at else "not required"
    return True, f"{signed} signed re-read(s) verify; signatures {required}"


def stored(armored: str) -> dict[str, Any]:
    """A signature as a re-read event's detail holds it."""
    from claimsdb.trust import sshsig

    embedded = sshsig.signer(armored)
    return {
        "format": "sshsig",
        "fingerprint": embedded.fingerprint if embedded else None,
        "signature": armored,
    }


def signature_text(detail: Mapping[str, Any]) -> str | None:
    """The armored SSH signature a re-read event's (decoded) detail holds, if any."""
    sig = detail.get("signature")
    return sig.get("signature") if isinstance(sig, dict) else None


def data_file_message(rec: Any) -> bytes:
    """What the person signs for a data file's re-read (records.types.ClaimRecord with a `reread`): the
    event the import will record, as the record alone implies it (a claim whose stored evidence holds
    pages people added beyond the file's vouches for more than the file says: sign that one at a terminal)."""
    from claimsdb.history import content_digest

    r = rec.reread
    evidence = [(e.source, e.locator, e.quote) for e in rec.evidence]
    if (r.source, r.locator, r.quote) not in evidence:
        evidence.append((r.source, r.locator, r.quote))
    figures = [(f.quantity.raw, f.name) for f in rec.figures]
    event = {
        "content_sha256": content_digest(rec.subject, rec.statement, figures, evidence, rec.label),
        "origin": r.source,
        "detail": {"locator": r.locator, "quote": r.quote, "data_file": True},
        "actor": r.by,
        "at": f"{r.at}T00:00:00.000000+00:00",
    }
    return reread_message(rec.key, event)


def sign_data_file(
    doc: Any, file: str, person: str, signer: people.Signer
) -> tuple[list[str], list[str]]:
    """Sign, in a data file's document (its parsed JSON), every claim's `reread` that names `person`: each
    gets its `signature` (`data_file_message`, namespace REREAD_NAMESPACE). Returns the keys signed and
    the keys whose re-read names someone else (left as they are). A record that is not valid is refused
    as the import would refuse it (records.validation), naming the file, record and field."""
    from claimsdb.errors import InvalidRecord
    from claimsdb.records.validation import read_claim

    claims = doc.get("claims") if isinstance(doc, dict) else None
    if not isinstance(claims, list):
        raise InvalidRecord(file, None, "claims", "a data file is an object with a list of claims")
    signed, others = [], []
    for index, raw in enumerate(claims):
        rec = read_claim(file, index, raw)
        if rec.reread is None:
            continue
        if rec.reread.by != person:
            others.append(rec.key)
            continue
        reread = dict(raw["reread"])
        reread["signature"] = signer(data_file_message(rec), REREAD_NAMESPACE)
        raw["reread"] = reread
        signed.append(rec.key)
    return signed, others


BATCH = 500  # rows a server-side cursor brings at a time


def vouching_events(
    session: Session, among: Sequence[int] | None = None
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(id, key, event) of each verified claim (or of those `among` these ids) with the latest tag event
    that vouches for it (an import's or a re-read's), as history.derive finds it."""
    claim, tag = table_of(Claim), table_of(Tag)
    vouching, e = table_of(Event).alias("vouching"), table_of(Event).alias("e")
    latest = (
        select(func.max(vouching.c.id))
        .where(
            vouching.c.claim_id == claim.c.id,
            vouching.c.tag_after.is_not(None),
            vouching.c.kind.in_((*IMPORT_KINDS, REREAD_KIND)),
        )
        .correlate(claim)
        .scalar_subquery()
    )
    names = ("kind", "actor", "at", "origin", "content_sha256", "detail", "sha256")
    verified = select(tag.c.name).where(tag.c.trust == VERIFIED)
    stmt = (
        select(claim.c.id, claim.c.key, *(e.c[n] for n in names))
        .select_from(claim.join(e, e.c.id == latest))
        .where(claim.c.tag.in_(verified))
        .order_by(claim.c.key)
    )
    if among is not None:
        # the ids written into the statement (integers only): no parameter limit
        ids: Any = bindparam(
            "ids", sorted(among), unique=True, expanding=True, literal_execute=True
        )
        stmt = stmt.where(claim.c.id.in_(ids))
    for row in session.execute(stmt.execution_options(yield_per=BATCH)):
        yield row[0], row[1], dict(zip(names, row[2:]))
