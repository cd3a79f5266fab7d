"""Claims that disagree, seen from both sides: a relation derived when read, never written.

When a claim of unverified trust (an agent's) states a figure that another active claim of the same
subject (in any case) also states, rounds, overlaps (`duplicate`) or gives another value of (the same
unit or counted thing within a factor of 10: `contradiction`), both claims show it, whichever came
first: each pair of figures is judged both ways by `figures.match` (as `queries.same_subject` judges an
added claim against the store) and the pair takes the closer verdict. Nothing is recorded on either
claim: the earlier claim's history stays as it was, and the relation ends when one of them is withdrawn,
superseded or re-read.

Read for one claim (`of_claim`: `claims show`, the claim page, the queue card, MCP) and for the whole
store (`contested_ids`: the re-read queue places a contradicted claim after the uncontested ones of its
readiness). Domain code: no printing.
"""

from __future__ import annotations

import atexit
import json
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func, select
from sqlmodel import Session, col

from claimsdb.figures import Context, Quantity, as_quantity, match
from claimsdb.figures.matching import CONTAINED, DIFFERENT, MAGNITUDE, ROUNDED, SAME
from claimsdb.models import FIGURE_FIELDS, Claim, Figure, Tag

DUPLICATE, CONTRADICTION = "duplicate", "contradiction"  # as queries.same_subject names them
AGENT_TRUST = "unverified"  # an agent's claim: nobody has re-read its page
SHOWN = 10  # the disputes a claim shows (`disputes_total` counts them all)
_AGREE = (SAME, ROUNDED, CONTAINED)


@dataclass(frozen=True)
class _Row:
    claim_id: int
    key: str
    tag: str
    agent: bool
    quantity: Quantity


def relation(a: Quantity, b: Quantity) -> str | None:
    """How two figures of one subject stand, the same whichever is taken as stored: a duplicate when
    either states, rounds or holds the other; a contradiction when either gives another value of what
    the other measures; else None."""
    there, back = match(a, b, Context(subject=True)), match(b, a, Context(subject=True))
    if there.verdict in _AGREE or back.verdict in _AGREE:
        return DUPLICATE
    if DIFFERENT in (there.verdict, back.verdict):
        return CONTRADICTION
    return None


def _rows(session: Session, subjects: Iterable[str] | None) -> dict[str, list[_Row]]:
    """The figures of the active claims of these subjects (lower-cased; every subject when None), by
    subject."""
    subject = func.lower(col(Claim.subject))
    shape = [col(getattr(Figure, name)) for name in FIGURE_FIELDS]
    stmt = (
        select(
            col(Figure.claim_id),
            *shape,
            col(Claim.key),
            col(Claim.tag),
            col(Tag.trust),
            subject.label("subject"),
        )
        .join(Claim, col(Claim.id) == col(Figure.claim_id))
        .join(Tag, col(Tag.name) == col(Claim.tag))
        .where(col(Claim.status) == "active")
    )
    by_subject: dict[str, list[_Row]] = defaultdict(list)
    read: dict[tuple, Quantity] = {}
    wanted = sorted(set(subjects)) if subjects is not None else None
    chunks = [None] if wanted is None else [wanted[i : i + 500] for i in range(0, len(wanted), 500)]
    # only a subject with an agent's claim can hold a dispute, and only one with two claims or more
    disputable = (
        select(subject)
        .join(Tag, col(Tag.name) == col(Claim.tag))
        .where(col(Claim.status) == "active")
        .group_by(subject)
        .having(func.count() > 1, func.sum(case((col(Tag.trust) == AGENT_TRUST, 1), else_=0)) > 0)
    )
    for chunk in chunks:
        query = stmt.where(subject.in_(disputable.scalar_subquery() if chunk is None else chunk))
        for row in session.execute(query):
            # plain rows, each figure read once: a common figure is stated by thousands of claims
            fig = tuple(row[1 : 1 + len(shape)])
            if (q := read.get(fig)) is None:
                q = read[fig] = _quantity(dict(zip(FIGURE_FIELDS, fig, strict=True)))
            by_subject[row.subject].append(
                _Row(row.claim_id, row.key, row.tag, row.trust == AGENT_TRUST, q)
            )
    return by_subject


