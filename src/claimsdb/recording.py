"""What every recording by a person shares: the one way its text is cleaned, the claim read under the
writers' lock and checked against its history, and the event appended before the cached columns it sets
(the database refuses the other order). provenance (retag, status, ranks) and rereads use it."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col

from claimsdb import history, integrity
from claimsdb.errors import InvalidField
from claimsdb.models import Claim, utcnow
from claimsdb.queries import claim_views
from claimsdb.records.fields import text_problem
from claimsdb.records.types import LINE, TEXT, Rule
from claimsdb.views import ClaimView

REREAD_TAG = "spot-checked"
TRUSTED = "verified"  # the trust a re-read gives (REREAD_TAG's)
TRUST_RANK = {"unverified": 0, "secondary": 1, "verified": 2}


def required(value: str | None, field: str) -> str:
    if value is None or not value.strip():
        raise InvalidField(field, "must not be empty")
    clean(value, field)  # refuses control characters
    return value.strip()


# The limits of what a person types, field by field: those of the same field in a data file's re-read
# and claims (records/validation), so no door records what an import would refuse.
RULES: dict[str, Rule] = {
    "locator": LINE,
    "quote": TEXT,
    "note": TEXT,
    "reason": TEXT,
    "attest": TEXT,
}


def clean(value: str | None, field: str) -> str | None:
    """A person's text as it goes into the history, within its field's limits (RULES; TEXT for another
    field): no control or bidirectional-override characters (they would rewrite a terminal's or a page's
    display of the history), no line break in a one-line field, no longer than the field allows."""
    if value is None:
        return None
    value = value.strip()
    problem = text_problem(value, RULES.get(field, TEXT))
    if problem is not None:
        raise InvalidField(field, problem)
    return value


def intact(session: Session, claim: Claim) -> ClaimView:
    """The claim's view, read under the writers' lock; refuses to record anything on a claim that
    disagrees with its history."""
    history.begin_write(session)
    session.refresh(claim)
    view = claim_views(session, [claim], events=0)[0]
    integrity.ensure_intact([view])
    return view


def record(session: Session, claim: Claim, event: dict[str, Any], **columns: Any) -> dict[str, Any]:
    """Append the event, then set the claim's cached columns (tag, status...) it implies. The event's time
    is now, unless it holds one already (a signed re-read: the time is part of what was signed)."""
    at = event.get("at") or utcnow()
    event_id, row = history.append_one(
        session, {"claim": claim.key, "claim_id": claim.id, "at": at, **event}
    )
    session.execute(update(Claim).where(col(Claim.id) == claim.id).values(updated_at=at, **columns))
    return {
        "id": event_id,
        "at": at,
        "kind": row["kind"],
        "actor": row["actor"],
        "tag_before": row["tag_before"],
        "tag_after": row["tag_after"],
        "status_after": row["status_after"],
        "origin": row["origin"],
        "detail": json.loads(row["detail"]) if row["detail"] else None,
    }


def detail(**fields: Any) -> str:
    """An event's detail: the fields that hold something, as JSON."""
    return json.dumps({k: v for k, v in fields.items() if v is not None}, ensure_ascii=False)
