"""Whether the store agrees with its history: the checks `claims db check` runs over the whole store
(`check_store`: schema revision, triggers, every link of the event chain, every claim against its
history, the trace index, the people registry and every re-read's signature, the anchors), and the refusal every reading command applies to the claims it
is about to use (`ensure_intact`).

history.py holds the chain and what one claim's events imply; views.py reads claims with their
verdicts; this module sits above both, so neither needs to import it back.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import anchor as anchoring
from claimsdb import definitions, history, trace_index, views
from claimsdb.errors import Tampered
from claimsdb.models import Claim
from claimsdb.trust import people, signatures


def ensure_intact(claim_views: Iterable[Any]) -> None:
    """Refuse (exit 2) when any claim view (views.ClaimView) disagrees with its history; names the first."""
    tampered = Tampered()
    for v in claim_views:
        tampered.note(v)
    tampered.ensure_none()


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def check_store(
    session: Session,
    *,
    revision: str | None,
    head_revision: str,
    expected_triggers: Sequence[str],
    installed_triggers: set[str],
    anchors: Sequence[tuple[str, Any]] = (),
) -> list[Check]:
    """Everything `claims db check` verifies: the schema revision, the triggers, every link of the
    event chain, every claim's cached tag, status and content against its history, the anchors the
    database recorded, and each anchor file given ((name, anchor.Anchor))."""
    checks = [
        Check(
            "schema revision",
            revision == head_revision,
            f"{revision or 'none'} (this claims needs {head_revision})",
        )
    ]
    missing = [t for t in expected_triggers if t not in installed_triggers]
    checks.append(
        Check(
            "triggers",
            not missing,
            f"missing: {', '.join(missing)}" if missing else f"{len(expected_triggers)} in place",
        )
    )
    # the signatures' worker checks them on another core while the chain and the claims are walked
    auditing = signatures.start_audit(session)
    indexed = trace_index.Pending(session)  # and the trace index's, from many figures on
    try:
        walked = history.walk(session)
        chain = _history_chain(walked)
        checks.append(chain)
        checks.append(_claims_agree(session, events_checked=chain.ok))
        checks.append(Check("trace index", *indexed.result(session)))
        defined = definitions.load(session)
        checks.append(
            _side_chain(
                "tag definitions",
                defined.problems,
                f"{defined.length} definition(s), {len(defined.trust)} tag(s) as defined",
            )
        )
        registered = definitions.registered_problems(session)
        checks.append(
            _side_chain(
                "sources, quantities and aliases",
                registered,
                "each as its latest definition holds it",
            )
        )
        registry = people.load(session)
        checks.append(
            _side_chain(
                "people registry",
                registry.problems,
                f"{registry.rows} row(s), {len(registry.people())} person(s)",
            )
        )
        checks.append(Check("re-read signatures", *signatures.audit(session, auditing)))
    finally:
        auditing.close()
        indexed.close()
    recorded, wrong = anchoring.recorded_problems(session, walked)
    checks.append(
        Check("recorded anchors", not wrong, "; ".join(wrong) if wrong else f"{recorded} held")
    )
    for name, given in anchors:
        why = anchoring.problem(session, given, walked)
        checks.append(Check(f"anchor {name}", why is None, why or f"held: {given.describe()}"))
    return checks


def _side_chain(name: str, problems: list[str], held: str) -> Check:
    """A side chain's check (the definitions, the people registry): its first problems, or what it holds."""
    return Check(name, not problems, "; ".join(problems[:3]) if problems else held)


def _history_chain(walked: history.Walk) -> Check:
    """Every link of the event chain, in one pass over the events (history.walk)."""
    return Check(
        "history chain",
        walked.broken is None,
        walked.broken or f"{walked.count} events, head {(walked.head or 'none')[:16]}",
    )


def _claims_agree(session: Session, *, events_checked: bool) -> Check:
    """Every claim's cached tag, status and content against its history (views.problems_of)."""
    ids = array(
        "q", session.execute(select(Claim.id).order_by(Claim.id)).scalars()
    )  # 8 bytes a claim
    first, bad = None, 0
    for key, found in views.problems_of(session, ids, events_checked=events_checked):
        if found:
            bad += 1
            first = first or f"{key}: {found[0]}"
    return Check(
        "claims agree with their history",
        first is None,
        f"{bad} claim(s) disagree; first: {first}" if first else f"{len(ids)} claims",
    )
