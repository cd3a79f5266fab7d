"""What people record: a re-read, a retag, a withdrawal, a supersession. Each is one appended event.

The claim's tag and status change in the same transaction as the event that sets them, so the
current tag is always the one the latest tag-changing event set.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb.errors import BadQuery
from claimsdb.models import Claim, Event, Evidence, Source, Tag, utcnow
from claimsdb.queries import get_claim

REREAD_TAG = "spot-checked"


def _append(session: Session, claim: Claim, **event: Any) -> dict[str, Any]:
    row = Event(claim_id=claim.id, at=utcnow(), **event)
    session.add(row)
    claim.updated_at = row.at
    session.add(claim)
    session.flush()
    return {"at": row.at, "kind": row.kind, "actor": row.actor, "tag_before": row.tag_before,
            "tag_after": row.tag_after, "origin": row.origin,
            "detail": json.loads(row.detail) if row.detail else None}


def _required(value: str | None, what: str) -> str:
    if value is None or not value.strip():
        raise BadQuery(f"{what} must not be empty")
    return value.strip()


def primary_source(session: Session, claim: Claim) -> Source | None:
    """The page a person should re-read: the claim's first cited source that is not a note, if any."""
    rows = session.execute(
        select(Source).join(Evidence, Evidence.source_id == Source.id)
        .where(Evidence.claim_id == claim.id).order_by(Evidence.position)
    ).scalars().all()
    return next((s for s in rows if s.kind != "note"), None)


def reread_source(session: Session, claim: Claim, source: str | None) -> Source:
    """The page a re-read is recorded against: the one named, else the claim's primary page."""
    if source is not None:
        src = session.scalars(select(Source).where(Source.key == source)).first()
        if src is None:
            raise BadQuery(f"unknown source {source!r} (see `claims sources`)")
        if src.kind == "note":
            raise BadQuery(f"{source!r} is a note, not a primary page: a re-read checks the page the figure comes from")
        return src
    src = primary_source(session, claim)
    if src is None:
        raise BadQuery(
            f"{claim.key} cites no primary page: register the page you re-read as a source "
            "(claims import a file that lists it), then name it with --source"
        )
    return src


def reread(
    session: Session, key: str, *, actor: str, source: str | None = None, locator: str | None = None,
    quote: str | None = None, note: str | None = None,
) -> dict[str, Any]:
    """Record that `actor` re-read the claim in a source; the tag becomes spot-checked."""
    claim = get_claim(session, key)
    src = reread_source(session, claim, source)
    detail = {"source": src.key, "url": src.url, "locator": locator, "quote": quote, "note": note}
    before = claim.tag
    claim.tag = REREAD_TAG
    event = _append(
        session, claim, kind="reread", actor=_required(actor, "the reader's name"), tag_before=before,
        tag_after=REREAD_TAG, origin=src.key,
        detail=json.dumps({k: v for k, v in detail.items() if v is not None}, ensure_ascii=False),
    )
    return {"key": key, "tag_before": before, "tag_after": REREAD_TAG, "event": event}


def retag(session: Session, key: str, tag: str, *, actor: str, reason: str) -> dict[str, Any]:
    claim = get_claim(session, key)
    if session.get(Tag, tag) is None:
        known = ", ".join(sorted(session.scalars(select(Tag.name))))
        raise BadQuery(f"unknown tag {tag!r} (known: {known})")
    if claim.tag == tag:
        raise BadQuery(f"{key} is already tagged {tag}")
    before = claim.tag
    claim.tag = tag
    event = _append(
        session, claim, kind="retagged", actor=_required(actor, "the name"), tag_before=before, tag_after=tag,
        detail=json.dumps({"reason": _required(reason, "--reason")}, ensure_ascii=False),
    )
    return {"key": key, "tag_before": before, "tag_after": tag, "event": event}


def _set_status(
    session: Session, claim: Claim, status: str, *, actor: str, reason: str | None, superseded_by: str | None = None,
) -> dict[str, Any]:
    if claim.status != "active":
        raise BadQuery(f"{claim.key} is already {claim.status}; a status is changed once, never undone silently")
    before = claim.status
    claim.status, claim.status_reason, claim.superseded_by = status, reason, superseded_by
    detail = {"status": [before, status], "reason": reason, "superseded_by": superseded_by}
    event = _append(
        session, claim, kind="status", actor=_required(actor, "the name"),
        detail=json.dumps({k: v for k, v in detail.items() if v is not None}, ensure_ascii=False),
    )
    return {"key": claim.key, "status_before": before, "status_after": status, "event": event}


def withdraw(session: Session, key: str, *, actor: str, reason: str) -> dict[str, Any]:
    return _set_status(session, get_claim(session, key), "withdrawn", actor=actor, reason=_required(reason, "--reason"))


def supersede(session: Session, key: str, *, by: str, actor: str, reason: str | None = None) -> dict[str, Any]:
    claim = get_claim(session, key)
    if by == key:
        raise BadQuery("a claim cannot supersede itself")
    get_claim(session, by)
    return _set_status(session, claim, "superseded", actor=actor, reason=reason, superseded_by=by)
