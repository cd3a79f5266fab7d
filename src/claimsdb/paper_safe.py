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

import os
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import func, select
from sqlmodel import Session

from claimsdb import __version__, anchor, halves, integrity, views
from claimsdb.db import HEAD_REVISION
from claimsdb.export_rows import ExportRow, Rows
from claimsdb.models import Claim, utcnow
from claimsdb.queries import ClaimFilter
from claimsdb.trust import people, signatures
from claimsdb.trust.rule import EXPORTABLE_STATUS, Policy, RereadPage, page_to_reread
from claimsdb.views import ClaimView

MODES = ("gate", "skip-unsafe", "draft", "guarded")
LAYOUTS = ("list", "grid")
NOT_REREAD = "not re-read"
# The blocked claims an export keeps to list (the first it reads); all of them are counted. The re-read
# queue of `claims serve` walks through every one, and a draft writes them all, marked.
LISTED_BLOCKED = 200


class Blocked(NamedTuple):
    """A claim an export leaves out (or, as a draft, marks): what the CLI lists, and the page to re-read."""

    key: str
    subject: str
    figures: list[str]
    tag: str
    trust: str | None
    outdated: str | None
    stale: bool
    reread_page: RereadPage | None
    attested: str | None = (
        None  # its re-read is an attestation (the strict policy does not count it)
    )
    unsigned: str | None = None  # why its re-read does not vouch, once signatures are required


@dataclass
class Export:
    rows: Rows  # what is written
    blocked: list[
        Blocked
    ]  # the first LISTED_BLOCKED unsafe rows (written, marked, only in draft mode)
    blocked_count: int  # every unsafe row
    mode: str
    layout: str
    policy: Policy
    manifest: dict[str, Any] = field(default_factory=dict)
    competing: dict[str, dict[str, Any]] = field(default_factory=dict)  # quantity -> used / others
    cite_notes: bool = (
        False  # a claim that cites only notes cites them in LaTeX and BibTeX (see references)
    )
    caption: str | None = None  # a LaTeX table's caption (--caption; the list has one by default)
    label: str | None = None  # and the label a paper's \ref names it by (--label)

    @property
    def undecided(self) -> dict[str, list[str]]:
        """Quantities with several values written because nobody preferred one."""
        return {
            q: e["used"]
            for q, e in self.competing.items()
            if e["preferred"] is None and len(e["used"]) > 1
        }

    @property
    def refused(self) -> bool:
        """The gate closed: nothing may be written."""
        return self.mode == "gate" and self.blocked_count > 0

    @property
    def stale(self) -> list[ExportRow]:
        """Written rows whose latest verification no longer finds them: the default policy warns."""
        return self.rows.stale

    @property
    def uncited(self) -> tuple[int, list[str]]:
        """How many written claims a bibliography has no reference for, and the first few: those whose
        only sources are notes (none when notes are cited)."""
        return (0, []) if self.cite_notes else (self.rows.notes_only_count, self.rows.notes_only)

    @property
    def draft(self) -> bool:
        return self.mode == "draft" and self.rows.not_re_read > 0


