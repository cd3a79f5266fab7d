"""What in prose is not a figure: URLs, identifiers, citations, dates, years, references, names;
and where sentences end. See lint/__init__.py for the rules."""

from __future__ import annotations

import bisect
import re

from claimsdb.figures import Found, Quantity
from claimsdb.figures.lexing import MAX_DIGITS
from claimsdb.figures.vocabulary import NOT_NAMES

_MONTH = (
    r"(?:Jan(?:uary|\.)?|Feb(?:ruary|\.)?|Mar(?:ch|\.)?|Apr(?:il|\.)?|May|June?|July?|Aug(?:ust|\.)?"
    r"|Sep(?:t(?:ember|\.)?|\.)?|Oct(?:ober|\.)?|Nov(?:ember|\.)?|Dec(?:ember|\.)?)"
)
_DAY = r"(?:[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]\d\d|20\d\d|2100)"
# Each kind of text that holds numbers but no figure, with the reason a skipped figure gives.
_NOT_FIGURE_KINDS = (
    (
        "an address or identifier",
        r"(?:https?|ftp|file)://[^\s<>\"'`]+|(?<![\w@])www\.[^\s<>\"'`]+"  # URLs
        r"|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+"  # e-mail (RFC 5321's lengths: no run backtracks far)
        r"|\b(?:doi:\s*)?10\.\d{4,9}/[^\s\"'<>]+"  # DOIs
        r"|\b(?:arXiv|arxiv|ArXiv|ARXIV)\s*[:.]?\s*(?:\d{4}\.\d{4,5}|[a-z\-]+/\d{7})(?:v\d+)?"  # arXiv ids
        r"|(?<=[A-Za-z])@\d+(?![\w.])",
    ),  # metrics: pass@1, recall@10
    ("a citation", r"\[\s*\d{1,4}(?:\s*(?:[,;\-–—]|--)\s*\d{1,4})*\s*\]"),
    (
        "a date or time",
        rf"\b{_MONTH}\s+{_DAY}(?:\s*[-–]\s*{_DAY})?(?:,?\s+{_YEAR})?(?![\w])"  # March 5, 2024
        rf"|\b{_DAY}(?:\s*[-–]\s*{_DAY})?\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?(?![\w])"  # 5 March 2024
        rf"|\b{_MONTH},?\s+{_YEAR}(?![\w])"  # March 2024
        r"|\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w])"  # ISO
        rf"|\b{_YEAR}-(?:0[1-9]|1[0-2])(?![\w\-])"  # 2024-03
        r"|\b\d{1,2}/\d{1,2}/\d{2,4}(?![\w/])|\b\d{4}/\d{1,2}/\d{1,2}(?![\w/])"  # slashed dates
        r"|\b\d{1,2}(?::\d{2}){1,2}\s*(?:[ap]\.m\.|[AaPp][Mm]\b|UTC\b|GMT\b)"  # clock times
        r"|['’]\d{2}(?![\w'’])",
    ),  # '24
)
_NOT_FIGURE = re.compile(
    "|".join(f"(?P<k{i}>{pattern})" for i, (_, pattern) in enumerate(_NOT_FIGURE_KINDS))
)
_NOT_FIGURE_REASON = {f"k{i}": reason for i, (reason, _) in enumerate(_NOT_FIGURE_KINDS)}
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
# A run of numbers: NUMBER_RUN or more with nothing but spaces, commas, semicolons or line ends between
# them ("1 2 3 4 ...", "9,9,9,..."), a list of data pasted in rather than figures a sentence states. Lint
# skips a run as one item, in one pass, where reading each of its numbers as a figure made a megabyte of
# them take a minute. The run stops before a number a word follows ("... 30, 40 GPUs"): that one is read.
# Each number's digits are bounded and a run starts only at a number's start, so the pattern itself
# backtracks a bounded distance at each start (linear in the text).
NUMBER_RUN = 20
# A number is taken whole (atomic): "3,072" is one, never "3" and "072", so a run never ends inside a
# figure that follows it.
_RUN_NUMBER = rf"[-−+]?(?>[0-9]{{1,3}}(?:,[0-9]{{3}})+(?![0-9])|[0-9]{{1,{MAX_DIGITS}}})(?:\.[0-9]{{1,{MAX_DIGITS}}})?"
_NUMBER_RUN = re.compile(
    rf"(?<![\w.,\-−+]){_RUN_NUMBER}(?:[ ,;\n]{{1,8}}{_RUN_NUMBER}){{{NUMBER_RUN - 1},}}"
    r"(?![\w.%]|[ ,;]{0,8}[^\W\d_])"
)
_RUN_NUMBERS = re.compile(_RUN_NUMBER)
_NUMBER_AT = re.compile(r"[-−+]?\d[\d,]*(?:\.\d+)?")
_MODEL_SIZE = re.compile(r"\d+(?:\.\d+)?[BMT](?:-A\d+(?:\.\d+)?[BMT])?(?![\w.-])")
_NAME_BEFORE = re.compile(r"(?<![\w-])([A-Za-z][\w]*(?:-[A-Za-z][\w]*)*)[ \u00a0\-]\Z")
_NEXT_WORD = re.compile(r"[ \t\u00a0]+(\S+)")
_CAPITALISED_WORD = re.compile(r"[A-Z][a-z][\w'’-]*")
_NOT_NAMES = NOT_NAMES
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|\n[ \t]*\n")
_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "al",
    "fig",
    "figs",
    "sec",
    "secs",
    "eq",
    "eqs",
    "eqn",
    "tab",
    "tbl",
    "no",
    "nos",
    "vs",
    "cf",
    "approx",
    "ca",
    "resp",
    "incl",
    "app",
    "ch",
    "chap",
    "p",
    "pp",
    "dr",
    "mr",
    "ms",
    "prof",
    "st",
    "vol",
    "ed",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "est",
    "min",
    "max",
    "viz",
}
REFERENCE = "a section, table, figure or version number"
_WORD_BEFORE_DOT = re.compile(r"(?<![\w.])([A-Za-z][\w.]*)\Z")


