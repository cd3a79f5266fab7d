"""`claims lint`: find every figure in a manuscript's prose and check it against the store.

`build_index(session, policy)` reads the store once; `lint_text(text, name=..., kind=..., index=...)`
returns a `Finding` for each figure of the prose that is not backed by a paper-safe, current claim;
`lint_files(session, paths, policy)` does both for files, the kind taken from the extension.

What is prose. Each kind is rewritten into a prose copy that maps back to the original's offsets, so
`line:col` (1-based; columns count characters, a tab is one) always point into the file as written:
- tex: math (`$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]`, equation/align/gather/multline/eqnarray/math
  environments, `\\ensuremath`), `%` comments, the preamble (before `\\begin{document}`), verbatim,
  listings, TikZ and the bibliography are skipped; so are the arguments of `\\cite...` (every citation
  command), `\\label`, `\\ref`, `\\eqref`, `\\autoref`, `\\cref`, `\\url`, the target of `\\href`,
  `\\claim` (a figure inserted by reference is safe by construction), `\\includegraphics`, `\\input`,
  lengths and colours, code (`\\texttt`, `\\verb`, `\\lstinline`) and authors/affiliations. Other commands
  keep their text (`\\textbf{16K} H100` reads "16K H100"); `~` is a space, `\\%` a percent sign,
  `--` a dash, `16\\,000` and `2{,}048` are numbers; a table cell (`&`) and a row (`\\\\`) end a figure,
  and a row is one sentence.
- md / qmd: YAML front matter, fenced code, code spans, `$..$` (pandoc's rule, so "$5M" stays money),
  `$$..$$`, HTML comments, tags and their attributes, script/style, link and image targets, reference
  definitions, `[@key]` and `@key` (citations, Quarto cross-references), footnote marks, `{{< .. >}}`
  shortcodes (`{{< var KEY.fig >}}` is a figure by reference), attribute blocks, numbers of numbered
  headings and ordered-list markers; a table row is one sentence.
- html: comments, script, style, head, pre, code, math, svg and `<sup>` (footnote marks) are skipped;
  tags and their attributes are not prose; entities are decoded; a cell ends a figure, a row or a block
  element ends a sentence.
- txt: everything is prose.
In every kind: URLs, e-mail addresses, DOIs and arXiv identifiers, numeric citations ("[12]", "[3, 4]",
"[3-5]"), month-name dates ("5 March 2024", "March 2024"), ISO dates ("2024-03-05"), slashed dates and
clock times ("9:30 am") give no figure; neither do:
- years: a bare 4-digit integer 1900-2100 with no scale and no unit (a capitalised word after it is
  not its unit: "In 2024 Llama ..."), a range of two such years, a decade ("the 2020s"); such a number
  followed by a word ("in 2020 researchers", "2000 steps") is checked against the store, but gives no
  note when nothing matches;
- references: a number after Section/Sec./§, Table, Figure/Fig., Equation/Eq., Appendix, Chapter, Revision,
  Algorithm, Listing, Line, Theorem, Lemma, Page/p./pp., Part, Stage, Phase, Row, Column, Version and
  the like, also in lists ("Tables 2 and 3") and in parentheses ("Eq. (7)");
- a stored figure with no unit ("11", WeirdML's family count) matches a written figure that has a unit
  ("11 hours") only in a sentence that names the claim's subject; elsewhere such a figure is a note;
- names: a number that is part of a subject named in the store ("Llama 3", "Open Athena 535B"), a model
  size right after such a name ("Llama 3 405B", "GLM-4.5 355B-A32B"), and a number below 10 written
  right after a capitalised name in mid-sentence ("we compare Gemma 3");
- small bare integers: an integer below 10 with no unit ("4", "3 of them") is too ambiguous to check
  against the store and gives nothing at all, not even a note.
Vague figures ("hundreds of GPUs") have no number to check and give nothing.

How a figure matches a claim. By value: a stated number equal within a relative tolerance of 1e-9 or
inside a stored range (the parts of a stored ratio are not numbers on their own); a range matches a
range with the same ends; a transition matches one whose steps include its steps, in order; a ratio
matches the same ratio. And by unit: when both the text and the stored figure have a unit they must be
the same unit, and when both name a counted thing ("H100") it must be the same; what only one side
says is not compared, so a bare number matches by value alone. The comparator need not agree ("100,000
tasks" matches "up to 100,000 tasks"); the message says when it differs.

Which claims. Every claim, whatever its status, is in the index. A withdrawn or superseded claim never
makes a figure safe; it is reported only when no active claim matches (then it is an error: the text
quotes a retired figure). Among the matching claims, those whose subject is named in the same sentence
are kept: first those named in full ("Llama 3", also "Llama-3", "llama3", "Llama 3 405B"; each part of
"DeepSeek-V3 / R1" counts), else those named by a distinctive word ("Kimi" of "Kimi K2.5", "DeepSeek" of
"DeepSeek-V4"), else all. Matching is case-insensitive and ignores hyphens and the space between a name
and its number.

Severity. No finding when a kept claim is active, paper-safe under the policy and not stale. Otherwise:
"warning" when a kept active claim is paper-safe but stale (spot-checked, and the latest verification
found the figure changed or gone; the strict policy blocks those, so then it is an error); "error" when
every kept claim is unsafe, or withdrawn/superseded; "note" when nothing matches (an untracked figure).
Each message is one line naming the claim key(s), tag and trust, and for errors the `claims reread`
command that would clear each one.

Domain code: it returns findings and raises BadQuery; it never prints.
"""

from __future__ import annotations

import bisect
import heapq
import html
import math
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb.errors import BadQuery
from claimsdb.models import Claim
from claimsdb import history
from claimsdb.policy import EXPORTABLE_STATUS, Policy
from claimsdb.quantities import REL_TOLERANCE, Found, Quantity, same_unit, scan
from claimsdb.queries import STALE_OUTCOMES, as_quantity, claim_views

__all__ = ["EXTENSIONS", "KINDS", "SEVERITIES", "FigureIndex", "Finding", "IndexedClaim", "build_index", "kind_of",
           "lint_files", "lint_text"]

KINDS = ("tex", "md", "qmd", "html", "txt")
EXTENSIONS = {
    ".tex": "tex", ".ltx": "tex", ".latex": "tex",
    ".md": "md", ".markdown": "md", ".rmd": "md",
    ".qmd": "qmd",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".txt": "txt", ".text": "txt",
}
SEVERITIES = ("error", "warning", "note")


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

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "col": self.col, "raw": self.raw, "severity": self.severity,
                "message": self.message, "claims": list(self.claims), "tags": list(self.tags)}


# --- the index -----------------------------------------------------------------------------------------


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

    @property
    def active(self) -> bool:
        return self.status == EXPORTABLE_STATUS


@dataclass(frozen=True)
class _Entry:
    claim: int  # index into FigureIndex.claims
    quantity: Quantity


