"""Tag definitions in a hash chain of their own (issue 34, item 1): a tag's trust level changed outside
claims stops every read (exit 2) and fails `claims db check`; the chain rewritten with every digest
recomputed is caught by an anchor; a store of an earlier release upgrades with its tags defined."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from claimsdb import db, definitions
from claimsdb.models import Definition
from tests.conftest import DATA_FILES, run_sql, store_digest, store_of_release


def defined(store: str) -> list[Definition]:
    engine = db.make_engine(db.resolve_url(store))
    try:
        with db.session_scope(engine) as session:
            return list(session.exec(select(Definition).order_by(Definition.id)))
    finally:
        engine.dispose()


def rechained(rows: list[Definition], kind: str, name: str, changed: dict) -> list[tuple]:
    """The SQL that rewrites the whole chain with `changed` in the definitions of (kind, name), every
    digest recomputed with the store's own code: a chain that agrees with itself."""
    out, prev = [], None
    for r in rows:
        fields = json.loads(r.fields)
        if (r.kind, r.name) == (kind, name):
            fields.update(changed)
        encoded = json.dumps(fields, sort_keys=True)
        sha = definitions.row_digest(r.kind, r.name, encoded, r.actor, r.at, prev)
        out.append(
            (
                "UPDATE definition SET fields = ?, prev_sha256 = ?, sha256 = ? WHERE id = ?",
                [encoded, prev, sha, r.id],
            )
        )
        prev = sha
    return out


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
    assert [(r.name, json.loads(r.fields)["trust"]) for r in added if r.kind == "tag"] == [
        ("note-2026-10-04", "secondary")
    ]
    assert added[0].prev_sha256 == seeded[-1].sha256 and added[0].actor != "claims db upgrade"
    # each source the import registered, with its registered fields
    sources = {r.name: json.loads(r.fields) for r in added if r.kind == "source"}
    assert set(sources) == {"lab-notes", "widget-report"}
    assert sources["widget-report"]["url"] == "https://example.org/widget"
    assert sources["widget-report"]["cite_key"] == "widget2026"
    found = checks(claims("db", "check", "--format", "json"))
    assert found["tag definitions"]["ok"]
    assert f"{len(rows)} definition(s)" in found["tag definitions"]["detail"]
    assert found["sources, quantities and aliases"]["ok"]


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
    run_sql(
        store,
        *rechained(defined(store), "tag", "agent-reported", {"trust": "secondary"}),
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

    store_of_release(store, "0013", [write_json(sample)], monkeypatch)
    assert claims("list").exit_code == 2  # an old schema is refused until upgraded
    assert claims("db", "upgrade").exit_code == 0
    rows = defined(store)
    assert [(r.kind, r.name) for r in rows] == [
        *[("tag", n) for n in definitions.SEEDED],
        ("tag", "note-2026-10-04"),
        ("source", "lab-notes"),
        ("source", "widget-report"),
    ]
    assert all(r.actor == definitions.UPGRADE_ACTOR for r in rows)
    assert rows[-1].at != definitions.SEEDED_AT
    assert json.loads(rows[-1].fields)["url"] == "https://example.org/widget"
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


QUANTITY = "kimi.checkpoint-engine.update-1t"
ON_QUANTITY = "pipelines.kimi-k2-k3.post-train"  # a claim on QUANTITY, citing SOURCE
SOURCE = "kimi-k2-k3-report"


def test_a_source_url_changed_outside_claims_blocks_the_claims_citing_it(claims, store, tmp_path):
    """The issue's attack on a source: triggers off, its URL repointed. Every claim citing it disagrees
    with its history (export exits 2, the BibTeX never prints the new URL; show marks it TAMPERED, as
    it does a claim whose own row was changed), what lists sources refuses, and db check names it."""
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    run_sql(
        store,
        ("UPDATE source SET url = ? WHERE key = ?", ["https://evil.example/", SOURCE]),
        without_triggers=True,
    )
    before = store_digest(store)
    why = f"its source {SOURCE}'s url was changed outside claims"
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{other, title = {Other}, url = {https://example.org/other}}\n")
    for argv in (
        ("sources", "import", str(bib)),  # no import takes a changed row as registered
        ("export", "--format", "csv", "-o", str(tmp_path / "x.csv")),
        ("export", "--format", "bibtex", "-o", str(tmp_path / "x.bib")),
        ("export", "--format", "bibtex"),
        ("sources",),
        ("sources", "show", SOURCE),
    ):
        result = claims(*argv)
        assert result.exit_code == 2, (argv, result.output)
        assert "evil.example" not in result.stdout
        assert SOURCE in " ".join(result.stderr.split())
    shown = claims("show", ON_QUANTITY)
    assert shown.exit_code == 0 and f"TAMPERED: {why}" in " ".join(shown.stdout.split())
    assert not (tmp_path / "x.csv").exists() and not (tmp_path / "x.bib").exists()
    assert store_digest(store) == before
    result = claims("db", "check", "--format", "json")
    assert result.exit_code == 1
    found = checks(result)
    assert not found["sources, quantities and aliases"]["ok"]
    assert (
        f"source {SOURCE}'s url was changed outside claims"
        in (found["sources, quantities and aliases"]["detail"])
    )
    assert not found["claims agree with their history"]["ok"]


def test_a_quantity_changed_outside_claims_blocks_the_claims_on_it(claims, store, tmp_path):
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    assert claims("show", ON_QUANTITY).exit_code == 0
    run_sql(
        store,
        ("UPDATE quantity SET subject = ?, measure = ? WHERE key = ?", ["X", "Y", QUANTITY]),
        without_triggers=True,
    )
    shown = claims("show", ON_QUANTITY)
    assert f"TAMPERED: its quantity {QUANTITY}'s subject, measure was changed" in " ".join(
        shown.stdout.split()
    )
    for argv in (
        ("export", "--format", "csv", "-o", str(tmp_path / "x.csv")),
        ("values", QUANTITY),
    ):
        result = claims(*argv)
        assert result.exit_code == 2, (argv, result.output)
        assert f"quantity {QUANTITY}'s subject, measure was changed outside claims" in " ".join(
            result.stderr.split()
        )
    result = claims("db", "check", "--format", "json")
    assert result.exit_code == 1
    assert QUANTITY in checks(result)["sources, quantities and aliases"]["detail"]


def test_a_source_rewritten_with_its_definitions_is_caught_by_the_anchor(
    claims, store, tmp_path, monkeypatch
):
    """The source's URL and its definitions rewritten the whole way, every digest recomputed: the store
    agrees with itself; the anchor taken before catches it in db check, export and lint."""
    monkeypatch.chdir(tmp_path)
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    assert claims("db", "anchor").exit_code == 0
    forged = {"url": "https://evil.example/"}
    run_sql(
        store,
        *rechained(defined(store), "source", SOURCE, forged),
        ("UPDATE source SET url = ? WHERE key = ?", [forged["url"], SOURCE]),
        without_triggers=True,
    )
    found = checks(claims("db", "check", "--format", "json"))
    assert found["tag definitions"]["ok"] and found["sources, quantities and aliases"]["ok"]
    assert "tag definitions is not the anchored one" in found["recorded anchors"]["detail"]
    checked = claims("db", "check", "--anchor", "claims.anchor")
    assert checked.exit_code == 1
    paper = tmp_path / "paper.md"
    paper.write_text("Kimi K2 / K3 updates a 1T model in under 30 s.\n", encoding="utf-8")
    linted = claims("lint", str(paper))  # ./claims.anchor
    assert linted.exit_code == 1
    assert "tag definitions is not the anchored one" in " ".join(linted.stderr.split())
    exported = claims("export", "--format", "bibtex", "--anchor", "claims.anchor")
    assert exported.exit_code == 1 and "evil.example" not in exported.stdout


def test_a_store_of_an_earlier_release_upgrades_with_its_sources_and_quantities_defined(
    store, claims, monkeypatch
):

    store_of_release(store, "0013", DATA_FILES, monkeypatch)
    assert claims("db", "upgrade").exit_code == 0
    rows = defined(store)
    kinds = {(r.kind, r.name) for r in rows}
    assert ("quantity", QUANTITY) in kinds and ("source", SOURCE) in kinds
    assert claims("db", "check").exit_code == 0
    run_sql(
        store,
        ("UPDATE quantity SET measure = ? WHERE key = ?", ["Y", QUANTITY]),
        without_triggers=True,
    )
    assert claims("values", QUANTITY).exit_code == 2  # the upgrade's definitions are held


ALIASED = "pipelines.glm5.data"  # secondary, paper-safe, no aliases: "GLM-5 ... 27T tokens"
DEFINED_ALIASES = "pipelines.marin.open-athena.tokens"  # aliases ["Open Athena"] in the data file


def lint_json(claims, paper) -> tuple[int, dict]:
    result = claims("lint", str(paper), "--format", "json")
    return result.exit_code, json.loads(result.stdout) if result.exit_code < 2 else {}


def test_an_alias_set_outside_claims_stops_lint_and_blocks_its_claim(claims, store, tmp_path):
    """The issue's case 4: an SQL edit gives a paper-safe claim a name the manuscript uses, and lint's
    verdict on a figure turns from untracked to passed. Lint refuses instead (exit 2, naming the claim),
    an export stops at the claim (as at any claim that disagrees with its history), and db check
    names it."""
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    paper = tmp_path / "paper.md"
    paper.write_text("Zorblat was trained on 27T tokens of data.\n", encoding="utf-8")
    code, found = lint_json(claims, paper)
    assert code == 0 and found["untracked"] == 1 and found["passed"] == 0
    run_sql(store, ("UPDATE claim SET aliases = ? WHERE key = ?", ["Zorblat", ALIASED]))
    before = store_digest(store)
    linted = claims("lint", str(paper))
    said = " ".join(linted.stderr.split())
    assert linted.exit_code == 2 and linted.stdout == ""
    assert f"claim {ALIASED}: aliases have no definition: they were set outside claims" in said
    shown = json.loads(claims("show", ALIASED, "--format", "json").stdout)
    assert "its aliases have no definition: they were set outside claims" in shown["integrity"]
    exported = claims("export", "--skip-unsafe", "--format", "csv")
    assert exported.exit_code == 2 and exported.stdout == ""
    assert f"claim {ALIASED} disagrees with its history" in " ".join(exported.stderr.split())
    result = claims("db", "check", "--format", "json")
    assert result.exit_code == 1
    assert ALIASED in checks(result)["sources, quantities and aliases"]["detail"]
    assert store_digest(store) == before


@pytest.mark.parametrize("edit", ["Open Athena 2", None])
def test_aliases_changed_or_removed_outside_claims_are_caught(claims, store, tmp_path, edit):
    """A claim whose aliases were defined: other names, or none, are caught both ways (a view sees the
    names it prints; lint and db check see a definition whose names are gone)."""
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    run_sql(store, ("UPDATE claim SET aliases = ? WHERE key = ?", [edit, DEFINED_ALIASES]))
    paper = tmp_path / "paper.md"
    paper.write_text("Open Athena trained on many tokens.\n", encoding="utf-8")
    linted = claims("lint", str(paper))
    assert linted.exit_code == 2
    assert f"claim {DEFINED_ALIASES}: aliases were changed outside claims" in " ".join(
        linted.stderr.split()
    )
    shown = json.loads(claims("show", DEFINED_ALIASES, "--format", "json").stdout)
    assert ("its aliases were changed outside claims" in shown["integrity"]) == (edit is not None)
    result = claims("db", "check", "--format", "json")
    assert result.exit_code == 1
    assert DEFINED_ALIASES in checks(result)["sources, quantities and aliases"]["detail"]


def test_an_import_that_changes_aliases_defines_them(claims, store, write_json, sample):
    """Aliases set by an import are defined; a later import that changes them appends the new names."""
    record = sample["claims"][2]  # agent-reported: no person's re-read names its aliases
    record["aliases"] = ["Gadget"]
    assert claims("import", write_json(sample)).exit_code == 0
    record["aliases"] = ["Gadget", "Gizmo"]
    imported = claims("import", write_json(sample))
    assert imported.exit_code == 0, imported.output
    held = [json.loads(r.fields) for r in defined(store) if r.kind == "aliases"]
    assert held == [["Gadget"], ["Gadget", "Gizmo"]]
    assert claims("db", "check").exit_code == 0


def test_a_store_of_the_release_before_alias_definitions_upgrades_with_them(
    store, claims, monkeypatch
):
    """A store at schema 0015 (sources and quantities defined, aliases not) upgrades: each claim with
    aliases is defined by the upgrade, the chain links on from the rows it had, and db check passes."""
    store_of_release(store, "0015", DATA_FILES, monkeypatch)
    before = defined(store)
    assert not [r for r in before if r.kind == "aliases"]
    assert claims("db", "upgrade").exit_code == 0
    rows = defined(store)
    assert [(r.id, r.sha256) for r in rows[: len(before)]] == [(r.id, r.sha256) for r in before]
    added = rows[len(before) :]
    assert {r.name: json.loads(r.fields) for r in added}[DEFINED_ALIASES] == ["Open Athena"]
    with_aliases = [
        c for f in DATA_FILES for c in json.loads(f.read_text())["claims"] if c.get("aliases")
    ]
    assert {r.kind for r in added} == {"aliases"} and len(added) == len(with_aliases) == 23
    assert added[0].prev_sha256 == before[-1].sha256
    assert all(r.actor == definitions.UPGRADE_ACTOR for r in added)
    checked = claims("db", "check")
    assert checked.exit_code == 0, checked.output
    run_sql(store, ("UPDATE claim SET aliases = ? WHERE key = ?", ["X", DEFINED_ALIASES]))
    assert claims("db", "check").exit_code == 1


def test_a_source_repointed_with_a_matching_definition_voids_the_reread_made_on_it(
    claims, store, tmp_path
):
    """What a PostgreSQL writer may do (update a source row, append its definition with a correct
    digest): the store agrees with itself, but a re-read made on the old URL no longer vouches for a
    claim whose source now points elsewhere, so the claim leaves the paper-safe set."""
    key, source = "rl.weight-sync.kimi-checkpoint-engine", "checkpoint-engine-readme"
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    assert not json.loads(claims("show", key, "--format", "json").stdout)["reread_outdated"]
    assert key in claims("export", "--skip-unsafe", "--format", "csv").stdout
    rows = defined(store)
    old = next(
        json.loads(r.fields) for r in reversed(rows) if (r.kind, r.name) == ("source", source)
    )
    moved = {**old, "url": "https://evil.example/readme"}
    fields = json.dumps(moved, sort_keys=True)
    row = definitions.chained(
        "source", [(source, fields)], "import", "2026-12-05T00:00:00Z", rows[-1].sha256
    )[0]
    run_sql(
        store,
        ("UPDATE source SET url = ? WHERE key = ?", [moved["url"], source]),
        (
            "INSERT INTO definition (at, kind, name, fields, actor, prev_sha256, sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [row[k] for k in ("at", "kind", "name", "fields", "actor", "prev_sha256", "sha256")],
        ),
    )
    assert claims("db", "check").exit_code == 0  # consistent with itself
    shown = json.loads(claims("show", key, "--format", "json").stdout)
    assert shown["reread_outdated"]
    assert shown["outdated_reason"].startswith("the page of the re-read by ")
    assert (
        f"source {source} was {old['url']} then, https://evil.example/readme now"
        in (shown["outdated_reason"])
    )
    exported = claims("export", "--skip-unsafe", "--format", "csv")
    assert exported.exit_code == 0 and key not in exported.stdout
