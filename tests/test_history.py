"""The history chain: digests, the state events imply, re-reads that vouch for what they read, and the
raw-SQL bypasses the database refuses."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess

import pytest
from sqlalchemy import select

from claimsdb import db, history, provenance, queries, store
from claimsdb.models import Event
from tests.conftest import file_digest, run_sql, sqlite_only
from tests.pages import GADGET, read, reread_of

GADGET_REREAD = reread_of("gadget.fleet")  # in the widget report, Table 2


def do(engine, fn, *args, **kwargs):
    with db.session_scope(engine) as session:
        return fn(session, *args, **kwargs)


def view(engine, key):
    with db.session_scope(engine) as session:
        return queries.claim_views(session, [queries.get_claim(session, key)], events=None)[
            0
        ].to_json()


def chain(engine):
    with db.session_scope(engine) as session:
        return [
            (e.prev_sha256, e.sha256) for e in session.scalars(select(Event).order_by(Event.id))
        ]


EVENT = {
    "at": "2026-11-30T10:00:00+00:00",
    "kind": "reread",
    "actor": "ada",
    "tag_before": "agent-reported",
    "tag_after": "spot-checked",
    "status_after": None,
    "origin": "widget-report",
    "detail": '{"quote": "x"}',
    "content_sha256": "c" * 64,
    "prev_sha256": "p" * 64,
}


@pytest.mark.parametrize("field", [*history.EVENT_FIELDS, *history.LATER_FIELDS])
def test_the_event_digest_covers_every_field(field):
    changed = {**EVENT, field: "something else"}
    assert history.event_digest("k", changed) != history.event_digest("k", EVENT)
    assert history.event_digest("other.key", EVENT) != history.event_digest("k", EVENT)


def test_the_content_digest_is_what_a_reader_reads():
    base = history.content_digest(
        "Widget-7", "It used 3,072 H100.", [("3,072 H100", None)], [("rep", "§3", "q")]
    )
    assert base == history.content_digest(
        "Widget-7", "It used 3,072 H100.", [("3,072 H100", None)], [("rep", "§3", "q")]
    )
    for changed in (
        history.content_digest(
            "Widget-8", "It used 3,072 H100.", [("3,072 H100", None)], [("rep", "§3", "q")]
        ),
        history.content_digest(
            "Widget-7", "It used 9,999 H100.", [("3,072 H100", None)], [("rep", "§3", "q")]
        ),
        history.content_digest(
            "Widget-7", "It used 3,072 H100.", [("9,999 H100", None)], [("rep", "§3", "q")]
        ),
        history.content_digest(
            "Widget-7", "It used 3,072 H100.", [("3,072 H100", "gpus")], [("rep", "§3", "q")]
        ),
        history.content_digest(
            "Widget-7", "It used 3,072 H100.", [("3,072 H100", None)], [("rep", "§4", "q")]
        ),
        history.content_digest("Widget-7", "It used 3,072 H100.", [("3,072 H100", None)], []),
    ):
        assert changed != base


def test_every_event_extends_the_chain_in_order(engine):
    do(engine, provenance.reread, "gadget.fleet", actor="ada", **GADGET_REREAD)
    do(
        engine,
        provenance.retag,
        "widget.context",
        "prior-note",
        actor="bo",
        reason="the March note",
    )
    do(engine, provenance.withdraw, "widget.pretrain", actor="cy", reason="dropped")
    links = chain(engine)
    assert (
        len(links) == 7 and links[0][0] is None
    )  # 3 imported, the data file's re-read, 3 recorded here
    assert all(prev == before[1] for (prev, _), before in zip(links[1:], links)), links
    assert len({sha for _, sha in links}) == 7


def test_a_reread_links_its_page_and_vouches_for_what_it_read(engine):
    result = do(
        engine,
        provenance.reread,
        "gadget.fleet",
        actor="ada",
        **GADGET_REREAD,
    )
    assert result["linked"] is True and result["checked"]["outcome"] == "confirmed"
    v = view(engine, "gadget.fleet")
    assert [(s["key"], s["locator"], s["quote"], s["added_by"]) for s in v["sources"]] == [
        ("lab-notes", None, None, None),
        ("widget-report", "Table 2", "40–60K sandboxes", "ada"),
    ]
    assert not v["reread_outdated"] and not v["integrity"]
    assert (
        v["tag_reason"].startswith("re-read by ada on ")
        and "widget-report, Table 2: “40–60K sandboxes”" in v["tag_reason"]
    )
    with db.session_scope(engine) as session:
        listed = {s["key"]: s["claims"] for s in queries.list_sources(session)}
    assert (
        listed["widget-report"] == 2
    )  # widget.pretrain cites it in the data, gadget.fleet by the re-read


def test_a_second_reread_of_a_page_already_cited_adds_no_evidence(engine):
    # the data file cites widget-report, §3.1, "3,072 H100 GPUs" already
    do(engine, provenance.reread, "widget.pretrain", actor="ada", **reread_of("widget.pretrain"))
    assert [s["key"] for s in view(engine, "widget.pretrain")["sources"]] == ["widget-report"]


def test_an_import_that_changes_reread_content_voids_the_reread_but_keeps_it(
    engine, write_json, sample
):
    do(engine, provenance.reread, "gadget.fleet", actor="ada", **GADGET_REREAD)
    sample["claims"][2]["figures"] = ["40–90K sandboxes"]
    with db.session_scope(engine) as session:
        plan = store.import_files(session, [str(write_json(sample))])
    assert [(c.field, c.kept, c.offered, c.applied) for c in plan.conflicts if c.applied] == [
        ("figures", ["40–60K sandboxes"], ["40–90K sandboxes"], True)
    ]
    v = view(engine, "gadget.fleet")
    assert v["tag"] == "spot-checked" and v["reread_outdated"]
    assert v["outdated_reason"].startswith("changed since the re-read by ada")
    assert [e["kind"] for e in v["events"]] == ["imported", "reread", "updated"]
    assert [s["key"] for s in v["sources"]] == [
        "lab-notes",
        "widget-report",
    ]  # the person's evidence survives
    with db.session_scope(engine) as session:
        assert [
            c["key"] for c in queries.list_claims(session, queries.ClaimFilter(), stale=True)
        ] == ["gadget.fleet"]
    revised = read(GADGET[0], "Gadget runs 40–90K sandboxes at once.")
    do(  # the page as it now reads states the new figure
        engine,
        provenance.reread,
        "gadget.fleet",
        actor="bo",
        **{**GADGET_REREAD, "quote": "40–90K sandboxes", "read": revised},
    )
    assert not view(engine, "gadget.fleet")["reread_outdated"]


def test_a_data_file_changing_a_verified_claim_needs_a_new_reread_to_vouch_for_it(
    engine, write_json, sample
):
    # The same re-read named again covers only what it covered: the change is applied and reported.
    sample["claims"][0]["statement"] = "Widget-7 trained on 3,072 H100 GPUs."
    with db.session_scope(engine) as session:
        plan = store.import_files(session, [str(write_json(sample))])
    assert [(c.key, c.field, c.applied) for c in plan.conflicts] == [
        ("widget.pretrain", "statement", True)
    ]
    assert "Grace Hopper" in plan.conflicts[0].why and plan.rereads == [] and plan.vouched == []
    assert view(engine, "widget.pretrain")["reread_outdated"]
    # The file names a new re-read of the new statement: recorded as the person's, after the first.
    sample["claims"][0]["reread"] = {
        **sample["claims"][0]["reread"],
        "at": "2026-10-20",
        "quote": "3,072 H100 GPUs.",
    }
    with db.session_scope(engine) as session:
        plan = store.import_files(session, [str(write_json(sample))])
    assert [(r.key, r.by, r.at, r.again) for r in plan.rereads] == [
        ("widget.pretrain", "Grace Hopper", "2026-10-20", True)
    ]
    assert [(v.key, v.by, v.how) for v in plan.vouched] == [
        ("widget.pretrain", "Grace Hopper", "re-read")
    ]
    v = view(engine, "widget.pretrain")
    assert not v["reread_outdated"] and not v["integrity"]
    assert [(e["kind"], e["at"][:10]) for e in v["events"] if e["kind"] == "reread"] == [
        ("reread", "2026-10-02"),
        ("reread", "2026-10-20"),
    ]


def test_derive_replays_tag_status_and_vouching():
    trust = {"spot-checked": "verified", "agent-reported": "unverified", "prior-note": "secondary"}

    def e(kind, tag=None, status=None, content=None):
        return {"kind": kind, "tag_after": tag, "status_after": status, "content_sha256": content}

    state = history.derive(
        [e("imported", "agent-reported", "active", "a"), e("reread", "spot-checked", None, "b")],
        trust,
    )
    assert (state.tag, state.status, state.content_sha256, state.vouched_sha256) == (
        "spot-checked",
        "active",
        "b",
        "b",
    )
    state = history.derive(
        [
            e("imported", "agent-reported", "active", "a"),
            e("reread", "spot-checked", None, "b"),
            e("updated", content="c"),
        ],
        trust,
    )
    assert state.vouched_sha256 == "b" and not state.vouches_for("c")
    # an import that sets a verified tag vouches for nothing by itself (issue 34): a re-read must
    state = history.derive(
        [e("imported", "spot-checked", "active", "a"), e("updated", content="c")], trust
    )
    assert not state.vouches_for("a") and not state.vouches_for("c") and state.vouched_by is None
    state = history.derive(
        [
            e("imported", "spot-checked", "active", "a"),
            e("retagged", "prior-note"),
            e("status", status="withdrawn"),
        ],
        trust,
    )
    assert (state.tag, state.status, state.vouched_sha256) == ("prior-note", "withdrawn", None)


def test_set_by_names_who_set_the_tag_status_and_rank_and_none_for_an_import():
    trust = {"spot-checked": "verified", "agent-reported": "unverified"}

    def e(kind, actor="claimsdb", tag=None, status=None, rank=None, at="2026-10-02T09:30:00"):
        return {
            "kind": kind,
            "actor": actor,
            "at": at,
            "tag_after": tag,
            "status_after": status,
            "rank_after": rank,
            "content_sha256": None,
        }

    imported = e("imported", tag="agent-reported", status="active", rank="normal")
    state = history.derive([imported], trust)
    assert [state.set_by(f) for f in ("tag", "status", "rank")] == [None, None, None]
    assert history.ClaimState().set_by("tag") is None  # no history: nobody set anything

    state = history.derive(
        [
            imported,
            e("reread", "ada", tag="spot-checked"),
            e("status", "grace", status="withdrawn"),
            e("ranked", "linus", rank="preferred", at="2026-10-03T10:00:00"),
        ],
        trust,
    )
    tag, status, rank = (state.set_by(f) for f in ("tag", "status", "rank"))
    assert tag == history.SetBy("ada", "reread", "2026-10-02T09:30:00")
    assert (status.actor, status.kind) == ("grace", "status")
    assert (rank.actor, rank.day, str(rank)) == (
        "linus",
        "2026-10-03",
        "linus (ranked, 2026-10-03T10:00:00Z)",
    )

    # A data file that sets the tag or the rank again owns them again; a person's status stays theirs.
    state = history.derive(
        [
            imported,
            e("retagged", "ada", tag="spot-checked"),
            e("status", "grace", status="withdrawn"),
            e("updated", tag="agent-reported", status="active", rank="normal"),
        ],
        trust,
    )
    assert state.set_by("tag") is None and state.set_by("rank") is None
    assert state.set_by("status") == history.SetBy("grace", "status", "2026-10-02T09:30:00")


# --- raw SQL on a plain connection (as the sqlite3 shell opens it: no pragmas of ours) -------------

REFUSED = {
    "UPDATE claim SET tag = 'spot-checked' WHERE key = 'gadget.fleet'": "tag changes only with the event",
    "UPDATE claim SET status = 'withdrawn' WHERE key = 'gadget.fleet'": "status changes only with the event",
    "UPDATE claim SET key = 'other' WHERE key = 'gadget.fleet'": "key never changes",
    "DELETE FROM claim WHERE key = 'gadget.fleet'": "never deleted",
    "INSERT OR REPLACE INTO event (id, claim_id, at, kind, actor, tag_after, sha256) "
    "SELECT id, claim_id, at, kind, 'mallory', 'spot-checked', sha256 FROM event WHERE id = 3": "append-only",
    "REPLACE INTO event SELECT * FROM event WHERE id = 3": "append-only",
    "INSERT INTO event (claim_id, at, kind, actor, tag_after, sha256) "
    "VALUES (3, '2026-12-01', 'reread', 'mallory', 'spot-checked', 'x')": "extend the history chain",
    "INSERT INTO event (claim_id, at, kind, actor, tag_after) "
    "VALUES (3, '2026-12-01', 'reread', 'mallory', 'spot-checked')": "needs its sha256",
    "UPDATE event SET tag_after = 'spot-checked'": "append-only",
    "DELETE FROM event WHERE id = 3": "append-only",
    "UPDATE tag SET trust = 'verified' WHERE name = 'agent-reported'": "trust level never change",
    "DELETE FROM tag WHERE name = 'prior-note'": "never deleted",
    "INSERT OR REPLACE INTO tag (name, trust, description) VALUES ('agent-reported', 'verified', '')": "never replaced",
    "INSERT INTO tag (name, trust, description) VALUES ('agent-reported', 'verified', '') "
    "ON CONFLICT (name) DO UPDATE SET trust = excluded.trust": "never replaced",
    # A claim is never replaced, whatever the statement: REPLACE deletes the old row without a DELETE
    # trigger in a plain connection (recursive_triggers off), so the insert itself is refused.
    "INSERT OR REPLACE INTO claim (id, key, subject, statement, tag, basis, status, created_at, updated_at) "
    "SELECT id, key, subject, statement, 'spot-checked', basis, status, created_at, updated_at FROM claim "
    "WHERE key = 'gadget.fleet'": "claims are never replaced",
    "REPLACE INTO claim (key, subject, statement, tag, basis, status, created_at, updated_at) "
    "SELECT key, subject, statement, 'spot-checked', basis, status, created_at, updated_at FROM claim "
    "WHERE key = 'gadget.fleet'": "claims are never replaced",
    "INSERT OR REPLACE INTO claim (id, key, subject, statement, tag, basis, status, created_at, updated_at) "
    "SELECT id, 'gadget.fleet-2', subject, statement, 'spot-checked', basis, status, created_at, updated_at "
    "FROM claim WHERE key = 'gadget.fleet'": "claims are never replaced",
    "INSERT INTO claim (key, subject, statement, tag, basis, status, created_at, updated_at) "
    "VALUES ('gadget.fleet', 'G', 'G.', 'spot-checked', 'b', 'active', 't', 't') "
    "ON CONFLICT (key) DO UPDATE SET tag = excluded.tag": "claims are never replaced",
    "INSERT OR IGNORE INTO claim (key, subject, statement, tag, basis, status, created_at, updated_at) "
    "VALUES ('gadget.fleet', 'G', 'G.', 'spot-checked', 'b', 'active', 't', 't')": "claims are never replaced",
    "UPDATE OR REPLACE claim SET key = 'widget.pretrain' WHERE key = 'gadget.fleet'": "key never changes",
    "INSERT INTO event SELECT * FROM event WHERE id = 3 ON CONFLICT (id) DO UPDATE SET actor = 'mallory'": "append-only",
}


@pytest.mark.slow
@sqlite_only(
    "SQLite's own statements (INSERT OR REPLACE) and messages; PostgreSQL's: test_postgresql_refuses_the_same_bypasses"
)
@pytest.mark.parametrize("sql", sorted(REFUSED))
def test_raw_sql_that_would_raise_trust_or_rewrite_history_is_refused(engine, db_path, sql):
    engine.dispose()
    before = file_digest(db_path)
    con = sqlite3.connect(db_path)
    with pytest.raises(sqlite3.IntegrityError, match=REFUSED[sql]):
        con.execute(sql)
    con.rollback()
    con.close()
    assert file_digest(db_path) == before


@sqlite_only("the sqlite3 shell")
@pytest.mark.skipif(
    shutil.which("sqlite3") is None, reason="no sqlite3 shell installed (apt-get install sqlite3)"
)
@pytest.mark.parametrize(
    "sql",
    [
        "INSERT OR REPLACE INTO claim (id, key, subject, statement, tag, basis, status, created_at, updated_at) "
        "SELECT id, key, subject, statement, 'spot-checked', basis, status, created_at, updated_at FROM claim "
        "WHERE key = 'gadget.fleet';",
        "REPLACE INTO claim SELECT * FROM claim WHERE key = 'gadget.fleet';",
    ],
    ids=["insert-or-replace", "replace"],
)
@pytest.mark.slow
def test_the_sqlite3_shell_cannot_replace_a_claim(engine, db_path, sql):
    """The issue's replay, in the real shell with its own settings (recursive_triggers off)."""
    engine.dispose()
    before = file_digest(db_path)
    shell = subprocess.run(["sqlite3", str(db_path), sql], capture_output=True, text=True)
    assert shell.returncode != 0 and "claims are never replaced" in shell.stderr
    assert file_digest(db_path) == before


