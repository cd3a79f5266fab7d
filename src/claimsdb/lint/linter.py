"""The linter: each figure of a manuscript's prose, judged against the claims of the subjects it names.

`build_store(session, policy)` reads the store once (lint/store.py); `lint_text` and `lint_files` give
findings and a report (lint/report.py). The rules are in lint/__init__.py; here are which figures a
manuscript holds and which subjects are in scope around each; every "is this that figure?" question goes
to `claimsdb.figures.match`, and lint/judgement.py decides from its verdicts.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session

from claimsdb import anchor
from claimsdb.errors import BadQuery
from claimsdb.figures import Context, FigureError, Found, Quantity, match, parse, scan
from claimsdb.figures.matching import DIFFERENT
from claimsdb.figures.wording import worded
from claimsdb.lint.claims_read import (
    Store,
    build_store,
    key_subjects,
    setting_key,
    subject_index,
)
from claimsdb.lint.filter import (
    REFERENCE,
    FigureFilter,
    bare,
    names_another,
    number_runs,
    sentence_starts,
    small_count,
    without_runs,
)
from claimsdb.lint.inputs import (
    MAX_BYTES,
    MAX_FILES,
    Input,
    inputs,
    own_export,
    resolve_input,
    too_large,
)
from claimsdb.lint.judgement import Judged, by_reference, decide, unjudged, unknown_reference
from claimsdb.lint.reading import ratios as ratios_of
from claimsdb.lint.reading import unread, why_unread
from claimsdb.lint.references import Reference, draft_marked, references, resolve
from claimsdb.lint.report import SKIPPED, Finding, Report
from claimsdb.lint.subjects import SubjectIndex
from claimsdb.lint.tables import Tables
from claimsdb.prose.mapped import BLANK_LINE, Prose, plain
from claimsdb.prose.markup import html_prose, markdown
from claimsdb.prose.tex import tex
from claimsdb.prose.tex_macros import Macros
from claimsdb.trust import people
from claimsdb.trust.rule import Policy

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
_EXTRACT = {"tex": tex, "md": markdown, "qmd": markdown, "html": html_prose, "txt": plain}


# --- the linter ----------------------------------------------------------------------------------------


# A configuration setting written out: "max_off_policy_steps = 8", "η = 4", "S=3" (the key, then "=").
_SETTING_BEFORE = re.compile(r"(?<![\w.])([^\W\d][\w]*(?:\.[^\W\d]\w*)*)[ \t]*(?:=|:=)[ \t]*\Z")
# The words after a figure, up to the end of its clause, may say what it counts too: "67B total and 2B
# active parameters", "four of its hooks".
_CLAUSE_END = re.compile(r"[,;:.()\[\]|]")
_AFTER_WORDS = 6
# How much of its sentence before a figure may say what it counts: all of any sentence a person writes,
# and a bound on the work a figure costs in a "sentence" of a megabyte (a list of data with no full stop).
_BEFORE_CHARS = 1000
_CARRIED_TIER = (
    2  # a subject carried from an earlier sentence ranks after those named around the figure
)


@dataclass(frozen=True)
class _Read:
    """A manuscript's prose as lint reads it: its runs of numbers (lint/filter.py: NUMBER_RUN, each
    skipped whole), the prose with them blanked (`scanned`: where figures and names are looked for),
    and where it names the store's subjects."""

    prose: Prose
    runs: list[tuple[int, int, int]]
    scanned: str
    mentions: list
    references: list[Reference]  # the figures it inserts by a claim's key (lint/references.py)
    draft: bool  # it says it is a draft (`% claims: draft`)


Macroset = Iterable[tuple[str, str]]  # TeX macros without parameters: (name, body)


def _read(text: str, kind: str, subjects: SubjectIndex, inherited: Macroset = ()) -> _Read:
    """`inherited`: the TeX macros in force where another file brings this one in."""
    prose = tex(text, inherited=inherited) if inherited else _EXTRACT[kind](text)
    runs = number_runs(prose.text)
    scanned = without_runs(prose.text, runs)
    refs = references(text, kind)
    return _Read(prose, runs, scanned, subjects.mentions(scanned), refs, draft_marked(text))


# Characters that make text print in another order than it is stored ("Trojan Source"): a figure
# stored as "000,001" between them prints as "100,000". Lint reads the stored order, so each is an error.
_BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
_REORDERED = (
    "error",
    "a bidirectional control character: the text prints in another order than lint reads it; "
    "remove it",
    [],
    None,
)