# Words of a subject that do not name it on their own.
_GENERIC_WORDS = {
    "rl", "llm", "llms", "ai", "ml", "gpu", "gpus", "cpu", "cpus", "tpu", "moe", "api", "sft", "dpo", "ppo",
    "the", "and", "of", "for", "a", "an", "model", "models", "report", "reports", "paper", "papers", "open",
    "large", "small", "mini", "base", "chat", "instruct", "pro", "flash", "super", "ultra", "lite", "max",
    "thinking", "reasoning", "task", "tasks", "stack", "stacks", "services", "service", "pipeline", "pipelines",
    "production", "benchmark", "benchmarks", "bench", "loop", "training", "team", "lab", "labs", "inc",
}
_SUBJECT_SPLIT = re.compile(r"\s*(?:/|,|\+|&|\band\b)\s*")
_WORD_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:\.\d+)*")
_NAME_GAP = re.compile(r"[ \t\n\u00a0\-\u2010\u2011\u2013_]{0,3}")


def _tokens(s: str) -> tuple[str, ...]:
    """A name as a case-free token sequence: letters and digits split apart, so that "Llama-3",
    "Llama 3" and "llama3" are all ("llama", "3")."""
    return tuple(m.group(0).lower() for m in _WORD_TOKEN.finditer(s))


def _name_like(word: str) -> bool:
    return bool(re.search(r"[A-Z0-9]", word) and re.search(r"[^\W\d_]", word))


def _subject_phrases(subject: str) -> list[tuple[tuple[str, ...], int]]:
    """(tokens, tier) for a subject: tier 1 names it in full, tier 2 by a distinctive word."""
    base = re.sub(r"\([^)]*\)", " ", subject)
    out: list[tuple[tuple[str, ...], int]] = [(_tokens(base), 1)]
    alternatives = [a.strip() for a in _SUBJECT_SPLIT.split(base) if a.strip()]
    if len(alternatives) > 1:
        out += [(_tokens(a), 1) for a in alternatives if _name_like(a)]
    for alt in alternatives:
        for chunk in alt.split():
            chunk = chunk.strip(".,;:'’\"")
            if (len(chunk) >= 2 and _name_like(chunk) and not chunk[0].isdigit()
                    and chunk.lower() not in _GENERIC_WORDS and not re.fullmatch(r"[vV]\d+(?:\.\d+)*", chunk)):
                out.append((_tokens(chunk), 2))
            head, _, rest = chunk.partition("-")
            if (rest and len(head) >= 3 and re.search(r"[A-Z]", head) and head.lower() not in _GENERIC_WORDS
                    and (re.search(r"[A-Z]", head[1:]) or re.search(r"\d", rest))):
                out.append((_tokens(head), 2))  # "DeepSeek" of "DeepSeek-V4", "GLM" of "GLM-5", "Llama" of "Llama-3"
    seen: set[tuple[str, ...]] = set()
    result = []
    for toks, tier in out:  # tier 1 comes first, so a phrase keeps its best tier
        if toks and toks not in seen:
            seen.add(toks)
            result.append((toks, tier))
    return result


def _close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=REL_TOLERANCE)


def _values_match(p: Quantity, s: Quantity) -> bool:
    if p.kind in ("value", "moe"):
        if s.kind == "ratio" or p.value is None or not s.contains(p.value):
            return False
        if p.kind == "moe" and s.kind == "moe":
            return _close(p.active, s.active)
        return True
    if p.kind == "range":
        return s.kind == "range" and _close(p.low, s.low) and _close(p.high, s.high)
    if p.kind == "transition":
        if s.kind != "transition":
            return False
        steps = iter(s.steps)
        return all(any(_close(x, y) for y in steps) for x in p.steps)  # a subsequence, in order
    if p.kind == "ratio":
        return s.kind == "ratio" and len(p.steps) == len(s.steps) and all(map(_close, p.steps, s.steps))
    return False


def _units_agree(p: Quantity, s: Quantity) -> bool:
    """Compare what both say: the unit when both have one, the counted thing when both name one; when
    one side has only a unit and the other only a counted thing or label, those two."""
    if p.counted and s.counted and p.counted.lower() != s.counted.lower():
        return False
    if p.unit and s.unit:
        return same_unit(p.unit, s.unit)
    mine, theirs = p.unit or p.counted, s.unit or s.counted
    if mine and theirs and not (p.counted and s.counted):
        return same_unit(mine, theirs) or mine.lower() == theirs.lower()
    return True


class FigureIndex:
    """Every stored figure, searchable by number, with its claim's provenance and subject names."""

    def __init__(self, claims: Sequence[IndexedClaim], figures: Iterable[tuple[int, Quantity]], policy: Policy):
        self.policy = policy
        self.claims = list(claims)
        self.entries = [_Entry(ci, q) for ci, q in figures]
        points: list[tuple[float, int]] = []
        self._ranges: list[tuple[float, float, int]] = []
        self._ratios: list[int] = []
        for eid, e in enumerate(self.entries):
            q = e.quantity
            if q.kind == "ratio":
                self._ratios.append(eid)
                continue
            points += [(n, eid) for n in q.numbers()]
            if q.kind == "range" and q.low is not None and q.high is not None:
                self._ranges.append((float(q.low), float(q.high), eid))
        points.sort()
        self._values = [v for v, _ in points]
        self._value_entries = [eid for _, eid in points]
        # Subject names: first token -> [(tokens, subject id, tier)]
        subjects = sorted({c.subject for c in self.claims})
        self._subject_id = {s: i for i, s in enumerate(subjects)}
        self.claim_subject = [self._subject_id[c.subject] for c in self.claims]
        self._phrases: dict[str, list[tuple[tuple[str, ...], int, int]]] = {}
        for subject, sid in self._subject_id.items():
            for toks, tier in _subject_phrases(subject):
                self._phrases.setdefault(toks[0], []).append((toks, sid, tier))
        for entries in self._phrases.values():
            entries.sort(key=lambda t: -len(t[0]))
        self._cache: dict[tuple, list[_Entry]] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def _near(self, x: float) -> set[int]:
        tol = abs(x) * REL_TOLERANCE
        out = set()
        i = bisect.bisect_left(self._values, x - tol)
        while i < len(self._values) and self._values[i] <= x + tol:
            out.add(self._value_entries[i])
            i += 1
        return out

    def matches(self, q: Quantity) -> list[_Entry]:
        """Stored figures that state q: same value (or range, transition, ratio) and agreeing units."""
        key = (q.kind, q.value, q.low, q.high, q.steps, q.active, q.unit, q.counted)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._matches(q)  # manuscripts repeat their figures
        return found

    def _matches(self, q: Quantity) -> list[_Entry]:
        if q.kind in ("value", "moe") and q.value is not None:
            ids = self._near(q.value) | {eid for lo, hi, eid in self._ranges if lo <= q.value <= hi}
        elif q.kind == "range" and q.low is not None:
            ids = self._near(q.low)
        elif q.kind == "transition" and q.steps:
            ids = self._near(q.steps[0])
        elif q.kind == "ratio":
            ids = set(self._ratios)
        else:
            return []
        found = [self.entries[i] for i in sorted(ids)]
        return [e for e in found if _values_match(q, e.quantity) and _units_agree(q, e.quantity)]

    def mentions(self, prose: str) -> list[tuple[int, int, int, int, tuple[tuple[int, int], ...]]]:
        """Where subjects are named: (start, end, subject id, tier, spans of the number tokens after a word)."""
        toks = [(m.group(0).lower(), m.start(), m.end()) for m in _WORD_TOKEN.finditer(prose)]
        out = []
        for i, (tok, _start, _end) in enumerate(toks):
            for phrase, sid, tier in self._phrases.get(tok, ()):
                n = len(phrase)
                if i + n > len(toks):
                    continue
                ok = True
                for j in range(1, n):
                    t, s, _e = toks[i + j]
                    if t != phrase[j] or not _NAME_GAP.fullmatch(prose, toks[i + j - 1][2], s) \
                            or "\n\n" in prose[toks[i + j - 1][2]:s]:
                        ok = False
                        break
                if ok:
                    numbers = tuple((s, e) for t, s, e in toks[i + 1:i + n] if t[0].isdigit())
                    out.append((toks[i][1], toks[i + n - 1][2], sid, tier, numbers))
        return out


