"""Anchors: the history's head kept outside the database catches a history cut from its end, rewritten
or replaced, which the hash chain alone cannot (issue 22: "the newest events can be cut off")."""

from __future__ import annotations

import json

import pytest

from claimsdb.db import resolve_url, sqlite_file
from tests.conftest import DATA_FILES, ENGINE, run_sql
from tests.pages import LLAMA3_FAILURES

KEY = "pipelines.obs.llama3-failures"


@pytest.fixture
def anchored(claims, tmp_path, monkeypatch, page):
    """The bundled data, a person's re-read (checked against a local copy of the page) and a retag back
    to agent-reported, then an anchor taken in the paper's folder (the test's working directory)."""
    monkeypatch.chdir(tmp_path)
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    reread = claims("reread", KEY, *LLAMA3_FAILURES.flags(page), "--by", "Ada", "--yes")
    assert reread.exit_code == 0, reread.output
    assert (
        claims(
            "retag", KEY, "agent-reported", "--reason", "not sure after all", "--by", "Ada"
        ).exit_code
        == 0
    )
    result = claims("db", "anchor", "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cut_the_last_event(store: str, *, anchors_too: bool = False) -> None:
    """What the issue did with write access: drop (switch off) the triggers, delete the newest event (the
    retag), set the claim's tag back to what the re-read set, and put the triggers back."""
    statements = [
        "DELETE FROM event WHERE id = (SELECT max(id) FROM event)",
        ("UPDATE claim SET tag = 'spot-checked' WHERE key = ?", [KEY]),
    ]
    if anchors_too:
        statements.append("DELETE FROM anchor")
    if sqlite_file(resolve_url(store)) is not None:
        import sqlite3

        con = sqlite3.connect(sqlite_file(resolve_url(store)))
        triggers = con.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
        ).fetchall()
        con.close()
        run_sql(store, *statements, *[sql for _, sql in triggers], without_triggers=True)
    else:  # the owner switches its triggers off and on again
        tables = ("event", "claim", "anchor")
        run_sql(
            store,
            *[f"ALTER TABLE {t} DISABLE TRIGGER USER" for t in tables],
            *statements,
            *[f"ALTER TABLE {t} ENABLE TRIGGER USER" for t in tables],
        )


def test_the_anchor_file_names_the_head_and_its_position(anchored, tmp_path, claims):
    on_disk = json.loads((tmp_path / "claims.anchor").read_text())
    assert on_disk["format"] == "claimsdb-anchor/1" and on_disk["head"] == anchored["head"]
    assert (
        on_disk["length"] == anchored["length"] > 180
        and on_disk["event_id"] == anchored["event_id"]
    )
    checked = claims("db", "check", "--anchor", "claims.anchor", "--format", "json")
    assert checked.exit_code == 0, checked.output
    names = {c["name"]: c for c in json.loads(checked.stdout)["checks"]}
    assert names["recorded anchors"]["ok"] and names["recorded anchors"]["detail"] == "1 held"
    assert names["anchor claims.anchor"]["ok"]


def test_a_history_cut_from_its_end_is_caught(anchored, claims, store):
    cut_the_last_event(store)
    # the chain that is left is intact and the claim agrees with it; the recorded anchor does not hold
    result = claims("db", "check", "--anchor", "claims.anchor", "--format", "json")
    assert result.exit_code == 1
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["history chain"]["ok"] and checks["claims agree with their history"]["ok"]
    assert not checks["recorded anchors"]["ok"] and not checks["anchor claims.anchor"]["ok"]
    assert "is gone: the history was cut" in checks["anchor claims.anchor"]["detail"]


def test_the_anchor_file_catches_a_cut_that_also_removed_the_recorded_anchors(
    anchored, claims, store, tmp_path
):
    cut_the_last_event(store, anchors_too=True)
    assert claims("db", "check").exit_code == 0  # nothing inside the database tells
    assert claims("db", "check", "--anchor", "claims.anchor").exit_code == 1
    paper = tmp_path / "paper.md"
    paper.write_text("Llama 3 logged 466 interruptions.\n", encoding="utf-8")
    linted = claims(
        "lint", str(paper)
    )  # reads ./claims.anchor by itself, as the pre-commit hook runs
    assert (
        linted.exit_code == 1
        and "claims.anchor: the history no longer holds the anchored head" in linted.stderr
    )
    exported = claims(
        "export", "--skip-unsafe", "--subject", "Llama 3", "--anchor", "claims.anchor"
    )
    assert exported.exit_code == 1 and exported.stdout == "" and "is gone" in exported.stderr
    (tmp_path / "claims.anchor").unlink()
    assert (
        claims("lint", str(paper)).exit_code == 0
    )  # without the anchor the cut is invisible: what it is for


