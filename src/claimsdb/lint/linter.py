"""The linter: each figure of a manuscript's prose, judged against the claims of the subjects it names.

`build_store(session, policy)` reads the store once; `lint_text` and `lint_files` give findings and a
report. The rules are in lint/__init__.py; every "is this that figure?" question goes to
`claimsdb.figures.match`.
"""

from __future__ import annotations

import bisect
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb.errors import BadQuery
from claimsdb.figures import Context, Found, Quantity, as_quantity, match, scan
from claimsdb.figures.matching import CONTAINED, DIFFERENT, ROUNDED, SAME, Verdict
from claimsdb.lint.filter import FigureFilter, sentence_starts
from claimsdb.prose.markup import html_prose, markdown
from claimsdb.prose.mapped import Prose, plain
from claimsdb.lint.subjects import SubjectIndex
from claimsdb.prose.tex import tex
from claimsdb.models import Claim
from claimsdb.policy import EXPORTABLE_STATUS, Policy
from claimsdb import history
from claimsdb.queries import STALE_OUTCOMES, claim_views

KINDS = ("tex", "md", "qmd", "html", "txt")
EXTENSIONS = {
    ".tex": "tex", ".ltx": "tex", ".latex": "tex",
    ".md": "md", ".markdown": "md", ".rmd": "md",
    ".qmd": "qmd",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".txt": "txt", ".text": "txt",
}
SEVERITIES = ("error", "warning", "note")
_EXTRACT = {"tex": tex, "md": markdown, "qmd": markdown, "html": html_prose, "txt": plain}


@dataclass(frozen=True)
class Finding:
    file: str
    line: int  # 1-based, of the figure's first character in the original file
    col: int  # 1-based, in characters
    raw: str  # the figure as the prose reads it: markup removed ("16K~H100" -> "16K H100"), spaces collapsed
    severity: str  # "error" | "warning" | "note"
    message: str  # one line for people; it does not repeat `raw` (a report shows both)
    claims: tuple[str, ...]  # matched claim keys (empty for untracked)
    tags: tuple[str, ...]  # their tags, in the same order
    verdict: str | None = None  # the matcher's verdict behind the finding ("same", "different", ...); None: untracked

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "col": self.col, "raw": self.raw, "severity": self.severity,
                "message": self.message, "claims": list(self.claims), "tags": list(self.tags),
                "verdict": self.verdict}


@dataclass
class Report:
    """Findings, and how many figures were checked and passed (a paper-safe, current claim states them)."""

    findings: list[Finding] = field(default_factory=list)
    checked: int = 0
    passed: int = 0

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def counts(self) -> dict[str, int]:
        return {"errors": self.count("error"), "warnings": self.count("warning"), "notes": self.count("note"),
                "passed": self.passed, "checked": self.checked}

    def extend(self, other: Report) -> None:
        self.findings += other.findings
        self.checked += other.checked
        self.passed += other.passed


# --- the store -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexedClaim:
    key: str
    subject: str
    tag: str
    trust: str | None
    status: str
    stale: bool  # verified, but the latest verification found the figure changed or gone
    stale_outcome: str | None
    reread_source: str | None  # the primary page to re-read (first non-note source), if any
    status_reason: str | None = None
    superseded_by: str | None = None
    outdated: str | None = None  # verified, but changed since its re-read: why
    rank: str = "normal"  # among the competing values of its quantity
    preferred: str | None = None  # the value its quantity prefers, when another claim holds it: "20 s (KEY)"

    @property
    def active(self) -> bool:
        return self.status == EXPORTABLE_STATUS


class Store:
    """Every claim with its figures (and their names), by subject, under one policy."""

    def __init__(self, claims: list[IndexedClaim], figures: list[tuple[int, Quantity, str | None]], policy: Policy):
        self.policy = policy
        self.claims = claims
        self.subjects = SubjectIndex([c.subject for c in claims])
        self.by_subject: dict[int, list[tuple[int, Quantity, str | None]]] = {}
        for ci, q, name in figures:
            self.by_subject.setdefault(self.subjects.id[claims[ci].subject], []).append((ci, q, name))

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_subject.values())

    def safe(self, ci: int) -> bool:
        c = self.claims[ci]
        return c.active and self.policy.passes(c.trust) and not c.stale and not c.outdated


