"""One paper-safe rule: `Policy.blockers` (and `allows`, which reads it) gives the verdict; export, lint,
the web grid and the re-read queue each reach the same one for every claim of the bundled data, under
each policy (a few claims made stale, changed since their re-read, withdrawn, to cover each reason)."""

from __future__ import annotations

import json

import pytest

from claimsdb import db, paper_safe, views
from claimsdb.lint import build_store
from claimsdb.queries import ClaimFilter
from claimsdb.selection import Memo, Queue
from claimsdb.trust.rule import Policy, RereadPage, page_to_reread, reread_hint
from claimsdb.web import pages
from claimsdb.web.pages import Filters, Paging
from tests.conftest import DATA_FILES, run_sql
from tests.pages import LLAMA3_PRETRAIN


@pytest.fixture
def varied(claims, store, write_json, tmp_path, page):
    """The bundled data (whose data-file re-reads are attestations), plus: a spot-checked claim whose
    latest verification no longer finds it (stale), one changed since its re-read (checked against a
    local copy of its page), and a withdrawn one."""
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    reread = claims(
        "reread", "pipelines.llama3.pretrain", *LLAMA3_PRETRAIN.flags(page), "--by", "Ada", "--yes"
    )
    assert reread.exit_code == 0, reread.output
    assert (
        claims("withdraw", "rl.bench.weirdml", "--reason", "dropped", "--by", "Ada").exit_code == 0
    )
    # a verification that no longer finds the checkpoint engine's figure: the re-read claim is stale
    run_sql(
        store,
        "INSERT INTO verification (claim_id, source_id, at, outcome) SELECT c.id, e.source_id, "
        "'2026-12-01T00:00:00+00:00', 'figure-changed' FROM claim c JOIN evidence e ON e.claim_id = c.id "
        "WHERE c.key = 'rl.weight-sync.kimi-checkpoint-engine' AND e.position = 0",
    )
    # the re-read Llama 3 claim's statement changes in its data file: not covered by its re-read any more
    doc = json.loads(DATA_FILES[0].read_text(encoding="utf-8"))
    (llama,) = [c for c in doc["claims"] if c["key"] == "pipelines.llama3.pretrain"]
    llama["statement"] += " (restated)"
    changed = write_json(doc, "pipelines.json")
    assert claims("import", str(changed), str(DATA_FILES[1])).exit_code == 0
    return db.open_engine(store)


# The web grid's count and the re-read queue judge paper-safety in SQL (selection.Selection.unsafe),
# which does not know that the strict policy refuses an attested re-read: rl.buffer.slime (re-read in
# its data file, so an attestation) is blocked by Policy.blockers but neither counted nor queued.


@pytest.mark.slow
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_every_caller_reaches_the_policys_verdict(varied, strict):
    policy = Policy(strict=strict)
    with db.session_scope(varied) as session:
        read = list(views.load(session, views.select_ids(session)))
        verdict = {v.key: policy.allows(v) for v in read}
        reasons = {b.kind for v in read for b in policy.blockers(v)}
        # every reason a claim can be blocked for is among these claims (the fixture made sure)
        assert reasons >= (
            {"status", "trust", "outdated", "stale", "attested"}
            if strict
            else {"status", "trust", "outdated"}
        )
        drafted = paper_safe.prepare(session, ClaimFilter(), policy=policy, mode="draft")
        exported = {r.key: r.paper_safe for r in drafted.rows}
        assert exported == {
            k: ok for k, ok in verdict.items() if k != "rl.bench.weirdml"
        }  # withdrawn: never
        store = build_store(session, policy)
        assert {c.key: c.paper_safe for c in store.claims} == verdict
        active = {v.key for v in read if v.status == "active"}
        blocked = {k for k in active if not verdict[k]}
        memo = Memo()  # active claims, as the grid shows by default; every subject on one page
        grid = pages.grid_page(
            session, memo, Filters(), Paging(1, pages.GRID_MOST, pages.GRID_SIZE), policy, "/"
        )
        # the grid's rows are systems: an observation (about no one system) is in the list, not the grid
        systems = {v.key for v in read if v.status == "active" and not v.observation}
        assert grid["pager"].pages == 1
        assert grid["unsafe"] == len(blocked & systems)  # counted in SQL
        assert {i.key: i.safe for i in grid["items"]} == {k: verdict[k] for k in systems}
        queue = Queue(session, ClaimFilter(), policy, outdated=memo.facts(session).outdated)
        waiting, found = [], queue.find()
        while (
            found.view is not None and found.view.key not in waiting
        ):  # walked to the end, and round
            waiting.append(found.view.key)
            found = queue.find(after=found.view.key)
        assert set(waiting) == blocked and queue.total() == len(blocked) and found.passed_over == 0
    assert verdict["pipelines.llama3.pretrain"] is False  # changed since its re-read
    assert verdict["rl.weight-sync.kimi-checkpoint-engine"] is (
        not strict
    )  # stale: blocked only when strict
    if strict:  # stale, and its re-read is the data file's (an attestation): both are said
        (engine_view,) = [v for v in read if v.key == "rl.weight-sync.kimi-checkpoint-engine"]
        assert {b.kind for b in policy.blockers(engine_view)} == {"stale", "attested"}


def test_the_reread_hint_names_the_page_and_the_place_and_never_a_command_to_run():
    page = RereadPage("llama3-report", "https://arxiv.org/abs/2407.21783", "Table 5")
    hint = reread_hint("a.b", page, "team.db")
    assert hint.startswith(
        "a person re-reads a.b in llama3-report <https://arxiv.org/abs/2407.21783>, at Table 5, "
        "and records it with the page's own words"
    )
    assert "(`claims serve --db team.db`, then /queue?key=a.b)" in hint
    assert "(`claims reread a.b --db team.db`, naming the page, the place and the quote)" in hint
    assert not {"--yes", "--quote", "--locator", "--source"} & set(hint.split())
    cites_none = reread_hint("a.b", None)
    assert cites_none.startswith(
        "a person re-reads a.b in the page its figure comes from (it cites none"
    )
    assert "(it cites no place in it yet)" in reread_hint("a.b", RereadPage("llama3-report"))
    assert reread_hint("a b&c", None).count("/queue?key=a%20b%26c") == 1


def test_the_page_to_reread_is_the_first_cited_page_that_is_not_a_note():
    cited = [
        {"key": "note-x", "kind": "note", "url": None, "locator": "§2"},
        {"key": "report", "kind": "report", "url": "https://example.org/r", "locator": "§4.1"},
        {"key": "other", "kind": "paper", "url": None, "locator": None},
    ]
    assert page_to_reread(cited) == RereadPage("report", "https://example.org/r", "§4.1")
    assert page_to_reread(cited[:1]) is None
