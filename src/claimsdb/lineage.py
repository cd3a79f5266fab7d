"""W3C PROV documents (PROV-JSON) of claims and their histories, for `claims history --format prov`
and `claims export --format prov`.

The mapping:
- entities: each claim (`claims:claim/KEY`), each version of it (the state after each event,
  `claims:claim/KEY/vN`, a specialization of the claim and a revision of the version before),
  each source (`claims:source/KEY`), each data file an import read, and each snapshot of a source;
- activities: each event (import, update, re-read, retag, status change, the upgrade's seal) and each
  verification;
- agents: the people who recorded events, the tool (a software agent acting for them), and, for
  agent-reported claims, the AI research agent that reported the figure: the MCP client that added it
  through `claims mcp` (a software agent acting on behalf of the person who started the server, or
  saying that nobody was named), else a generic one.
Built by hand from the store (no run-time dependency); tests read it back with the `prov` package.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import __version__
from claimsdb.models import Claim, Event, Snapshot, Source, Verification
from claimsdb.queries import claim_views
from claimsdb.trust.agents import SoftwareAgent
from claimsdb.trust.identity import TOOL_ACTOR
from claimsdb.trust.rule import Policy
from claimsdb.views import ClaimView

NAMESPACE = "urn:claimsdb:"
TOOL = f"claims:tool/claimsdb-{__version__}"
RESEARCH_AGENT = "claims:agent/ai-research-agent"
AGENT_REPORTED = "agent-reported"
IMPORT_ACTOR = TOOL_ACTOR  # the tool, never a person (trust.identity.person_name refuses it)
SEALED = "sealed"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-") or "unknown"


class _Doc:
    """A PROV-JSON document being built: records by type, relations with generated ids."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] = {"prefix": {"claims": NAMESPACE}}
        self._n = 0

    def record(self, kind: str, ident: str, attrs: dict[str, Any] | None = None) -> str:
        self.doc.setdefault(kind, {}).setdefault(ident, {}).update(
            {k: v for k, v in (attrs or {}).items() if v is not None}
        )
        return ident

    def relation(self, kind: str, attrs: dict[str, Any]) -> None:
        self._n += 1
        self.doc.setdefault(kind, {})[f"_:{kind[:3]}{self._n}"] = {
            k: v for k, v in attrs.items() if v is not None
        }


def _time(value: str) -> dict[str, str]:
    return {"$": value, "type": "xsd:dateTime"}


def _qn(name: str) -> dict[str, str]:
    """A qualified name as an attribute value (prov:type prov:Person, claims:Claim...)."""
    return {"$": name, "type": "prov:QUALIFIED_NAME"}


def _agent(doc: _Doc, actor: str) -> str:
    if actor == IMPORT_ACTOR:
        return TOOL
    return doc.record(
        "agent",
        f"claims:person/{_slug(actor)}",
        {"prov:type": _qn("prov:Person"), "prov:label": actor},
    )


def _decoded(detail: str | None) -> Any:
    try:
        return json.loads(detail) if detail else None
    except (
        ValueError
    ):  # not JSON: `claims db check` reports the event; nothing here to draw from it
        return None


def _software_agent(doc: _Doc, actor: str, agent: SoftwareAgent) -> str:
    """The software agent an agent door recorded (an MCP client), with what it said of itself; the person
    it acted for is a delegation of each of its activities, and when nobody was named the record says so."""
    return doc.record(
        "agent",
        f"claims:agent/{_slug(actor)}",
        {
            "prov:type": _qn("prov:SoftwareAgent"),
            "prov:label": actor,
            "claims:protocol": agent.protocol,
            "claims:client": agent.client,
            "claims:client_version": agent.client_version,
            "claims:name": agent.name,
            "claims:on_behalf_of": agent.person
            or "nobody named (no --by, and no reader set where the server started)",
        },
    )