def build_store(session: Session, policy: Policy) -> Store:
    """Read every claim and figure once. Withdrawn and superseded claims are in the store but never make
    a figure safe."""
    claims = list(session.scalars(select(Claim).order_by(Claim.key)))
    views = claim_views(session, claims, events=0)
    history.ensure_intact(views)
    indexed: list[IndexedClaim] = []
    figures: list[tuple[int, Quantity, str | None]] = []
    for ci, v in enumerate(views):
        primary = next((s["key"] for s in v["sources"] if s["kind"] != "note"), None)
        stale_outcome = next((c["outcome"] for c in v["verifications"] if c["outcome"] in STALE_OUTCOMES), None)
        indexed.append(IndexedClaim(
            key=v["key"], subject=v["subject"], tag=v["tag"], trust=v["trust"], status=v["status"],
            stale=bool(v["stale"]), stale_outcome=stale_outcome if v["stale"] else None, reread_source=primary,
            status_reason=v["status_reason"], superseded_by=v["superseded_by"], outdated=v["outdated_reason"],
            rank=v["rank"], preferred=next((f"{', '.join(c['figures']) or '(no figure)'} ({c['key']})"
                                            for c in v["competitors"] if c["rank"] == "preferred"), None),
        ))
        for f in v["figures"]:
            q = as_quantity(f)
            if q.numbers() or q.kind == "text":
                figures.append((ci, q, f["name"]))
    return Store(indexed, figures, policy)


# --- tables --------------------------------------------------------------------------------------------

_MD_ROW = re.compile(r"[ \t]*\|")
_MD_SEPARATOR = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")


class _Tables:
    """Column headers of Markdown (pipe) and plain-text (tab) tables, by line of the original."""

    def __init__(self, src: str, lines: list[int], kind: str):
        self.header: dict[int, list[str]] = {}  # line index -> header cells of its table
        self.sep: dict[int, str] = {}
        texts = src.split("\n")
        header: list[str] | None = None
        for i, line in enumerate(texts):
            if kind in ("md", "qmd") and _MD_ROW.match(line):
                if header is None:
                    header = [c.strip() for c in line.strip().strip("|").split("|")]
                elif not _MD_SEPARATOR.match(line):
                    self.header[i], self.sep[i] = header, "|"
            elif kind == "txt" and "\t" in line:
                if header is None:
                    header = [c.strip() for c in line.split("\t")]
                else:
                    self.header[i], self.sep[i] = header, "\t"
            else:
                header = None
        self.texts = texts

    def column(self, line: int, col: int) -> str:
        """The header of the column that (0-based line, 0-based column) stands in, or ""."""
        header = self.header.get(line)
        if not header:
            return ""
        text = self.texts[line]
        k = text[:col].count(self.sep[line]) - (1 if self.sep[line] == "|" and text.lstrip().startswith("|") else 0)
        return header[k] if 0 <= k < len(header) else ""


# --- messages ------------------------------------------------------------------------------------------


def _reread_command(claim: IndexedClaim) -> str:
    command = shlex.join(["claims", "reread", claim.key, "--source", claim.reread_source or "PAGE"])
    if claim.reread_source is None:
        command += " (it cites no primary page yet: PAGE is the URL you re-read, or a key from `claims sources add`)"
    return command


def _describe(claim: IndexedClaim, stored: Quantity, verdict: Verdict) -> str:
    parts = [f"tag {claim.tag} ({claim.trust or 'unknown trust'})"]
    if claim.rank != "normal":
        parts.append(claim.rank)
    if claim.outdated:
        parts.append(claim.outdated)
    if claim.stale:
        parts.append(f"stale: the latest verification was {claim.stale_outcome}")
    if claim.status == "withdrawn":
        parts.append("withdrawn" + (f": {claim.status_reason}" if claim.status_reason else ""))
    elif claim.status == "superseded":
        parts.append("superseded" + (f" by {claim.superseded_by}" if claim.superseded_by else ""))
    if verdict.verdict != SAME or "(stored as" in verdict.reason:
        parts.append(verdict.reason)
    return f"{claim.key} \"{stored.raw}\" ({claim.subject}; {'; '.join(parts)})"


_UNTRACKED_HINT = {
    "tex": "add it to the store and insert it with \\claim{KEY}",
    "md": "add it to the store and insert it with {{< var KEY.fig >}}",
    "qmd": "add it to the store and insert it with {{< var KEY.fig >}}",
}
_STATES = (SAME, ROUNDED, CONTAINED)


# --- the linter ----------------------------------------------------------------------------------------