def test_an_event_inserted_or_edited_before_the_anchor_is_caught(anchored, claims, store):
    run_sql(
        store,
        "UPDATE event SET prev_sha256 = NULL WHERE id = (SELECT min(id) + 1 FROM event)",
        without_triggers=True,
    )
    result = claims("db", "check", "--anchor", "claims.anchor")
    said = " ".join((result.stdout + result.stderr).split())
    assert result.exit_code == 1 and "the history before the anchor was edited" in said


@pytest.mark.parametrize("walker", ["inline", "worker", "failing worker"])
def test_an_event_rewritten_before_the_anchor_with_its_digest_recomputed_is_caught(
    anchored, claims, store, tmp_path, monkeypatch, walker
):
    """The attack the issue replayed: the person's lowering retag rewritten with the store's own digest
    code, the next event relinked to it, the claim set back. Every link still names its predecessor and
    the anchored head is untouched; only recomputing each digest up to the anchor sees it: walked inline,
    by a worker process on another core, or inline again when the worker cannot start."""
    import sys

    from sqlmodel import select

    from claimsdb import anchor, db, history
    from claimsdb.models import Claim, Event

    answers: list = []
    if walker != "inline":
        monkeypatch.setattr(anchor, "WORKER_FROM", 1)
        answer = anchor.Pending._answer
        monkeypatch.setattr(
            anchor.Pending, "_answer", lambda p: answers.append(answer(p)) or answers[-1]
        )
    if walker == "failing worker":
        monkeypatch.setattr(sys, "executable", "/bin/false")

    other = (
        "pipelines.kimi-k2-k3.data"  # an event after the retag (another subject), then an anchor
    )
    assert claims("retag", other, "agent-reported", "--reason", "x", "--by", "Ada").exit_code == 0
    assert claims("db", "anchor").exit_code == 0
    engine = db.make_engine(db.resolve_url(store))
    try:
        with db.session_scope(engine) as session:
            claim_id = session.exec(select(Claim.id).where(Claim.key == KEY)).one()
            mine = select(Event).where(Event.claim_id == claim_id).order_by(Event.id.desc())
            retag = session.exec(mine).first()
            assert retag is not None
            after = session.exec(
                select(Event).where(Event.id > retag.id).order_by(Event.id)
            ).first()
            assert after is not None
            fields = {f: getattr(retag, f) for f in (*history.EVENT_FIELDS, *history.LATER_FIELDS)}
    finally:
        engine.dispose()
    assert fields["tag_after"] == "agent-reported" and fields["tag_before"] == "spot-checked"
    fields["tag_after"] = "spot-checked"
    forged = history.event_digest(KEY, fields)
    run_sql(
        store,
        (
            "UPDATE event SET tag_after = 'spot-checked', sha256 = ? WHERE id = ?",
            [forged, retag.id],
        ),
        ("UPDATE event SET prev_sha256 = ? WHERE id = ?", [forged, after.id]),
        ("UPDATE claim SET tag = 'spot-checked' WHERE key = ?", [KEY]),
        without_triggers=True,
    )
    # another subject's export and a lint that names the claim: both see the edit below the anchor
    exported = claims(
        "export", "--skip-unsafe", "--subject", "GLM-4.5", "--anchor", "claims.anchor"
    )
    assert exported.exit_code == 1 and exported.stdout == ""
    assert "the history before the anchor was edited" in " ".join(exported.stderr.split())
    paper = tmp_path / "paper.md"
    paper.write_text("Llama 3 logged 466 interruptions.\n", encoding="utf-8")
    linted = claims("lint", str(paper))  # ./claims.anchor, as the pre-commit hook runs it
    assert linted.exit_code == 1, linted.stdout + linted.stderr
    assert f"event {after.id} (" in " ".join(linted.stderr.split())
    if walker == "worker":  # both answers came from the worker, and both named the edit
        assert len(answers) == 2 and all(a.broken_id == after.id for a in answers)
    if walker == "failing worker":
        assert answers == [None, None]


@pytest.mark.slow
def test_a_replaced_store_is_caught_and_appending_is_not(anchored, claims, store, tmp_path):
    assert (
        claims(
            "retag", "pipelines.llama3.pretrain", "agent-reported", "--reason", "x", "--by", "Ada"
        ).exit_code
        == 0
    )
    assert (
        claims("db", "check", "--anchor", "claims.anchor").exit_code == 0
    )  # later events are fine
    other = tmp_path / "other.db"
    assert claims("import", *map(str, DATA_FILES), db=other).exit_code == 0
    for tag in (
        "prior-note",
        "note-2026-09-21",
        "prior-note",
    ):  # as many events again, another history
        assert (
            claims(
                "retag", "pipelines.llama3.pretrain", tag, "--reason", "x", "--by", "B", db=other
            ).exit_code
            == 0
        )
    result = claims("db", "check", "--anchor", "claims.anchor", "--format", "json", db=other)
    (check,) = [
        c for c in json.loads(result.stdout)["checks"] if c["name"] == "anchor claims.anchor"
    ]
    assert (
        result.exit_code == 1
        and not check["ok"]
        and check["detail"]
        in (
            f"event {anchored['event_id']} is not the anchored one: the history was rewritten or replaced",
            f"the anchored event {anchored['event_id']} is gone: the history was cut below it",
        )
    )