def build_index(session: Session, policy: Policy) -> FigureIndex:
    """Read every claim and figure once. Withdrawn and superseded claims are in the index but never make
    a figure safe (see the module docstring)."""
    claims = list(session.scalars(select(Claim).order_by(Claim.key)))
    views = claim_views(session, claims, events=0)
    history.ensure_intact(views)
    indexed: list[IndexedClaim] = []
    figures: list[tuple[int, Quantity]] = []
    for ci, v in enumerate(views):
        primary = next((s["key"] for s in v["sources"] if s["kind"] != "note"), None)
        stale_outcome = next((c["outcome"] for c in v["verifications"] if c["outcome"] in STALE_OUTCOMES), None)
        indexed.append(IndexedClaim(
            key=v["key"], subject=v["subject"], tag=v["tag"], trust=v["trust"], status=v["status"],
            stale=bool(v["stale"]), stale_outcome=stale_outcome if v["stale"] else None, reread_source=primary,
            status_reason=v["status_reason"], superseded_by=v["superseded_by"], outdated=v["outdated_reason"],
        ))
        for f in v["figures"]:
            q = as_quantity(f)
            if q.numbers():
                figures.append((ci, q))
    return FigureIndex(indexed, figures, policy)


# --- prose: a rewritten copy that maps back to the original --------------------------------------------

_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _blank(s: str) -> str:
    """What a skipped region becomes: a space, a line break, or a paragraph break if it held one."""
    if "\n" not in s:
        return " "
    return "\n\n" if _BLANK_LINE.search(s) else "\n"


class _Prose:
    def __init__(self, src: str):
        self.src = src
        self.pos = 0  # the original is consumed up to here
        self._parts: list[str] = []
        self._pstart: list[int] = []
        self._ostart: list[int] = []
        self._verbatim: list[bool] = []
        self._plen = 0
        self._pending: list[tuple[int, int, str]] = []  # (original offset, length, replacement)
        self.text = ""

    def _emit(self, ostart: int, oend: int, rep: str | None) -> None:
        s = self.src[ostart:oend] if rep is None else rep
        if not s:
            return
        self._parts.append(s)
        self._pstart.append(self._plen)
        self._ostart.append(ostart)
        self._verbatim.append(rep is None)
        self._plen += len(s)

    def later(self, pos: int, length: int, rep: str) -> None:
        """Replace src[pos:pos+length] when the copy gets there (a heading's line end, say)."""
        heapq.heappush(self._pending, (pos, length, rep))

    def keep(self, end: int) -> None:
        while self._pending and self._pending[0][0] < end:
            p, n, rep = heapq.heappop(self._pending)
            if p < self.pos:
                continue  # inside something already skipped
            self._emit(self.pos, p, None)
            self._emit(p, p + n, rep)
            self.pos = p + n
        if end > self.pos:
            self._emit(self.pos, end, None)
            self.pos = end

    def replace(self, start: int, end: int, rep: str) -> None:
        self.keep(start)
        start = max(start, self.pos)
        if end > start:
            self._emit(start, end, rep)
            self.pos = end

    def skip(self, start: int, end: int) -> None:
        self.replace(start, end, _blank(self.src[start:end]))

    def finish(self) -> _Prose:
        self.keep(len(self.src))
        self.text = "".join(self._parts)
        return self

    def orig(self, p: int) -> int:
        k = bisect.bisect_right(self._pstart, p) - 1
        if k < 0:
            return 0
        return self._ostart[k] + (p - self._pstart[k] if self._verbatim[k] else 0)


def _brace_end(src: str, i: int, limit: int, cap: int = 20000) -> int | None:
    """Offset after the brace group opening at src[i] == "{", or None if it does not close."""
    depth = 0
    j = i
    stop = min(limit, i + cap)
    while j < stop:
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None


_TEX_OPT = re.compile(r"[ \t]*\[[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*\]")
_TEX_PAREN = re.compile(r"\([^()\n]*\)")
_TEX_SPACE = re.compile(r"[ \t]*\n?[ \t]*")


def _skip_args(src: str, e: int, count: int | None, limit: int) -> int:
    """End of `count` brace arguments (all of them if None) after a command, with optional [..] args."""
    n = 0
    while e < limit:
        m = _TEX_OPT.match(src, e)
        if m:
            e = m.end()
            continue
        if count is not None and n >= count:
            break
        m = _TEX_SPACE.match(src, e)
        b = m.end() if m else e
        if b < limit and src[b] == "{":
            end = _brace_end(src, b, limit)
            if end is None:
                break
            e, n = end, n + 1
            continue
        break
    return e


