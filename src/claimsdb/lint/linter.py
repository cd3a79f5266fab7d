"""The linter: each figure of a manuscript's prose, judged against the claims of the subjects it names.

`build_store(session, policy)` reads the store once; `lint_text` and `lint_files` give findings and a
report. The rules are in lint/__init__.py; every "is this that figure?" question goes to
`claimsdb.figures.match`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import Session

from claimsdb import anchor, integrity, views
from claimsdb.errors import BadQuery
from claimsdb.figures import Context, FigureError, Found, Quantity, as_quantity, match, parse, scan
from claimsdb.figures.matching import (
    CONTAINED,
    DIFFERENT,
    ROUNDED,
    SAME,
    SETTING_KEY,
    Verdict,
    measure_words,
    spelled,
)
from claimsdb.figures.wording import worded
from claimsdb.lint.filter import (
    FigureFilter,
    bare,
    names_another,
    sentence_starts,
    small_bare,
    small_count,
)
from claimsdb.lint.subjects import SubjectIndex
from claimsdb.policy import EXPORTABLE_STATUS, Policy, reread_command
from claimsdb.prose.mapped import BLANK_LINE, Prose, plain
from claimsdb.prose.markup import html_prose, markdown
from claimsdb.prose.tex import _TEX_ENV_ARGS, _skip_args, tex

KINDS = ("tex", "md", "qmd", "html", "txt")
EXTENSIONS = {
    ".tex": "tex",
    ".ltx": "tex",
    ".latex": "tex",
    ".md": "md",
    ".markdown": "md",
    ".rmd": "md",
    ".qmd": "qmd",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".txt": "txt",
    ".text": "txt",
}
SEVERITIES = ("error", "warning", "note")
SKIPPED = "skipped"  # a figure lint does not judge: Report.skipped, with the reason as its message
_EXTRACT = {"tex": tex, "md": markdown, "qmd": markdown, "html": html_prose, "txt": plain}


@dataclass(frozen=True)
class Finding:
    file: str
    line: int  # 1-based, of the figure's first character in the original file
    col: int  # 1-based, in characters
    raw: str  # the figure as the prose reads it: markup removed ("16K~H100" -> "16K H100"), spaces collapsed
    severity: str  # "error" | "warning" | "note", or "skipped" (Report.skipped)
    message: (
        str  # one line for people; it does not repeat `raw` (a report shows both); a skip's reason
    )
    claims: tuple[str, ...]  # matched claim keys (empty for untracked)
    tags: tuple[str, ...]  # their tags, in the same order
    verdict: str | None = (
        None  # the matcher's verdict behind the finding ("same", "different", ...); None: untracked
    )

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "raw": self.raw,
            "severity": self.severity,
            "message": self.message,
            "claims": list(self.claims),
            "tags": list(self.tags),
            "verdict": self.verdict,
        }


@dataclass
class Report:
    """Findings; the figures lint did not judge (`skipped`, each with its reason); how many figures were
    checked and how many passed (a paper-safe, current claim states them, or holds them in its range)."""

    findings: list[Finding] = field(default_factory=list)
    skipped: list[Finding] = field(default_factory=list)
    checked: int = 0
    passed: int = 0
    history: Any = (
        None  # the history the store held when it was read (anchor.Anchor), for the record
    )

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def counts(self) -> dict[str, int]:
        """errors, warnings, notes (all of them), untracked (the notes no claim states), passed, checked
        (every figure judged), skipped (every figure not judged)."""
        return {
            "errors": self.count("error"),
            "warnings": self.count("warning"),
            "notes": self.count("note"),
            "untracked": sum(1 for f in self.findings if f.severity == "note" and not f.claims),
            "passed": self.passed,
            "checked": self.checked,
            "skipped": len(self.skipped),
        }

    def extend(self, other: Report) -> None:
        self.findings += other.findings
        self.skipped += other.skipped
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
    preferred: str | None = (
        None  # the value its quantity prefers, when another claim holds it: "20 s (KEY)"
    )
    statement: str = ""
    aliases: tuple[str, ...] = ()  # other names of its subject
    paper_safe: bool = False  # Policy.allows: the one paper-safe rule (its status aside)

    @property
    def active(self) -> bool:
        return self.status == EXPORTABLE_STATUS


@dataclass(frozen=True)
class StoredFigure:
    claim: int  # index into Store.claims
    quantity: Quantity
    name: str | None  # the figure's name in the data ("staleness bound")
    index: int  # its place in Store.figures


class Store:
    """Every claim with its figures (and their names), by subject, under one policy."""

    def __init__(
        self,
        claims: list[IndexedClaim],
        figures: list[tuple[int, Quantity, str | None]],
        policy: Policy,
        subjects: SubjectIndex | None = None,
    ):
        self.policy = policy
        self.claims = claims
        if subjects is None:
            aliases: dict[str, list[str]] = {}
            for c in claims:
                aliases.setdefault(c.subject, []).extend(c.aliases)
            subjects = SubjectIndex([c.subject for c in claims], aliases)
        self.subjects = (
            subjects  # every subject a manuscript may name; the claims may be those of a few
        )
        self.figures = [StoredFigure(ci, q, name, i) for i, (ci, q, name) in enumerate(figures)]
        self.by_subject: dict[int, list[StoredFigure]] = {}
        for fig in self.figures:
            self.by_subject.setdefault(self.subjects.id[claims[fig.claim].subject], []).append(fig)
        # The keys of the settings the store holds ("max_off_policy_steps = 8", "η = 4"), case-free.
        self.settings = {
            fig.quantity.counted.casefold()
            for fig in self.figures
            if fig.quantity.counted and _setting_key(fig.quantity.counted)
        }
        # The figures written without a digit ("hundreds of thousands", "triple"), found by their words.
        phrases = sorted(
            {
                spelled(fig.quantity.raw)
                for fig in self.figures
                if not _DIGIT.search(fig.quantity.raw) and spelled(fig.quantity.raw)
            },
            key=len,
            reverse=True,
        )
        firsts = "".join(
            sorted({re.escape(p[0]) for p in phrases})
        )  # a cheap test skips most positions
        self.phrases = (
            re.compile(
                rf"\b(?=[{firsts}])(?:"
                + "|".join(r"[\W_]+".join(map(re.escape, p.split())) + r"(?![\w])" for p in phrases)
                + ")",
                re.I,
            )
            if phrases
            else None
        )
        self._measures: dict[int, tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self.figures)

    def safe(self, ci: int) -> bool:
        """The claim is paper-safe (Policy.allows, the one rule) and current: a stale one that the policy
        lets pass still makes lint warn."""
        c = self.claims[ci]
        return c.active and c.paper_safe and not c.stale

    def measures(self, fig: StoredFigure) -> tuple[str, ...]:
        """The store's words for what a figure measures (figures.matching.measure_words), worked out once."""
        words = self._measures.get(fig.index)
        if words is None:
            words = self._measures[fig.index] = measure_words(
                fig.quantity, fig.name, self.claims[fig.claim].statement
            )
        return words


