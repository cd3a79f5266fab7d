"""W3C PROV export, read back with the `prov` package: the relations, not only that it parses."""

from __future__ import annotations

import json

import pytest
from prov.model import (
    PROV_TYPE,
    ProvActivity,
    ProvAgent,
    ProvAssociation,
    ProvAttribution,
    ProvDelegation,
    ProvDerivation,
    ProvDocument,
    ProvEntity,
    ProvGeneration,
    ProvSpecialization,
    ProvUsage,
)

NS = "urn:claimsdb:"


def load(text: str) -> ProvDocument:
    return ProvDocument.deserialize(content=text, format="json")


def ident(record) -> str:
    return record.identifier.uri.removeprefix(NS) if record.identifier else None


def ident_of(qname) -> str:
    return qname.uri.removeprefix(NS)


def relations(doc: ProvDocument, cls) -> list[dict]:
    out = []
    for r in doc.get_records(cls):
        out.append(
            {
                k.localpart: (v.uri.removeprefix(NS) if hasattr(v, "uri") else v)
                for k, v in r.formal_attributes
                if v is not None
            }
        )
    return out


def attrs(record) -> dict:
    return {k.localpart: v for k, v in record.attributes}


@pytest.fixture
def history_doc(loaded, claims, tmp_path, page):
    assert (
        claims(
            "sources",
            "add",
            "gadget-paper",
            "--url",
            "https://example.org/gadget",
            "--kind",
            "paper",
            "--title",
            "Gadget paper",
        ).exit_code
        == 0
    )
    assert (
        claims(
            "reread",
            "gadget.fleet",
            "--source",
            "gadget-paper",
            "--locator",
            "§4",
            "--quote",
            "40–60K",
            "--copy",
            page("## 4 Fleet", "Gadget runs 40–60K sandboxes at once."),
            "--by",
            "Ada Lovelace",
            "--yes",
        ).exit_code
        == 0
    )
    assert (
        claims(
            "retag",
            "gadget.fleet",
            "agent-reported",
            "--reason",
            "the page was a preprint",
            "--by",
            "Bo",
        ).exit_code
        == 0
    )
    result = claims("history", "gadget.fleet", "--format", "prov")
    assert result.exit_code == 0, result.output
    return load(result.stdout)


@pytest.mark.slow
def test_versions_are_generated_by_their_events_and_revise_each_other(history_doc):
    doc = history_doc
    versions = sorted(
        ident(e) for e in doc.get_records(ProvEntity) if ident(e).startswith("claim/gadget.fleet/v")
    )
    assert versions == ["claim/gadget.fleet/v1", "claim/gadget.fleet/v2", "claim/gadget.fleet/v3"]
    tags = {ident(e): attrs(e)["tag"] for e in doc.get_records(ProvEntity) if ident(e) in versions}
    assert tags == {
        "claim/gadget.fleet/v1": "agent-reported",
        "claim/gadget.fleet/v2": "spot-checked",
        "claim/gadget.fleet/v3": "agent-reported",
    }
    specials = {
        (r["specificEntity"], r["generalEntity"]) for r in relations(doc, ProvSpecialization)
    }
    assert {(v, "claim/gadget.fleet") for v in versions} <= specials
    generated = {r["entity"]: r["activity"] for r in relations(doc, ProvGeneration)}
    kinds = {ident(a): str(attrs(a)[PROV_TYPE.localpart]) for a in doc.get_records(ProvActivity)}
    assert [kinds[generated[v]].split(":")[-1] for v in versions] == [
        "imported",
        "reread",
        "retagged",
    ]
    revisions = {
        (
            r.get_attribute(PROV_TYPE).pop().localpart,
            r.formal_attributes[0][1],
            r.formal_attributes[1][1],
        )
        for r in doc.get_records(ProvDerivation)
        if r.get_attribute(PROV_TYPE)
    }
    revisions = {(kind, ident_of(a), ident_of(b)) for kind, a, b in revisions}
    assert ("Revision", "claim/gadget.fleet/v2", "claim/gadget.fleet/v1") in revisions
    assert ("Revision", "claim/gadget.fleet/v3", "claim/gadget.fleet/v2") in revisions


@pytest.mark.slow
def test_people_the_tool_and_the_research_agent_are_agents(history_doc):
    doc = history_doc
    agents = {ident(a): attrs(a).get("label") for a in doc.get_records(ProvAgent)}
    assert agents["person/ada-lovelace"] == "Ada Lovelace" and agents["person/bo"] == "Bo"
    assert "tool/claimsdb-0.1.0" in agents and "agent/ai-research-agent" in agents
    generated = {r["entity"]: r["activity"] for r in relations(doc, ProvGeneration)}
    reread = generated["claim/gadget.fleet/v2"]
    associated = {(r["activity"], r["agent"]) for r in relations(doc, ProvAssociation)}
    assert (reread, "person/ada-lovelace") in associated and (
        reread,
        "tool/claimsdb-0.1.0",
    ) in associated
    assert (generated["claim/gadget.fleet/v1"], "tool/claimsdb-0.1.0") in associated
    delegations = {(r["delegate"], r["responsible"]) for r in relations(doc, ProvDelegation)}
    assert ("tool/claimsdb-0.1.0", "person/ada-lovelace") in delegations
    attributed = {(r["entity"], r["agent"]) for r in relations(doc, ProvAttribution)}
    assert ("claim/gadget.fleet/v1", "agent/ai-research-agent") in attributed