_TEX_MATH_ENVS = {
    "equation", "align", "alignat", "flalign", "gather", "multline", "eqnarray", "displaymath", "math", "dmath",
    "subequations", "split", "IEEEeqnarray",
}
_TEX_SKIP_ENVS = _TEX_MATH_ENVS | {
    "verbatim", "Verbatim", "lstlisting", "minted", "comment", "tikzpicture", "pgfpicture", "algorithmic",
    "thebibliography", "filecontents", "axis", "lstcode", "BVerbatim",
}
# Environments whose first brace arguments are not prose (column specs, widths).
_TEX_ENV_ARGS = {
    "tabular": 1, "tabular*": 2, "tabularx": 2, "tabulary": 2, "longtable": 1, "array": 1, "supertabular": 1,
    "xtabular": 1, "tblr": 1, "NiceTabular": 1, "minipage": 1, "wrapfigure": 2, "wraptable": 2, "subfigure": 1,
    "subtable": 1, "multicols": 1, "adjustbox": 1,
}
# Commands whose first N brace arguments are not prose (None: all of them).
_TEX_NO_PROSE: dict[str, int | None] = {
    "label": 1, "ref": 1, "eqref": 1, "autoref": 1, "Autoref": 1, "cref": 1, "Cref": 1, "crefrange": 2,
    "Crefrange": 2, "pageref": 1, "nameref": 1, "vref": 1, "Vref": 1, "labelcref": 1, "url": 1, "href": 1,
    "nolinkurl": 1, "claim": 1, "input": 1, "include": 1, "includegraphics": 1, "includepdf": 1,
    "bibliography": 1, "bibliographystyle": 1, "addbibresource": 1, "usepackage": 1, "RequirePackage": 1,
    "documentclass": 1, "vspace": 1, "hspace": 1, "vskip": 0, "hskip": 0, "setlength": 2, "addtolength": 2,
    "settowidth": 2, "setcounter": 2, "addtocounter": 2, "stepcounter": 1, "newcommand": 2, "renewcommand": 2,
    "providecommand": 2, "newenvironment": 3, "renewenvironment": 3, "DeclareMathOperator": 2, "definecolor": 3,
    "color": 1, "pagecolor": 1, "textcolor": 1, "colorbox": 1, "fcolorbox": 2, "fontsize": 2, "linespread": 1,
    "rule": 2, "raisebox": 1, "resizebox": 2, "scalebox": 1, "multicolumn": 2, "multirow": 2, "cline": 1,
    "cmidrule": 1, "bibitem": 1, "graphicspath": 1, "hypersetup": 1, "geometry": 1, "captionsetup": 1,
    "sisetup": 1, "lstinputlisting": 1, "inputminted": 2, "tag": 1, "author": 1, "affiliation": 1,
    "affil": 1, "address": 1, "email": 1, "institute": 1, "thanks": 1, "date": 1, "orcid": 1,
    "ensuremath": 1, "texttt": 1, "mintinline": 2, "code": 1, "path": 1, "newtheorem": 2, "setcitestyle": 1,
    "bibpunct": None, "DeclareSIUnit": 2, "hyperlink": 1, "hypertarget": 1,
}
_TEX_CITE = re.compile(r"[A-Za-z]*cite[A-Za-z]*|nocite")
_TEX_VERB = {"verb", "lstinline", "Verb"}
_TEX_SYMBOLS = {
    "percent": "%", "S": "§", "P": "¶", "textendash": "–", "textemdash": "—", "texttimes": "×", "times": "×",
    "textasciitilde": "~", "textgreater": ">", "textless": "<", "ldots": "…", "dots": "…", "textellipsis": "…",
    "textpercent": "%", "textdollar": "$", "euro": "€", "pounds": "£", "textsterling": "£", "textbackslash": "\\",
    "approx": "~", "sim": "~", "textapprox": "~",
}
# Commands that start a new sentence and whose first argument is a sentence of its own.
_TEX_BLOCKS = {"part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph",
               "caption", "footnote", "footnotetext", "title", "subtitle", "marginpar", "tablenotes"}
_TEX_BREAKS = {"item": "\n\n", "par": "\n\n", "newline": "\n", "linebreak": "\n", "bigskip": "\n\n",
               "medskip": "\n\n", "smallskip": "\n\n", "maketitle": "\n\n", "noindent": "", "hline": "\n\n",
               "toprule": "\n\n", "midrule": "\n\n", "bottomrule": "\n\n"}
_TEX_TOKEN = re.compile(r"\\\\|\\[A-Za-z@]+\*?|\\.|\\\n|%|\$\$|\$|~|-{2,3}|\{,\}|[{}&]", re.S)
_TEX_DOLLAR = re.compile(r"(?<!\\)\$")
_TEX_DOUBLE_DOLLAR = re.compile(r"(?<!\\)\$\$")


def _tex(src: str) -> _Prose:
    pr = _Prose(src)
    begin = re.search(r"\\begin\s*\{document\}", src)
    end_doc = re.search(r"\\end\s*\{document\}", src)
    limit = end_doc.start() if end_doc else len(src)
    if begin:
        pr.skip(0, begin.end())
    closers: dict[int, str] = {}
    pos = pr.pos
    while True:
        m = _TEX_TOKEN.search(src, pos, limit)
        if not m:
            break
        s, e, tok = m.start(), m.end(), m.group(0)
        if tok == "\\\\":
            e = _skip_args(src, e if src[e:e + 1] != "*" else e + 1, 0, limit)
            pr.replace(s, e, "\n\n")
        elif tok[0] == "\\" and len(tok) > 1 and (tok[1].isalpha() or tok[1] == "@"):
            e = _tex_command(pr, src, s, e, tok[1:].rstrip("*"), limit, closers)
        elif tok[0] == "\\":
            c = tok[1]
            if c in "([":
                close = src.find("\\)" if c == "(" else "\\]", e, limit)
                e = close + 2 if close >= 0 else e
                pr.skip(s, e)
            elif c in "%$&#_{}":
                pr.replace(s, e, c)
            elif c == ",":
                thousands = s > 0 and src[s - 1].isdigit() and re.match(r"\d{3}(?!\d)", src[e:e + 4])
                pr.replace(s, e, "" if thousands else " ")
            elif c in "; :\n\t":
                pr.replace(s, e, " ")
            else:
                pr.replace(s, e, "")  # accents, \- hyphenation hints, \/ and the like
        elif tok == "%":
            nl = src.find("\n", s, limit)
            line_end = nl if nl >= 0 else limit
            line_start = src.rfind("\n", 0, s) + 1
            whole_line = not src[line_start:s].strip() and nl >= 0
            e = line_end + 1 if whole_line else line_end
            pr.replace(s, e, "")
        elif tok == "$$":
            close = _TEX_DOUBLE_DOLLAR.search(src, e, limit)
            e = close.end() if close else e
            pr.skip(s, e)
        elif tok == "$":
            close = _TEX_DOLLAR.search(src, e, limit)
            if close and not _BLANK_LINE.search(src, e, close.start()):
                e = close.end()
            pr.skip(s, e)
        elif tok == "~":
            pr.replace(s, e, " ")
        elif tok.startswith("--"):
            pr.replace(s, e, "–" if tok == "--" else "—")
        elif tok == "{,}":
            pr.replace(s, e, ",")
        elif tok == "{":
            pr.replace(s, e, "")
        elif tok == "}":
            pr.replace(s, e, closers.pop(s, ""))
        elif tok == "&":
            pr.replace(s, e, " | ")
        pos = max(e, pr.pos)
    pr.keep(limit)
    if limit < len(src):
        pr.skip(limit, len(src))
    return pr.finish()


def _tex_command(pr: _Prose, src: str, s: int, e: int, name: str, limit: int, closers: dict[int, str]) -> int:
    if name in ("begin", "end"):
        m = re.compile(r"\s*\{([^{}\n]*)\}").match(src, e)
        if not m:
            pr.replace(s, e, "")
            return e
        env = m.group(1).strip()
        e = m.end()
        if name == "begin" and env.rstrip("*") in _TEX_SKIP_ENVS:
            close = re.compile(r"\\end\s*\{" + re.escape(env) + r"\}").search(src, e, limit)
            e = close.end() if close else e
            pr.skip(s, e)
            return e
        if name == "begin":
            e = _skip_args(src, e, _TEX_ENV_ARGS.get(env, 0), limit)
        pr.replace(s, e, "\n\n")
        return e
    if name in _TEX_VERB:
        m = re.compile(r"(?:\[[^\]\n]*\])?(\{[^}\n]*\}|([^\w\s{])[^\n]*?\2)").match(src, e)
        e = m.end() if m else e
        pr.skip(s, e)
        return e
    if name in _TEX_NO_PROSE or _TEX_CITE.fullmatch(name):
        e = _skip_args(src, e, _TEX_NO_PROSE.get(name), limit)
        pr.skip(s, e)
        return e
    if name in _TEX_SYMBOLS:
        m = re.compile(r"\{\}").match(src, e)
        e = m.end() if m else e
        pr.replace(s, e, _TEX_SYMBOLS[name])
        return e
    if name in _TEX_BREAKS:
        e = _skip_args(src, e, 0, limit)
        pr.replace(s, e, _TEX_BREAKS[name])
        return e
    if name in _TEX_BLOCKS:
        e = _skip_args(src, e, 0, limit)
        m = _TEX_SPACE.match(src, e)
        b = m.end() if m else e
        if b < limit and src[b] == "{":
            end = _brace_end(src, b, limit)
            if end is not None:
                closers[end - 1] = "\n\n"
                pr.replace(s, b + 1, "\n\n")
                return b + 1
        pr.replace(s, e, "\n\n")
        return e
    # Any other command: its name and directly attached optional arguments go; its text stays.
    if src[e:e + 1] == "[" and (m := _TEX_OPT.match(src, e)):
        e = m.end()
    pr.replace(s, e, "")
    return e


