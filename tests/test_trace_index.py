"""The trace index check (claimsdb.trace_index): made by a worker process on another core from
WORKER_FROM figures on, with the same verdict as inline; a worker that dies is replaced by the inline
check."""

from __future__ import annotations

import pytest

from claimsdb import db, trace_index, workers
from tests.conftest import run_sql

pytestmark = pytest.mark.skipif(not workers.possible(), reason="one core: no worker starts")


def verdicts(store: str, *, kill: bool = False) -> tuple[bool, tuple, tuple]:
    """(whether a worker started, its answer (or the inline one after it was killed), the inline one)."""
    engine = db.make_engine(db.resolve_url(store))
    try:
        with db.session_scope(engine) as session:
            pending = trace_index.Pending(session)
            started = pending.proc is not None
            if kill and pending.proc is not None:
                pending.proc.kill()
            answered = pending.result(session)
            return started, answered, trace_index.check(session)
    finally:
        engine.dispose()


@pytest.fixture
def from_every_size(monkeypatch):
    monkeypatch.setattr(trace_index, "WORKER_FROM", 1)


@pytest.mark.usefixtures("loaded", "from_every_size")
def test_the_worker_answers_what_the_inline_check_finds(store):
    started, answered, inline = verdicts(store)
    assert started and answered == inline and answered[0] and answered[1].endswith(" numbers")


@pytest.mark.usefixtures("loaded", "from_every_size")
def test_the_worker_finds_an_index_changed_outside_claims(store, claims):
    run_sql(store, "UPDATE figure_number SET lo = lo * 1.5 WHERE claim_id = 2")
    started, answered, inline = verdicts(store)
    assert started and answered == inline and not answered[0]
    assert answered[1].startswith("differs from the figures (first at claim ")
    result = claims("db", "check")  # the command takes the worker's verdict
    assert result.exit_code == 1 and "trace index: differs from the figures" in result.stderr


@pytest.mark.usefixtures("loaded", "from_every_size")
def test_a_worker_that_dies_leaves_the_check_to_the_command(store):
    run_sql(store, "DELETE FROM figure_number WHERE claim_id = 1")
    started, answered, inline = verdicts(store, kill=True)
    assert started and answered == inline and not answered[0]


@pytest.mark.usefixtures("loaded")
def test_a_small_store_is_checked_inline(store):
    started, answered, _ = verdicts(store)
    assert not started and answered[0]