class _Linter:
    def __init__(self, text: str, name: str, kind: str, store: Store, read: _Read | None = None):
        self.name, self.kind, self.store = name, kind, store
        read = read or _read(text, kind, store.subjects)
        self.prose: Prose = read.prose
        self.references, self.draft = read.references, read.draft
        self._keys: dict | None = None  # each claim's figures by its key, for the references
        self.runs, self.scanned = read.runs, read.scanned
        p = self.prose.text
        self.sentences = sentence_starts(p)
        mentions = sorted(read.mentions)
        self.mentions = mentions
        self._mention_starts = [m[0] for m in mentions]
        self.filter = FigureFilter(p, self.sentences, mentions)
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self._reordered = [(m.start(), m.group(0)) for m in _BIDI_CONTROL.finditer(text)]
        self.tables = Tables(text, self._lines, kind)
        self._heading_at = [h[0] for h in self.prose.headings]
        self._heading_named = [
            store.subjects.named(store.subjects.mentions(h[1])) for h in self.prose.headings
        ]
        self._paragraphs = [0] + [m.end() for m in BLANK_LINE.finditer(p)]
        self._named_in: dict[int, dict[int, int]] = {}
        self._other_in: dict[int, bool] = {}
        self.unread: list[Found] = []  # numbers no figure holds (lint/reading.py)

    def _where(self, p: int) -> tuple[int, int]:
        return self._place(self.prose.orig(p))

    def _place(self, o: int) -> tuple[int, int]:
        """(line, col) of offset o of the manuscript as written."""
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
        sentence before it, its own words and its clause after it)."""
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
        before = self.prose.text[max(start, f.start - _BEFORE_CHARS) : f.start]
        return named, carried, f"{column} {before} {f.raw} {' '.join(after)}"

    # --- which figures ---------------------------------------------------------------------------------

    def _figures(self) -> list[Found]:
        """The prose's figures: each scanned one (a setting read with its key: "η = 4"); figures in words
        (figures.wording: a ratio "twelve to eight" in place of the numbers the scanner read, "a dozen",
        "several hundred thousand"); and the store's figures written without a digit ("triple") where
        the prose writes their words."""
        p = self.scanned
        words = worded(p)
        ratios = [w for w in words if w.quantity.kind == "ratio"]
        scanned = _without_overlaps([self._setting(f) for f in scan(p)], ratios)
        written = ratios_of(p, scanned)  # "twelve GPUs to the trainer for every eight"
        ratios = sorted(ratios + written, key=lambda f: f.start)
        found = _without_overlaps(scanned, written) + ratios
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
        found = sorted(found + _without_overlaps(kept, found), key=lambda f: f.start)
        # no number vanishes: one the scanner did not read is read again, or skipped with its reason
        covered = [(f.start, f.end) for f in found] + [(s, e) for s, e, _ in self.runs]
        covered += self.filter.not_figure + [(m[0], m[1]) for m in self.mentions]
        again, self.unread = unread(p, _merged(covered))
        return sorted(found + again, key=lambda f: f.start)

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
        for start, end, count in self.runs:
            line, col = self._where(start)
            shown = " ".join(self.prose.text[start : min(end, start + 40)].split())
            out.skipped.append(
                Finding(
                    self.name,
                    line,
                    col,
                    f"{shown} …",
                    SKIPPED,
                    f"a run of {count:,} numbers with no word between them: a list of data, "
                    "not figures a sentence states",
                    (),
                    (),
                )
            )
        figures = self._figures()
        for f in self.unread:
            written = self.scanned[f.start : f.end]
            reason = REFERENCE if self.filter.after_reference(f.start) else why_unread(written)
            out.skipped.append(self._finding(f, SKIPPED, reason, [], None))
        for f in figures:
            reason = self.filter.skipped(f)
            q = f.quantity
            if (
                reason is None
                and q.counted
                and setting_key(q.counted)
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
        for ref in self.references:
            if ref.indirect and ref.path not in self.store.by_key:
                continue  # braces that hold no key of the store: "\\section{Results}"
            passed, finding = self._by_reference(ref)
            out.checked += 1
            out.passed += passed
            if finding is not None:
                out.findings.append(finding)
        for offset, char in self._reordered:
            out.findings.append(self._said(self._place(offset), f"U+{ord(char):04X}", *_REORDERED))
        out.findings.sort(key=lambda f: (f.line, f.col))
        out.skipped.sort(key=lambda f: (f.line, f.col))
        return out

    def _by_reference(self, ref: Reference) -> tuple[bool, Finding | None]:
        """A figure inserted by its claim's key, judged as that claim's figure."""
        if self._keys is None:
            self._keys = {
                key: self.store.claims[ci].figures for key, ci in self.store.by_key.items()
            }
        keys = self._keys
        say = functools.partial(self._said, self._place(ref.start), ref.raw)
        found = resolve(ref, keys)
        if isinstance(found, str):
            return unknown_reference(found, say, keyed=bool(ref.path))
        ci = self.store.by_key[found[0]]
        stored = self.store.claims[ci].figures[found[1]][1]
        return by_reference(self.store, ci, stored, self.draft, say)

    def _finding(
        self, f: Found, severity: str, message: str, chosen: list, verdict: str | None
    ) -> Finding:
        return self._said(self._where(f.start), f.raw, severity, message, chosen, verdict)

    def _said(
        self,
        place: tuple[int, int],
        raw: str,
        severity: str,
        message: str,
        chosen: list,
        verdict: str | None,
    ) -> Finding:
        store = self.store
        chosen = sorted(
            {ci: (ci, q, v) for ci, q, v in reversed(chosen)}.values(),
            key=lambda j: store.claims[j[0]].key,
        )
        line, col = place
        return Finding(
            self.name,
            line,
            col,
            " ".join(raw.split()),
            severity,
            message,
            tuple(store.claims[ci].key for ci, _, _ in chosen),
            tuple(store.claims[ci].tag for ci, _, _ in chosen),
            verdict,
        )

    # --- the judgement ---------------------------------------------------------------------------------

    def _judge(self, f: Found) -> tuple[list[Judged], dict[int, int]]:
        """Every stored figure of a subject in scope that the written one may be, with its verdict; and
        the tier by which each claim's subject is in scope."""
        store = self.store
        named, carried, words = self._context(f)
        q = f.quantity
        small, plain = small_count(q), bare(q)
        judged: list[Judged] = []
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
        judged, tiers = self._judge(f)
        say = functools.partial(self._finding, f)
        return decide(self.store, judged, tiers, say) or unjudged(
            f, f.start in self.filter.quiet, self.kind, say
        )


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans sorted, overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _without_overlaps(figures: list[Found], others: list[Found]) -> list[Found]:
    """The figures that overlap none of `others` (both sorted by start; neither list overlaps itself)."""
    starts = [o.start for o in others]
    out = []
    for f in figures:
        i = bisect.bisect_left(starts, f.end) - 1  # the last of the others starting before f ends
        if i < 0 or others[i].end <= f.start:
            out.append(f)
    return out