# HTML (also inside Markdown)
_HTML_BLOCK = {
    "p", "div", "br", "hr", "li", "ul", "ol", "dl", "dt", "dd", "tr", "table", "thead", "tbody", "tfoot",
    "caption", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "nav", "aside",
    "main", "blockquote", "figure", "figcaption", "body", "html", "title", "form", "fieldset", "details",
    "summary", "address", "center", "iframe", "img", "video", "audio", "object", "embed", "canvas", "picture",
}
_HTML_CELL = {"td", "th"}
_HTML_INLINE = {
    "a", "b", "i", "em", "strong", "span", "small", "big", "abbr", "cite", "q", "s", "u", "mark", "sub", "time",
    "data", "var", "kbd", "samp", "font", "label", "bdi", "bdo", "ins", "del", "wbr", "nobr", "dfn", "tt",
}
_HTML_SKIP = "script|style|head|pre|code|math|svg|template|textarea|sup|noscript|object"
_HTML_TAG = r"</?([A-Za-z][\w:-]*)(?:\s+[^<>\"'=\s]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s<>\"']+))?)*\s*/?>"
_HTML_TOKEN = re.compile(
    r"(?P<comment><!--)"
    rf"|(?P<skipblock><(?P<sb>{_HTML_SKIP})\b[^>]*>)"
    r"|(?P<decl><![^>]*>|<\?[^>]*>)"
    rf"|(?P<tag>{_HTML_TAG})"
    r"|(?P<entity>&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);)",
    re.I,
)


_HEADING_TAG = re.compile(r"<h[1-6]\b", re.I)
_HEADING_NUMBER = re.compile(r"[ \t\n]*\(?\d+(?:\.\d+)*\.?\)?(?=[ \t\n])")


def _tag_replacement(tag: str) -> str:
    m = re.match(r"</?([A-Za-z][\w:-]*)", tag)
    name = m.group(1).lower() if m else ""
    if name in _HTML_BLOCK:
        return "\n\n"
    if name in _HTML_CELL:
        return " | "
    if name in _HTML_INLINE:
        return ""
    return " "


def _html_token(pr: _Prose, src: str, m: re.Match, limit: int) -> int | None:
    """Handle an HTML construct; the offset after it, or None if m is not one."""
    s, e = m.start(), m.end()
    if m.group("comment"):
        close = src.find("-->", e, limit)
        e = close + 3 if close >= 0 else e
        pr.skip(s, e)
    elif m.group("skipblock"):
        if m.group(0).endswith("/>"):
            pr.skip(s, e)
            return e
        close = re.compile(rf"</{m.group('sb')}\s*>", re.I).search(src, e, limit)
        e = close.end() if close else e
        pr.skip(s, e)
    elif m.group("decl"):
        pr.skip(s, e)
    elif m.group("tag"):
        pr.replace(s, e, _tag_replacement(m.group("tag")))
        if _HEADING_TAG.match(m.group("tag")) and (number := _HEADING_NUMBER.match(src, e)):
            pr.skip(e, number.end())  # "<h2>3.2 Results</h2>": a section number
            e = number.end()
    elif m.group("entity"):
        pr.replace(s, e, html.unescape(m.group("entity")))
    else:
        return None
    return e


def _html(src: str) -> _Prose:
    pr = _Prose(src)
    pos = 0
    while m := _HTML_TOKEN.search(src, pos):
        e = _html_token(pr, src, m, len(src))
        pos = max(e or m.end(), pr.pos)
    return pr.finish()


_MD_TOKEN = re.compile(
    r"(?P<fence>^[ \t]{0,3}(?P<fch>`{3,}|~{3,})[^\n]*$)"
    r"|(?P<comment><!--)"
    rf"|(?P<skipblock><(?P<sb>{_HTML_SKIP})\b[^>]*>)"
    r"|(?P<decl><![A-Za-z][^>]*>|<\?[^>]*>)"
    rf"|(?P<tag>{_HTML_TAG})"
    r"|(?P<autolink><[A-Za-z][\w+.-]*:[^\s<>]*>)"
    r"|(?P<heading>^[ \t]{0,3}\#{1,6}[ \t]+(?:\(?\d+(?:\.\d+)*\.?\)?[ \t]+)?)"
    r"|(?P<tablesep>^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$)"
    r"|(?P<tablerow>^[ \t]*\|)"
    r"|(?P<list>^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)"
    r"|(?P<quote>^[ \t]{0,3}(?:>[ \t]?)+)"
    r"|(?P<refdef>^[ \t]{0,3}\[(?!\^)[^\]\n]+\]:[ \t]*\S[^\n]*$)"
    r"|(?P<code>`+)"
    r"|(?P<dmath>\$\$)"
    r"|(?P<math>\$)"
    r"|(?P<cmd>\\[A-Za-z]+\*?)"
    r"|(?P<esc>\\[!-/:-@\[-`{-~])"
    r"|(?P<image>!\[[^\]\n]*\]\([^)\n]*\))"
    r"|(?P<target>\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\))"
    r"|(?P<reflink>\]\[[^\]\n]*\])"
    r"|(?P<cite>\[[^\[\]\n]*@[^\[\]\n]*\]|\[\^[^\]\n]+\]:?)"
    r"|(?P<at>(?<![\w@.])-?@[A-Za-z_][\w:\-]*(?:[.:/][\w\-]+)*)"
    r"|(?P<shortcode>\{\{[<%].*?[>%]\}\})"
    r"|(?P<attr>\{(?:[#.=]|[\w-]+=)[^{}\n]*\})"
    r"|(?P<entity>&(?:\#\d+|\#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);)"
    r"|(?P<emph>\*+|(?<!\w)_+(?=\S)|(?<=\S)_+(?!\w)|~~)",
    re.M,
)
# YAML front matter: a "---" first line, then "key:" (so a leading horizontal rule is not taken for it).
_MD_FRONT = re.compile(r"\A(?:\ufeff)?---[ \t]*\n(?=[ \t]*[\w\"'-][^\n]*:).*?^(?:---|\.\.\.)[ \t]*$\n?", re.M | re.S)
_MD_MATH_CLOSE = re.compile(r"(?<=[^\s\\])\$(?!\d)")


def _line_end(src: str, pos: int) -> int:
    nl = src.find("\n", pos)
    return nl if nl >= 0 else len(src)