def citations_for(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sources an export shows for a claim: its non-note sources, or its notes when that is all it has.
    A bibliography lists only the references among them (see `references`)."""
    primary = [s for s in sources if s["kind"] != "note"] or sources
    seen, out = set(), []
    for s in primary:
        if s["key"] in seen:
            continue
        seen.add(s["key"])
        out.append(
            {
                "key": s["key"],
                "cite_key": s["cite_key"] or s["key"],
                "title": s["title"],
                "url": s["url"],
                "kind": s["kind"],
                "publisher": s["publisher"],
                "date": s["date"],
                "authors": s.get("authors"),
                "accessed": s.get("accessed"),
            }
        )
    return out


class Gathered:
    """What reading the selected claims gathers for an export, a claim at a time: the rows it writes, the
    blocked claims (the first LISTED_BLOCKED, all counted) and the competing values. A worker gathers
    its half of a large store the same way (halves.py), and `adopt` takes its gathering in after this
    one's, as if these had been read one after the other."""

    def __init__(self, mode: str, policy: Policy, rows: Rows | None = None) -> None:
        self.mode, self.policy = mode, policy
        self.rows = rows if rows is not None else Rows()
        self.blocked: list[Blocked] = []
        self.blocked_count = 0
        self.chooser = _Chooser()

    def add(self, view: ClaimView) -> None:
        if view.integrity:
            integrity.ensure_intact([view])
        if not self.chooser.keeps(view):
            return
        row = export_row(view, self.policy)
        if not row.paper_safe:
            self.blocked_count += 1
            if len(self.blocked) < LISTED_BLOCKED:
                self.blocked.append(_blocked(row))
        if row.paper_safe or self.mode in ("draft", "guarded"):
            if not (
                self.mode == "gate" and self.blocked_count
            ):  # the gate closed: nothing is written
                self.rows.append(row)

    def summary(self) -> dict[str, Any]:
        """A worker's gathering, for `adopt` (its rows stay in the files of its `Rows(folder)`)."""
        return {
            "rows": self.rows.tally(),
            "blocked": self.blocked,
            "blocked_count": self.blocked_count,
            "chooser": self.chooser.entries,
        }

    def adopt(self, summary: dict[str, Any], half: halves.Half) -> None:
        """Take in a worker's gathering (`summary`) of the claims read after this one's."""
        self.blocked += summary["blocked"][: LISTED_BLOCKED - len(self.blocked)]
        self.blocked_count += summary["blocked_count"]
        if not (self.mode == "gate" and self.blocked_count):  # else nothing is written
            self.rows.adopt(half.folder, summary["rows"], keep=half.temporary)
        self.chooser.adopt(summary["chooser"])


def _blocked(row: ExportRow) -> Blocked:
    return Blocked(
        row.key,
        row.subject,
        row.figures,
        row.tag,
        row.trust,
        row.outdated,
        row.stale,
        row.reread_page,
        row.attested,
        row.unsigned,
    )


def prepare(
    session: Session,
    filters: ClaimFilter,
    *,
    policy: Policy,
    mode: str = "gate",
    layout: str = "list",
    cite_notes: bool = False,
) -> Export:
    if mode not in MODES:
        raise ValueError(f"unknown export mode {mode!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    # The ids alone, packed (8 bytes a claim): a million-claim store is read a batch at a time after this.
    exportable = array(
        "q",
        session.execute(
            filters.apply(select(Claim.id))
            .where(Claim.status == EXPORTABLE_STATUS)
            .order_by(Claim.id)
        ).scalars(),
    )
    excluded = session.execute(
        filters.apply(select(func.count(Claim.id))).where(Claim.status != EXPORTABLE_STATUS)
    ).scalar_one()
    gathered = Gathered(mode, policy)
    mine, half = halves.start(
        session, "export", exportable, {"mode": mode, "strict": policy.strict}
    )
    try:
        before = halves.head(session) if half is not None else None
        for view in views.load(session, mine):
            gathered.add(view)
        rest = half.result(session, before) if half is not None else None
        if rest is None:  # read here: no worker, or its answer was not for this store as read
            for view in views.load(session, exportable[len(mine) :]):
                gathered.add(view)
        else:
            gathered.adopt(rest, half)
        export = Export(
            rows=Rows() if mode == "gate" and gathered.blocked_count else gathered.rows,
            blocked=gathered.blocked,
            blocked_count=gathered.blocked_count,
            mode=mode,
            layout=layout,
            policy=policy,
            cite_notes=cite_notes,
        )
    finally:
        if half is not None:
            half.close()
    export.competing = gathered.chooser.competing()
    export.manifest = manifest(export, filters, excluded=excluded, head=anchor.take(session))
    # whether only signed re-reads vouch here (trust.people): else anyone who can run claims can vouch
    registry = people.load(session)
    export.manifest["signatures_required"] = registry.required
    # who vouched for the written rows with a signature: each key, its person and how many rows
    export.manifest["signed_by"] = [
        {
            "fingerprint": fp,
            "person": registry.keys[fp].name if fp in registry.keys else None,
            "rows": n,
        }
        for fp, n in sorted(export.rows.signed_by.items())
    ]
    return export


def export_row(view: ClaimView, policy: Policy) -> ExportRow:
    """A claim as an export writes it; paper-safe as the policy decides (a stale figure passes the
    default policy with a warning; --strict blocks it)."""
    safe = policy.allows(view)
    return ExportRow(
        key=view.key,
        subject=view.subject,
        stage=view.stage,
        statement=view.statement,
        figures=[f["raw"] for f in view.figures],
        citations=citations_for(view.sources),
        tag=view.tag,
        trust=view.trust,
        paper_safe=safe,
        reread_page=None if safe else page_to_reread(view.sources),
        stale=view.stale,
        outdated=view.outdated_reason,
        figure_names=[f["name"] for f in view.figures],
        quantity=view.quantity["key"] if view.quantity else None,
        label=view.label,
        reread_check=view.reread_check,
        attested=view.attested,
        unsigned=view.unsigned,
        signed_by=signatures.fingerprint(view.vouched_event) if view.vouched_event else None,
        observation=view.observation,
    )


def _preferred(v: ClaimView) -> str | None:
    """The key of the value preferred among a claim and its active competitors, if any is."""
    mine = {"key": v.key, "rank": v.rank}
    others = [c for c in v.competitors if c["status"] == EXPORTABLE_STATUS]
    return next((c["key"] for c in [mine, *others] if c["rank"] == "preferred"), None)


def left_out(v: ClaimView) -> str | None:
    """Why an export leaves out this competing value of a quantity (the rule `_Chooser` applies, and
    the browser marks): deprecated, or another value preferred; None when it is written."""
    if v.quantity is None:
        return None
    if v.rank == "deprecated":
        return "deprecated: exports leave it out"
    preferred = _preferred(v)
    if preferred is not None and preferred != v.key:
        return f"{preferred} is preferred: exports write that value, not this one"
    return None


class _Chooser:
    """Which claims an export writes where several compete on one quantity: its preferred value alone
    (when a person or the data preferred one), else every value not deprecated. Deprecated values are
    never written. Each claim's view lists its competitors, so the choice is made claim by claim as they
    are read; `competing()` says, per quantity, what was used and what was left out."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}

    def keeps(self, v: ClaimView) -> bool:
        if v.quantity is None:
            return True
        others = [c for c in v.competitors if c["status"] == EXPORTABLE_STATUS]
        mine = {"key": v.key, "rank": v.rank}
        preferred = _preferred(v)
        entry = self.entries.setdefault(
            v.quantity["key"], {"preferred": preferred, "used": [], "others": []}
        )
        kept = left_out(v) is None
        if kept:
            entry["used"].append(v.key)
        for c in [mine, *others]:
            if (
                c["key"] not in entry["used"]
                and c["key"] not in entry["others"]
                and c["key"] != preferred
            ):
                entry["others"].append(c["key"])
        return kept

    def adopt(self, entries: dict[str, dict[str, Any]]) -> None:
        """Take in another chooser's entries (a worker's half, read after this one's claims)."""
        for quantity, theirs in entries.items():
            mine = self.entries.setdefault(
                quantity, {"preferred": theirs["preferred"], "used": [], "others": []}
            )
            mine["used"] += [k for k in theirs["used"] if k not in mine["used"]]
            mine["others"] += [k for k in theirs["others"] if k not in mine["others"]]

    def competing(self) -> dict[str, dict[str, Any]]:
        for entry in self.entries.values():
            entry["others"] = sorted(k for k in entry["others"] if k not in entry["used"])
            entry["used"].sort()
        return {k: v for k, v in sorted(self.entries.items()) if v["others"] or len(v["used"]) > 1}


def choose_values(views: list[ClaimView]) -> tuple[set[str], dict[str, dict[str, Any]]]:
    """The claims an export writes among these views, and the competing values (see _Chooser)."""
    chooser = _Chooser()
    chosen = {v.key for v in views if chooser.keeps(v)}
    return chosen, chooser.competing()


def export_time() -> str:
    """Now, or the reproducible-builds SOURCE_DATE_EPOCH when it is set, so that the same store exports
    to the same bytes (a build pipeline, or comparing two copies of a store)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.strip().isdigit():
        return datetime.fromtimestamp(int(epoch), UTC).isoformat(timespec="microseconds")
    return utcnow()


def manifest(
    export: Export, filters: ClaimFilter, *, excluded: int, head: anchor.Anchor | None
) -> dict[str, Any]:
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
        "not_re_read": export.rows.not_re_read,
        "stale": len(export.rows.stale),
        # Re-reads that vouch for written rows without the quote checked on the page: attestations
        # (each with its reason) and re-reads recorded before re-reads were checked.
        "attested_rereads": export.rows.attested_count,
        "attested": export.rows.attested,  # the first 1,000, with their reasons
        "rereads_not_checked_on_page": export.rows.unchecked,
        "left_out_unsafe": 0 if export.mode in ("draft", "guarded") else export.blocked_count,
        "left_out_withdrawn_or_superseded": excluded,
        "counts_by_tag": dict(sorted(export.rows.counts_by_tag.items())),
        "content_sha256": export.rows.content_sha256,
        # The latest event of the store's history chain, and how many it holds: the exact history this
        # table came from (`claims db check --anchor` can hold the store to it).
        "history_head": head.head if head else None,
        "history_length": head.length if head else 0,
        # Quantities with competing values: the value used and the others reported.
        "competing_values": export.competing,
    }


# The life-cycle stages of the note's grid, in its order. Any other stage a claim names is a topic (the
# RL loop's "weight sync", "staleness", ...): topics get a grid of their own, never columns beside these.
LIFE_CYCLE = ("Data", "Pretrain", "Midtrain", "Post-train", "Agentic RL", "Serve")
LIFE_CYCLE_GRID = "Life-cycle stages"
TOPIC_GRID = "Topics"
NO_STAGE_GRID = "Without a stage"
NO_STAGE_COLUMN = "Claims"  # the one column of the claims that name no stage


@dataclass(frozen=True)
class Grid:
    """One table of a grid export: subjects (rows, in order of first appearance) by its columns, each
    cell the claims (export rows, or anything with .subject and .stage) of that subject there."""

    title: str
    columns: list[str]
    rows: list[tuple[str, dict[str, list[Any]]]]

    @property
    def region(self) -> str:
        """What a page calls the grid's scrolling box (screen readers announce it)."""
        return {LIFE_CYCLE_GRID: "Claims by stage", TOPIC_GRID: "Claims by topic"}.get(
            self.title, "Claims without a stage"
        )


def stage_order(rows: Iterable[Any]) -> list[str]:
    """The stages the rows name: the life-cycle stages in the note's order, then the others (topics) in
    order of first appearance."""
    present: dict[str, None] = {}
    for r in rows:
        if r.stage is not None:
            present.setdefault(r.stage)
    return [s for s in LIFE_CYCLE if s in present] + [s for s in present if s not in LIFE_CYCLE]


def grids(rows: Iterable[Any]) -> list[Grid]:
    """The grids of these rows, each only when it holds a claim: the life-cycle grid (the stages they
    use, in the note's order), the topic grid (every other stage, in order of first appearance), and
    last the claims that name no stage, in one column. A grid's rows are systems: an observation (a
    claim about no one system, `observation` in its data file) is in no grid, so a subject that only
    observations are about has no row; the list and the other formats still hold it."""
    parts: dict[str, list[Any]] = {LIFE_CYCLE_GRID: [], TOPIC_GRID: [], NO_STAGE_GRID: []}
    for r in rows:
        if getattr(r, "observation", False):  # the browser reads only systems (selection)
            continue
        parts[
            LIFE_CYCLE_GRID
            if r.stage in LIFE_CYCLE
            else NO_STAGE_GRID
            if r.stage is None
            else TOPIC_GRID
        ].append(r)
    out = []
    for title, members in parts.items():
        if not members:
            continue
        by_subject: dict[str, dict[str, list[Any]]] = {}
        for r in members:
            by_subject.setdefault(r.subject, {}).setdefault(r.stage or NO_STAGE_COLUMN, []).append(
                r
            )
        columns = [NO_STAGE_COLUMN] if title == NO_STAGE_GRID else stage_order(members)
        out.append(Grid(title, columns, list(by_subject.items())))
    return out


def cell_text(row: Any) -> str | None:
    """What a grid cell shows for one claim: its label, else its figures as written; None when it has
    neither (each format then points to its statement: a footnote, a hover; never the statement itself)."""
    if row.label:
        return row.label
    return ", ".join(row.figures) if row.figures else None