def _key(ref: Reference) -> str:
    """The claim key a reference may name: LaTeX's whole argument, or a Quarto path without its last part
    (both, when the path is a key itself: the error then says so)."""
    return ref.path if ref.selector is not None else ref.path.rpartition(".")[0]


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
    on_file: Callable[[str, int], None] | None = None,
) -> Report:
    """Lint each file against the store, and the files each brings in (lint/inputs.py); every file is
    read before the store is. Unknown extensions and unreadable files given raise BadQuery naming the
    file; one brought in is a skipped item of the file that names it. `on_file(name, files)` hears of
    each file linted, and how many there are with those brought in (a progress bar)."""
    texts: list[tuple[str, str, str, Macroset]] = []
    unread_inputs: list[Finding] = []
    seen: set[Path] = set()
    for path in paths:
        root = Path(path).parent
        stack: list[tuple[str, str, str, Path, Macroset]] = [
            (str(path), kind_of(str(path)), _read_file(str(path)), root, ())
        ]
        while stack:
            name, kind, text, here, inherited = stack.pop()
            if (where := Path(name).resolve()) in seen:
                continue
            seen.add(where)
            texts.append((name, kind, text, inherited))
            uses = inputs(text, kind)
            macros = Macros(text, len(text), inherited) if kind == "tex" and uses else None
            for use in reversed(uses):
                found, why = _brought_in(use, kind, root, here, len(seen) + len(stack))
                if found is not None:
                    # a TeX file brought in sees the macros in force where it is named
                    stack.append((*found, tuple(macros.in_force(use.start)) if macros else ()))
                elif why:
                    line = text.count("\n", 0, use.start) + 1
                    col = use.start - text.rfind("\n", 0, use.start)
                    unread_inputs.append(Finding(name, line, col, use.raw, SKIPPED, why, (), ()))
    # Only the claims of the subjects the manuscripts name can match a figure in them: read those.
    subjects = subject_index(session)
    reads = [_read(text, kind, subjects, inherited) for _, kind, text, inherited in texts]
    named = {subjects.subjects[m[2]] for read in reads for m in read.mentions}
    # and those of the claims a manuscript inserts by key
    named |= set(
        key_subjects(session, {_key(r) for read in reads for r in read.references}).values()
    )
    store = build_store(session, policy, subjects=subjects, named=named)
    report = Report(history=anchor.take(session), signatures_required=people.load(session).required)
    for (name, kind, text, _), read in zip(texts, reads):
        report.extend(_Linter(text, name, kind, store, read).report())
        if on_file is not None:
            on_file(name, len(texts))
    report.skipped.extend(unread_inputs)
    return report


def _read_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8-sig") as fh:  # universal newlines: "\r\n" is one line end
            return fh.read()
    except UnicodeDecodeError as exc:
        raise BadQuery(
            f"{path}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise BadQuery(f"{path}: cannot read: {exc.strerror or exc}") from None


def _brought_in(
    use: Input, kind: str, root: Path, here: Path, files: int
) -> tuple[tuple[str, str, str, Path] | None, str | None]:
    """(name, kind, text, folder) of the file an input brings in; else why it is not read (None: the
    store's own export, which is no prose)."""
    target = resolve_input(use, kind, root, here)
    if target is None:
        return None, "the file it brings in is not found: its figures are not checked"
    if files >= MAX_FILES:
        return None, f"more than {MAX_FILES} files brought in: its figures are not checked"
    if too_large(target):
        return None, f"{target}: larger than {MAX_BYTES:,} bytes: its figures are not checked"
    try:
        text = _read_file(str(target))
        found = (str(target), kind_of(str(target)), text, target.parent)
    except BadQuery as exc:
        return None, f"{exc}: its figures are not checked"
    return (None, None) if own_export(text) else (found, None)