def _md(src: str) -> _Prose:
    pr = _Prose(src)
    front = _MD_FRONT.match(src)
    if front:
        pr.skip(0, front.end())
    n = len(src)
    pos = pr.pos
    while m := _MD_TOKEN.search(src, pos):
        s, e, kind = m.start(), m.end(), m.lastgroup
        if kind in ("comment", "skipblock", "decl", "tag", "entity"):
            e = _html_token(pr, src, m, n) or e
        elif kind == "fence":
            fch = m.group("fch")
            close = re.compile(rf"^[ \t]{{0,3}}{re.escape(fch[0])}{{{len(fch)},}}[ \t]*$", re.M).search(src, e + 1)
            e = close.end() if close else n
            pr.skip(s, e)
        elif kind == "heading":
            pr.skip(s, e)
            pr.later(_line_end(src, e), 1, "\n\n")
        elif kind == "tablerow":
            pr.keep(e)
            pr.later(_line_end(src, e), 1, "\n\n")
        elif kind in ("tablesep", "list", "quote", "refdef", "autolink", "image", "cite", "at", "shortcode", "attr"):
            pr.skip(s, e)
        elif kind == "code":
            run = m.group("code")
            para = _BLANK_LINE.search(src, e)
            close = re.compile(rf"(?<!`){run}(?!`)").search(src, e, para.start() if para else n)
            if close:
                e = close.end()
                pr.skip(s, e)
            else:
                pr.replace(s, e, "")
        elif kind in ("dmath", "math"):
            para = _BLANK_LINE.search(src, e)
            stop = para.start() if para else n
            if kind == "dmath":
                close = src.find("$$", e, n)
                ok = close >= 0
                end = close + 2
            else:
                nxt = src[e:e + 1]
                close_m = _MD_MATH_CLOSE.search(src, e, stop) if nxt and not nxt.isspace() else None
                ok = close_m is not None
                end = close_m.end() if close_m else e
            if ok:
                e = end
                pr.skip(s, e)
            else:
                pr.keep(e)  # a dollar sign: "$5.6M"
        elif kind == "cmd":
            name = m.group("cmd")[1:].rstrip("*")
            if name == "begin":
                env = re.compile(r"\{([^{}\n]*)\}").match(src, e)
                if env and env.group(1).rstrip("*") in _TEX_SKIP_ENVS:
                    close = re.compile(r"\\end\{" + re.escape(env.group(1)) + r"\}").search(src, env.end())
                    e = close.end() if close else env.end()
                    pr.skip(s, e)
                else:
                    e = env.end() if env else e
                    pr.replace(s, e, "\n\n")
            elif name in _TEX_NO_PROSE or _TEX_CITE.fullmatch(name):
                e = _skip_args(src, e, _TEX_NO_PROSE.get(name), n)
                pr.skip(s, e)
            elif name in _TEX_SYMBOLS:
                pr.replace(s, e, _TEX_SYMBOLS[name])
            else:
                pr.keep(e)
        elif kind == "esc":
            pr.replace(s, e, m.group("esc")[1])
        elif kind in ("target", "reflink", "emph"):
            pr.replace(s, e, "")
        pos = max(e, pr.pos)
    return pr.finish()


def _txt(src: str) -> _Prose:
    return _Prose(src).finish()


_EXTRACT = {"tex": _tex, "md": _md, "qmd": _md, "html": _html, "txt": _txt}


# --- what is not a figure ------------------------------------------------------------------------------

_MONTH = (r"(?:Jan(?:uary|\.)?|Feb(?:ruary|\.)?|Mar(?:ch|\.)?|Apr(?:il|\.)?|May|June?|July?|Aug(?:ust|\.)?"
          r"|Sep(?:t(?:ember|\.)?|\.)?|Oct(?:ober|\.)?|Nov(?:ember|\.)?|Dec(?:ember|\.)?)")
_DAY = r"(?:[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]\d\d|20\d\d|2100)"
_NOT_FIGURE = re.compile(
    r"(?:https?|ftp|file)://[^\s<>\"'`]+|(?<![\w@])www\.[^\s<>\"'`]+"  # URLs
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail
    r"|\b(?:doi:\s*)?10\.\d{4,9}/[^\s\"'<>]+"  # DOIs
    r"|\b(?:arXiv|arxiv|ArXiv|ARXIV)\s*[:.]?\s*(?:\d{4}\.\d{4,5}|[a-z\-]+/\d{7})(?:v\d+)?"  # arXiv ids
    r"|\[\s*\d{1,4}(?:\s*(?:[,;\-–—]|--)\s*\d{1,4})*\s*\]"  # numeric citations
    rf"|\b{_MONTH}\s+{_DAY}(?:\s*[-–]\s*{_DAY})?(?:,?\s+{_YEAR})?(?![\w])"  # March 5, 2024
    rf"|\b{_DAY}(?:\s*[-–]\s*{_DAY})?\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?(?![\w])"  # 5 March 2024
    rf"|\b{_MONTH},?\s+{_YEAR}(?![\w])"  # March 2024
    r"|\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w])"  # ISO
    rf"|\b{_YEAR}-(?:0[1-9]|1[0-2])(?![\w\-])"  # 2024-03
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}(?![\w/])|\b\d{4}/\d{1,2}/\d{1,2}(?![\w/])"  # slashed dates
    r"|\b\d{1,2}(?::\d{2}){1,2}\s*(?:[ap]\.m\.|[AaPp][Mm]\b|UTC\b|GMT\b)"  # clock times
    r"|['’]\d{2}(?![\w'’])"  # '24
)
_REF_WORDS = (
    r"sections?|secs?\.?|§§?|tables?|tabs?\.|tbls?\.?|figures?|figs?\.?|equations?|eqs?\.|eqns?\.?|appendix|"
    r"appendices|apps?\.|chapters?|chaps?\.|ch\.|algorithms?|algs?\.|listings?|lines?|theorems?|thms?\.|lemmas?|"
    r"definitions?|defs?\.|corollar(?:y|ies)|propositions?|props?\.|remarks?|examples?|exercises?|footnotes?|"
    r"pages?|pp?\.|parts?|paragraphs?|paras?\.|¶|stages?|phases?|rows?|columns?|cols?\.|versions?|nos?\.|#|"
    r"questions?|q\.|revisions?|revs?\.|releases?|v\."
)
_REF_WORD = re.compile(rf"(?<![\w])(?:{_REF_WORDS})", re.I)
# What may stand between a reference word and the number: "Tables 2 and 3", "Eq. (7)", "Sections 3.1, 3.2".
_REF_TAIL = re.compile(
    r"[ \t\n\u00a0]*\(?[ \t]*(?:(?:\d[\w.]*|[A-Z](?:\.\d[\w.]*)?|[IVX]+)\)?[ \t]*"
    r"(?:,|;|and|or|&|to|through|–|—|-)[ \t\n]*\(?[ \t]*)*"
)
_NUMBER_AT = re.compile(r"[-−+]?\d[\d,]*(?:\.\d+)?")
_MODEL_SIZE = re.compile(r"\d+(?:\.\d+)?[BMT](?:-A\d+(?:\.\d+)?[BMT])?(?![\w.-])")
_NAME_BEFORE = re.compile(r"(?<![\w-])([A-Za-z][\w]*)[ \u00a0\-]\Z")
_NEXT_WORD = re.compile(r"[ \t\u00a0]+(\S+)")
_CAPITALISED_WORD = re.compile(r"[A-Z][a-z][\w'’-]*")
_NOT_NAMES = {
    "the", "a", "an", "in", "on", "of", "with", "using", "over", "under", "at", "by", "for", "from", "to", "and",
    "or", "only", "all", "each", "every", "top", "about", "around", "first", "last", "next", "these", "those",
    "our", "their", "its", "his", "her", "we", "they", "it", "i", "after", "before", "within", "across", "per",
    "than", "just", "nearly", "some", "both", "another", "other", "even", "exactly", "roughly", "almost",
}
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|\n[ \t]*\n")
_ABBREVIATIONS = {
    "e.g", "i.e", "al", "fig", "figs", "sec", "secs", "eq", "eqs", "eqn", "tab", "tbl", "no", "nos", "vs", "cf",
    "approx", "ca", "resp", "incl", "app", "ch", "chap", "p", "pp", "dr", "mr", "ms", "prof", "st", "vol", "ed",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "est", "min", "max", "viz",
}
_WORD_BEFORE_DOT = re.compile(r"(?<![\w.])([A-Za-z][\w.]*)\Z")