def document(
    session: Session, claims: list[Claim], *, policy: Policy | None = None
) -> dict[str, Any]:
    """The PROV-JSON document of these claims: their versions, sources, snapshots and who did what."""
    policy = policy or Policy()
    doc = _Doc()
    doc.record(
        "agent",
        TOOL,
        {"prov:type": _qn("prov:SoftwareAgent"), "prov:label": f"claimsdb {__version__}"},
    )
    views = {v.key: v for v in claim_views(session, [c.id for c in claims], events=None)}
    ids = [c.id for c in claims]
    events: dict[int, list[Event]] = {}
    for e in session.scalars(select(Event).where(Event.claim_id.in_(ids)).order_by(Event.id)):
        events.setdefault(e.claim_id, []).append(e)
    source_rows = {s.key: s for s in session.scalars(select(Source))}
    source_entity = functools.partial(_source_entity, doc, source_rows)
    for claim in claims:
        general = _claim_entity(doc, views[claim.key], policy, source_entity)
        tag = status = None
        previous: str | None = None
        versions: list[tuple[str, str]] = []  # (time, version id)
        for n, e in enumerate(events.get(claim.id, []), start=1):
            tag = e.tag_after or tag
            status = e.status_after or status
            activity = _activity(doc, e)
            version = doc.record(
                "entity",
                f"claims:claim/{claim.key}/v{n}",
                {
                    "prov:type": _qn("claims:ClaimVersion"),
                    "claims:tag": tag,
                    "claims:status": status,
                    "claims:content_sha256": e.content_sha256,
                },
            )
            doc.relation(
                "specializationOf", {"prov:specificEntity": version, "prov:generalEntity": general}
            )
            doc.relation(
                "wasGeneratedBy",
                {"prov:entity": version, "prov:activity": activity, "prov:time": _time(e.at)},
            )
            _revision(doc, e, activity, version, previous, source_rows, source_entity)
            versions.append((e.at, version))
            previous = version
        _verifications(session, doc, claim, versions, source_rows, source_entity)
    return doc.doc


def _source_entity(doc: _Doc, source_rows: dict[str, Source], key: str) -> str:
    s = source_rows[key]
    return doc.record(
        "entity",
        f"claims:source/{key}",
        {
            "prov:type": _qn("claims:Source"),
            "prov:label": s.title,
            "claims:kind": s.kind,
            "prov:location": {"$": s.url, "type": "xsd:anyURI"} if s.url else s.path,
        },
    )


def _claim_entity(
    doc: _Doc, view: ClaimView, policy: Policy, source_entity: Callable[[str], str]
) -> str:
    """The claim as it stands (the general entity its versions specialise), derived from its sources."""
    general = doc.record(
        "entity",
        f"claims:claim/{view.key}",
        {
            "prov:type": _qn("claims:Claim"),
            "prov:label": view.statement,
            "claims:subject": view.subject,
            "claims:tag": view.tag,
            "claims:trust": view.trust,
            "claims:status": view.status,
            "claims:figures": " | ".join(f["raw"] for f in view.figures) or None,
            "claims:paper_safe": not policy.blockers(view),
        },
    )
    for s in view.sources:
        doc.relation(
            "wasDerivedFrom",
            {
                "prov:generatedEntity": general,
                "prov:usedEntity": source_entity(s["key"]),
                "prov:type": _qn("prov:PrimarySource") if s["kind"] != "note" else None,
                "claims:locator": s["locator"],
                "claims:quote": s["quote"],
            },
        )
    return general


def _activity(doc: _Doc, e: Event) -> str:
    return doc.record(
        "activity",
        f"claims:event/{e.sha256[:20]}",
        {
            "prov:type": _qn(f"claims:{e.kind}"),
            "prov:startTime": _time(e.at),
            "prov:endTime": _time(e.at),
            "claims:sha256": e.sha256,
            "claims:origin": e.origin,
            "claims:detail": e.detail,
        },
    )


def _revision(
    doc: _Doc,
    e: Event,
    activity: str,
    version: str,
    previous: str | None,
    source_rows: dict[str, Source],
    source_entity: Callable[[str], str],
) -> None:
    """Who made this version (the event's agents), what it revised, and what it was read from."""
    reporter = SoftwareAgent.of_detail(_decoded(e.detail)) if e.kind != SEALED else None
    agent = _associated(doc, e, activity, reporter)
    if previous is not None:
        doc.relation("used", {"prov:activity": activity, "prov:entity": previous})
        doc.relation(
            "wasDerivedFrom",
            {
                "prov:generatedEntity": version,
                "prov:usedEntity": previous,
                "prov:activity": activity,
                "prov:type": _qn("prov:Revision"),
            },
        )
    if e.kind in ("imported", "updated") and reporter is not None:  # reported, not read from a file
        doc.relation("wasAttributedTo", {"prov:entity": version, "prov:agent": agent})
    elif e.kind in ("imported", "updated") and e.origin:
        _read_from_file(doc, e, activity, version)
    if e.kind == "reread" and e.origin in source_rows:
        _reread_from(doc, e, activity, version, source_entity(e.origin))