_DIGIT = re.compile(r"\d")


def _setting_key(key: str) -> bool:
    """A configuration key ("max_off_policy_steps") or a one-letter symbol ("η", "S")."""
    return bool(SETTING_KEY.fullmatch(key)) or (len(key) == 1 and key.isalpha())


def subject_index(session: Session) -> SubjectIndex:
    """Every subject of the store and its aliases, to find where a manuscript names them."""
    names = views.subject_names(session)
    return SubjectIndex(names, names)


def build_store(
    session: Session,
    policy: Policy,
    *,
    subjects: SubjectIndex | None = None,
    named: set[str] | None = None,
) -> Store:
    """Read the claims and their figures once: every claim, or (`named`) only those of the subjects a
    manuscript names, which is all lint can match (`subjects`: the index of every subject). Withdrawn and
    superseded claims are in the store but never make a figure safe."""
    indexed: list[IndexedClaim] = []
    figures: list[tuple[int, Quantity, str | None]] = []
    ids = views.select_ids(session) if named is None else views.of_subjects(session, sorted(named))
    for ci, v in enumerate(views.load(session, ids)):
        integrity.ensure_intact([v])
        indexed.append(
            IndexedClaim(
                key=v.key,
                subject=v.subject,
                tag=v.tag,
                trust=v.trust,
                status=v.status,
                stale=v.stale,
                stale_outcome=v.stale_outcome,
                reread_source=v.primary_source,
                status_reason=v.status_reason,
                superseded_by=v.superseded_by,
                outdated=v.outdated_reason,
                rank=v.rank,
                preferred=next(
                    (
                        f"{', '.join(c['figures']) or '(no figure)'} ({c['key']})"
                        for c in v.competitors
                        if c["rank"] == "preferred"
                    ),
                    None,
                ),
                statement=v.statement,
                aliases=v.aliases,
                paper_safe=policy.allows(v),
            )
        )
        for f in v.figures:
            q = as_quantity(f)
            if q.numbers() or q.kind == "text":
                figures.append((ci, q, f["name"]))
    return Store(indexed, figures, policy, subjects)