def _year(prose: str, f: Found, num: re.Match) -> str | None:
    """"year" for a year (skipped), "year-like" for a year-like number with a unit ("2020 runs": checked
    against the store, but not reported when untracked), else None."""
    q = f.quantity
    if not re.fullmatch(r"\d{4}", num.group(0)) or q.kind not in ("value", "range", "transition"):
        return None
    numbers = q.numbers()
    if not all(float(n).is_integer() and 1900 <= n <= 2100 for n in numbers):
        return None
    after = prose[num.end():num.end() + 1]
    if after == "s" and not prose[num.end() + 1:num.end() + 2].isalnum():
        return "year"  # the 2020s
    if after.isalnum():
        return None  # a glued scale or unit
    if not q.unit and not q.counted:
        return "year"
    nxt = _NEXT_WORD.match(prose, f.end if q.kind == "range" else num.end())
    if nxt and _CAPITALISED_WORD.fullmatch(nxt.group(1).rstrip(".,;:!?)")):
        return "year"  # "In 2024 Llama ...": a name is not what a year counts
    return "year-like"


def _sentence_starts(prose: str) -> list[int]:
    starts = [0]
    for m in _SENTENCE_END.finditer(prose):
        if not m.group(0).startswith("\n"):
            w = _WORD_BEFORE_DOT.search(prose, max(0, m.start() - 16), m.start())
            if w and (w.group(1).lower() in _ABBREVIATIONS or (len(w.group(1)) == 1 and w.group(1).isupper())):
                continue
        starts.append(m.end())
    return starts


# --- linting -------------------------------------------------------------------------------------------


_COMPARATOR_WORDS = {"=": "exact", "~": "approximate", "<": "below", "<=": "at most", ">": "above", ">=": "at least",
                     "up to": "up to"}


def _reread_command(claim: IndexedClaim) -> str:
    command = shlex.join(["claims", "reread", claim.key, "--source", claim.reread_source or "PAGE"])
    if claim.reread_source is None:
        command += " (it cites no primary page yet: PAGE is the URL you re-read, or a key from `claims sources add`)"
    return command


def _describe(claim: IndexedClaim, stored: Quantity, written: Quantity) -> str:
    parts = [f"tag {claim.tag} ({claim.trust or 'unknown trust'})"]
    if claim.outdated:
        parts.append(claim.outdated)
    if claim.stale:
        parts.append(f"stale: the latest verification was {claim.stale_outcome}")
    if claim.status == "withdrawn":
        parts.append("withdrawn" + (f": {claim.status_reason}" if claim.status_reason else ""))
    elif claim.status == "superseded":
        parts.append("superseded" + (f" by {claim.superseded_by}" if claim.superseded_by else ""))
    if stored.comparator != written.comparator:
        parts.append(f"stored as {_COMPARATOR_WORDS.get(stored.comparator, stored.comparator)}, "
                     f"written as {_COMPARATOR_WORDS.get(written.comparator, written.comparator)}")
    return f"{claim.key} \"{stored.raw}\" ({claim.subject}; {'; '.join(parts)})"


_UNTRACKED_HINT = {
    "tex": "add it to the store and insert it with \\claim{KEY}",
    "md": "add it to the store and insert it with {{< var KEY.fig >}}",
    "qmd": "add it to the store and insert it with {{< var KEY.fig >}}",
}