def _associated(doc: _Doc, e: Event, activity: str, reporter: SoftwareAgent | None) -> str:
    """The agent of the event's activity (with the tool, which acts on its behalf)."""
    if reporter is not None:  # an MCP client, acting for the person who started the server
        agent = _software_agent(doc, e.actor, reporter)
        if reporter.person is not None:
            doc.relation(
                "actedOnBehalfOf",
                {
                    "prov:delegate": agent,
                    "prov:activity": activity,
                    "prov:responsible": _agent(doc, reporter.person),
                },
            )
    else:
        agent = (
            TOOL if e.kind == SEALED else _agent(doc, e.actor)
        )  # the upgrade's seal is the tool's own
    doc.relation("wasAssociatedWith", {"prov:activity": activity, "prov:agent": agent})
    if agent != TOOL:
        doc.relation("wasAssociatedWith", {"prov:activity": activity, "prov:agent": TOOL})
        doc.relation(
            "actedOnBehalfOf",
            {"prov:delegate": TOOL, "prov:responsible": agent, "prov:activity": activity},
        )
    return agent


def _read_from_file(doc: _Doc, e: Event, activity: str, version: str) -> None:
    datafile = doc.record(
        "entity",
        f"claims:file/{_slug(e.origin)}",
        {"prov:type": _qn("claims:DataFile"), "prov:label": e.origin},
    )
    doc.relation("used", {"prov:activity": activity, "prov:entity": datafile})
    if e.tag_after == AGENT_REPORTED:
        doc.record(
            "agent",
            RESEARCH_AGENT,
            {
                "prov:type": _qn("prov:SoftwareAgent"),
                "prov:label": "AI research agent (tag agent-reported)",
            },
        )
        doc.relation("wasAttributedTo", {"prov:entity": version, "prov:agent": RESEARCH_AGENT})


def _reread_from(doc: _Doc, e: Event, activity: str, version: str, page: str) -> None:
    detail = json.loads(e.detail) if e.detail else {}
    doc.relation(
        "used",
        {"prov:activity": activity, "prov:entity": page, "prov:time": _time(e.at)},
    )
    doc.relation(
        "wasDerivedFrom",
        {
            "prov:generatedEntity": version,
            "prov:usedEntity": page,
            "prov:activity": activity,
            "prov:type": _qn("prov:PrimarySource"),
            "claims:locator": detail.get("locator"),
            "claims:quote": detail.get("quote"),
        },
    )


def _verifications(session, doc: _Doc, claim: Claim, versions, source_rows, source_entity) -> None:
    by_id = {s.id: s for s in source_rows.values()}
    rows = session.execute(
        select(Verification, Snapshot)
        .outerjoin(Snapshot, Snapshot.id == Verification.snapshot_id)
        .where(Verification.claim_id == claim.id)
        .order_by(Verification.id)
    ).all()
    for v, snap in rows:
        source = source_entity(by_id[v.source_id].key)
        activity = doc.record(
            "activity",
            f"claims:verification/{v.id}",
            {
                "prov:type": _qn("claims:verification"),
                "prov:startTime": _time(v.at),
                "prov:endTime": _time(v.at),
                "claims:outcome": v.outcome,
                "claims:passage": v.passage,
            },
        )
        doc.relation("wasAssociatedWith", {"prov:activity": activity, "prov:agent": TOOL})
        checked = next((ver for at, ver in reversed(versions) if at <= v.at), None)
        if checked is not None:
            doc.relation("used", {"prov:activity": activity, "prov:entity": checked})
        if snap is not None and snap.content_sha256:
            snapshot = doc.record(
                "entity",
                f"claims:snapshot/{snap.content_sha256}",
                {
                    "prov:type": _qn("claims:Snapshot"),
                    "prov:generatedAtTime": _time(snap.fetched_at),
                    "claims:url": snap.url,
                    "claims:http_status": snap.status,
                },
            )
            doc.relation(
                "specializationOf", {"prov:specificEntity": snapshot, "prov:generalEntity": source}
            )
            doc.relation("used", {"prov:activity": activity, "prov:entity": snapshot})
        else:
            doc.relation("used", {"prov:activity": activity, "prov:entity": source})


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def export_document(
    session: Session, rows_keys: list[str], manifest: dict[str, Any], *, policy: Policy
) -> dict[str, Any]:
    """The PROV document of an export's claims, with the export itself as an entity carrying its manifest."""
    claims = (
        list(session.scalars(select(Claim).where(Claim.key.in_(rows_keys)).order_by(Claim.id)))
        if rows_keys
        else []
    )
    doc = document(session, claims, policy=policy)
    export = f"claims:export/{manifest['content_sha256'][:20]}"
    doc.setdefault("entity", {})[export] = {
        "prov:type": _qn("claims:Export"),
        **{
            f"claims:{k}": json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v
            for k, v in manifest.items()
            if v is not None
        },
    }
    relations = doc.setdefault("wasDerivedFrom", {})
    for n, key in enumerate(rows_keys, start=1):
        relations[f"_:exp{n}"] = {
            "prov:generatedEntity": export,
            "prov:usedEntity": f"claims:claim/{key}",
        }
    return doc
