"""Tag definitions in a hash chain of their own (issue 34, item 1): a tag's trust level changed outside
claims stops every read (exit 2) and fails `claims db check`; the chain rewritten with every digest
recomputed is caught by an anchor; a store of an earlier release upgrades with its tags defined."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from claimsdb import db, definitions
from claimsdb.models import Definition
from tests.conftest import DATA_FILES, importer_before_definitions, run_sql, store_digest


def defined(store: str) -> list[Definition]:
    engine = db.make_engine(db.resolve_url(store))
    try:
        with db.session_scope(engine) as session:
            return list(session.exec(select(Definition).order_by(Definition.id)))
    finally:
        engine.dispose()


def checks(result) -> dict:
    return {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def test_every_store_begins_with_the_same_definitions_and_an_import_adds_its_own(
    claims, store, write_json, sample
):
    assert claims("import", write_json(sample)).exit_code == 0
    rows = defined(store)
    seeded = [r for r in rows if r.at == definitions.SEEDED_AT]
    assert [r.name for r in seeded] == list(definitions.SEEDED)
    # the same rows in every store: their digests are fixed
    again = definitions.rows_for(
        [
            (r.name, json.loads(r.fields)["trust"], json.loads(r.fields)["description"])
            for r in seeded
        ],
        definitions.UPGRADE_ACTOR,
        definitions.SEEDED_AT,
        None,
    )
    assert [r.sha256 for r in seeded] == [r["sha256"] for r in again]
    added = rows[len(seeded) :]
    assert [(r.name, json.loads(r.fields)["trust"]) for r in added] == [
        ("note-2026-10-04", "secondary")
    ]
    assert added[0].prev_sha256 == seeded[-1].sha256 and added[0].actor != "claims db upgrade"
    found = checks(claims("db", "check", "--format", "json"))
    assert (
        found["tag definitions"]["ok"] and "5 definition(s)" in found["tag definitions"]["detail"]
    )


def test_a_trust_level_changed_outside_claims_stops_every_read(claims, store, tmp_path):
    """The issue's attack: triggers switched off, agent-reported made secondary, triggers back. Every
    agent-reported claim would pass; instead every read refuses (exit 2) and db check fails."""
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    run_sql(
        store,
        "UPDATE tag SET trust = 'secondary' WHERE name = 'agent-reported'",
        without_triggers=True,
    )
    before = store_digest(store)
    paper = tmp_path / "paper.md"
    paper.write_text("Kimi K2.5 ran over 1,000 tasks.\n", encoding="utf-8")
    for argv in (
        ("export", "--skip-unsafe"),
        ("export", "--format", "csv", "-o", str(tmp_path / "x.csv")),
        ("lint", str(paper)),
        ("list", "--trust", "secondary"),
        ("show", "rl.fleet.kimi-k25-tasks"),
        ("tags",),
    ):
        result = claims(*argv)
        said = " ".join(result.stderr.split())
        assert result.exit_code == 2, (argv, result.output)
        assert (
            "tag 'agent-reported' is secondary in the tag table but was defined unverified" in said
        )
        assert result.stdout == ""
    assert not (tmp_path / "x.csv").exists()
    assert store_digest(store) == before
    result = claims("db", "check", "--format", "json")
    assert result.exit_code == 1
    assert not checks(result)["tag definitions"]["ok"]


def test_definitions_rewritten_with_every_digest_recomputed_are_caught_by_the_anchor(
    claims, store, tmp_path, monkeypatch
):
    """Rewritten the whole way with the store's own digest code, the definitions agree with themselves
    and with the tag table: only the anchor, taken before, still knows their head."""
    monkeypatch.chdir(tmp_path)
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    assert claims("db", "anchor").exit_code == 0
    rows = defined(store)
    tags = [
        (r.name, json.loads(r.fields)["trust"], json.loads(r.fields)["description"]) for r in rows
    ]
    tags = [(n, "secondary" if n == "agent-reported" else t, d) for n, t, d in tags]
    forged = definitions.rows_for(tags, definitions.UPGRADE_ACTOR, definitions.SEEDED_AT, None)
    run_sql(
        store,
        *[
            (
                "UPDATE definition SET fields = ?, prev_sha256 = ?, sha256 = ? WHERE id = ?",
                [f["fields"], f["prev_sha256"], f["sha256"], r.id],
            )
            for r, f in zip(rows, forged)
        ],
        "UPDATE tag SET trust = 'secondary' WHERE name = 'agent-reported'",
        without_triggers=True,
    )
    found = checks(claims("db", "check", "--format", "json"))
    assert found["tag definitions"]["ok"]  # consistent with itself: nothing inside the store tells
    assert not found["recorded anchors"]["ok"]
    assert "tag definitions is not the anchored one" in found["recorded anchors"]["detail"]
    paper = tmp_path / "paper.md"
    paper.write_text("Kimi K2.5 ran over 1,000 tasks.\n", encoding="utf-8")
    linted = claims("lint", str(paper))  # ./claims.anchor, as the pre-commit hook runs it
    assert linted.exit_code == 1 and "tag definitions is not the anchored one" in " ".join(
        linted.stderr.split()
    )
    exported = claims("export", "--skip-unsafe", "--anchor", "claims.anchor")
    assert exported.exit_code == 1 and exported.stdout == ""


def test_a_store_of_an_earlier_release_upgrades_with_its_tags_defined(
    store, claims, write_json, sample, monkeypatch
):
    """A store written at schema 0013 (before definitions), with a tag its import added, upgrades: the
    four seeded tags are defined as in every store, the added one after them, by the upgrade."""
    from claimsdb import store as store_

    url = db.resolve_url(store)
    db.upgrade(url, "0013")
    engine = db.make_engine(url)
    with monkeypatch.context() as patched, db.session_scope(engine) as session:
        importer_before_definitions(patched)
        store_.import_files(session, [str(write_json(sample))])
    engine.dispose()
    assert claims("list").exit_code == 2  # an old schema is refused until upgraded
    assert claims("db", "upgrade").exit_code == 0
    rows = defined(store)
    assert [r.name for r in rows] == [*definitions.SEEDED, "note-2026-10-04"]
    assert rows[-1].actor == definitions.UPGRADE_ACTOR and rows[-1].at != definitions.SEEDED_AT
    assert claims("db", "check").exit_code == 0
    assert claims("export", "--skip-unsafe").exit_code == 0


def test_definitions_are_append_only(claims, store, write_json, sample):
    assert claims("import", write_json(sample)).exit_code == 0
    before = store_digest(store)
    for sql in ("UPDATE definition SET actor = 'x'", "DELETE FROM definition"):
        with pytest.raises(Exception, match="the definitions are append-only"):
            run_sql(store, sql)
    assert store_digest(store) == before


def test_a_later_definition_does_not_change_a_tags_trust(claims, store, tmp_path):
    """A definition appended with a correct digest (as a PostgreSQL writer may insert one) that gives
    agent-reported another trust level changes nothing: a tag's trust is what it was first defined."""
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    head = defined(store)[-1].sha256
    forged = definitions.rows_for(
        [("agent-reported", "secondary", "re-read by nobody")],
        "import",
        "2026-12-05T00:00:00Z",
        head,
    )[0]
    run_sql(
        store,
        (
            "INSERT INTO definition (at, kind, name, fields, actor, prev_sha256, sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [forged[k] for k in ("at", "kind", "name", "fields", "actor", "prev_sha256", "sha256")],
        ),
        "UPDATE tag SET trust = 'secondary' WHERE name = 'agent-reported'",
        without_triggers=True,
    )
    result = claims("export", "--skip-unsafe")
    assert result.exit_code == 2 and "was defined unverified" in " ".join(result.stderr.split())
