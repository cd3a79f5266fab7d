"""What a data file may add but not change: a source's registered fields, a quantity's and a claim's
aliases, once a person set them or a re-read names them. Each difference is a conflict (importer.plan
.Conflict, `registered`): the stored value is kept, the record is not written, the rest of the import
goes on and `claims import` exits 1. An agent channel is refused outright (AgentCannotVouch, exit 2).

- A source is the data files' to change while its origin is a data file and no re-read names it as
  its page. A source registered by hand, from a URL given to `reread` or `add`, from a bibliography,
  or before claims recorded how (origin NULL: nobody knows who set it) is someone else's; and the page
  a person re-read is what the re-read vouches for: another URL, title, cite key or kind would move the
  re-read (and the paper's citation) onto a page nobody read.
- A quantity (its subject, measure and description: what its values measure) is the data files'
  while no re-read vouches for one of its values and nobody ranked one.
- A claim's aliases are other names of its subject, by which lint finds the claim in a manuscript:
  once a person vouches for the claim (a re-read, or a tag they set above unverified trust), other
  names come only with a new re-read named in the same record. An agent channel may not give a
  subject whose claims are vouched for (by a person or a data file) a name it does not have.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import Session, col

from claimsdb import history
from claimsdb.errors import AgentCannotVouch
from claimsdb.importer.known import DATA_FILE_ORIGIN, UNVERIFIED, Known
from claimsdb.importer.read import chunks
from claimsdb.models import Claim, Event, aliases_of
from claimsdb.records.types import ClaimRecord

RANKED_KIND = "ranked"  # provenance.rank: a person prefers or deprecates a value
# How a source came in, when not from a data file (models.SOURCE_ORIGINS), in the words of a conflict.
REGISTERED = {
    "bibliography": "registered from a bibliography (claims sources import)",
    "by-hand": "registered by hand (claims sources add)",
    "url": "registered from its URL (given to claims reread or claims add)",
    None: "registered before claims recorded how",
}


def source_keeper(session: Session, key: str, origin: str | None) -> str | None:
    """Why the source `key` (of `origin`) is not a data file's to change, or None when it is."""
    reread = session.execute(
        select(col(Event.actor), col(Event.at))
        .where(col(Event.kind) == history.REREAD_KIND, col(Event.origin) == key)
        .order_by(col(Event.id).desc())
        .limit(1)
    ).first()
    if reread is not None:
        return f"the page of a re-read by {reread.actor} on {str(reread.at)[:10]}"
    if origin == DATA_FILE_ORIGIN:
        return None
    return REGISTERED.get(origin, f"registered {origin}")


def quantity_keeper(session: Session, quantity_id: int) -> str | None:
    """Why the quantity is not a data file's to change (a value of it re-read or ranked by someone), or
    None when it is."""
    row = session.execute(
        select(col(Claim.key), col(Event.actor), col(Event.kind), col(Event.at))
        .join(Event, col(Event.claim_id) == col(Claim.id))
        .where(
            col(Claim.quantity_id) == quantity_id,
            col(Event.kind).in_((history.REREAD_KIND, RANKED_KIND)),
        )
        .order_by(col(Event.id).desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    verb = "re-read" if row.kind == history.REREAD_KIND else "ranked"
    return f"a value of it, {row.key}, {verb} by {row.actor} on {str(row.at)[:10]}"


def aliases_keeper(state: history.ClaimState, trust: str | None) -> history.SetBy | None:
    """Who vouches for a stored claim (so its aliases are kept): the person whose re-read it stands
    on, or who set its tag of `trust` above unverified; None when nobody does."""
    event = state.vouched_by
    if event is not None and event["kind"] == history.REREAD_KIND:
        return history.SetBy.of(event)
    setter = state.set_by("tag")
    return setter if setter is not None and trust not in (None, UNVERIFIED) else None


def check_agent_aliases(session: Session, recs: list[ClaimRecord], known: Known) -> None:
    """An agent channel's claims name their subject only as the store already does when a claim of
    that subject is vouched for: lint would find the vouched claims by a new name."""
    named = [r for r in recs if r.aliases and known.agent(r.file)]
    if not named:
        return
    subjects = sorted({r.subject for r in named})
    names: dict[str, set[str]] = {s: {s} for s in subjects}
    vouched: dict[str, tuple[str, str]] = {}  # subject -> (key, tag) of a claim vouched for
    for chunk in chunks(subjects):
        for row in session.execute(
            select(col(Claim.subject), col(Claim.key), col(Claim.tag), col(Claim.aliases))
            .where(col(Claim.subject).in_(chunk))
            .order_by(col(Claim.key))
        ):
            names[row.subject].update(aliases_of(row.aliases))
            if known.tags.get(row.tag, UNVERIFIED) != UNVERIFIED:
                vouched.setdefault(row.subject, (row.key, row.tag))
    for rec in named:
        claim = vouched.get(rec.subject)
        new = [a for a in aliases_of(rec.aliases) if a not in names[rec.subject]]
        if claim is not None and new:
            key, tag = claim
            raise AgentCannotVouch(
                rec.file,
                rec.record_name,
                "aliases",
                f"an agent channel cannot give subject {rec.subject!r} another name ({new[0]!r}): "
                f"its claim {key} is vouched for ({tag!r}), and lint would find "
                "it by that name (name it in the data file)",
            )
