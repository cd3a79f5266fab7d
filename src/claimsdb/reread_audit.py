"""`claims verify --rereads`: the re-reads that vouch for claims, each checked again against the latest
snapshot of the page it names, by the rule a re-read is recorded under (locating.reread.check_page: the
quote on the page word for word, each of the claim's figures in the quote or the passage around it).

Re-reads recorded before a re-read was checked against the page carry neither `checked` nor `attested`
in their event: they are "not checked against the page", and this is how they get checked. Offline: only
the snapshots stored already (from `claims verify`, the queue's fetch button, a re-read that fetched the
page) are read, nothing is fetched. Reads only: nothing is recorded and no tag changes.

Which re-reads: the one that set each active claim's current tag. Each gets one outcome:

- `holds`: the latest snapshot holds the quote and the claim's figures;
- `not-held`: it does not (the findings say what it lacks, and the nearest passage what it says);
- `no-quote`: the re-read quotes nothing of the page (earlier releases allowed it), so nothing is to check;
- `no-snapshot`: no snapshot of the page is stored, or its body is gone or cannot be read as text;
- `attested`: recorded without a page check, with the reason (the strict policy does not count it).

Every outcome but `holds` is listed for a person to look at.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from claimsdb import integrity, views
from claimsdb.fetching.snapshots import SnapshotStore
from claimsdb.history import REREAD_KIND
from claimsdb.models import Claim, Event, Source

OUTCOMES = ("holds", "not-held", "no-quote", "no-snapshot", "attested")


@dataclass(frozen=True)
class AuditedReread:
    """One re-read checked again: whose and where, how it was checked when recorded, and what the latest
    snapshot of its page holds of it."""

    claim: str
    event: int  # the re-read's event id
    actor: str
    at: str
    page: str  # the source the re-read names
    locator: str | None
    quote: str | None
    checked: (
        str | None
    )  # how it was checked when recorded: snapshot, fetched, copy (None: it was not)
    outcome: str  # one of OUTCOMES
    findings: tuple[str, ...] = ()
    passage: str | None = None  # where the snapshot holds the quote, or its nearest passage
    snapshot: str | None = None  # the snapshot's sha256
    snapshot_at: str | None = None

    @property
    def listed(self) -> bool:
        return self.outcome != "holds"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "findings": list(self.findings), "listed": self.listed}


def audit(session: Session, store: SnapshotStore) -> list[AuditedReread]:
    """The re-read behind each active claim's current tag, in key order, checked against the latest
    snapshot of its page. Refuses (TamperedHistory) when a claim disagrees with its history."""
    from claimsdb.verification import quantities

    reread_claims = select(col(Event.claim_id)).where(col(Event.kind) == REREAD_KIND)
    ids = [
        i
        for i in session.scalars(
            select(col(Claim.id))
            .where(col(Claim.id).in_(reread_claims), col(Claim.status) == "active")
            .order_by(col(Claim.key))
        )
        if i is not None
    ]
    read = list(views.load(session, ids))
    integrity.ensure_intact(read)
    chosen = [v for v in read if v.tag_event is not None and v.tag_event["kind"] == REREAD_KIND]
    figures = quantities(session, [v.id for v in chosen])
    pages: dict[str, Any] = {}  # each page's latest snapshot, read once
    return [_audited(session, v, figures.get(v.id, []), store, pages) for v in chosen]


def _audited(
    session: Session,
    view: views.ClaimView,
    figures: list[Any],
    store: SnapshotStore,
    pages: dict[str, Any],
) -> AuditedReread:
    from claimsdb.locating.reread import check_page

    event = view.tag_event
    assert event is not None
    detail = json.loads(event["detail"]) if event["detail"] else {}
    checked = detail.get("checked")
    said = AuditedReread(
        claim=view.key,
        event=event["id"],
        actor=event["actor"],
        at=str(event["at"]),
        page=detail.get("source") or event["origin"] or "",
        locator=detail.get("locator"),
        quote=detail.get("quote"),
        checked=checked.get("how") if isinstance(checked, dict) else None,
        outcome="holds",
    )
    if detail.get("attested"):
        return _as(said, "attested", f"attested without a page check: {detail['attested']}")
    if not said.quote:
        return _as(said, "no-quote", "the re-read quotes nothing of the page")
    if said.page not in pages:
        pages[said.page] = _latest(session, said.page, store)
    snap = pages[said.page]
    if isinstance(snap, str):
        why = snap + (
            " (the re-read was checked against a local copy)" if said.checked == "copy" else ""
        )
        return _as(said, "no-snapshot", why)
    found = check_page(snap.text, said.quote, figures, f"{view.subject} {view.statement}")
    return AuditedReread(
        **{
            **asdict(said),
            "outcome": "holds" if found.holds else "not-held",
            "findings": found.findings,
            "passage": found.passage,
            "snapshot": snap.sha256,
            "snapshot_at": snap.at,
        }
    )


def _as(said: AuditedReread, outcome: str, finding: str) -> AuditedReread:
    return AuditedReread(**{**asdict(said), "outcome": outcome, "findings": (finding,)})


def _latest(session: Session, page: str, store: SnapshotStore) -> Any:
    """The page's latest snapshot with its text (reread_page.PageRead), or why there is none."""
    from claimsdb.reread_page import read_snapshot

    source = session.scalars(select(Source).where(col(Source.key) == page)).first()
    if source is None:
        return f"no source {page!r} is registered"
    snap = read_snapshot(session, source, store)
    if snap is None:
        return f"no snapshot of {page} in the snapshot folder"
    if snap.text is None:
        return f"the latest snapshot of {page} cannot be read: {snap.error}"
    return snap
