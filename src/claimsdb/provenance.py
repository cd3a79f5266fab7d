"""What people record: a re-read, a retag, a withdrawal, a supersession. Each is one appended event.

The event is written first and the claim's cached tag or status after it, in the same transaction
(the database refuses the other order). Only a re-read raises a claim's trust: `retag` may lower a
tag or move it between tags of the same trust, never up. A re-read links the page it read to the
claim as evidence, with the locator and the quote, so every command that reads evidence uses it.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session

from claimsdb import history, integrity, sources
from claimsdb.errors import BadQuery, InvalidField, RetagRaisesTrust
from claimsdb.escaping import FORBIDDEN_CHARS
from claimsdb.identity import person_name
from claimsdb.models import Claim, Evidence, Figure, Source, Tag, utcnow
from claimsdb.queries import claim_views, get_claim
from claimsdb.views import ClaimView

REREAD_TAG = "spot-checked"
TRUST_RANK = {"unverified": 0, "secondary": 1, "verified": 2}


def _required(value: str | None, field: str) -> str:
    if value is None or not value.strip():
        raise InvalidField(field, "must not be empty")
    return _clean(value, field)


def _clean(value: str | None, field: str) -> str | None:
    """A person's text as it goes into the history: no control or bidirectional-override characters
    (they would rewrite a terminal's or a page's display of the history)."""
    if value is None:
        return None
    bad = FORBIDDEN_CHARS.search(value)
    if bad:
        raise InvalidField(
            field, f"holds {bad.group()!r}, a control or bidirectional-override character"
        )
    return value.strip()


def _intact(session: Session, claim: Claim) -> ClaimView:
    """The claim's view, read under the writers' lock; refuses to record anything on a claim that
    disagrees with its history."""
    history.begin_write(session)
    session.refresh(claim)
    view = claim_views(session, [claim.id], events=0)[0]
    integrity.ensure_intact([view])
    return view


def _record(
    session: Session, claim: Claim, event: dict[str, Any], **columns: Any
) -> dict[str, Any]:
    """Append the event, then set the claim's cached columns (tag, status...) it implies."""
    at = utcnow()
    event_id, row = history.append_one(
        session, {"claim": claim.key, "claim_id": claim.id, "at": at, **event}
    )
    session.execute(update(Claim).where(Claim.id == claim.id).values(updated_at=at, **columns))
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


def primary_source(session: Session, claim: Claim) -> Source | None:
    """The page a person should re-read (ClaimView.primary_source: the first cited source that is not
    a note), as its source row; None if it cites none."""
    key = claim_views(session, [claim.id], events=0)[0].primary_source
    return session.scalars(select(Source).where(Source.key == key)).first() if key else None


def reread_source(session: Session, claim: Claim, source: str | None) -> tuple[Source, bool]:
    """The page a re-read is recorded against: the one named (a key, or a URL registered on the spot),
    else the claim's primary page. Returns (source, whether it was registered just now)."""
    if source is not None:
        src, created = sources.resolve(session, source)
        if src.kind == "note":
            raise BadQuery(
                f"{src.key!r} is a note, not a primary page: a re-read checks the page the figure comes from"
            )
        return src, created
    src = primary_source(session, claim)
    if src is None:
        raise InvalidField(
            "source",
            f"is needed: {claim.key} cites no primary page (name the page you re-read: "
            "its URL, or a key from `claims sources add`)",
        )
    return src, False


