"""What lint reads around the scanner's figures: ratios that authors write as two figures ("twelve GPUs
to the trainer for every eight", "12 GPUs to the learner and 8 to rollouts" in a clause that says split),
and the numbers the scanner read as no figure at all, so that none vanishes from lint's accounting.

`ratios(prose, found)` gives the ratios, each with the two figures it replaces; `unread(prose, covered)`
gives each number that no figure or skipped span covers, re-read where a hyphen after a scale word hid
it from the scanner ("a trillion-parameter model"), else with the reason lint cannot read it.
"""

from __future__ import annotations

import bisect
import re

from claimsdb.figures import Found, Quantity, scan

_SPACE = r"[ \t\u00a0]+"
_WORD = r"[^\W\d_][\w'’-]*"
# "X [thing] [to the trainer] for every Y": the words between may be a few, with no clause end.
_FOR_EVERY = re.compile(
    rf"(?:{_SPACE}{_WORD}){{0,5}}{_SPACE}for{_SPACE}(?:every|each){_SPACE}", re.I
)
# "X [thing] to the trainer and Y to ...": each figure goes to something, in a clause that says split.
_TO_EACH = re.compile(
    rf"{_SPACE}to(?:{_SPACE}{_WORD}){{1,3}}[ \t\u00a0]*,?(?:{_SPACE}(?:and|while|with))?{_SPACE}",
    re.I,
)
_TO_AFTER = re.compile(rf"(?:{_SPACE}{_WORD})?{_SPACE}to{_SPACE}[^\W\d_]", re.I)
_SPLIT_WORDS = re.compile(r"\b(?:ratios?|splits?|split|divid\w*|proportions?)\b", re.I)
_CLAUSE = 200  # how far around a split its clause's words are looked for


def _part(f: Found) -> bool:
    q = f.quantity
    return q.kind == "value" and q.value is not None and q.comparator == "="


def _same_thing(a: Quantity, b: Quantity) -> bool:
    """The second figure of a ratio counts what the first does, or says nothing of it ("eight")."""
    return (b.unit is None and b.counted is None) or (b.unit, b.counted) == (a.unit, a.counted)


def _clause(prose: str, start: int, end: int) -> str:
    lo = max(0, start - _CLAUSE)
    lo = max(lo, prose.rfind(".", lo, start) + 1)
    return prose[lo : end + _CLAUSE].split(".", 1)[0]


def ratios(prose: str, found: list[Found]) -> list[Found]:
    """Two figures joined as a ratio: "X for every Y" always, "X to A and Y to B" (of one thing) when its
    clause says split, divided, ratio or proportion. Each ratio spans both figures, and takes the unit or
    counted thing they share (what the ratio divides)."""
    out: list[Found] = []
    i = 0
    while i + 1 < len(found):
        a, b = found[i], found[i + 1]
        same = _same_thing(a.quantity, b.quantity)
        if _part(a) and _part(b):
            # "one verifier for every four generators" divides two things; a split divides one
            every = _FOR_EVERY.fullmatch(prose, a.end, b.start)
            split = (
                not every
                and same
                and _TO_EACH.fullmatch(prose, a.end, b.start)
                and _TO_AFTER.match(prose, b.end)
                and _SPLIT_WORDS.search(_clause(prose, a.start, b.end))
            )
            if every or split:
                qa = a.quantity
                raw = prose[a.start : b.end]
                steps = (float(qa.value or 0), float(b.quantity.value or 0))
                unit, counted = (qa.unit, qa.counted) if same else (None, None)
                q = Quantity(raw=raw, kind="ratio", steps=steps, unit=unit, counted=counted)
                out.append(Found(a.start, b.end, raw, q))
                i += 2
                continue
        i += 1
    return out


# A number as lint counts them: digits standing alone, or a scale word ("a trillion-parameter model").
# Digits in a name ("H800", "V3", "Qwen3-235B-A22B", "Olmo-3-7B") are no number: their chain of letters,
# digits, dots and hyphens starts with a letter.
_NUMBER = re.compile(
    r"(?<![\w.,\-])\d+(?:[.,]\d+)*[\w/]*"
    r"|(?<![\w-])(?:hundred|thousand|million|billion|trillion|quadrillion)s?(?![^\W\d_])",
    re.I,
)
_SCALE_HYPHEN = re.compile(r"(?:(?<=hundred)|(?<=thousand)|(?<=illion))-", re.I)
_WINDOW = 40  # how far around an unread number its figure may reach
_SHOWN = 40  # how much of an unread number a finding shows ("1.1.1.1 …" may be a megabyte long)
UNREAD = "a number read as no figure: lint cannot check it"
_WHY = (
    (re.compile(r"(?:1[89]|20)\d\d[a-z]"), 'a year (a citation\'s "2024a")'),
    (re.compile(r"\d+(?:st|nd|rd|th)", re.I), 'an ordinal ("19th")'),
    (
        re.compile(r"(?:hundred|thousand|million|billion|trillion|quadrillion)s?", re.I),
        'a scale word with no number ("each trillion tokens")',
    ),
    (re.compile(r"\d+\.\d+\.\d+[.\d]*"), "a section or version number (dotted)"),
    (re.compile(r"\d+[.,\d]*[^\W\d_]+\d[\w]*"), "a code or identifier (letters and digits mixed)"),
    (
        re.compile(r"\d+[.,\d]*[^\W\d_][\w/]*"),
        'a number glued to a word that is not a known unit or scale ("32b", "100GiB/s")',
    ),
)


def why_unread(raw: str) -> str:
    """Why lint cannot check a number the scanner read as no figure."""
    return next((why for pattern, why in _WHY if pattern.fullmatch(raw)), UNREAD)


def unread(prose: str, covered: list[tuple[int, int]]) -> tuple[list[Found], list[Found]]:
    """The numbers of the prose that no span of `covered` (sorted, not overlapping) holds: (figures read
    again with a scale word's hyphen as a space, the numbers still unread)."""
    starts = [s for s, _ in covered]
    again: list[Found] = []
    left: list[Found] = []
    # only the gaps between covered spans are searched: a run of half a million numbers is one span
    gaps = zip([0] + [e for _, e in covered], [*starts, len(prose)])
    for m in (m for a, b in gaps if a < b for m in _NUMBER.finditer(prose, a, b)):
        if again and again[-1].end > m.start():
            continue
        if m.group(0)[0].isdigit() and _IN_NAME.search(prose, max(0, m.start() - 40), m.start()):
            continue
        lo = max(0, m.start() - _WINDOW)
        window = prose[lo : m.end() + _WINDOW]
        spaced = _SCALE_HYPHEN.sub(" ", window)
        # read again only where a scale word's hyphen changed what the scanner saw
        hit = (
            next((f for f in scan(spaced) if f.start <= m.start() - lo < f.end), None)
            if spaced != window
            else None
        )
        start, end = (lo + hit.start, lo + hit.end) if hit is not None else (0, 0)
        j = bisect.bisect_left(starts, end) - 1  # the last covered span starting before it ends
        if hit is not None and "-" in prose[start:end] and (j < 0 or covered[j][1] <= start):
            again.append(Found(start, end, prose[start:end], hit.quantity))
        else:
            raw = m.group(0) if len(m.group(0)) <= _SHOWN else m.group(0)[:_SHOWN] + " …"
            left.append(Found(m.start(), m.end(), raw, Quantity(raw=raw, kind="text")))
    return again, left


_IN_NAME = re.compile(r"[^\W\d_][\w.]*(?:-[\w.]+)*-\Z")  # "Olmo-3-", "Qwen3-235B-"
