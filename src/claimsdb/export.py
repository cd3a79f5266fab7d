"""Exports for papers: select claims, apply the paper-safe gate, build rows and a manifest.

Four modes:
- gate (default): if any selected claim is not paper-safe, nothing is exported; the caller gets the
  blocked claims with the command that would clear each;
- skip-unsafe: the safe claims are exported and the others are listed as left out;
- draft: every claim is exported and each unsafe one is visibly marked; the output says it is a draft;
- guarded: every claim is exported, for the LaTeX macros only, which turn each unsafe figure into a
  LaTeX error unless the paper declares itself a draft (exporters refuse this mode otherwise).
No other path exists: the renderers only ever see rows that carry their own `paper_safe` flag.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timezone
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import __version__, anchor, history
from claimsdb.db import HEAD_REVISION
from claimsdb.models import Claim, utcnow
from claimsdb.policy import EXPORTABLE_STATUS, Policy
from claimsdb import views
from claimsdb.queries import ClaimFilter
from claimsdb.views import ClaimView

MODES = ("gate", "skip-unsafe", "draft", "guarded")
LAYOUTS = ("list", "grid")
NOT_REREAD = "not re-read"


@dataclass
class ExportRow:
    key: str
    subject: str
    stage: str | None
    statement: str
    figures: list[str]  # as written
    citations: list[dict[str, Any]]  # sources to cite: key, cite_key, title, url, kind, publisher, date, authors, accessed
    tag: str
    trust: str | None
    paper_safe: bool
    reread_source: str | None = None  # the source a person should re-read to clear it
    stale: bool = False  # verified, but the latest verification no longer finds it as recorded
    outdated: str | None = None  # verified, but changed since the re-read: why
    figure_names: list[str | None] = field(default_factory=list)  # the figures' optional names
    quantity: str | None = None  # the quantity it states, when several claims compete on it

    def canonical(self) -> dict[str, Any]:
        return {
            "key": self.key, "subject": self.subject, "stage": self.stage, "statement": self.statement,
            "figures": self.figures, "citations": [c["cite_key"] for c in self.citations],
            "tag": self.tag, "trust": self.trust, "paper_safe": self.paper_safe,
        }


@dataclass
class Export:
    rows: list[ExportRow]  # what is written
    blocked: list[ExportRow]  # unsafe rows; written (marked) only in draft mode
    mode: str
    layout: str
    policy: Policy
    manifest: dict[str, Any] = field(default_factory=dict)
    competing: dict[str, dict[str, Any]] = field(default_factory=dict)  # quantity -> used / others

    @property
    def undecided(self) -> dict[str, list[str]]:
        """Quantities with several values written because nobody preferred one."""
        return {q: e["used"] for q, e in self.competing.items() if e["preferred"] is None and len(e["used"]) > 1}

    @property
    def refused(self) -> bool:
        """The gate closed: nothing may be written."""
        return self.mode == "gate" and bool(self.blocked)

    @property
    def stale(self) -> list[ExportRow]:
        """Written rows whose latest verification no longer finds them: the default policy warns."""
        return [r for r in self.rows if r.stale]

    @property
    def draft(self) -> bool:
        return self.mode == "draft" and any(not r.paper_safe for r in self.rows)


def citations_for(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sources a paper cites for a claim: its non-note sources, or its notes when that is all it has."""
    primary = [s for s in sources if s["kind"] != "note"] or sources
    seen, out = set(), []
    for s in primary:
        if s["key"] in seen:
            continue
        seen.add(s["key"])
        out.append({"key": s["key"], "cite_key": s["cite_key"] or s["key"], "title": s["title"],
                    "url": s["url"], "kind": s["kind"], "publisher": s["publisher"], "date": s["date"],
                    "authors": s.get("authors"), "accessed": s.get("accessed")})
    return out


