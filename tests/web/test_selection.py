"""The pages judge claims in SQL (claimsdb.selection) for their counts, their stale filter and the re-read queue;
the rule is Policy.blockers on a claim's view. On every claim of a store taken through the histories that
make a claim outdated, stale or tampered, under each policy, SQL must give the view's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from claimsdb import db, disputes, views
from claimsdb.cli.app import app
from claimsdb.models import Claim
from claimsdb.queries import ClaimFilter
from claimsdb.selection import Memo, Selection, outdated_ids, unsigned_ids
from claimsdb.trust.rule import Policy
from tests.conftest import DATA_FILES, run_sql

POLICIES = (Policy(), Policy(strict=True))


def cli(*args) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code in (0, 1), (
        result.output
    )  # an import reports the conflicts it kept (exit 1)


def with_statements(source: Path, target: Path, statements: dict[str, str]) -> Path:
    doc = json.loads(source.read_text(encoding="utf-8"))
    for claim in doc["claims"]:
        claim["statement"] = statements.get(claim["key"], claim["statement"])
    target.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return target


def test_sql_gives_each_claims_view_verdict_through_every_history(
    web_db, web_template, tmp_path, write_json, keys
):
    original = web_template.sources.parent / "web.json"
    changed = with_statements(
        original,
        tmp_path / "changed.json",
        {
            "widget.pretrain": "Widget-7 was pretrained on 3,072 H100 GPUs, says the new report.",
            "widget.serve": "Widget-7 is served on 512 GPUs, says the new report.",
            "gadget.pretrain": "Gadget was pretrained on 2,048 H800 GPUs, says the new report.",
        },
    )
    double = {"name": "double-checked", "trust": "verified", "description": "Checked twice."}
    verified_tag = write_json({"tags": [double]}, "tag.json")
    # checked against the page's snapshot, which the web store keeps beside its template
    reread_args = (
        "reread", "gadget.pretrain", "--source", "gadget-report", "--locator", "§2",
        "--quote", "2,048 H800 GPUs", "--yes", "--sources-dir", web_template.sources, "--db", web_db,
    )  # fmt: skip
    reread = lambda: cli(*reread_args)  # noqa: E731
    steps = [
        (
            "the bundled data beside the web data",
            lambda: cli("import", *DATA_FILES, verified_tag, "--db", web_db),
        ),
        (
            "a retag between verified tags",
            lambda: cli(
                "retag",
                "widget.serve",
                "double-checked",
                "--reason",
                "checked twice",
                "--db",
                web_db,
            ),
        ),
        (
            "a person's re-read",
            reread,
        ),
        ("content changed after the re-reads", lambda: cli("import", changed, "--db", web_db)),
        (
            "re-read again",
            reread,
        ),
        ("content changed back", lambda: cli("import", original, "--db", web_db)),
        ("changed again", lambda: cli("import", changed, "--db", web_db)),
        ("an agent's claim", lambda: add_agent_claim(web_db, "512")),
        # contradicts the first, which no event touches: both are disputed
        ("another agent's claim", lambda: add_agent_claim(web_db, "640")),
        ("signatures required", lambda: require_signatures(web_db, keys)),
        (
            "a signed re-read",
            lambda: cli(*reread_args, "--by", "Ada Lovelace", "--sign-with", keys("ada")),
        ),
        (
            "tampered",
            lambda: run_sql(
                web_db,
                "UPDATE claim SET basis = 'edited' WHERE key IN ('gadget.fleet', "
                "'widget.pretrain', 'widget.context')",
            ),
        ),
    ]
    memo, seen = Memo(), set()
    engine = db.open_engine(web_db)
    try:
        for step, act in steps:
            act()
            with db.session_scope(engine) as session:
                seen |= judged_alike(session, memo, step)
    finally:
        engine.dispose()
    # the histories the rule must tell apart all occurred
    assert {
        "outdated after a re-read",
        "outdated after a retag",
        "stale",
        "tampered",
        "not outdated after a retag",
        "re-read again",
        "changed back",
        "unsigned once required",
        "signed",
    } <= seen, seen


def add_agent_claim(store: str, gpus: str) -> None:
    statement = f"Quokka trained on {gpus} H100 GPUs."
    source = ("--source", "https://example.org/quokka", "--quote", statement, "--locator", "§1")
    cli("add", "--subject", "Quokka", "--statement", statement, *source, "--db", store)


def require_signatures(store: str, keys) -> None:
    """Ada registered (the key the keys fixture makes), then signatures required, signed by her."""
    ada = keys("ada")
    cli("people", "add", "Ada Lovelace", "--key", f"{ada}.pub", "--db", store)
    cli("people", "require-signatures", "--sign-with", ada, "--db", store)


def judged_alike(session, memo: Memo, step: str) -> set[str]:
    ids = list(session.scalars(select(Claim.id).order_by(Claim.id)))
    read = list(views.load(session, ids))
    outdated, unsigned = outdated_ids(session), unsigned_ids(session)
    facts = memo.facts(session)  # brought up to date from the new events alone
    assert (facts.outdated, facts.unsigned) == (outdated, unsigned), step
    assert facts.disputed == disputes.contested_ids(session), step
    seen = set()
    for policy in POLICIES:
        chosen = Selection(session, ClaimFilter(), policy, outdated=outdated, unsigned=unsigned)
        unsafe = set(session.scalars(chosen.where(select(Claim.id)).where(chosen.unsafe())))
        stale = set(
            session.scalars(
                Selection(session, ClaimFilter(), policy, outdated=outdated, stale=True).where(
                    select(Claim.id)
                )
            )
        )
        assert chosen.counts() == (len(ids), len(unsafe)), step
        for v in read:
            if v.integrity:  # not in SQL: the pages say so, and the queue passes over them
                seen.add("tampered")
                continue
            assert (v.id in unsafe) == (not policy.allows(v)), (
                step,
                policy.name,
                v.key,
                policy.blockers(v),
            )
            assert (v.id in stale) == (v.stale or v.reread_outdated), (step, v.key)
            assert (v.id in outdated) == v.reread_outdated, (step, v.key)
    for (
        v
    ) in read:  # widget.serve's tag was last set by a retag; the others' by an import or a re-read
        if v.reread_outdated:
            seen.add(
                "outdated after a re-read" if v.key != "widget.serve" else "outdated after a retag"
            )
        if v.stale:
            seen.add("stale")
        if (
            v.key == "widget.serve"
            and not v.reread_outdated
            and not v.integrity
            and step.startswith("a retag")
        ):
            seen.add("not outdated after a retag")
        if v.key == "gadget.pretrain" and step == "re-read again" and not v.reread_outdated:
            seen.add("re-read again")
        if v.key == "widget.pretrain" and step == "content changed back" and not v.reread_outdated:
            seen.add("changed back")
        if v.unsigned and step == "signatures required":
            seen.add("unsigned once required")
        if v.key == "gadget.pretrain" and step == "a signed re-read" and v.unsigned is None:
            seen.add("signed")
    return seen


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_the_bundled_data_is_judged_alike(store, policy):
    cli("import", *DATA_FILES, "--db", store)
    engine = db.open_engine(store)
    try:
        with db.session_scope(engine) as session:
            outdated = outdated_ids(session)
            chosen = Selection(session, ClaimFilter(status="active"), policy, outdated=outdated)
            unsafe = set(session.scalars(chosen.where(select(Claim.id)).where(chosen.unsafe())))
            blocked = {
                v.id
                for v in views.load(
                    session, views.select_ids(session, ClaimFilter(status="active"))
                )
                if not policy.allows(v)
            }
            assert unsafe == blocked and blocked
    finally:
        engine.dispose()