def _year(prose: str, f: Found, num: re.Match) -> str | None:
    """ "year" for a year (skipped), "year-like" for a year-like number with a unit ("2020 runs": checked
    against the store, but not reported when untracked), else None."""
    q = f.quantity
    if not re.fullmatch(r"\d{4}", num.group(0)) or q.kind not in ("value", "range", "transition"):
        return None
    numbers = q.numbers()
    if not all(float(n).is_integer() and 1900 <= n <= 2100 for n in numbers):
        return None
    after = prose[num.end() : num.end() + 1]
    if after == "s" and not prose[num.end() + 1 : num.end() + 2].isalnum():
        return "year"  # the 2020s
    if after.isalnum():
        return None  # a glued scale or unit
    if not q.unit and not q.counted:
        return "year"
    nxt = _NEXT_WORD.match(prose, f.end if q.kind == "range" else num.end())
    if nxt and _CAPITALISED_WORD.fullmatch(nxt.group(1).rstrip(".,;:!?)")):
        return "year"  # "In 2024 Llama ...": a name is not what a year counts
    return "year-like"


def number_runs(prose: str) -> list[tuple[int, int, int]]:
    """Each run of numbers in the prose (see NUMBER_RUN): where it starts and ends, and how many numbers
    it holds."""
    return [
        (m.start(), m.end(), len(_RUN_NUMBERS.findall(m.group(0))))
        for m in _NUMBER_RUN.finditer(prose)
    ]


def without_runs(prose: str, runs: list[tuple[int, int, int]]) -> str:
    """The prose with each run blanked (spaces, so every other offset stays where it was)."""
    pieces, pos = [], 0
    for start, end, _count in runs:
        pieces += [prose[pos:start], " " * (end - start)]
        pos = end
    return "".join(pieces) + prose[pos:] if pieces else prose


def sentence_starts(prose: str) -> list[int]:
    """Where sentences start: after . ! ? (not after an abbreviation or an initial), at a blank line,
    and at each line end of a tab-separated table (a row is a sentence)."""
    starts = [0]
    lines = prose.split("\n")
    pos = 0
    for line, following in zip(lines, lines[1:]):
        pos += len(line) + 1
        if "\t" in line or "\t" in following:
            starts.append(pos)
    for m in _SENTENCE_END.finditer(prose):
        if not m.group(0).startswith("\n"):
            w = _WORD_BEFORE_DOT.search(prose, max(0, m.start() - 16), m.start())
            if w and (
                w.group(1).lower() in _ABBREVIATIONS
                or (len(w.group(1)) == 1 and w.group(1).isupper())
            ):
                continue
        starts.append(m.end())
    return sorted(set(starts))