# --- tables --------------------------------------------------------------------------------------------

_MD_ROW = re.compile(r"[ \t]*\|")
_MD_SEPARATOR = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")
_TEX_TABLE = re.compile(
    r"\\begin\{(tabular\*?|tabularx|tabulary|longtable|tblr|xtabular|supertabular|NiceTabular)\}"
)
_TEX_ROW_END = re.compile(r"\\\\(?:\[[^\]]*\])?")
_TEX_CELL = re.compile(r"(?<!\\)&")
_TEX_RULES = re.compile(
    r"\\(?:toprule|midrule|bottomrule|hline|endhead|endfirsthead|endfoot|endlastfoot)\b"
    r"|\\c(?:line|midrule)(?:\([^)]*\))?\{[^}]*\}"
)


class _Tables:
    """Column headers of tables, by offset in the original: Markdown (pipe) and plain-text (tab) tables
    line by line, LaTeX tabulars row by row (rows end at \\\\, cells at &; the first row is the header)."""

    def __init__(self, src: str, lines: list[int], kind: str):
        self.lines = lines
        self.header: dict[int, list[str]] = {}  # line index -> header cells of its table
        self.sep: dict[int, str] = {}
        self.rows: list[
            tuple[int, int, list[int], list[str]]
        ] = []  # LaTeX: start, end, cell starts, header
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
        if kind == "tex":
            self._tex(src)
        self._row_starts = [r[0] for r in self.rows]

    def _tex(self, src: str) -> None:
        for m in _TEX_TABLE.finditer(src):
            close = src.find(f"\\end{{{m.group(1)}}}", m.end())
            body_end = close if close >= 0 else len(src)
            header: list[str] | None = None
            pos = _skip_args(
                src, m.end(), _TEX_ENV_ARGS.get(m.group(1), 1), body_end
            )  # the column spec
            for row in _TEX_ROW_END.finditer(src, pos, body_end):
                self._tex_row(src, pos, row.start(), header)
                if header is None:
                    cells = _TEX_CELL.split(_TEX_RULES.sub(" ", src[pos : row.start()]))
                    if len(cells) > 1:
                        header = [" ".join(tex(c).text.split()) for c in cells]
                pos = row.end()

    def _tex_row(self, src: str, start: int, end: int, header: list[str] | None) -> None:
        if header is not None:
            cells = [start] + [c.end() for c in _TEX_CELL.finditer(src, start, end)]
            self.rows.append((start, end, cells, header))

    def column(self, offset: int) -> str:
        """The header of the column that the original's offset stands in, or ""."""
        i = bisect.bisect_right(self._row_starts, offset) - 1
        if i >= 0 and self.rows[i][0] <= offset < self.rows[i][1]:
            _, _, cells, header = self.rows[i]
            k = bisect.bisect_right(cells, offset) - 1
            return header[k] if 0 <= k < len(header) else ""
        line = bisect.bisect_right(self.lines, offset) - 1
        header_cells = self.header.get(line)
        if not header_cells:
            return ""
        text = self.texts[line]
        col = offset - self.lines[line]
        sep = self.sep[line]
        k = text[:col].count(sep) - (1 if sep == "|" and text.lstrip().startswith("|") else 0)
        return header_cells[k] if 0 <= k < len(header_cells) else ""


# --- messages ------------------------------------------------------------------------------------------


def _reread_command(claim: IndexedClaim) -> str:
    return reread_command(claim.key, claim.reread_source)


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
    if verdict.verdict != SAME or verdict.comparators_differ:
        parts.append(verdict.reason)
    return f'{claim.key} "{stored.raw}" ({claim.subject}; {"; ".join(parts)})'