class _Linter:
    def __init__(self, text: str, name: str, kind: str, index: FigureIndex):
        self.name, self.kind, self.index = name, kind, index
        self.src = text
        self.prose = _EXTRACT[kind](text)
        p = self.prose.text
        self.not_figure = sorted((m.start(), m.end()) for m in _NOT_FIGURE.finditer(p))
        self._nf_starts = [s for s, _ in self.not_figure]
        self.sentences = _sentence_starts(p)
        self.mentions = sorted(index.mentions(p))
        self._mention_starts = [m[0] for m in self.mentions]
        self._mention_ends = sorted(m[1] for m in self.mentions)
        self.name_numbers = sorted(span for m in self.mentions for span in m[4])
        self._name_number_starts = [s for s, _ in self.name_numbers]
        self._ref_ends = [m.end() for m in _REF_WORD.finditer(p)]
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self._named_cache: dict[int, dict[int, int]] = {}
        self._quiet: set[int] = set()  # figures that give no note when untracked

    # spans -----------------------------------------------------------------------------------
    def _in_spans(self, starts: list[int], spans: list[tuple[int, int]], a: int, b: int) -> bool:
        i = bisect.bisect_right(starts, b - 1) - 1
        # spans may nest (an e-mail inside a URL); look back a little
        for j in range(i, max(-1, i - 4), -1):
            s, e = spans[j]
            if s < b and e > a:
                return True
        return False

    def _skipped(self, f: Found) -> bool:
        p = self.prose.text
        q = f.quantity
        if q.kind == "text" or not q.numbers():
            return True  # vague: nothing to check
        if self._in_spans(self._nf_starts, self.not_figure, f.start, f.end):
            return True
        num = _NUMBER_AT.search(p, f.start, f.end)
        if num is None:  # a number word ("two")
            return self._small_bare(q)
        year = _year(p, f, num)
        if year == "year":
            return True
        if year == "year-like":
            self._quiet.add(f.start)
        if self._after_reference(f.start):
            return True
        if self._in_spans(self._name_number_starts, self.name_numbers, num.start(), num.start() + 1):
            return True  # "Llama 3", "Open Athena 535B": part of a name in the store
        if f.start == num.start() and (self._after_name(num) or self._model_size(num)):
            return True
        return self._small_bare(q)

    def _after_reference(self, start: int) -> bool:
        """A number after "Section", "Table 5 and", "Eq. (", "§": a reference, not a figure."""
        i = bisect.bisect_left(self._ref_ends, start + 1) - 1
        while i >= 0 and self._ref_ends[i] >= start - 60:
            if _REF_TAIL.fullmatch(self.prose.text, self._ref_ends[i], start):
                return True
            i -= 1
        return False

    @staticmethod
    def _small_bare(q: Quantity) -> bool:
        return (q.kind == "value" and q.unit is None and q.counted is None and q.value is not None
                and float(q.value).is_integer() and abs(q.value) < 10)

    def _model_size(self, num: re.Match) -> bool:
        """A size right after a subject's name is part of the model's name: "Llama 3 405B"."""
        p = self.prose.text
        if not _MODEL_SIZE.match(p, num.start()):
            return False
        i = bisect.bisect_left(self._mention_ends, num.start() - 1)
        return i < len(self._mention_ends) and self._mention_ends[i] == num.start() - 1 \
            and p[num.start() - 1] in " \t\u00a0-\u2011"

    def _after_name(self, num: re.Match) -> bool:
        """A number below 10 right after a capitalised name in mid-sentence: "Gemma 3", "Claude 3.5"."""
        p = self.prose.text
        if not re.fullmatch(r"\d(?:\.\d{1,2})?", num.group(0)) or p[num.end():num.end() + 1].isalpha():
            return False
        m = _NAME_BEFORE.search(p, max(0, num.start() - 40), num.start())
        if not m:
            return False
        word = m.group(1)
        if word.lower() in _NOT_NAMES or not re.search(r"[A-Z]", word):
            return False
        if re.search(r"[A-Z0-9]", word[1:]):
            return True  # "GPT 4", "DeepSeek 3": a name wherever it stands
        k = bisect.bisect_right(self.sentences, m.start()) - 1
        lead = p[self.sentences[k]:m.start()]
        return bool(lead.strip(" \t\n\"'“‘([|*_"))  # a plain capitalised word starting a sentence is not a name

    # subjects --------------------------------------------------------------------------------
    def _named(self, pos: int) -> dict[int, int]:
        """Subject id -> best tier of the subjects named in the sentence holding prose offset pos."""
        k = bisect.bisect_right(self.sentences, pos) - 1
        if k in self._named_cache:
            return self._named_cache[k]
        start = self.sentences[k]
        end = self.sentences[k + 1] if k + 1 < len(self.sentences) else len(self.prose.text)
        lo = bisect.bisect_left(self._mention_starts, start)
        hi = bisect.bisect_left(self._mention_starts, end)
        here = self.mentions[lo:hi]
        best: dict[int, int] = {}
        for s, e, sid, tier, _numbers in here:
            if tier == 1 and any(o[2] != sid and o[3] == 1 and o[0] <= s and o[1] >= e and o[1] - o[0] > e - s
                                 for o in here):
                tier = 2  # "Kimi" inside "Kimi K2.5": the longer name is the one meant
            best[sid] = min(tier, best.get(sid, 3))
        self._named_cache[k] = best
        return best

    def _prefer_named(self, pos: int, matches: list[_Entry]) -> list[_Entry]:
        named = self._named(pos)
        if not named:
            return matches
        subject = self.index.claim_subject
        for tier in (1, 2):
            kept = [e for e in matches if named.get(subject[e.claim], 3) <= tier]
            if kept:
                return kept
        return matches

    # findings --------------------------------------------------------------------------------
    def _where(self, p: int) -> tuple[int, int]:
        o = self.prose.orig(p)
        line = bisect.bisect_right(self._lines, o)
        return line, o - self._lines[line - 1] + 1

    def findings(self) -> list[Finding]:
        out = []
        for f in scan(self.prose.text):
            if self._skipped(f):
                continue
            finding = self._check(f)
            if finding is not None:
                out.append(finding)
        return out

    def _check(self, f: Found) -> Finding | None:
        index, policy = self.index, self.index.policy
        matches = self._prefer_named(f.start, index.matches(f.quantity))
        if f.quantity.unit or f.quantity.counted:
            # A stored bare number ("11", "4") says nothing about what it counts: it matches a figure
            # with a unit ("11 hours") only in a sentence that names the claim's subject.
            named = self._named(f.start)
            matches = [e for e in matches if e.quantity.unit or e.quantity.counted
                       or index.claim_subject[e.claim] in named]
        by_claim: dict[int, _Entry] = {}
        for e in matches:
            by_claim.setdefault(e.claim, e)
        active = {ci: e for ci, e in by_claim.items() if index.claims[ci].active}
        for ci in active:
            c = index.claims[ci]
            if policy.passes(c.trust) and not c.stale and not c.outdated:
                return None  # a paper-safe, current claim states it
        raw = " ".join(f.raw.split())
        line, col = self._where(f.start)
        shown = active or by_claim
        keys = sorted(shown, key=lambda ci: index.claims[ci].key)
        claims = tuple(index.claims[ci].key for ci in keys)
        tags = tuple(index.claims[ci].tag for ci in keys)
        described = "; ".join(_describe(index.claims[ci], shown[ci].quantity, f.quantity) for ci in keys)
        if not shown:
            if not any(ch.isdigit() for ch in f.raw) and all(abs(n) < 10 for n in f.quantity.numbers()):
                return None  # "two stages", "one model": prose spells small counts out
            if f.start in self._quiet:
                return None  # "in 2020 researchers": most likely a year
            hint = _UNTRACKED_HINT.get(self.kind, "add it to the store")
            return Finding(self.name, line, col, raw, "note",
                           f"untracked: no claim in the store states it; {hint}", (), ())
        stale_ok = [ci for ci in active if policy.passes(index.claims[ci].trust) and not index.claims[ci].outdated]
        if stale_ok and not policy.strict:
            checks = "; ".join(f"claims verify {index.claims[ci].key}" for ci in stale_ok)
            return Finding(self.name, line, col, raw, "warning",
                           f"matches only stale claims: {described}; check again: {checks} "
                           "(the strict policy blocks it)", claims, tags)
        if active:
            fixes = "; ".join(_reread_command(index.claims[ci]) if not index.claims[ci].stale
                              else f"claims verify {index.claims[ci].key}" for ci in keys)
            return Finding(self.name, line, col, raw, "error",
                           f"not paper-safe under the {policy.describe()}: {described}; clear it: {fixes}",
                           claims, tags)
        return Finding(self.name, line, col, raw, "error",
                       f"matches only withdrawn or superseded claims: {described}; "
                       "use the current figure or remove it", claims, tags)


def lint_text(text: str, *, name: str, kind: str, index: FigureIndex) -> list[Finding]:
    """Findings for every figure of the manuscript's prose that no paper-safe, current claim states,
    in the order they appear."""
    if kind not in KINDS:
        raise BadQuery(f"{name}: unknown manuscript kind {kind!r} (known: {', '.join(KINDS)})")
    return _Linter(text, name, kind, index).findings()


def kind_of(path: str) -> str:
    """The manuscript kind from a file name's extension; BadQuery naming the file if it is not known."""
    ext = Path(path).suffix.lower()
    if ext not in EXTENSIONS:
        known = ", ".join(sorted(EXTENSIONS))
        raise BadQuery(f"{path}: cannot lint a file of type {ext or '(no extension)'!r} (known: {known})")
    return EXTENSIONS[ext]


def lint_files(session: Session, paths: list[str], policy: Policy) -> list[Finding]:
    """Lint each file against the store; every file is read before the store is. Unknown extensions and
    unreadable files raise BadQuery naming the file."""
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
    index = build_index(session, policy)
    findings: list[Finding] = []
    for name, kind, text in texts:
        findings += lint_text(text, name=name, kind=kind, index=index)
    return findings