def reread(
    session: Session,
    key: str,
    *,
    actor: str,
    source: str | None = None,
    locator: str | None = None,
    quote: str | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """Record that `actor` re-read the claim in a page; the tag becomes spot-checked and the page, with
    the locator and the quote, becomes evidence of the claim (unless it is cited so already)."""
    actor = person_name(actor, field="reader")
    claim = get_claim(session, key)
    view = _intact(session, claim)
    src, registered = reread_source(session, claim, source)
    locator = _clean(locator, "locator") or None
    quote = _clean(quote, "quote") or None
    note = _clean(note, "note") or None
    evidence = [(s["key"], s["locator"], s["quote"]) for s in view.sources]
    cited = any(k == src.key and (loc, q) == (locator, quote) for k, loc, q in evidence) or (
        locator is None and quote is None and any(k == src.key for k, _l, _q in evidence)
    )
    if not cited:
        evidence.append((src.key, locator, quote))
    figures = session.execute(
        select(Figure.raw, Figure.name).where(Figure.claim_id == claim.id).order_by(Figure.position)
    ).all()
    content = history.content_digest(
        claim.subject, claim.statement, [tuple(f) for f in figures], evidence, claim.label
    )
    detail = {
        "source": src.key,
        "url": src.url,
        "locator": locator,
        "quote": quote,
        "note": note,
        "linked": not cited,
    }
    before = claim.tag
    event = _record(
        session,
        claim,
        {
            "kind": "reread",
            "actor": actor,
            "tag_before": before,
            "tag_after": REREAD_TAG,
            "origin": src.key,
            "content_sha256": content,
            "detail": json.dumps(
                {k: v for k, v in detail.items() if v is not None}, ensure_ascii=False
            ),
        },
        tag=REREAD_TAG,
    )
    if not cited:
        position = session.execute(
            select(Evidence.position)
            .where(Evidence.claim_id == claim.id)
            .order_by(Evidence.position.desc())
            .limit(1)
        ).scalar()
        session.execute(
            Evidence.__table__.insert().values(
                claim_id=claim.id,
                source_id=src.id,
                position=(position if position is not None else -1) + 1,
                locator=locator,
                quote=quote,
                event_id=event["id"],
            )
        )
    return {
        "key": key,
        "tag_before": before,
        "tag_after": REREAD_TAG,
        "event": event,
        "source": src.key,
        "source_registered": registered,
        "linked": not cited,
    }


def retag(session: Session, key: str, tag: str, *, actor: str, reason: str) -> dict[str, Any]:
    """Set a tag by hand: lower, or sideways to a tag of the same trust. Never up: that takes a re-read."""
    actor = person_name(actor, field="actor")
    claim = get_claim(session, key)
    view = _intact(session, claim)
    target = session.get(Tag, tag)
    if target is None:
        known = ", ".join(sorted(session.scalars(select(Tag.name))))
        raise BadQuery(f"unknown tag {tag!r} (known: {known})")
    if claim.tag == tag:
        raise BadQuery(f"{key} is already tagged {tag}")
    current = view.trust
    if TRUST_RANK[target.trust] > TRUST_RANK.get(current, 0):
        raise RetagRaisesTrust(
            key,
            f"retag cannot raise {key} from {claim.tag} ({current}) to {tag} "
            f"({target.trust}): only a re-read raises trust",
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
    actor = person_name(actor, field="actor")
    before = claim.status
    detail = {"status": [before, status], "reason": reason, "superseded_by": superseded_by}
    event = _record(
        session,
        claim,
        {
            "kind": "status",
            "actor": actor,
            "status_after": status,
            "detail": json.dumps(
                {k: v for k, v in detail.items() if v is not None}, ensure_ascii=False
            ),
        },
        status=status,
        status_reason=reason,
        superseded_by=superseded_by,
    )
    return {"key": claim.key, "status_before": before, "status_after": status, "event": event}


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
    before = claim.rank
    detail = {"rank": [before, rank], "reason": reason, "because": because}
    event = _record(
        session,
        claim,
        {
            "kind": "ranked",
            "actor": actor,
            "rank_after": rank,
            "detail": json.dumps(
                {k: v for k, v in detail.items() if v is not None}, ensure_ascii=False
            ),
        },
        rank=rank,
    )
    return {"key": claim.key, "rank_before": before, "rank_after": rank, "event": event}


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
    return claim, _required(reason, "reason"), person_name(actor, field="actor")


def prefer(session: Session, key: str, *, actor: str, reason: str) -> dict[str, Any]:
    """Make a claim the preferred value of its quantity; the value preferred before becomes normal."""
    claim, reason, actor = _ranked_claim(session, key, "preferred", reason, actor)
    demoted = []
    for other in session.scalars(
        select(Claim).where(
            Claim.quantity_id == claim.quantity_id, Claim.rank == "preferred", Claim.id != claim.id
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