def test_lint_and_export_record_the_history_they_saw(anchored, claims, tmp_path):
    paper = tmp_path / "paper.md"
    paper.write_text("Llama 3 ran on 16K H100.\n", encoding="utf-8")
    report = json.loads(claims("lint", str(paper), "--format", "json").stdout)
    assert report["history"] == {"head": anchored["head"], "length": anchored["length"]}
    assert (
        f"store history: {anchored['length']} events, head {anchored['head'][:16]}"
        in claims("lint", str(paper)).stdout
    )
    manifest = json.loads(claims("export", "--skip-unsafe", "--format", "json").stdout)["manifest"]
    assert (manifest["history_head"], manifest["history_length"]) == (
        anchored["head"],
        anchored["length"],
    )


@pytest.mark.parametrize(
    "content, says",
    [
        ("not json", "not JSON"),
        ('{"format": "other"}', "format is not claimsdb-anchor/1"),
        (
            '{"format": "claimsdb-anchor/1", "head": "abc", "length": 3, "event_id": 3, "at": "x"}',
            "head: not a SHA-256",
        ),
        (
            '{"format": "claimsdb-anchor/1", "head": "'
            + "a" * 64
            + '", "length": 0, "event_id": 3, "at": "x"}',
            "length: not a positive whole number",
        ),
    ],
)
@pytest.mark.slow
def test_a_bad_anchor_file_is_a_clear_error(anchored, claims, tmp_path, content, says):
    bad = tmp_path / "bad.anchor"
    bad.write_text(content, encoding="utf-8")
    for args in (("db", "check", "--anchor", str(bad)), ("export", "--anchor", str(bad))):
        result = claims(*args)
        assert result.exit_code == 2 and str(bad) in result.stderr and says in result.stderr, (
            result.stderr
        )
    missing = claims("db", "check", "--anchor", str(tmp_path / "none.anchor"))
    assert missing.exit_code == 2 and "none.anchor: cannot read the anchor" in missing.stderr


def test_an_empty_history_has_nothing_to_anchor(claims, tmp_path):
    assert claims("db", "upgrade").exit_code == 0
    result = claims("db", "anchor", "-o", str(tmp_path / "x.anchor"))
    assert result.exit_code == 2 and "the history is empty" in result.stderr
    assert not (tmp_path / "x.anchor").exists()


def test_recorded_anchors_are_append_only(anchored, store):
    from tests.conftest import REFUSED

    for sql in ("UPDATE anchor SET head = 'x'", "DELETE FROM anchor") + (
        ("TRUNCATE anchor",) if ENGINE != "sqlite" else ()
    ):
        with pytest.raises(REFUSED, match="append-only"):
            run_sql(store, sql)


BOGUS_ANCHORS = {
    "a head that is no event's": "INSERT INTO anchor (at, actor, event_id, length, head) "
    "VALUES ('2026-12-04', 'w', 1, 1, '" + "0" * 64 + "')",
    "an event that does not exist yet": "INSERT INTO anchor (at, actor, event_id, length, head) "
    "VALUES ('2026-12-04', 'w', 1000000, 1000000, '" + "0" * 64 + "')",
    "a length the chain does not hold": "INSERT INTO anchor (at, actor, event_id, length, head) "
    "SELECT '2026-12-04', 'w', id, 7, sha256 FROM event WHERE id = (SELECT min(id) FROM event)",
    "a people registry head that is not its": "INSERT INTO anchor "
    "(at, actor, event_id, length, head, people_head, people_length) "
    "SELECT '2026-12-04', 'w', id, 1, sha256, '" + "0" * 64 + "', 1 FROM event "
    "WHERE id = (SELECT min(id) FROM event)",
}


@pytest.mark.parametrize("sql", BOGUS_ANCHORS.values(), ids=BOGUS_ANCHORS)
def test_an_anchor_the_chain_does_not_hold_cannot_be_recorded(anchored, claims, store, sql):
    """A recorded anchor that the chain does not hold fails `db check` for good (its table is append-only),
    so the database takes only anchors that hold when they are recorded: a writer (or anyone below the
    owner) cannot plant one. One that fails later means the history was rewritten after it."""
    from tests.conftest import REFUSED

    with pytest.raises(REFUSED, match="an anchor records the chain as it is"):
        run_sql(store, sql)
    assert claims("db", "check").exit_code == 0
    genuine = "INSERT INTO anchor (at, actor, event_id, length, head) SELECT '2026-12-04', 'w', id, 1, sha256 FROM event WHERE id = (SELECT min(id) FROM event)"
    run_sql(store, genuine)  # an older head, as it is: held
    assert claims("db", "check").exit_code == 0