class FigureFilter:
    """Which figures of a prose text are not figures to check (see lint/__init__.py)."""

    def __init__(self, prose: str, sentences: list[int], mentions: list):
        self.prose = prose
        self.sentences = sentences
        spans = sorted(
            (m.start(), m.end(), _NOT_FIGURE_REASON[m.lastgroup or ""])
            for m in _NOT_FIGURE.finditer(prose)
        )
        self.not_figure = [(a, b) for a, b, _ in spans]
        self._nf_reason = [r for _, _, r in spans]
        self._nf_starts = [s for s, _ in self.not_figure]
        self._mention_ends = sorted(m[1] for m in mentions)
        self.name_numbers = sorted(span for m in mentions for span in m[4])
        self._name_number_starts = [s for s, _ in self.name_numbers]
        self._ref_ends = [m.end() for m in _REF_WORD.finditer(prose)]
        self.quiet: set[int] = (
            set()
        )  # figures that give no note when untracked ("in 2020 researchers")

    @staticmethod
    def _in_spans(starts: list[int], spans: list[tuple[int, int]], a: int, b: int) -> int | None:
        """The index of a span that overlaps [a, b), or None."""
        i = bisect.bisect_right(starts, b - 1) - 1
        for j in range(
            i, max(-1, i - 4), -1
        ):  # spans may nest (an e-mail inside a URL): look back a little
            s, e = spans[j]
            if s < b and e > a:
                return j
        return None

    def skipped(self, f: Found) -> str | None:
        """Why this figure is not a figure to check against the store, or None."""
        p = self.prose
        q = f.quantity
        j = self._in_spans(self._nf_starts, self.not_figure, f.start, f.end)
        if j is not None:
            return self._nf_reason[j]
        if q.kind == "text":
            return None  # judged by its words
        num = _NUMBER_AT.search(p, f.start, f.end)
        if num is None:  # a number word ("two")
            return None
        year = _year(p, f, num)
        if year == "year":
            return "a year"
        if year == "year-like":
            self.quiet.add(f.start)
        if self.after_reference(f.start):
            return REFERENCE
        if (
            self._in_spans(
                self._name_number_starts, self.name_numbers, num.start(), num.start() + 1
            )
            is not None
        ):
            return "part of a subject's name"  # "Llama 3", "Open Athena 535B"
        if f.start == num.start() and (self._after_name(num) or self._model_size(num)):
            return "part of a name"
        return None

    def after_reference(self, start: int) -> bool:
        """A number after "Section", "Table 5 and", "Eq. (", "§": a reference, not a figure."""
        i = bisect.bisect_left(self._ref_ends, start + 1) - 1
        while i >= 0 and self._ref_ends[i] >= start - 60:
            if _REF_TAIL.fullmatch(self.prose, self._ref_ends[i], start):
                return True
            i -= 1
        return False

    def _model_size(self, num: re.Match) -> bool:
        """A size right after a subject's name is part of the model's name: "Llama 3 405B"."""
        p = self.prose
        if not _MODEL_SIZE.match(p, num.start()):
            return False
        i = bisect.bisect_left(self._mention_ends, num.start() - 1)
        return (
            i < len(self._mention_ends)
            and self._mention_ends[i] == num.start() - 1
            and p[num.start() - 1] in " \t\u00a0-\u2011"
        )

    def _after_name(self, num: re.Match) -> bool:
        """A number below 10 right after a capitalised name in mid-sentence: "Gemma 3", "Claude 3.5"."""
        p = self.prose
        if (
            not re.fullmatch(r"\d(?:\.\d{1,2})?", num.group(0))
            or p[num.end() : num.end() + 1].isalpha()
        ):
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
        lead = p[self.sentences[k] : m.start()]
        return bool(
            lead.strip(" \t\n\"'“‘([|*_")
        )  # a plain capitalised word starting a sentence is not a name


def bare(q: Quantity) -> bool:
    """A number with nothing said of what it counts: no unit, no counted thing."""
    return q.unit is None and q.counted is None and q.kind in ("value", "range")


def small_count(q: Quantity) -> bool:
    """A whole number below 10 ("4", "four scenarios", "η = 4"): any claim of a named subject states one,
    so it counts as that claim's only where it measures what the claim measures."""
    return (
        q.kind == "value"
        and q.value is not None
        and float(q.value).is_integer()
        and abs(q.value) < 10
    )


def small_bare(q: Quantity) -> bool:
    """A whole number below 10 with no unit ("4", "3 of them", "two"): checked only where the words around
    it name what a claim of a named subject measures."""
    return bare(q) and small_count(q)


_NAME_TOKEN = re.compile(r"[^\W_](?:[\w\-.]*[^\W_])?")
_MONTH_OR_DAY = re.compile(rf"{_MONTH}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day", re.I)
_SENTENCE_LEAD = re.compile(r"[\s\"'“‘(\[|*_#>:;,–—-]*")


def names_another(prose: str, start: int, end: int, named: list[tuple[int, int]]) -> bool:
    """Whether prose[start:end] names someone other than the subjects at `named` (spans): a word with a
    capital inside it ("xAI", "PyTorch"), letters and digits with a capital ("GPT-4", "Falcon-180B"), or a
    capitalised word that does not start the sentence ("Colossus"). Acronyms ("MFU", "BLOOM") say too
    little, and months, weekdays and reference words ("Section") are not names."""
    lead = _SENTENCE_LEAD.match(prose, start, end)
    first = lead.end() if lead else start
    for m in _NAME_TOKEN.finditer(prose, start, end):
        if any(s <= m.start() < e for s, e in named):
            continue
        tok = m.group(0)
        letters = [c for c in tok if c.isalpha()]
        if (
            not letters
            or not any(c.isupper() for c in letters)
            or all(c.isupper() for c in letters)
        ):
            continue
        if any(c.isupper() for c in tok[1:]) or any(c.isdigit() for c in tok):
            if not _REF_WORD.fullmatch(tok.rstrip(".")):
                return True
            continue
        if m.start() == first or prose[max(start, m.start() - 2) : m.start()].rstrip().endswith(
            (".", ":", "!", "?")
        ):
            continue
        if tok.lower() in _NOT_NAMES or _MONTH_OR_DAY.fullmatch(tok) or _REF_WORD.fullmatch(tok):
            continue
        return True
    return False
