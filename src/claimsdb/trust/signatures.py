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

import json
from collections.abc import Mapping
from typing import Any

from sqlmodel import Session

from claimsdb.errors import BadQuery
from claimsdb.history import REREAD_KIND
from claimsdb.models import utcnow
from claimsdb.trust import people, sshsig

REREAD_NAMESPACE = "claimsdb-reread"
MESSAGE_FORMAT = "claimsdb-reread/1"
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


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
    return sig.get("fingerprint") if isinstance(sig, dict) else None


def problem(reg: people.Registry, claim_key: str, event: Mapping[str, Any] | None) -> str | None:
    """Why the event a verified tag stands on does not vouch as a signed re-read; None when it does."""
    if reg.problems:
        return f"the people registry does not verify ({reg.problems[0]}): run `claims db check`"
    if event is None:
        return "nothing vouches for its tag"
    if event.get("kind") != REREAD_KIND:
        return "its verified tag was set by an import, not by a person's signed re-read"
    digest = event.get("sha256")
    if digest is not None and digest in reg.verdicts:
        return reg.verdicts[digest]
    why = _problem(reg, claim_key, event)
    if digest is not None:
        reg.verdicts[digest] = why
    return why


def _problem(reg: people.Registry, claim_key: str, event: Mapping[str, Any]) -> str | None:
    detail = _detail(event)
    sig = detail.get("signature")
    actor, at = str(event.get("actor")), str(event.get("at"))
    if not isinstance(sig, dict):
        return f"the re-read by {actor} on {at[:10]} is not signed"
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
    if not (key.added_at[:10] <= at[:10] and (key.removed_at is None or at < key.removed_at)):
        return f"the re-read by {actor} on {at[:10]} is signed by a key {actor} did not hold then"
    message = reread_message(claim_key, event, detail)
    why = sshsig.verify_read(read, message, REREAD_NAMESPACE, key.key)
    return f"the signature of the re-read by {actor} does not verify: {why}" if why else None


def sign(
    session: Session, claim_key: str, event: dict[str, Any], signer: people.Signer | None
) -> dict[str, Any]:
    """The re-read event as it is recorded: signed by `signer` (its time fixed now, then its message
    signed), refused when signatures are required and no signer is given or its key is not the person's."""
    reg = people.load(session)
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
    armored = signer(reread_message(claim_key, event), REREAD_NAMESPACE)
    embedded = sshsig.signer(armored)
    detail = _detail(event)
    detail["signature"] = {
        "format": "sshsig",
        "fingerprint": embedded.fingerprint if embedded else None,
        "signature": armored,
    }
    signed = {**event, "detail": json.dumps(detail, ensure_ascii=False)}
    why = _problem(reg, claim_key, signed)
    if why:
        raise BadQuery(f"{claim_key}: {why}; nothing was recorded")
    return signed


def vouching_problem(
    reg: people.Registry, claim_key: str, event: Mapping[str, Any] | None
) -> str | None:
    """`problem` when signatures are required, else None: what a claim view records (views.ClaimView.unsigned)."""
    return problem(reg, claim_key, event) if reg.required else None


def unsigned(session: Session) -> list[dict[str, str]]:
    """Every verified claim whose tag does not stand on a re-read signed by its person, required or not
    (`claims people unsigned`): the claims that vouch for nothing once signatures are required."""
    from claimsdb.selection import vouching_events

    reg = people.load(session)
    out = []
    for _id, key, event in vouching_events(session):
        why = problem(reg, key, event)
        if why:
            out.append({"key": key, "reason": why})
    return out


def audit(session: Session) -> tuple[bool, str]:
    """`claims db check`'s pass over every re-read: each signature must verify against the key its person
    held then, and, once signatures are required, every re-read since must be signed (a data file's may
    come unsigned: it vouches for nothing). An event appended with correct hashes but no valid signature
    is one that claims did not record."""
    from claimsdb.db import stream_rows
    from claimsdb.trust import prefetch

    reg = people.load(session)
    names = ("id", "key", "kind", "actor", "at", "origin", "content_sha256", "detail", "sha256")
    bad: list[str] = []
    signed = 0
    where = "FROM event e JOIN claim c ON c.id = e.claim_id WHERE e.kind = 'reread' ORDER BY e.id"
    ids = [row[0] for row in stream_rows(session, f"SELECT e.id {where}")]
    # many to check: a worker checks the later half on another core (trust.prefetch)
    with prefetch.Prefetch(session, reg, prefetch.REREADS, ids, share=0.5) as ahead:
        for position, row in enumerate(
            stream_rows(
                session,
                "SELECT e.id, c.key, e.kind, e.actor, e.at, e.origin, e.content_sha256, e.detail, "
                f"e.sha256 {where}",
            )
        ):
            event = dict(zip(names, row))
            detail = str(event["detail"] or "")
            if '"signature": ' in detail:
                signed += 1
                ahead.need(position, event["sha256"])
                why = problem(reg, event["key"], event)
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
