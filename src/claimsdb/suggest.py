"""Did you mean: the stored claim keys closest to one that is not stored.

The one helper every door uses (the command line, the web view's 404, an agent's error); it returns keys,
and each door says them in its own way. It never reads the whole store: it compares the key with the
stored keys that sort nearest to it and to its lowercased form (four index range scans of WINDOW keys),
so a store of a million claims answers as fast as a small one. A typo changes a key's sort place only
from the mistyped character on, so its right key is nearly always among those; one mistyped in an early
segment, in a store with more than WINDOW keys between the two places, finds nothing: then nothing is
suggested.
"""

from __future__ import annotations

import difflib
import heapq
import os.path
from collections.abc import Iterable

from sqlalchemy import select
from sqlmodel import Session

from claimsdb.models import Claim

WINDOW = 500  # keys read on each side of the place the mistyped key would sort at
MOST = 3  # suggestions returned
CUTOFF = 0.6  # difflib's similarity below which a key is not suggested (its default)
NEAR_BEST = 0.05  # how much less similar than the closest key another suggestion may be


def close_keys(session: Session, key: str, *, most: int = MOST) -> list[str]:
    """The stored keys closest to `key` (closest first, at most `most`), by difflib's similarity among
    the keys that sort near it, and only those about as close as the closest; empty when none is close."""
    if not key:
        return []
    candidates: set[str] = set()
    for around in {key, key.lower()}:
        candidates.update(_near(session, around))
    candidates.discard(key)
    # compared without case ("Pipelines.LongCat..."); keys that differ only in case stay apart
    folded: dict[str, list[str]] = {}
    for candidate in sorted(candidates):
        folded.setdefault(candidate.lower(), []).append(candidate)
    found = _closest(key.lower(), folded, most)
    return [c for f in found for c in folded[f]][:most]


def _closest(word: str, candidates: Iterable[str], most: int) -> list[str]:
    """difflib.get_close_matches, with ties broken by the longer shared beginning (scale.0047110 before
    scale.0047511 for scale.004711: the same similarity, but a key is typed from its start)."""
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    scored = []
    for candidate in candidates:
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= CUTOFF and matcher.quick_ratio() >= CUTOFF:
            ratio = matcher.ratio()
            if ratio >= CUTOFF:
                scored.append((-ratio, -len(os.path.commonprefix((word, candidate))), candidate))
    best = heapq.nsmallest(most, scored)
    # only those about as close as the closest: "longcta" suggests longcat, not every rl.buffer.* key
    return [candidate for ratio, _, candidate in best if -ratio >= -best[0][0] - NEAR_BEST]


def _near(session: Session, around: str) -> list[str]:
    """Up to WINDOW stored keys on each side of `around`, by the key's own index."""
    after = select(Claim.key).where(Claim.key >= around).order_by(Claim.key).limit(WINDOW)
    before = select(Claim.key).where(Claim.key < around).order_by(Claim.key.desc()).limit(WINDOW)
    return [*session.scalars(after), *session.scalars(before)]
