"""The trace index check of `claims db check`: the figure_number rows that `claims trace` reads must be
exactly what the figures imply (figures.reach of each). Both are read in (claim, figure) order and
compared figure by figure, so the check holds one figure at a time.

Deriving every figure's reach is about half of a whole-store check (each figure's precision read again
from its text). From WORKER_FROM figures on, `Pending` has a worker process (`python -m
claimsdb.trace_index`, its own engine on the same database: workers.py) make the check on another core
while the command checks the claims against their history; `result()` waits for its answer. A worker
that fails or answers anything unexpected is dropped and the check is made inline: the worker is only
ever a faster way to the same check.

Domain code: it returns values; it never prints (the worker writes its one answer).
"""

from __future__ import annotations

import json
import operator
import subprocess
import sys
from collections.abc import Iterable
from itertools import groupby, zip_longest

from sqlalchemy import func, select
from sqlmodel import Session, col

from claimsdb import db, workers
from claimsdb.db import stream_rows
from claimsdb.figures import Quantity, reach
from claimsdb.models import Claim, Figure

WORKER_FROM = 20_000  # figures: below this the check takes well under a second inline
_ANSWER_LIMIT = 64_000  # bytes of a worker's answer: one verdict and one line of detail


def check(session: Session) -> tuple[bool, str]:
    """(ok, detail): whether the trace index is exactly what the figures imply."""

    def rounded(found: Iterable[tuple]) -> list[tuple]:
        return sorted((round(lo, 6), round(hi, 6), tier) for lo, hi, tier in found)

    implied = (
        ((claim_id, position), numbers)
        for claim_id, position, raw, kind, comparator, value, low, high, start, end, steps, active, unit, counted in stream_rows(
            session,
            'SELECT claim_id, position, raw, kind, comparator, value, low, high, start, "end", '
            "steps, active, unit, counted FROM figure ORDER BY claim_id, position",
        )
        if (
            numbers := rounded(
                reach(
                    Quantity(
                        raw,
                        kind,
                        comparator,
                        value,
                        low,
                        high,
                        start,
                        end,
                        tuple(json.loads(steps)) if steps else (),
                        active,
                        unit,
                        counted,
                    )
                )
            )
        )
    )
    stored = (
        (figure, rounded(r[2:] for r in rows))
        for figure, rows in groupby(
            stream_rows(
                session,
                "SELECT claim_id, position, lo, hi, tier FROM figure_number ORDER BY claim_id, position",
            ),
            key=operator.itemgetter(0, 1),
        )
    )
    count = 0
    for a, b in zip_longest(implied, stored):
        if a != b:
            # the first figure they disagree on
            claim_id, position = min(x[0] for x in (a, b) if x is not None)
            key = session.execute(
                select(col(Claim.key)).where(col(Claim.id) == claim_id)
            ).scalar_one_or_none()
            return False, (
                f"differs from the figures (first at claim {key or claim_id}, figure "
                f"{position + 1}): `claims trace` may miss figures"
            )
        count += len(a[1])
    return True, f"{count} numbers"


class Pending:
    """The trace index check, begun in a worker before the command's other checks (WORKER_FROM figures
    or more, another core, a database another process can open), its answer taken by `result()`."""

    def __init__(self, session: Session) -> None:
        self.proc: subprocess.Popen | None = None
        url = db.shared_url(session)
        if url is None or not workers.possible():
            return
        figures = session.execute(select(func.count()).select_from(Figure)).scalar_one()
        if figures >= WORKER_FROM:
            self.proc = workers.start("claimsdb.trace_index", {"url": url}, close_stdin=True)

    def close(self) -> None:
        """End the worker (killed if it still runs) and reap it."""
        if self.proc is not None:
            workers.reap(self.proc)
            self.proc = None

    def result(self, session: Session) -> tuple[bool, str]:
        """The worker's answer, or the check made inline when there is none."""
        return self._answer() or check(session)

    def _answer(self) -> tuple[bool, str] | None:
        if self.proc is None:
            return None
        found = workers.answer(self.proc, _ANSWER_LIMIT)
        self.proc = None
        if (
            isinstance(found, list)
            and len(found) == 2
            and isinstance(found[0], bool)
            and isinstance(found[1], str)
        ):
            return found[0], found[1]
        return None


def _worker() -> None:
    """`python -m claimsdb.trace_index`: check the index of the database a job on standard input names,
    and print the verdict."""
    from sqlalchemy import create_engine

    job = json.loads(sys.stdin.buffer.readline())
    engine = create_engine(job["url"])
    try:
        with Session(engine) as session:
            found = check(session)
    finally:
        engine.dispose()
    sys.stdout.write(json.dumps(list(found)) + "\n")


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker()