class _Linter:
    def __init__(self, text: str, name: str, kind: str, store: Store):
        self.name, self.kind, self.store = name, kind, store
        self.prose: Prose = _EXTRACT[kind](text)
        p = self.prose.text
        self.sentences = sentence_starts(p)
        mentions = sorted(store.subjects.mentions(p))
        self.mentions = mentions
        self._mention_starts = [m[0] for m in mentions]
        self.filter = FigureFilter(p, self.sentences, mentions)
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self.tables = _Tables(text, self._lines, kind)
        self._heading_at = [h[0] for h in self.prose.headings]
        self._heading_named = [store.subjects.named(store.subjects.mentions(h[1])) for h in self.prose.headings]

    def _where(self, p: int) -> tuple[int, int]:
        o = self.prose.orig(p)
        line = bisect.bisect_right(self._lines, o)
        return line, o - self._lines[line - 1] + 1

    def _sentence(self, pos: int) -> tuple[int, int]:
        k = bisect.bisect_right(self.sentences, pos) - 1
        end = self.sentences[k + 1] if k + 1 < len(self.sentences) else len(self.prose.text)
        return self.sentences[k], end

    def _context(self, f: Found) -> tuple[dict[int, int], str]:
        """The subjects named around the figure (its sentence or row, its column header, the heading of its
        section; full names win over short ones) and the words that may say what it counts."""
        start, end = self._sentence(f.start)
        lo, hi = bisect.bisect_left(self._mention_starts, start), bisect.bisect_left(self._mention_starts, end)
        named = self.store.subjects.named(self.mentions[lo:hi])
        line, col = self._where(f.start)
        column = self.tables.column(line - 1, col - 1)
        if column:
            for sid, tier in self.store.subjects.named(self.store.subjects.mentions(column)).items():
                named[sid] = min(tier, named.get(sid, 3))
        h = bisect.bisect_right(self._heading_at, self.prose.orig(f.start)) - 1
        if h >= 0:
            for sid, tier in self._heading_named[h].items():
                named[sid] = min(tier, named.get(sid, 3))
        return named, f"{column} {self.prose.text[start:f.start]}"

    def report(self) -> Report:
        out = Report()
        for f in scan(self.prose.text):
            if self.filter.skipped(f):
                continue
            out.checked += 1
            finding = self._check(f)
            if finding is None:
                out.passed += 1
            elif finding.severity:
                out.findings.append(finding)
        return out

    def _check(self, f: Found) -> Finding | None:
        store = self.store
        named, words = self._context(f)
        judged: list[tuple[int, Quantity, Verdict]] = []
        tiers: dict[int, int] = {}
        for sid, tier in named.items():
            for ci, q, figure_name in store.by_subject.get(sid, ()):
                v = match(q, f.quantity, Context(subject=True, words=words, name=figure_name))
                if v.verdict != "unrelated":
                    judged.append((ci, q, v))
                    tiers[ci] = tier
        # Among the subjects that have this figure, the one named in full wins over one named by a short word.
        ranked = [j for j in judged if j[2].verdict in _STATES] or judged
        best = min((tiers[ci] for ci, _, _ in ranked), default=None)
        judged = [j for j in judged if tiers[j[0]] == best]
        raw = " ".join(f.raw.split())
        line, col = self._where(f.start)
        states = [j for j in judged if j[2].verdict in _STATES]
        stating = [(ci, q, v) for ci, q, v in states
                   if store.safe(ci) and (v.verdict == SAME or (v.verdict == CONTAINED and q.kind == "transition"))]
        # a paper-safe, current claim states it (a step of its change: "up to 128K" of 32K → 128K), and it is
        # the value its quantity uses
        if any(store.claims[ci].rank != "deprecated" and store.claims[ci].preferred is None for ci, _, _ in stating):
            return None
        policy = store.policy

        def finding(severity: str, message: str, chosen: list, verdict: str) -> Finding:
            chosen = sorted({ci: (ci, q, v) for ci, q, v in reversed(chosen)}.values(),
                            key=lambda j: store.claims[j[0]].key)
            return Finding(self.name, line, col, raw, severity, message,
                           tuple(store.claims[ci].key for ci, _, _ in chosen),
                           tuple(store.claims[ci].tag for ci, _, _ in chosen), verdict)

        def described(chosen: list) -> str:
            seen: dict[int, str] = {}
            for ci, q, v in chosen:
                seen.setdefault(ci, _describe(store.claims[ci], q, v))
            return "; ".join(seen[ci] for ci in sorted(seen, key=lambda ci: store.claims[ci].key))

        if stating:  # only values the store keeps but does not use
            c = store.claims[stating[0][0]]
            use = f"; the preferred value is {c.preferred}" if c.preferred else "; no value is preferred yet"
            kind = "a deprecated value" if c.rank == "deprecated" else "a value its quantity does not prefer"
            return finding("warning", f"uses {kind}: {described(stating)}{use}", stating, stating[0][2].verdict)
        safe_near = [j for j in states if store.safe(j[0])]
        if safe_near:
            return finding("warning", f"differs from the store: {described(safe_near)}", safe_near,
                           safe_near[0][2].verdict)
        active = [j for j in states if store.claims[j[0]].active]
        stale_ok = [j for j in active if policy.passes(store.claims[j[0]].trust) and not store.claims[j[0]].outdated]
        if stale_ok and not policy.strict:
            checks = "; ".join(f"claims verify {store.claims[ci].key}" for ci in sorted({j[0] for j in stale_ok}))
            return finding("warning", f"matches only stale claims: {described(stale_ok)}; check again: {checks} "
                           "(the strict policy blocks it)", stale_ok, stale_ok[0][2].verdict)
        if active:
            fixes = "; ".join(_reread_command(store.claims[ci]) if not store.claims[ci].stale
                              else f"claims verify {store.claims[ci].key}"
                              for ci in sorted({j[0] for j in active}, key=lambda ci: store.claims[ci].key))
            return finding("error", f"not paper-safe under the {policy.describe()}: {described(active)}; "
                           f"clear it: {fixes}", active, active[0][2].verdict)
        if states:
            return finding("error", f"matches only withdrawn or superseded claims: {described(states)}; "
                           "use the current figure or remove it", states, states[0][2].verdict)
        different = [j for j in judged if j[2].verdict == DIFFERENT and store.claims[j[0]].active]
        if different:
            return finding("warning", f"differs from the store: {described(different)}", different, DIFFERENT)
        if not any(ch.isdigit() for ch in f.raw) and all(abs(n) < 10 for n in f.quantity.numbers()):
            return Finding(self.name, line, col, raw, "", "", (), ())  # "two stages": prose spells small counts out
        if f.start in self.filter.quiet:
            return Finding(self.name, line, col, raw, "", "", (), ())  # "in 2020 researchers": most likely a year
        hint = _UNTRACKED_HINT.get(self.kind, "add it to the store")
        return Finding(self.name, line, col, raw, "note", f"untracked: no claim in the store states it; {hint}",
                       (), ())


