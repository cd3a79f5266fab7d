"""Agents disagreeing, seen from both sides (disputes): two agent claims of one subject that give
different values of one quantity both show the other on the claim page and the queue card, whichever
was added first, and the queue places them after the uncontested claims of their readiness. Over HTTP,
against the real application on 127.0.0.1."""

from __future__ import annotations

import re

import pytest

from tests.web.markup import parse


@pytest.fixture
def add(claims, web_db):
    def run(key: str, subject: str, statement: str) -> None:
        done = claims(
            "add", "--key", key, "--subject", subject, "--statement", statement,
            "--source", "https://example.org/zoo", "--locator", "§1", "--quote", statement,
            db=web_db,
        )  # fmt: skip
        assert done.exit_code == 0, done.output

    return run


def disputed(html: str) -> str:
    found = [d.text() for d in parse(html).find_all("dd") if "disputes" in d.classes]
    return found[0] if found else ""


def place(html: str) -> int:
    return int(re.search(r"Claim ([\d,]+) of", html)[1].replace(",", ""))


@pytest.mark.slow  # tests/test_mcp_tools.py marks both sides quickly, in process
def test_both_agent_claims_of_a_contradiction_are_marked_whichever_came_first(serve, client, add):
    add("quokka.a-first", "Quokka", "Quokka trained on 512 H100 GPUs.")
    add("quokka.b-second", "Quokka", "Quokka trained on 640 H100 GPUs.")
    add("wombat.a-first", "Wombat", "Wombat trained on 640 H100 GPUs.")  # the other order
    add("wombat.b-second", "wombat", "Wombat trained on 512 H100 GPUs.")
    add("quokka.c-calm", "Quokka", "Quokka runs 7 sandboxes.")
    c = client(serve(reader="Ada"))
    for subject in ("quokka", "wombat"):
        first, second = f"{subject}.a-first", f"{subject}.b-second"
        said = {key: disputed(c.get(f"/claims/{key}").text) for key in (first, second)}
        assert said[first] == (
            f"contradicted: another agent claim says "
            f"{'640' if subject == 'quokka' else '512'} H100 GPUs: {second}"
        )
        assert "another agent claim says" in said[second] and said[second].endswith(first)
        assert disputed(c.get(f"/queue?key={first}").text) == said[first]  # the queue card too
    assert disputed(c.get("/claims/quokka.c-calm").text) == ""
    # never verified alike: the uncontested claim comes before the two that contradict each other
    places = {k: place(c.get(f"/queue?key={k}").text) for k in ("quokka.a-first", "quokka.c-calm")}
    assert places["quokka.c-calm"] < places["quokka.a-first"]


def test_a_large_stores_disputes_come_from_a_worker_and_are_brought_up_to_date(
    web_db, add, monkeypatch
):
    """From disputes.WORKER_FROM claims on, a worker judges the whole store while the server answers (the
    facts hold no store-wide disputes until it is done); its answer is then brought up to date with the
    claims added meanwhile, and the facts hold exactly what judging the store here finds."""
    import time

    from claimsdb import db, disputes
    from claimsdb.selection import Memo

    monkeypatch.setattr(disputes, "WORKER_FROM", 1)
    memo, engine, pending = Memo(), db.open_engine(web_db), None
    try:
        with db.session_scope(engine) as session:
            assert disputes.contested_ids(session)  # the web data holds a contradiction
            assert memo.facts(session).disputed == frozenset()  # the worker judges it meanwhile
        pending = memo._disputes
        assert pending is not None and pending.proc is not None
        add("quokka.a", "Quokka", "Quokka trained on 512 H100 GPUs.")  # while the worker works
        add("quokka.b", "Quokka", "Quokka trained on 640 H100 GPUs.")
        deadline = time.monotonic() + 60
        while pending.running and time.monotonic() < deadline:
            time.sleep(0.05)
        with db.session_scope(engine) as session:
            facts = memo.facts(session)
            assert facts.disputed == disputes.contested_ids(session)
            assert len(facts.disputed) > 2  # the worker's and the two added since
        assert memo._disputes is None
    finally:
        engine.dispose()
        if pending is not None:
            pending.close()


def test_past_the_bound_the_disputes_are_not_kept_and_the_queue_ranks_by_readiness(
    web_db, serve, client, monkeypatch
):
    """Where more claims are contested than the queue ranks (RANKED_DISPUTES), the facts do not hold
    them (None), the queue is ordered by readiness alone and each card still says its dispute."""
    from claimsdb import db, selection

    monkeypatch.setattr(selection, "RANKED_DISPUTES", 0)
    engine = db.open_engine(web_db)
    try:
        with db.session_scope(engine) as session:
            assert selection.Memo().facts(session).disputed is None
    finally:
        engine.dispose()
    c = client(serve(reader="Ada"))
    page = c.get("/queue")
    assert page.status_code == 200 and "Claim 1 of" in page.text