@pytest.mark.slow
def test_the_reread_used_the_page_and_the_version_derives_from_it(history_doc):
    doc = history_doc
    generated = {r["entity"]: r["activity"] for r in relations(doc, ProvGeneration)}
    reread = generated["claim/gadget.fleet/v2"]
    used = {(r["activity"], r["entity"]) for r in relations(doc, ProvUsage)}
    assert (reread, "source/gadget-paper") in used and (reread, "claim/gadget.fleet/v1") in used
    primary = [
        r
        for r in relations(doc, ProvDerivation)
        if r["generatedEntity"] == "claim/gadget.fleet/v2"
        and r["usedEntity"] == "source/gadget-paper"
    ]
    assert primary
    page = next(e for e in doc.get_records(ProvEntity) if ident(e) == "source/gadget-paper")
    assert str(attrs(page)["location"]) == "https://example.org/gadget"


@pytest.mark.slow
def test_export_as_prov_marks_each_claim_and_carries_the_manifest(loaded, claims):
    result = claims("export", "--format", "prov")
    assert result.exit_code == 0, result.output  # guarded: every selected claim, each marked
    doc = load(result.stdout)
    claims_ = {
        ident(e): attrs(e)
        for e in doc.get_records(ProvEntity)
        if ident(e).count("/") == 1 and ident(e).startswith("claim/")
    }
    assert {k: v["paper_safe"] for k, v in claims_.items()} == {
        "claim/widget.pretrain": True,
        "claim/widget.context": True,
        "claim/gadget.fleet": False,
    }
    export = next(e for e in doc.get_records(ProvEntity) if ident(e).startswith("export/"))
    manifest = attrs(export)
    assert manifest["mode"] == "guarded" and len(manifest["history_head"]) == 64
    derived = {
        r["usedEntity"]
        for r in relations(doc, ProvDerivation)
        if r["generatedEntity"] == ident(export)
    }
    assert derived == set(claims_)
    skipped = load(claims("export", "--format", "prov", "--skip-unsafe").stdout)
    assert "claim/gadget.fleet" not in {ident(e) for e in skipped.get_records(ProvEntity)}


@pytest.mark.slow
def test_a_verification_uses_the_snapshot_of_the_page(loaded, claims, tmp_path, monkeypatch):
    from tests.httpserver import LocalHTTPServer

    monkeypatch.setenv("CLAIMS_VERIFY_ALLOW_LOCAL", "1")  # the test server is on 127.0.0.1
    with LocalHTTPServer() as server:
        url = server.add(
            "/w.html", b"<p>Widget-7 was trained on 3,072 H100 GPUs for 21.5T tokens.</p>"
        )
        (tmp_path / "d.json").write_text(
            json.dumps(
                {
                    "sources": [
                        {"key": "widget-mirror", "title": "Mirror", "kind": "report", "url": url}
                    ]
                }
            ),
            encoding="utf-8",
        )
        assert claims("import", tmp_path / "d.json").exit_code == 0
        assert (
            claims(
                "reread",
                "widget.pretrain",
                "--source",
                "widget-mirror",
                "--locator",
                "§3.1",
                "--quote",
                "3,072 H100 GPUs",
                "--by",
                "Ada",
                "--yes",
            ).exit_code
            == 0
        )
        assert (
            claims(
                "verify",
                "widget.pretrain",
                "--source",
                "widget-mirror",
                "--sources-dir",
                tmp_path / "s",
            ).exit_code
            == 0
        )
    doc = load(claims("history", "widget.pretrain", "--format", "prov").stdout)
    checks = [a for a in doc.get_records(ProvActivity) if ident(a).startswith("verification/")]
    assert [attrs(a)["outcome"] for a in checks] == ["confirmed"]
    used = {r["entity"] for r in relations(doc, ProvUsage) if r["activity"] == ident(checks[0])}
    snapshot = next(u for u in used if u.startswith("snapshot/"))
    assert "claim/widget.pretrain/v3" in used  # v2 is the data file's re-read, v3 Ada's
    assert (snapshot, "source/widget-mirror") in {
        (r["specificEntity"], r["generalEntity"]) for r in relations(doc, ProvSpecialization)
    }