def lint_report(text: str, *, name: str, kind: str, store: Store) -> Report:
    """The report for one manuscript's prose: findings in the order they appear, and the counts."""
    if kind not in KINDS:
        raise BadQuery(f"{name}: unknown manuscript kind {kind!r} (known: {', '.join(KINDS)})")
    return _Linter(text, name, kind, store).report()


def lint_text(text: str, *, name: str, kind: str, index: Store) -> list[Finding]:
    """Findings for every figure of the manuscript's prose that no paper-safe, current claim states."""
    return lint_report(text, name=name, kind=kind, store=index).findings


def kind_of(path: str) -> str:
    """The manuscript kind from a file name's extension; BadQuery naming the file if it is not known."""
    ext = Path(path).suffix.lower()
    if ext not in EXTENSIONS:
        known = ", ".join(sorted(EXTENSIONS))
        raise BadQuery(f"{path}: cannot lint a file of type {ext or '(no extension)'!r} (known: {known})")
    return EXTENSIONS[ext]


def lint_files(session: Session, paths: list[str], policy: Policy, *,
               on_file: Callable[[str], None] | None = None) -> Report:
    """Lint each file against the store; every file is read before the store is. Unknown extensions and
    unreadable files raise BadQuery naming the file. `on_file(name)` hears of each file linted (a progress bar)."""
    texts = []
    for path in paths:
        kind = kind_of(str(path))
        try:
            with open(path, encoding="utf-8-sig") as fh:  # universal newlines: "\r\n" counts as one line end
                texts.append((str(path), kind, fh.read()))
        except UnicodeDecodeError as exc:
            raise BadQuery(f"{path}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except OSError as exc:
            raise BadQuery(f"{path}: cannot read: {exc.strerror or exc}") from None
    store = build_store(session, policy)
    report = Report()
    for name, kind, text in texts:
        report.extend(lint_report(text, name=name, kind=kind, store=store))
        if on_file is not None:
            on_file(name)
    return report
