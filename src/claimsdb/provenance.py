"""What people record besides re-reads: a retag, a withdrawal, a supersession, a preferred or
deprecated value. Each is one appended event, written before the claim's cached tag, status or rank
(recording.record). Only a re-read raises a claim's trust (rereads: `preview_reread`, `reread`, made on
the page's own words, re-exported here); `retag` may lower a tag or move it between tags of the same
trust, never up.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from claimsdb.errors import BadQuery, RetagRaisesTrust
from claimsdb.models import Claim, Tag
from claimsdb.queries import get_claim
from claimsdb.recording import REREAD_TAG, TRUST_RANK, TRUSTED
from claimsdb.recording import detail as _detail
from claimsdb.recording import intact as _intact
from claimsdb.recording import record as _record
from claimsdb.recording import required as _required
from claimsdb.rereads import RereadPreview, preview_reread, required_fields, reread
from claimsdb.trust.people import recorded_name
from claimsdb.trust.rule import page_to_reread

__all__ = [
    "REREAD_TAG",
    "TRUSTED",
    "TRUST_RANK",
    "RereadPreview",
    "deprecate",
    "prefer",
    "preview_reread",
    "reread",
    "required_fields",
    "retag",
    "supersede",
    "withdraw",
]


def retag(session: Session, key: str, tag: str, *, actor: str, reason: str) -> dict[str, Any]:
    """Set a tag by hand: lower, or sideways to a tag of the same trust. Never up: that takes a re-read."""
    actor = recorded_name(session, actor, field="actor")
    claim = get_claim(session, key)
    view = _intact(session, claim)
    target = session.get(Tag, tag)
    if target is None:
        known = ", ".join(sorted(session.scalars(select(col(Tag.name)))))
        raise BadQuery(f"unknown tag {tag!r} (known: {known})")
    if claim.tag == tag:
        raise BadQuery(f"{key} is already tagged {tag}")
    current = view.trust
    if TRUST_RANK[target.trust] > TRUST_RANK.get(current or "", 0):
        raise RetagRaisesTrust(
            key,
            f"retag cannot raise {key} from {claim.tag} ({current}) to {tag} "
            f"({target.trust}): only a re-read raises trust",
            page_to_reread(view.sources),
        )
    reason = _required(reason, "reason")
    before = claim.tag
    event = _record(
        session,
        claim,
        {
            "kind": "retagged",
            "actor": actor,
            "tag_before": before,
            "tag_after": tag,
            "detail": json.dumps({"reason": reason}, ensure_ascii=False),
        },
        tag=tag,
    )
    return {"key": key, "tag_before": before, "tag_after": tag, "event": event}


def _set_status(
    session: Session,
    claim: Claim,
    status: str,
    *,
    actor: str,
    reason: str | None,
    superseded_by: str | None = None,
) -> dict[str, Any]:
    _intact(session, claim)
    if claim.status != "active":
        raise BadQuery(
            f"{claim.key} is already {claim.status}; a status is changed once, never undone silently"
        )
    return _set_column(
        session,
        claim,
        "status",
        status,
        kind="status",
        actor=recorded_name(session, actor, field="actor"),
        detail={"reason": reason, "superseded_by": superseded_by},
        status_reason=reason,
        superseded_by=superseded_by,
    )


def withdraw(session: Session, key: str, *, actor: str, reason: str) -> dict[str, Any]:
    return _set_status(
        session,
        get_claim(session, key),
        "withdrawn",
        actor=actor,
        reason=_required(reason, "reason"),
    )


def supersede(
    session: Session, key: str, *, by: str, actor: str, reason: str | None = None
) -> dict[str, Any]:
    """Mark a claim superseded by another. The other claim does not inherit its re-read: it stands on its own tag."""
    claim = get_claim(session, key)
    if by == key:
        raise BadQuery("a claim cannot supersede itself")
    get_claim(session, by)
    return _set_status(session, claim, "superseded", actor=actor, reason=reason, superseded_by=by)


def _rank(
    session: Session,
    claim: Claim,
    rank: str,
    *,
    actor: str,
    reason: str,
    because: str | None = None,
) -> dict[str, Any]:
    return _set_column(
        session,
        claim,
        "rank",
        rank,
        kind="ranked",
        actor=actor,
        detail={"reason": reason, "because": because},
    )


def _set_column(
    session: Session,
    claim: Claim,
    column: str,
    value: str,
    *,
    kind: str,
    actor: str,
    detail: dict[str, Any],
    **columns: Any,
) -> dict[str, Any]:
    """Append the event that sets a claim's `column` ("status", "rank") to `value`, its detail naming
    the change first, then set the column (and the other `columns` the event implies)."""
    before = getattr(claim, column)
    event = _record(
        session,
        claim,
        {
            "kind": kind,
            "actor": actor,
            f"{column}_after": value,
            "detail": _detail(**{column: [before, value]}, **detail),
        },
        **{column: value},
        **columns,
    )
    return {"key": claim.key, f"{column}_before": before, f"{column}_after": value, "event": event}


def _ranked_claim(
    session: Session, key: str, rank: str, reason: str, actor: str
) -> tuple[Claim, str, str]:
    claim = get_claim(session, key)
    _intact(session, claim)
    if claim.quantity_id is None:
        raise BadQuery(
            f"{key} states no quantity: a rank orders the competing values of one quantity "
            '(name it with "quantity" in the data file)'
        )
    if claim.rank == rank:
        raise BadQuery(f"{key} is already {rank}")
    return claim, _required(reason, "reason"), recorded_name(session, actor, field="actor")


def prefer(session: Session, key: str, *, actor: str, reason: str) -> dict[str, Any]:
    """Make a claim the preferred value of its quantity; the value preferred before becomes normal."""
    claim, reason, actor = _ranked_claim(session, key, "preferred", reason, actor)
    demoted = []
    for other in session.scalars(
        select(Claim).where(
            col(Claim.quantity_id) == claim.quantity_id,
            col(Claim.rank) == "preferred",
            col(Claim.id) != claim.id,
        )
    ):
        _intact(session, other)
        demoted.append(
            _rank(session, other, "normal", actor=actor, reason=reason, because=f"{key} preferred")[
                "key"
            ]
        )
    result = _rank(session, claim, "preferred", actor=actor, reason=reason)
    return {**result, "demoted": demoted}


def deprecate(session: Session, key: str, *, actor: str, reason: str) -> dict[str, Any]:
    """Mark a value of a quantity as one not to use (kept, shown, never exported)."""
    claim, reason, actor = _ranked_claim(session, key, "deprecated", reason, actor)
    return {**_rank(session, claim, "deprecated", actor=actor, reason=reason), "demoted": []}
