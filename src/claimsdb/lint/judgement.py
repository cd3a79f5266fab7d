"""The judgement: what lint says of a figure, from the matcher's verdicts on the stored figures of the
subjects in scope (the rules are in lint/__init__.py), and why it says nothing of the figures it skips."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from claimsdb.figures import Found, Quantity
from claimsdb.figures.matching import CONTAINED, DIFFERENT, ROUNDED, SAME, UNRELATED, Verdict
from claimsdb.lint.claims_read import DIGIT, IndexedClaim, Store
from claimsdb.lint.filter import small_bare
from claimsdb.lint.report import SKIPPED, Finding
from claimsdb.trust.rule import reread_hint

Judged = tuple[int, Quantity, Verdict]  # a claim's index, its stored figure, the matcher's verdict
Say = Callable[[str, str, list, str | None], Finding]  # severity, message, claims chosen, verdict
Outcome = tuple[bool, Finding | None]  # passed, and what lint says of the figure

STATES = (SAME, ROUNDED, CONTAINED)
UNTRACKED_HINT = {
    "tex": "add it to the store and insert it with \\claim{KEY}",
    "md": "add it to the store and insert it with {{< var KEY.fig >}}",
    "qmd": "add it to the store and insert it with {{< var KEY.fig >}}",
}


# --- messages ------------------------------------------------------------------------------------------


def _reread_hint(claim: IndexedClaim) -> str:
    return reread_hint(claim.key, claim.reread_page)


def describe(claim: IndexedClaim, stored: Quantity, verdict: Verdict) -> str:
    parts = [f"tag {claim.tag} ({claim.trust or 'unknown trust'})"]
    if claim.rank != "normal":
        parts.append(claim.rank)
    if claim.outdated:
        parts.append(claim.outdated)
    if claim.unsigned:
        parts.append(f"{claim.unsigned} (signatures are required)")
    if claim.stale:
        parts.append(f"stale: the latest verification was {claim.stale_outcome}")
    if claim.status == "withdrawn":
        parts.append("withdrawn" + (f": {claim.status_reason}" if claim.status_reason else ""))
    elif claim.status == "superseded":
        parts.append("superseded" + (f" by {claim.superseded_by}" if claim.superseded_by else ""))
    if verdict.verdict != SAME or verdict.comparators_differ:
        parts.append(verdict.reason)
    return f'{claim.key} "{stored.raw}" ({claim.subject}; {"; ".join(parts)})'


def described(store: Store, chosen: list[Judged]) -> str:
    """Each chosen claim described once, in key order."""
    seen: dict[int, str] = {}
    for ci, q, v in chosen:
        seen.setdefault(ci, describe(store.claims[ci], q, v))
    return "; ".join(seen[ci] for ci in sorted(seen, key=lambda ci: store.claims[ci].key))


# --- the judgement -------------------------------------------------------------------------------------


def decide(store: Store, judged: list[Judged], tiers: dict[int, int], say: Say) -> Outcome | None:
    """(passed, finding): the figure passes when a paper-safe, current claim states it; a finding says
    what else is the case. None when no claim of a subject in scope states it or differs from it."""
    # Among the subjects that have this figure, the one named in full wins over one named by a short word.
    ranked = [j for j in judged if j[2].verdict in STATES] or judged
    best = min((tiers[ci] for ci, _, _ in ranked), default=None)
    judged = [j for j in judged if tiers[j[0]] == best]
    states = [j for j in judged if j[2].verdict in STATES]
    stating = [
        (ci, q, v) for ci, q, v in states if store.safe(ci) and (v.verdict == SAME or v.step)
    ]
    # a paper-safe, current claim states it (a step of its change: "up to 128K" of 32K → 128K), and it is
    # the value its quantity uses
    used = [
        j
        for j in stating
        if store.claims[j[0]].rank != "deprecated" and store.claims[j[0]].preferred is None
    ]
    if used:
        return True, _attested(store, used, say)
    if stating:  # only values the store keeps but does not use
        return _not_preferred(store, stating, say)
    # A value inside a stored range does not state the range, and does not differ from it either.
    within = [j for j in states if j[2].within]
    states = [j for j in states if not j[2].within]
    return (
        (_within(store, within, say) if within and not states else None)
        or _stated(store, states, say)
        or _different(store, judged, say)
    )


def _attested(store: Store, used: list[Judged], say: Say) -> Finding | None:
    """A note when every claim that makes the figure pass stands on an attested re-read (a person said
    why the page could not be checked): it passes, and the report says on what."""
    if any(store.claims[ci].attested is None for ci, _, _ in used):
        return None
    reasons = "; ".join(f"{store.claims[ci].key}: {store.claims[ci].attested}" for ci, _, _ in used)
    message = f"passes on an attested re-read, not checked against the page ({reasons})"
    return say("note", message, used, used[0][2].verdict)


def _not_preferred(store: Store, stating: list[Judged], say: Say) -> Outcome:
    c = store.claims[stating[0][0]]
    use = (
        f"; the preferred value is {c.preferred}" if c.preferred else "; no value is preferred yet"
    )
    kind = (
        "a deprecated value" if c.rank == "deprecated" else "a value its quantity does not prefer"
    )
    message = f"uses {kind}: {described(store, stating)}{use}"
    return False, say("warning", message, stating, stating[0][2].verdict)


def _within(store: Store, within: list[Judged], say: Say) -> Outcome | None:
    """A value inside stored ranges only: it passes with a note when one is paper-safe and current."""
    safe_range = [j for j in within if store.safe(j[0])]
    if safe_range:
        message = f"within the stored range: {described(store, safe_range)}"
        return True, say("note", message, safe_range, CONTAINED)
    active = [j for j in within if store.claims[j[0]].active]
    if active:
        message = (
            f"within the range of a claim that is not paper-safe under the "
            f"{store.policy.describe()}: {described(store, active)}"
        )
        return False, say("warning", message, active, CONTAINED)
    return None


def _stated(store: Store, states: list[Judged], say: Say) -> Outcome | None:
    """Claims state the figure (or round to it) but none of them makes it pass."""
    policy = store.policy
    safe_near = [j for j in states if store.safe(j[0])]
    if safe_near:
        message = f"differs from the store: {described(store, safe_near)}"
        return False, say("warning", message, safe_near, safe_near[0][2].verdict)
    active = [j for j in states if store.claims[j[0]].active]
    stale_ok = [j for j in active if store.claims[j[0]].paper_safe]  # paper-safe but stale
    if stale_ok and not policy.strict:
        checks = "; ".join(
            f"claims verify {store.claims[ci].key}" for ci in sorted({j[0] for j in stale_ok})
        )
        message = (
            f"matches only stale claims: {described(store, stale_ok)}; check again: "
            f"{checks} (the strict policy blocks it)"
        )
        return False, say("warning", message, stale_ok, stale_ok[0][2].verdict)
    if active:
        fixes = "; ".join(
            _reread_hint(store.claims[ci])
            if not store.claims[ci].stale
            else f"check {store.claims[ci].key} against its page again: claims verify {store.claims[ci].key}"
            for ci in sorted({j[0] for j in active}, key=lambda ci: store.claims[ci].key)
        )
        message = (
            f"not paper-safe under the {policy.describe()}: {described(store, active)}; "
            f"to clear it, {fixes}"
        )
        return False, say("error", message, active, active[0][2].verdict)
    if states:
        message = (
            f"matches only withdrawn or superseded claims: {described(store, states)}; "
            "use the current figure or remove it"
        )
        return False, say("error", message, states, states[0][2].verdict)
    return None


def _different(store: Store, judged: list[Judged], say: Say) -> Outcome | None:
    """A current claim of a subject in scope measures the same thing with another value."""
    different = [j for j in judged if j[2].verdict == DIFFERENT and store.claims[j[0]].active]
    if different:
        message = f"differs from the store: {described(store, different)}"
        return False, say("warning", message, different, DIFFERENT)
    return None


# --- figures by reference ------------------------------------------------------------------------------

BY_REFERENCE = Verdict(SAME, "inserted by reference", "agree", True)


def by_reference(store: Store, ci: int, stored: Quantity, draft: bool, say: Say) -> Outcome:
    """A figure inserted by its claim's key is that claim's figure: it passes when the claim is paper-safe
    and current, and is judged as a typed figure stated by that claim only otherwise. In a manuscript
    marked a draft, a claim that is not paper-safe yet is a warning, not an error."""
    passed, finding = decide(store, [(ci, stored, BY_REFERENCE)], {ci: 0}, say) or (False, None)
    if draft and finding is not None and finding.severity == "error" and store.claims[ci].active:
        finding = dataclasses.replace(
            finding,
            severity="warning",
            message=f"in a draft (the file says claims: draft): {finding.message}",
        )
    return passed, finding


def unknown_reference(why: str, say: Say, keyed: bool = True) -> Outcome:
    """A use by key that names no figure of the store (the paper would print nothing true), or, not
    `keyed`, a \\claim whose key lint cannot read."""
    message = f"{why}; export the figures again or fix the key" if keyed else why
    return False, say("error", message, [], UNRELATED)


# --- no claim states it --------------------------------------------------------------------------------


def unjudged(f: Found, quiet: bool, kind: str, say: Say) -> Outcome:
    """No claim of a subject in scope states the figure: a note that it is untracked, or a skip saying
    why lint cannot tell (`quiet`: most likely a year)."""
    q = f.quantity
    if q.kind == "text":
        reason = "no number, and no claim of a subject named here states these words"
    elif small_bare(q):
        reason = (
            "a small number with no unit, and nothing near it says what a claim of "
            "a subject named here measures"
        )
    elif q.kind != "ratio" and not DIGIT.search(f.raw) and all(abs(n) < 10 for n in q.numbers()):
        reason = (
            'a small count spelled out ("two stages") that no claim of a subject named here states'
        )
    elif quiet:
        reason = 'most likely a year ("in 2020 researchers"), and no claim states it'
    else:
        hint = UNTRACKED_HINT.get(kind, "add it to the store")
        return False, say("note", f"untracked: no claim in the store states it; {hint}", [], None)
    return False, say(SKIPPED, reason, [], None)