def _quantity(columns: dict[str, Any]) -> Quantity:
    """A figure's columns as read (steps as stored: JSON text) back as its Quantity."""
    steps = columns["steps"]
    return as_quantity({**columns, "steps": json.loads(steps) if steps else []})


def _spans(rows: list[_Row]) -> list[tuple[float, float, Quantity]]:
    """(lowest number, highest number, figure) of each distinct figure of these rows, by lowest number:
    a figure is judged only against those whose numbers come within MAGNITUDE of its own."""
    spans = []
    for q in dict.fromkeys(r.quantity for r in rows):
        numbers = [abs(float(n)) for n in q.numbers()]
        if numbers:
            spans.append((min(numbers), max(numbers), q))
    spans.sort(key=lambda s: s[0])
    return spans


def _near(spans: list[tuple[float, float, Quantity]]) -> Iterator[tuple[Quantity, Quantity]]:
    """Each pair of distinct figures near enough to be judged (see _spans), once."""
    for i, (_, high, a) in enumerate(spans):
        reach = high * MAGNITUDE * (1 + 1e-9)
        for low, _, b in spans[i + 1 :]:
            if low > reach:
                break
            yield a, b


def _judged(rows: list[_Row]) -> dict[tuple[Quantity, Quantity], str]:
    """The relation of each pair of distinct figures of one subject (each figure once however many
    claims state it: a common figure is judged once). Only figures whose numbers come within a factor
    of MAGNITUDE of each other are judged: a duplicate overlaps, a contradiction is within it."""
    spans = _spans(rows)
    out = {(a, a): DUPLICATE for _, _, a in spans}
    for a, b in _near(spans):
        found = relation(a, b)
        if found is not None:
            out[(a, b)] = out[(b, a)] = found
    return out


def of_claim(session: Session, key: str) -> list[dict[str, Any]]:
    """The claims the claim named `key` disagrees with or repeats, where it or they are an agent's: one
    entry per other claim and pair of figures, contradictions first."""
    claim = session.execute(
        select(
            col(Claim.id), func.lower(col(Claim.subject)).label("subject"), col(Claim.status)
        ).where(col(Claim.key) == key)
    ).first()
    if claim is None or claim.status != "active":
        return []
    rows = _rows(session, [claim.subject]).get(claim.subject, [])
    mine = [r for r in rows if r.claim_id == claim.id]
    if not mine:
        return []
    judged = _judged(rows)
    found = []
    for other in rows:
        if other.claim_id == claim.id or not (other.agent or mine[0].agent):
            continue
        for own in mine:
            if (rel := judged.get((own.quantity, other.quantity))) is not None:
                found.append((rel, own, other))
    found.sort(key=lambda f: (f[0] != CONTRADICTION, f[2].key, f[1].quantity.raw))
    return [_entry(rel, own, other) for rel, own, other in found]


def _entry(rel: str, own: _Row, other: _Row) -> dict[str, Any]:
    who = "another agent claim" if other.agent else f"a {other.tag} claim"
    verb = "says" if rel == CONTRADICTION else "also says"
    return {
        "relation": rel,
        "figure": own.quantity.raw,
        "other": other.key,
        "other_figure": other.quantity.raw,
        "other_tag": other.tag,
        "says": f"{who} {verb} {other.quantity.raw}: {other.key}",
    }