_UNTRACKED_HINT = {
    "tex": "add it to the store and insert it with \\claim{KEY}",
    "md": "add it to the store and insert it with {{< var KEY.fig >}}",
    "qmd": "add it to the store and insert it with {{< var KEY.fig >}}",
}
_STATES = (SAME, ROUNDED, CONTAINED)


# --- the linter ----------------------------------------------------------------------------------------


# A configuration setting written out: "max_off_policy_steps = 8", "η = 4", "S=3" (the key, then "=").
_SETTING_BEFORE = re.compile(r"(?<![\w.])([^\W\d][\w]*(?:\.[^\W\d]\w*)*)[ \t]*(?:=|:=)[ \t]*\Z")
# The words after a figure, up to the end of its clause, may say what it counts too: "67B total and 2B
# active parameters", "four of its hooks".
_CLAUSE_END = re.compile(r"[,;:.()\[\]|]")
_AFTER_WORDS = 6
_CARRIED_TIER = (
    2  # a subject carried from an earlier sentence ranks after those named around the figure
)


class _Linter:
    def __init__(self, text: str, name: str, kind: str, store: Store, prose: Prose | None = None):
        self.name, self.kind, self.store = name, kind, store
        self.prose: Prose = prose or _EXTRACT[kind](text)
        p = self.prose.text
        self.sentences = sentence_starts(p)
        mentions = sorted(store.subjects.mentions(p))
        self.mentions = mentions
        self._mention_starts = [m[0] for m in mentions]
        self.filter = FigureFilter(p, self.sentences, mentions)
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self.tables = _Tables(text, self._lines, kind)
        self._heading_at = [h[0] for h in self.prose.headings]
        self._heading_named = [
            store.subjects.named(store.subjects.mentions(h[1])) for h in self.prose.headings
        ]
        self._paragraphs = [0] + [m.end() for m in BLANK_LINE.finditer(p)]
        self._named_in: dict[int, dict[int, int]] = {}
        self._other_in: dict[int, bool] = {}

    def _where(self, p: int) -> tuple[int, int]:
        o = self.prose.orig(p)
        line = bisect.bisect_right(self._lines, o)
        return line, o - self._lines[line - 1] + 1

    # --- which subjects are in scope ------------------------------------------------------------------

    def _span(self, k: int) -> tuple[int, int]:
        """Where sentence k starts and ends."""
        return self.sentences[k], self.sentences[k + 1] if k + 1 < len(self.sentences) else len(
            self.prose.text
        )

    def _mentions_in(self, k: int) -> list:
        start, end = self._span(k)
        return self.mentions[
            bisect.bisect_left(self._mention_starts, start) : bisect.bisect_left(
                self._mention_starts, end
            )
        ]

    def _named(self, k: int) -> dict[int, int]:
        """The subjects sentence k names, with their tiers."""
        if k not in self._named_in:
            self._named_in[k] = self.store.subjects.named(self._mentions_in(k))
        return self._named_in[k]

    def _names_another(self, k: int) -> bool:
        """Sentence k names someone the store does not know ("xAI's Colossus", "Falcon-180B")."""
        if k not in self._other_in:
            spans = [(m[0], m[1]) for m in self._mentions_in(k)]
            self._other_in[k] = names_another(self.prose.text, *self._span(k), spans)
        return self._other_in[k]

    def _carried(self, k: int) -> dict[int, int]:
        """The subjects an earlier sentence of the same paragraph named, when sentence k names none: the
        latest such sentence's, unless a sentence in between (or this one) names someone else."""
        para = self._paragraphs[bisect.bisect_right(self._paragraphs, self.sentences[k]) - 1]
        if self._names_another(k):
            return {}
        j = k - 1
        while j >= 0 and self.sentences[j] >= para:
            if named := self._named(j):
                return named
            if self._names_another(j):
                return {}
            j -= 1
        return {}

    def _context(self, f: Found) -> tuple[dict[int, int], dict[int, int], str]:
        """The subjects named around the figure (its sentence or row, its column header, the heading of its
        section; full names win over short ones), those carried from an earlier sentence of its paragraph
        when its sentence names none, and the words that may say what it counts (its column header, its
        sentence before it and its clause after it)."""
        k = bisect.bisect_right(self.sentences, f.start) - 1
        start, end = self._span(k)
        named = dict(self._named(k))
        column = self.tables.column(self.prose.orig(f.start))
        if column:
            for sid, tier in self.store.subjects.named(
                self.store.subjects.mentions(column)
            ).items():
                named[sid] = min(tier, named.get(sid, 3))
        carried = {} if named else self._carried(k)
        h = bisect.bisect_right(self._heading_at, self.prose.orig(f.start)) - 1
        if h >= 0:
            for sid, tier in self._heading_named[h].items():
                named[sid] = min(tier, named.get(sid, 3))
        after = _CLAUSE_END.split(self.prose.text[f.end : min(end, f.end + 200)], maxsplit=1)[
            0
        ].split()[:_AFTER_WORDS]
        return named, carried, f"{column} {self.prose.text[start : f.start]} {' '.join(after)}"

    # --- which figures ---------------------------------------------------------------------------------

    def _figures(self) -> list[Found]:
        """The prose's figures: each scanned one (a setting read with its key: "η = 4"); figures in words
        (figures.wording: a ratio "twelve to eight" in place of the numbers the scanner read, "a dozen",
        "several hundred thousand"); and the store's figures written without a digit ("triple") where
        the prose writes their words."""
        p = self.prose.text
        words = worded(p)
        ratios = [w for w in words if w.quantity.kind == "ratio"]
        found = _without_overlaps([self._setting(f) for f in scan(p)], ratios) + ratios
        others = [w for w in words if w.quantity.kind != "ratio"]
        if self.store.phrases is not None:
            others += [
                Found(m.start(), m.end(), m.group(0), Quantity(raw=m.group(0), kind="text"))
                for m in self.store.phrases.finditer(p)
            ]
        found.sort(key=lambda f: f.start)
        kept: list[Found] = []
        for w in sorted(others, key=lambda f: (f.start, -f.end)):
            if not kept or kept[-1].end <= w.start:  # the longer of two wordings at one place
                kept.append(w)
        # where the scanner read a figure, it is judged as that
        return sorted(found + _without_overlaps(kept, found), key=lambda f: f.start)

    def _setting(self, f: Found) -> Found:
        q = f.quantity
        if q.kind != "value" or not bare(q):
            return f
        m = _SETTING_BEFORE.search(self.prose.text, max(0, f.start - 80), f.start)
        if m is None:
            return f
        raw = self.prose.text[m.start(1) : f.end]
        try:
            setting = parse(raw)
        except FigureError:
            return f
        if setting.counted != m.group(1) or setting.value != q.value:
            return f
        return Found(m.start(1), f.end, raw, setting)

    def report(self) -> Report:
        out = Report()
        for f in self._figures():
            reason = self.filter.skipped(f)
            q = f.quantity
            if (
                reason is None
                and q.counted
                and _setting_key(q.counted)
                and "=" in f.raw
                and q.counted.casefold() not in self.store.settings
            ):
                reason = f"a setting of {q.counted}, which the store does not hold"
            if reason is None:
                passed, finding = self._check(f)
                if finding is not None and finding.severity == SKIPPED:
                    out.skipped.append(finding)
                    continue
                out.checked += 1
                out.passed += passed
                if finding is not None:
                    out.findings.append(finding)
            else:
                out.skipped.append(self._finding(f, SKIPPED, reason, [], None))
        return out

    def _finding(
        self, f: Found, severity: str, message: str, chosen: list, verdict: str | None
    ) -> Finding:
        store = self.store
        chosen = sorted(
            {ci: (ci, q, v) for ci, q, v in reversed(chosen)}.values(),
            key=lambda j: store.claims[j[0]].key,
        )
        line, col = self._where(f.start)
        return Finding(
            self.name,
            line,
            col,
            " ".join(f.raw.split()),
            severity,
            message,
            tuple(store.claims[ci].key for ci, _, _ in chosen),
            tuple(store.claims[ci].tag for ci, _, _ in chosen),
            verdict,
        )

    # --- the judgement ---------------------------------------------------------------------------------

    def _judge(self, f: Found) -> tuple[list[tuple[int, Quantity, Verdict]], dict[int, int]]:
        """Every stored figure of a subject in scope that the written one may be, with its verdict; and
        the tier by which each claim's subject is in scope."""
        store = self.store
        named, carried, words = self._context(f)
        q = f.quantity
        small, plain = small_count(q), bare(q)
        judged: list[tuple[int, Quantity, Verdict]] = []
        tiers: dict[int, int] = {}
        scope = [(sid, tier, small, False) for sid, tier in named.items()]
        scope += [
            (sid, tier + _CARRIED_TIER, plain, True)
            for sid, tier in carried.items()
            if sid not in named
        ]
        for sid, tier, evidence, was_carried in scope:
            for fig in store.by_subject.get(sid, ()):
                context = Context(
                    subject=True,
                    words=words,
                    name=fig.name,
                    evidence=evidence,
                    measures=store.measures(fig),
                )
                v = match(fig.quantity, q, context)
                # a subject carried from an earlier sentence is too weak a link for "another value of it"
                if v.verdict != "unrelated" and not (was_carried and v.verdict == DIFFERENT):
                    judged.append((fig.claim, fig.quantity, v))
                    tiers[fig.claim] = min(tier, tiers.get(fig.claim, tier))
        return judged, tiers

    def _check(self, f: Found) -> tuple[bool, Finding | None]:
        """(passed, finding): the figure passes when a paper-safe, current claim states it; a finding says
        what else is the case (a skip when lint cannot judge it)."""
        store = self.store
        judged, tiers = self._judge(f)
        # Among the subjects that have this figure, the one named in full wins over one named by a short word.
        ranked = [j for j in judged if j[2].verdict in _STATES] or judged
        best = min((tiers[ci] for ci, _, _ in ranked), default=None)
        judged = [j for j in judged if tiers[j[0]] == best]
        states = [j for j in judged if j[2].verdict in _STATES]
        stating = [
            (ci, q, v) for ci, q, v in states if store.safe(ci) and (v.verdict == SAME or v.step)
        ]
        # a paper-safe, current claim states it (a step of its change: "up to 128K" of 32K → 128K), and it is
        # the value its quantity uses
        if any(
            store.claims[ci].rank != "deprecated" and store.claims[ci].preferred is None
            for ci, _, _ in stating
        ):
            return True, None
        policy = store.policy

        def finding(severity: str, message: str, chosen: list, verdict: str | None) -> Finding:
            return self._finding(f, severity, message, chosen, verdict)

        def described(chosen: list) -> str:
            seen: dict[int, str] = {}
            for ci, q, v in chosen:
                seen.setdefault(ci, _describe(store.claims[ci], q, v))
            return "; ".join(seen[ci] for ci in sorted(seen, key=lambda ci: store.claims[ci].key))

        if stating:  # only values the store keeps but does not use
            c = store.claims[stating[0][0]]
            use = (
                f"; the preferred value is {c.preferred}"
                if c.preferred
                else "; no value is preferred yet"
            )
            kind = (
                "a deprecated value"
                if c.rank == "deprecated"
                else "a value its quantity does not prefer"
            )
            return False, finding(
                "warning", f"uses {kind}: {described(stating)}{use}", stating, stating[0][2].verdict
            )
        # A value inside a stored range does not state the range, and does not differ from it either.
        within = [j for j in states if j[2].within]
        states = [j for j in states if not j[2].within]
        if within and not states:
            safe_range = [j for j in within if store.safe(j[0])]
            if safe_range:
                return True, finding(
                    "note",
                    f"within the stored range: {described(safe_range)}",
                    safe_range,
                    CONTAINED,
                )
            active = [j for j in within if store.claims[j[0]].active]
            if active:
                return False, finding(
                    "warning",
                    f"within the range of a claim that is not paper-safe under the "
                    f"{policy.describe()}: {described(active)}",
                    active,
                    CONTAINED,
                )
        safe_near = [j for j in states if store.safe(j[0])]
        if safe_near:
            return False, finding(
                "warning",
                f"differs from the store: {described(safe_near)}",
                safe_near,
                safe_near[0][2].verdict,
            )
        active = [j for j in states if store.claims[j[0]].active]
        stale_ok = [j for j in active if store.claims[j[0]].paper_safe]  # paper-safe but stale
        if stale_ok and not policy.strict:
            checks = "; ".join(
                f"claims verify {store.claims[ci].key}" for ci in sorted({j[0] for j in stale_ok})
            )
            return False, finding(
                "warning",
                f"matches only stale claims: {described(stale_ok)}; check again: "
                f"{checks} (the strict policy blocks it)",
                stale_ok,
                stale_ok[0][2].verdict,
            )
        if active:
            fixes = "; ".join(
                _reread_command(store.claims[ci])
                if not store.claims[ci].stale
                else f"claims verify {store.claims[ci].key}"
                for ci in sorted({j[0] for j in active}, key=lambda ci: store.claims[ci].key)
            )
            return False, finding(
                "error",
                f"not paper-safe under the {policy.describe()}: {described(active)}; "
                f"clear it: {fixes}",
                active,
                active[0][2].verdict,
            )
        if states:
            return False, finding(
                "error",
                f"matches only withdrawn or superseded claims: {described(states)}; "
                "use the current figure or remove it",
                states,
                states[0][2].verdict,
            )
        different = [j for j in judged if j[2].verdict == DIFFERENT and store.claims[j[0]].active]
        if different:
            return False, finding(
                "warning", f"differs from the store: {described(different)}", different, DIFFERENT
            )
        q = f.quantity
        if q.kind == "text":
            return False, finding(
                SKIPPED,
                "no number, and no claim of a subject named here states these words",
                [],
                None,
            )
        if small_bare(q):
            return False, finding(
                SKIPPED,
                "a small number with no unit, and nothing near it says what a claim of "
                "a subject named here measures",
                [],
                None,
            )
        if not _DIGIT.search(f.raw) and all(abs(n) < 10 for n in q.numbers()):
            return False, finding(
                SKIPPED,
                'a small count spelled out ("two stages") that no claim of a subject '
                "named here states",
                [],
                None,
            )
        if f.start in self.filter.quiet:
            return False, finding(
                SKIPPED,
                'most likely a year ("in 2020 researchers"), and no claim states it',
                [],
                None,
            )
        hint = _UNTRACKED_HINT.get(self.kind, "add it to the store")
        return False, finding(
            "note", f"untracked: no claim in the store states it; {hint}", [], None
        )