@sqlite_only("INSERT OR REPLACE is SQLite's; PostgreSQL has no statement that replaces a row")
@pytest.mark.parametrize("table", ["snapshot", "verification"])
def test_snapshots_and_verifications_are_never_replaced(engine, db_path, table):
    con = sqlite3.connect(db_path)
    con.execute(
        "INSERT INTO snapshot (source_id, fetched_at, outcome) VALUES (1, '2026-11-30', 'unreachable')"
    )
    con.execute(
        "INSERT INTO verification (claim_id, source_id, at, outcome) VALUES (1, 2, '2026-11-30', 'not-found')"
    )
    con.commit()
    for sql in (
        f"INSERT OR REPLACE INTO {table} SELECT * FROM {table} WHERE id = 1",
        f"REPLACE INTO {table} SELECT * FROM {table} WHERE id = 1",
        f"INSERT INTO {table} SELECT * FROM {table} WHERE id = 1 ON CONFLICT (id) DO UPDATE SET outcome = 'confirmed'",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            con.execute(sql)
    assert con.execute(f"SELECT count(*) FROM {table}").fetchone() == (1,)


# --- tampering with the triggers dropped: found on read and by `claims db check` -----------------


def tamper(store, *statements):
    run_sql(store, *statements, without_triggers=True)


@pytest.mark.parametrize(
    "sql, problem",
    [
        (
            "UPDATE claim SET tag = 'spot-checked' WHERE key = 'gadget.fleet'",
            "its tag is 'spot-checked' but its history says 'agent-reported'",
        ),
        (
            "UPDATE figure SET raw = '99K sandboxes' WHERE raw = '40–60K sandboxes'",
            "differ from what its history recorded",
        ),
        (
            "UPDATE claim SET statement = 'Gadget runs 99K sandboxes.' WHERE key = 'gadget.fleet'",
            "differ from what its history recorded",
        ),
        ("UPDATE event SET actor = 'mallory' WHERE claim_id = 3", "does not match its hash"),
        # with the insert guard dropped, REPLACE (a delete and an insert) is still found on read
        pytest.param(
            "INSERT OR REPLACE INTO claim (id, key, subject, statement, tag, basis, status, created_at, updated_at) "
            "SELECT id, key, subject, statement, 'spot-checked', basis, status, created_at, updated_at FROM claim "
            "WHERE key = 'gadget.fleet'",
            "its tag is 'spot-checked' but its history says 'agent-reported'",
            marks=sqlite_only("INSERT OR REPLACE is SQLite's"),
            id="insert-or-replace",
        ),
    ],
)
@pytest.mark.slow
def test_a_claim_edited_behind_the_triggers_is_refused_by_export_lint_and_verify(
    loaded, claims, store, tmp_path, sql, problem
):
    tamper(store, sql)
    shown = claims("show", "gadget.fleet")
    assert shown.exit_code == 0 and "TAMPERED: " in shown.stdout and problem in shown.stdout
    manuscript = tmp_path / "paper.md"
    manuscript.write_text("Gadget runs 40–60K sandboxes.\n", encoding="utf-8")
    for args in (
        ["export", "--draft"],
        ["export", "--skip-unsafe"],
        ["lint", str(manuscript)],
        ["verify", "gadget.fleet", "--offline"],
    ):
        result = claims(*args)
        assert result.exit_code == 2, (args, result.output)
        assert (
            result.stderr.startswith("error: claim gadget.fleet disagrees with its history: ")
            and problem in result.stderr
        )
        assert "claims db check" in result.stderr
    check = claims("db", "check", "--format", "json")
    assert check.exit_code == 1
    report = {c["name"]: c for c in json.loads(check.stdout)["checks"]}
    assert not report["triggers"]["ok"] and not report["claims agree with their history"]["ok"]
    assert "gadget.fleet" in report["claims agree with their history"]["detail"]


def test_db_check_names_an_edited_event_and_a_removed_one(loaded, claims, store):
    assert claims("db", "check").exit_code == 0
    tamper(store, 'UPDATE event SET detail = \'{"record": "forged"}\' WHERE id = 2')
    result = claims("db", "check")
    assert result.exit_code == 1
    assert "history chain: event 2 (imported of widget.context by import" in result.stderr
    assert "does not match its hash" in result.stderr
    tamper(store, "DELETE FROM event WHERE id = 2")
    result = claims("db", "check")
    assert (
        result.exit_code == 1
        and "event 3 " in result.stderr
        and "does not follow event 1" in result.stderr
    )


def test_a_withdrawal_undone_behind_the_triggers_is_refused(loaded, claims, store):
    assert (
        claims("withdraw", "gadget.fleet", "--reason", "wrong system", "--by", "bo").exit_code == 0
    )
    assert claims("export", "--skip-unsafe").exit_code == 0
    tamper(store, "UPDATE claim SET status = 'active' WHERE key = 'gadget.fleet'")
    result = claims("export", "--draft")
    assert (
        result.exit_code == 2
        and "its status is 'active' but its history says 'withdrawn'" in result.stderr
    )


def test_db_check_on_an_intact_store_reports_each_check(loaded, claims):
    result = claims("db", "check", "--format", "json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["ok"] and [c["name"] for c in report["checks"]] == [
        "schema revision",
        "triggers",
        "history chain",
        "claims agree with their history",
        "trace index",
        "tag definitions",
        "sources, quantities and aliases",
        "people registry",
        "re-read signatures",
        "recorded anchors",
    ]


def test_the_export_manifest_names_the_head_of_the_history(engine):
    from claimsdb import paper_safe
    from claimsdb.trust.rule import Policy

    def head():
        with db.session_scope(engine) as session:
            return paper_safe.prepare(
                session, queries.ClaimFilter(), policy=Policy(), mode="draft"
            ).manifest["history_head"]

    first = head()
    assert first == chain(engine)[-1][1]
    do(engine, provenance.retag, "widget.context", "prior-note", actor="bo", reason="r")
    assert head() == chain(engine)[-1][1] != first


# --- the migration from 0004: the chain is built for the events already there ---------------------


@sqlite_only("writes 0004-era rows with SQLite's loose column types")
def test_upgrade_from_0004_builds_the_chain_and_links_earlier_rereads(db_path, claims):
    url = db.resolve_url(str(db_path))
    db.upgrade(url, "0004")
    con = sqlite3.connect(db_path)
    con.executescript("""
        INSERT INTO source (id, key, title, kind, url) VALUES (1, 'notes', 'Notes', 'note', NULL),
          (2, 'report', 'Report', 'report', 'https://example.org/r');
        INSERT INTO claim (id, key, subject, statement, tag, basis, status, created_at, updated_at) VALUES
          (1, 'a.read', 'A', 'A used 8 GPUs.', 'spot-checked', 'b', 'active', 't', 't'),
          (2, 'b.changed', 'B', 'B used 9 GPUs.', 'spot-checked', 'b', 'active', 't', 't'),
          (3, 'c.gone', 'C', 'C used 7 GPUs.', 'agent-reported', 'b', 'withdrawn', 't', 't');
        INSERT INTO evidence (claim_id, source_id, position) VALUES (1, 1, 0), (2, 1, 0), (3, 1, 0);
        INSERT INTO figure (claim_id, position, raw, kind, comparator, value, counted) VALUES
          (1, 0, '8 GPUs', 'value', '=', 8, 'GPUs'), (2, 0, '9 GPUs', 'value', '=', 9, 'GPUs'),
          (3, 0, '7 GPUs', 'value', '=', 7, 'GPUs');
        INSERT INTO event (claim_id, at, kind, actor, tag_before, tag_after, origin, detail) VALUES
          (1, '2026-11-01T00:00:00+00:00', 'imported', 'import', NULL, 'agent-reported', 'd.json', '{"record": "a"}'),
          (2, '2026-11-01T00:00:00+00:00', 'imported', 'import', NULL, 'agent-reported', 'd.json', '{"record": "b"}'),
          (3, '2026-11-01T00:00:00+00:00', 'imported', 'import', NULL, 'agent-reported', 'd.json', '{"record": "c"}'),
          (1, '2026-11-02T00:00:00+00:00', 'reread', 'ada', 'agent-reported', 'spot-checked', 'report',
           '{"source": "report", "locator": "p. 3", "quote": "8 GPUs"}'),
          (2, '2026-11-02T00:00:00+00:00', 'reread', 'ada', 'agent-reported', 'spot-checked', 'report', '{"source": "report"}'),
          (2, '2026-11-03T00:00:00+00:00', 'updated', 'import', NULL, NULL, 'd.json',
           '{"record": "b", "changes": {"figures": [["8 GPUs"], ["9 GPUs"]]}}'),
          (3, '2026-11-04T00:00:00+00:00', 'status', 'bo', NULL, NULL, NULL, '{"status": ["active", "withdrawn"], "reason": "no"}');
    """)
    con.commit()
    db.upgrade(url)
    assert claims("db", "check").exit_code == 0
    a = json.loads(claims("show", "a.read", "--format", "json").stdout)
    assert [(s["key"], s["locator"], s["added_by"]) for s in a["sources"]] == [
        ("notes", None, None),
        ("report", "p. 3", "ada"),
    ]
    assert a["tag"] == "spot-checked" and not a["reread_outdated"]
    b = json.loads(claims("show", "b.changed", "--format", "json").stdout)
    assert b["reread_outdated"]  # the figure changed after the re-read: fail closed
    exported = claims("export", "--skip-unsafe", "--format", "json")
    assert [r["key"] for r in json.loads(exported.stdout)["rows"]] == ["a.read"]


def test_an_import_that_changes_a_supersede_target_reports_it(engine, write_json, sample):
    do(engine, provenance.supersede, "widget.context", by="widget.pretrain", actor="bo")
    sample["claims"][0]["figures"] = ["3,072 H100", "25T tokens"]
    with db.session_scope(engine) as session:
        plan = store.import_files(session, [str(write_json(sample))])
    (conflict,) = [c for c in plan.conflicts if c.field == "replaces"]
    assert (conflict.key, conflict.kept, conflict.applied) == (
        "widget.pretrain",
        "widget.context",
        True,
    )
    assert "bo superseded widget.context by widget.pretrain" in conflict.why
    assert view(engine, "widget.context")["status"] == "superseded"  # the person's status stays


@pytest.mark.parametrize(
    "sql, problem",
    [
        (
            "INSERT INTO claim (key, subject, statement, tag, basis, status, rank, created_at, updated_at) "
            "VALUES ('forged.claim', 'X', 'X has 9 GPUs.', 'spot-checked', 'b', 'active', 'normal', '2026-12-01 00:00:00', "
            "'2026-12-01 00:00:00')",
            "has no history",
        ),
        # an event that names the right predecessor passes the trigger, but its own hash is not its content's
        (
            "INSERT INTO event (claim_id, at, kind, actor, tag_before, tag_after, prev_sha256, sha256) "
            "SELECT 3, '2026-12-01T00:00:00+00:00', 'reread', 'mallory', 'agent-reported', 'spot-checked', "
            "(SELECT sha256 FROM event ORDER BY id DESC LIMIT 1), 'feed'; "
            "UPDATE claim SET tag = 'spot-checked' WHERE id = 3",
            "does not match its hash",
        ),
    ],
)
def test_rows_written_past_the_tool_with_the_triggers_in_place_are_refused(
    loaded, claims, store, sql, problem
):
    run_sql(store, *sql.split("; "))
    result = claims("export", "--skip-unsafe")
    assert result.exit_code == 2 and problem in result.stderr


# --- the same guards on a real PostgreSQL server (skipped without one; .ci/run starts one) ---------

PG_REFUSED = {
    "UPDATE claim SET tag = 'spot-checked' WHERE key = 'gadget.fleet'": "tag changes only with the event",
    "UPDATE claim SET status = 'withdrawn' WHERE key = 'gadget.fleet'": "status changes only with the event",
    "UPDATE claim SET key = 'other' WHERE key = 'gadget.fleet'": "key never changes",
    "DELETE FROM claim WHERE key = 'gadget.fleet'": "never deleted",
    "UPDATE event SET tag_after = 'spot-checked'": "append-only",
    "DELETE FROM event": "append-only",
    "INSERT INTO event (claim_id, at, kind, actor, tag_after, sha256) "
    "VALUES (3, '2026-12-01', 'reread', 'mallory', 'spot-checked', 'x')": "extend the history chain",
    "UPDATE tag SET trust = 'verified' WHERE name = 'agent-reported'": "trust level never change",
    "DELETE FROM tag WHERE name = 'prior-note'": "never deleted",
    # upserts: the insert over an existing claim is refused before ON CONFLICT is reached
    "INSERT INTO claim (key, subject, statement, tag, basis, status, rank, created_at, updated_at) "
    "VALUES ('gadget.fleet', 'G', 'G.', 'spot-checked', 'b', 'active', 'normal', 't', 't') "
    "ON CONFLICT (key) DO UPDATE SET tag = EXCLUDED.tag": "claims are never replaced",
    "INSERT INTO claim (key, subject, statement, tag, basis, status, rank, created_at, updated_at) "
    "VALUES ('gadget.fleet', 'G', 'G.', 'spot-checked', 'b', 'active', 'normal', 't', 't') "
    "ON CONFLICT DO NOTHING": "claims are never replaced",
    # MERGE goes through the UPDATE and DELETE triggers
    "MERGE INTO claim USING (SELECT 'gadget.fleet' AS key) AS s ON claim.key = s.key "
    "WHEN MATCHED THEN UPDATE SET tag = 'spot-checked'": "tag changes only with the event",
    "MERGE INTO claim USING (SELECT 'gadget.fleet' AS key) AS s ON claim.key = s.key "
    "WHEN MATCHED THEN UPDATE SET status = 'withdrawn'": "status changes only with the event",
    "MERGE INTO claim USING (SELECT 'gadget.fleet' AS key) AS s ON claim.key = s.key "
    "WHEN MATCHED THEN DELETE": "never deleted",
    "INSERT INTO event SELECT * FROM event WHERE id = 3 "
    "ON CONFLICT (id) DO UPDATE SET actor = 'mallory'": "extend the history chain",
    "INSERT INTO tag (name, trust, description) VALUES ('agent-reported', 'verified', '') "
    "ON CONFLICT (name) DO UPDATE SET trust = EXCLUDED.trust": "trust level never change",
    "INSERT INTO snapshot SELECT * FROM snapshot WHERE id = 1 "
    "ON CONFLICT (id) DO UPDATE SET outcome = 'fetched'": "append-only",
    "INSERT INTO verification SELECT * FROM verification WHERE id = 1 "
    "ON CONFLICT (id) DO UPDATE SET outcome = 'confirmed'": "append-only",
}


def test_postgresql_refuses_the_same_bypasses(pg_url, claims, write_json, sample):
    from sqlalchemy import create_engine, text

    assert claims("import", write_json(sample), db=pg_url).exit_code == 0
    engine = create_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO snapshot (source_id, fetched_at, outcome) VALUES (1, '2026-11-30', 'unreachable')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO verification (claim_id, source_id, at, outcome) VALUES (1, 2, '2026-11-30', 'not-found')"
            )
        )
    for sql, message in PG_REFUSED.items():
        with engine.connect() as conn, pytest.raises(Exception, match=message):
            conn.execute(text(sql))
    # the owner can switch the triggers off; then the read path and `db check` still find the edit
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE claim DISABLE TRIGGER ALL"))
        conn.execute(text("UPDATE claim SET tag = 'spot-checked' WHERE key = 'gadget.fleet'"))
    engine.dispose()
    result = claims("export", "--skip-unsafe", db=pg_url)
    assert (
        result.exit_code == 2 and "claim gadget.fleet disagrees with its history" in result.stderr
    )
    check = claims("db", "check", db=pg_url)
    assert check.exit_code == 1 and "gadget.fleet" in check.stderr
    assert (
        "triggers: missing: claim_insert_guard, claim_follows_history" in check.stderr
    )  # switched off: missing


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE figure_number SET lo = lo * 1.5 WHERE claim_id = 2",  # a number of the index moved
        "INSERT INTO figure_number (claim_id, position, lo, hi, tier) VALUES (2, 7, 1, 2, 0)",  # a figure nobody stated
        "INSERT INTO figure_number (claim_id, position, lo, hi, tier) SELECT claim_id, position, lo, hi, tier "
        "FROM figure_number WHERE claim_id = 2",  # every number twice
    ],
)
@pytest.mark.slow
def test_db_check_names_the_first_figure_whose_trace_index_is_wrong(loaded, claims, store, edit):
    key = json.loads(claims("list", "--format", "json").stdout)[1][
        "key"
    ]  # claim 2, in import order
    run_sql(store, edit)
    result = claims("db", "check")
    assert result.exit_code == 1, result.output
    assert f"trace index: differs from the figures (first at claim {key}, figure" in result.stderr


def test_the_trace_index_follows_the_figures_and_db_check_compares_them(
    loaded, claims, store, write_json, sample
):
    sample["claims"][0]["figures"] = ["3,072 H100", "25T tokens"]
    assert claims("import", write_json(sample)).exit_code == 0
    assert (
        json.loads(claims("trace", "25T", "--format", "json").stdout)["matches"][0]["claim"]["key"]
        == "widget.pretrain"
    )
    assert (
        claims("trace", "21.5T").exit_code == 1
    )  # the old figure's numbers left the index with it
    report = {
        c["name"]: c for c in json.loads(claims("db", "check", "--format", "json").stdout)["checks"]
    }
    assert report["trace index"]["ok"]
    run_sql(store, "DELETE FROM figure_number WHERE claim_id = 1")
    result = claims("db", "check")
    assert (
        result.exit_code == 1
        and "trace index: differs from the figures (first at claim widget.pretrain" in result.stderr
    )