def prepare(
    session: Session, filters: ClaimFilter, *, policy: Policy, mode: str = "gate", layout: str = "list",
) -> Export:
    if mode not in MODES:
        raise ValueError(f"unknown export mode {mode!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    selected = session.execute(filters.apply(select(Claim.id, Claim.status)).order_by(Claim.id)).all()
    exportable = [claim_id for claim_id, status in selected if status == EXPORTABLE_STATUS]
    rows, competing_views = [], []
    for view in views.load(session, exportable):
        if view.integrity:
            history.ensure_intact([view])
        if view.quantity is not None:
            competing_views.append(view)
        rows.append(export_row(view, policy))
    chosen, competing = choose_values(competing_views)
    rows = [r for r in rows if r.quantity is None or r.key in chosen]
    blocked = [r for r in rows if not r.paper_safe]
    written = rows if mode in ("draft", "guarded") else [r for r in rows if r.paper_safe]
    export = Export(rows=[] if mode == "gate" and blocked else written, blocked=blocked, mode=mode,
                    layout=layout, policy=policy)
    export.competing = competing
    export.manifest = manifest(export, filters, excluded=len(selected) - len(exportable),
                               head=anchor.take(session))
    return export


def export_row(view: ClaimView, policy: Policy) -> ExportRow:
    """A claim as an export writes it; paper-safe as the policy decides (a stale figure passes the
    default policy with a warning; --strict blocks it)."""
    safe = policy.allows(view)
    return ExportRow(
        key=view.key, subject=view.subject, stage=view.stage, statement=view.statement,
        figures=[f["raw"] for f in view.figures], citations=citations_for(view.sources),
        tag=view.tag, trust=view.trust, paper_safe=safe, reread_source=None if safe else view.primary_source,
        stale=view.stale, outdated=view.outdated_reason, figure_names=[f["name"] for f in view.figures],
        quantity=view.quantity["key"] if view.quantity else None,
    )


def choose_values(views: list[ClaimView]) -> tuple[set[str], dict[str, dict[str, Any]]]:
    """Which claims an export writes where several compete on one quantity (the views given: those that
    state a quantity): its preferred value alone (when a person or the data preferred one), else every
    value not deprecated. Deprecated values are never written. Returns the chosen keys and, per quantity,
    what was used and what was left out."""
    chosen: set[str] = set()
    competing: dict[str, dict[str, Any]] = {}
    for v in views:
        if v.quantity is None:
            chosen.add(v.key)
            continue
        others = [c for c in v.competitors if c["status"] == EXPORTABLE_STATUS]
        mine = {"key": v.key, "rank": v.rank}
        preferred = next((c["key"] for c in [mine, *others] if c["rank"] == "preferred"), None)
        entry = competing.setdefault(v.quantity["key"], {"preferred": preferred, "used": [], "others": []})
        if v.rank != "deprecated" and (preferred is None or v.key == preferred):
            chosen.add(v.key)
            entry["used"].append(v.key)
        for c in [mine, *others]:
            if c["key"] not in entry["used"] and c["key"] not in entry["others"] and c["key"] != preferred:
                entry["others"].append(c["key"])
    for entry in competing.values():
        entry["others"] = sorted(k for k in entry["others"] if k not in entry["used"])
        entry["used"].sort()
    return chosen, {k: v for k, v in sorted(competing.items()) if v["others"] or len(v["used"]) > 1}


def export_time() -> str:
    """Now, or the reproducible-builds SOURCE_DATE_EPOCH when it is set, so that the same store exports
    to the same bytes (a build pipeline, or comparing two copies of a store)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.strip().isdigit():
        return datetime.fromtimestamp(int(epoch), timezone.utc).isoformat(timespec="microseconds")
    return utcnow()


def manifest(export: Export, filters: ClaimFilter, *, excluded: int, head: anchor.Anchor | None) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for r in export.rows:
        counts[r.tag] = counts.get(r.tag, 0) + 1
    canonical = json.dumps([r.canonical() for r in export.rows], sort_keys=True, ensure_ascii=False)
    return {
        "tool": f"claimsdb {__version__}",
        "schema_revision": HEAD_REVISION,
        "exported_at": export_time(),
        "policy": export.policy.describe(),
        "mode": export.mode,
        "draft": export.draft,
        "layout": export.layout,
        "filters": {k: v for k, v in vars(filters).items() if v is not None},
        "rows": len(export.rows),
        "not_re_read": sum(1 for r in export.rows if not r.paper_safe),
        "stale": sum(1 for r in export.rows if r.stale),
        "left_out_unsafe": 0 if export.mode in ("draft", "guarded") else len(export.blocked),
        "left_out_withdrawn_or_superseded": excluded,
        "counts_by_tag": dict(sorted(counts.items())),
        "content_sha256": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        # The latest event of the store's history chain, and how many it holds: the exact history this
        # table came from (`claims db check --anchor` can hold the store to it).
        "history_head": head.head if head else None,
        "history_length": head.length if head else 0,
        # Quantities with competing values: the value used and the others reported.
        "competing_values": export.competing,
    }


def stage_order(rows: list[ExportRow]) -> list[str | None]:
    """The note's stage columns first, then any other stage in order of appearance."""
    canonical = ["Data", "Pretrain", "Midtrain", "Post-train", "Agentic RL", "Serve"]
    present = []
    for r in rows:
        if r.stage not in present:
            present.append(r.stage)
    return [s for s in canonical if s in present] + [s for s in present if s not in canonical]


def grid(rows: list[ExportRow]) -> tuple[list[str | None], list[tuple[str, dict[str | None, list[ExportRow]]]]]:
    """Subjects by stages: (stages, [(subject, {stage: rows})]) in order of first appearance."""
    stages = stage_order(rows)
    by_subject: dict[str, dict[str | None, list[ExportRow]]] = {}
    for r in rows:
        by_subject.setdefault(r.subject, {}).setdefault(r.stage, []).append(r)
    return stages, list(by_subject.items())


def cell_text(row: ExportRow) -> str:
    """What a grid cell shows for one claim: its figures as written, else its statement."""
    return ", ".join(row.figures) if row.figures else row.statement