def _without_overlaps(figures: list[Found], others: list[Found]) -> list[Found]:
    """The figures that overlap none of `others` (both sorted by start; neither list overlaps itself)."""
    starts = [o.start for o in others]
    out = []
    for f in figures:
        i = bisect.bisect_left(starts, f.end) - 1  # the last of the others starting before f ends
        if i < 0 or others[i].end <= f.start:
            out.append(f)
    return out


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
        raise BadQuery(
            f"{path}: cannot lint a file of type {ext or '(no extension)'!r} (known: {known})"
        )
    return EXTENSIONS[ext]


def lint_files(
    session: Session,
    paths: list[str],
    policy: Policy,
    *,
    on_file: Callable[[str], None] | None = None,
) -> Report:
    """Lint each file against the store; every file is read before the store is. Unknown extensions and
    unreadable files raise BadQuery naming the file. `on_file(name)` hears of each file linted (a progress bar)."""
    texts = []
    for path in paths:
        kind = kind_of(str(path))
        try:
            with open(
                path, encoding="utf-8-sig"
            ) as fh:  # universal newlines: "\r\n" counts as one line end
                texts.append((str(path), kind, fh.read()))
        except UnicodeDecodeError as exc:
            raise BadQuery(
                f"{path}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
        except OSError as exc:
            raise BadQuery(f"{path}: cannot read: {exc.strerror or exc}") from None
    # Only the claims of the subjects the manuscripts name can match a figure in them: read those.
    subjects = subject_index(session)
    proses = [_EXTRACT[kind](text) for _, kind, text in texts]
    named = {subjects.subjects[m[2]] for prose in proses for m in subjects.mentions(prose.text)}
    store = build_store(session, policy, subjects=subjects, named=named)
    report = Report(history=anchor.take(session))
    for (name, kind, text), prose in zip(texts, proses):
        report.extend(_Linter(text, name, kind, store, prose).report())
        if on_file is not None:
            on_file(name)
    return report