def summary(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """What a claim's view shows of its disputes: the first SHOWN, and how many of each kind."""
    return {
        "disputes": entries[:SHOWN],
        "disputes_total": len(entries),
        "contradicted": any(e["relation"] == CONTRADICTION for e in entries),
    }


def contested_ids(session: Session, subjects: Collection[str] | None = None) -> set[int]:
    """The active claims (of these lower-cased subjects; of the store when None) in a contradiction
    with another where one of the two is an agent's. A pair of figures is judged only when it could
    still mark a claim (not all of their claims marked yet, an agent's among them): in a subject where
    agents disagree the first contradictions mark most claims, and the rest are never judged."""
    out: set[int] = set()

    def mark(xs: list[_Row], ys: list[_Row]) -> None:
        for x in xs:
            if x.claim_id not in out and any(
                y.claim_id != x.claim_id and (x.agent or y.agent) for y in ys
            ):
                out.add(x.claim_id)

    for rows in _rows(session, subjects).values():
        by_figure: dict[Quantity, list[_Row]] = defaultdict(list)
        for r in rows:
            by_figure[r.quantity].append(r)
        for a, b in _near(_spans(rows)):
            xs, ys = by_figure[a], by_figure[b]
            if all(r.claim_id in out for r in (*xs, *ys)):
                continue
            if not any(r.agent for r in (*xs, *ys)) or relation(a, b) != CONTRADICTION:
                continue
            mark(xs, ys)
            mark(ys, xs)
    return out


def subjects_of(session: Session, ids: Collection[int]) -> set[str]:
    """The lower-cased subjects of these claims."""
    found: set[str] = set()
    wanted = sorted(ids)
    for i in range(0, len(wanted), 500):
        found.update(
            session.scalars(
                select(func.lower(col(Claim.subject))).where(col(Claim.id).in_(wanted[i : i + 500]))
            )
        )
    return found


WORKER_FROM = 20_000  # active claims: below this the whole store is judged inline within a second
_ANSWER_LIMIT = 64 << 20  # bytes of a worker's answer: the contested ids of a million-claim store


class Pending:
    """`contested_ids` of the whole store judged by a worker process (`python -m claimsdb.disputes`, its
    own engine on the same database: workers.py) while a server answers requests; `answer()` is the head
    of the events it judged at and the ids, once it has ended well (None before, or when it failed)."""

    def __init__(self, session: Session, limit: int) -> None:
        from claimsdb import db, workers

        url = db.shared_url(session)
        self.proc = (
            workers.start("claimsdb.disputes", {"url": url, "limit": limit}, close_stdin=True)
            if url is not None and workers.possible()
            else None
        )
        if self.proc is not None:  # a server stopped before the worker is done ends it too
            atexit.register(self.close)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def answer(self) -> tuple[tuple[int, str], list[int] | None] | None:
        """(the head judged at, the contested ids: None when more than `limit`), once it ended well."""
        from claimsdb import workers

        if self.proc is None or self.running:
            return None
        found = workers.answer(self.proc, _ANSWER_LIMIT)
        self.proc = None
        if (
            isinstance(found, dict)
            and isinstance(found.get("head"), list)
            and len(found["head"]) == 2
            and (found.get("ids") is None or isinstance(found["ids"], list))
            and all(isinstance(i, int) for i in found["ids"] or ())
        ):
            return (found["head"][0], found["head"][1]), found["ids"]
        return None

    def close(self) -> None:
        from claimsdb import workers

        if self.proc is not None:
            workers.reap(self.proc)
            self.proc = None


def _worker() -> None:
    """`python -m claimsdb.disputes`: judge the store a job on standard input names; print the head of
    its events and the contested ids."""
    import sys

    from sqlalchemy import create_engine

    from claimsdb.models import Event

    job = json.loads(sys.stdin.buffer.readline())
    engine = create_engine(job["url"])
    try:
        with Session(engine) as session:
            head = session.execute(
                select(Event.id, Event.sha256).order_by(col(Event.id).desc()).limit(1)
            ).first()
            ids = contested_ids(session) if head is not None else set()
    finally:
        engine.dispose()
    kept = sorted(ids) if len(ids) <= job.get("limit", len(ids)) else None  # None: too many to keep
    sys.stdout.write(json.dumps({"head": list(head) if head else None, "ids": kept}) + "\n")


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker()
