"""What a page must hold for a person's re-read to vouch for a claim: the quote, word for word (after
`normalize`: spaces, dashes, ligatures, PDF hyphenation), and each figure of the claim in the quote or
in the passage around it, by locate's rules. Anything else is a finding that refuses the re-read:

- the quote is not on the page (the nearest passage is shown: what the page says there);
- the quote is there only in other words (locate's "reworded"): a re-read quotes the page's own words;
- the page states another value: "the page says 2,048 GPUs where the claim says 4,096 GPUs" (a person
  may correct the claim's figure to the page's, `corrected`);
- a figure is neither in the quote nor in the passage around it.

And where in the page: a locator must name a section, table, figure, page, line, appendix or equation
("§4.1", "Table 5", "p. 12"), or a heading the page has ("Quickstart"); "the report" or "p." names
nothing a reader can turn to (`vague_locator`).

Pure functions over the page's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from claimsdb.figures import Context, FigureError, Quantity, match, parse, scan
from claimsdb.locating.locate import locate
from claimsdb.locating.page import _WORD, _page, normalize
from claimsdb.locating.quote import _exact_spans

_SAID = Context(subject=True)  # the page is the claim's own: its subject counts as named


@dataclass(frozen=True)
class PageCheck:
    """Whether the page holds the quote and the claim's figures; `findings` says why not, for people."""

    outcome: str  # locate's outcome for the quote and figures
    passage: str | None  # where the quote stands, or the page's nearest passage when it does not
    changes: tuple[
        tuple[str, str], ...
    ] = ()  # (the claim's figure, the page's figure in its place)
    missing: tuple[str, ...] = ()  # claim figures with no counterpart in the quote or its passage
    findings: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        return not self.findings


def check_page(
    text: str, quote: str, figures: list[Quantity], hint: str | None = None
) -> PageCheck:
    """Check a re-read's quote and the claim's figures against the page's text."""
    found = locate(text, quote=quote, figures=figures, hint=hint)
    if found.outcome == "confirmed":
        return PageCheck(found.outcome, found.passage)
    if found.outcome == "not-found" or found.passage is None:
        near = nearest_passage(text, quote)
        return PageCheck(
            "not-found",
            near,
            findings=("the quote is not on the page",),
        )
    spans = _exact_spans(_page(text or ""), normalize(quote))  # the quote as the page's own words
    exact = bool(spans)
    if exact:
        # a figure written in the quote as the claim writes it is on the page, however declared; one
        # missing from the passage may stand in the quote's section (within SECTION_CHARS of it)
        written = [raw for raw in (*found.missing, *(c for c, _p in found.changes))]
        verbatim = {raw for raw in written if _written_in(raw, quote)}
        nearby = _in_section(text, spans[0], found.missing, figures, hint)
        found = replace(
            found,
            changes=tuple(c for c in found.changes if c[0] not in verbatim),
            missing=tuple(m for m in found.missing if m not in verbatim | nearby),
        )
        if not found.changes and not found.missing:
            return PageCheck("confirmed", found.passage)
    changes = found.changes + _changed_in(quote, found.missing, figures)
    missing = tuple(m for m in found.missing if m not in {c for c, _p in changes})
    findings = []
    if not exact:
        findings.append("the quote is not on the page word for word (it quotes other words)")
    findings += [f"the page says {page} where the claim says {claim}" for claim, page in changes]
    findings += [f"{raw} is neither in the quote nor in the passage around it" for raw in missing]
    if not findings:  # reworded and nothing else to say
        findings.append("the quote is not on the page word for word (it quotes other words)")
    return PageCheck(found.outcome, found.passage, changes, missing, tuple(findings))


SECTION_CHARS = (
    1200  # how far from the quote a claim figure of the same paragraph or section may stand
)


def _in_section(
    text: str,
    span: tuple[int, int],
    missing: tuple[str, ...],
    figures: list[Quantity],
    hint: str | None,
) -> set[str]:
    """The missing claim figures the page states within SECTION_CHARS of the quote, each where the claim's
    words stand around it, as locate finds a figure without a quote ("466 job interruptions" quoted,
    "higher than 90% effective training time" two sentences before it)."""
    if not missing:
        return set()
    a, b = span
    window = text[max(0, a - SECTION_CHARS) : b + SECTION_CHARS]
    out = set()
    for q in figures:
        if q.raw in missing:
            alone = locate(window, quote=None, figures=[q], hint=hint)
            if alone.outcome in ("confirmed", "rounded"):
                out.add(q.raw)
    return out


def _written_in(raw: str, quote: str) -> bool:
    """The claim's figure stands in the quote word for word ("4D" in "4D parallelism"), however its
    value was declared: the page writes it as the claim does."""
    needle = normalize(raw).lower()
    hay = normalize(quote).lower()
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", hay) is not None


def _changed_in(
    quote: str, missing: tuple[str, ...], figures: list[Quantity]
) -> tuple[tuple[str, str], ...]:
    """A claim figure missing from the page whose place the quote (the page's words) fills with another
    value of the same measure: "2,048 H800 GPUs" quoted for a claim of 4,096 H800."""
    out = []
    # a figure of the quote that states another of the claim's figures is that one, never a change
    # ("4 nodes" quoted for a claim of 4 nodes and 40 nodes does not replace the 40)
    stated = [
        f for f in scan(quote) if not any(match(o, f.quantity, _SAID).states for o in figures)
    ]
    for q in figures:
        if q.raw not in missing:
            continue
        for f in stated:
            verdict = match(q, f.quantity, _SAID)
            if verdict.verdict == "different" and verdict.measure == "agree":
                out.append((q.raw, f.raw))
                break
    return tuple(out)


# A sentence ends at a stop followed by a space (never at the point of "14.8T" or "Llama 3.1"), or a line.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")
_NEAR_CHARS = 400  # the nearest passage shown is at most this long


def nearest_passage(text: str, quote: str) -> str | None:
    """The sentence of the page sharing the most words with the quote (however few), to show what the
    page says where the person thought the quote was. One pass over the page."""
    span = nearest_sentence(text, quote)
    if span is None:
        return None
    return " ".join(text[span[0] : span[1]].split())[:_NEAR_CHARS]


def nearest_sentence(text: str, quote: str) -> tuple[int, int] | None:
    """Where in the page's text (start, end) the sentence sharing the most words with the quote stands,
    as the page writes it (what `nearest_passage` shows); None when no sentence shares a word."""
    wanted = {w.lower() for w in _WORD.findall(normalize(quote or ""))}
    if not wanted or not text:
        return None
    best, best_score, at = None, 0, 0
    for end in [*(m for m in _SENTENCE_END.finditer(text)), None]:
        stop = end.start() if end is not None else len(text)
        sentence = text[at:stop]
        score = len(wanted & {w.lower() for w in _WORD.findall(normalize(sentence))})
        if score > best_score:
            best, best_score = (at, stop), score
        at = end.end() if end is not None else len(text)
    if best is None:
        return None
    start, stop = best
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    while start < stop and text[start].isspace():
        start += 1
    return start, stop


def corrected(changes: tuple[tuple[str, str], ...], given: str) -> tuple[str, str]:
    """The change a person's correction names: (the claim's figure, the figure corrected), when the
    correction states what the page says in place of one of the claim's figures. The corrected figure
    keeps the claim's wording with the page's number ("4,096 H100" corrected by "2,048 H100 GPUs" is
    "2,048 H100") where that reads as the same figure. Raises ValueError saying what the page does say
    otherwise."""
    try:
        wanted = parse(given)
    except FigureError as exc:
        raise ValueError(f"{given!r} is not a figure: {exc}") from None
    for claim, page in changes:
        try:
            on_page = parse(page)
        except FigureError:
            continue
        if match(on_page, wanted, _SAID).verdict == "same" == match(wanted, on_page, _SAID).verdict:
            return claim, _in_claims_words(claim, given.strip(), wanted)
    said = "; ".join(f"{page} (where the claim says {claim})" for claim, page in changes)
    raise ValueError(
        f"{given!r} is not what the page says in place of a claim figure"
        + (f": the page says {said}" if said else ": the page states no other value")
    )


_NUMBER = re.compile(r"(?<![A-Za-z\d.,])\d+(?:[.,]\d+)*")


def _in_claims_words(claim: str, given: str, wanted: Quantity) -> str:
    """The claim's figure with the given figure's number, when each has one number and the result reads
    as the given figure; else the given figure as it is."""
    old, new = _NUMBER.findall(claim), _NUMBER.findall(given)
    if len(old) != 1 or len(new) != 1:
        return given
    swapped = _NUMBER.sub(new[0], claim, count=1)
    try:
        verdict = match(parse(swapped), wanted, _SAID)
    except FigureError:
        return given
    return swapped if verdict.verdict == "same" and not verdict.comparators_differ else given


def rewritten(statement: str, old: str, new: str) -> str | None:
    """The statement with a corrected figure: `old` as the claim's figure writes it replaced by `new`,
    else the figure of the statement that states the same value as `old` ("4,096 GPUs" for a figure
    written "4,096 H800"); None when the statement writes no such figure (it cannot be corrected in it)."""
    if old in statement:
        return statement.replace(old, new, 1)
    try:
        wanted = parse(old)
    except FigureError:
        return None
    for f in scan(statement):
        if match(wanted, f.quantity, _SAID).verdict == "same":
            return statement[: f.start] + new + statement[f.end :]
    return None


_MIN_QUOTE_WORDS = 2


def too_short(quote: str) -> bool:
    """A quote of one word without a digit ("the", "SampleQueue") says nothing about where the page
    says it: any page may hold it."""
    words = _WORD.findall(normalize(quote))
    return len(words) < _MIN_QUOTE_WORDS and not any(ch.isdigit() for ch in quote)


# A place a reader can turn to: a section, table, figure, page, line, appendix, equation, listing...
_PLACE = re.compile(
    r"([§¶]\s*\w|\b(?:sec(?:tion|t)?|ch(?:apter|ap)?|table|tab|fig(?:ure)?|p|pp|page|pages|para(?:graph)?"
    r"|line|lines|l|ll|appendix|app|eq(?:uation)?|alg(?:orithm)?|listing|box|footnote|fn|slide|step"
    r"|item|row|col(?:umn)?|part|article|art|clause|exhibit|theorem|lemma|def(?:inition)?)\.?\s*"
    r"[\(\[]?[A-Z]?\d|\b(?:appendix|app\.?|annex)\s+[A-Z]\b|#L?\d|\bL\d+\b|\b\d+(?:\.\d+)+\b)",
    re.I,
)
_HEADING_WORDS = 12  # a heading longer than this is a sentence, not a heading


def vague_locator(locator: str | None, page_text: str | None = None) -> bool:
    """Whether a locator names no place a reader can turn to: no section, table, figure, page, line,
    appendix or equation with its number, and (given the page) no heading of the page."""
    if locator is None or not locator.strip():
        return True
    if _PLACE.search(locator):
        return False
    return not (page_text and _is_heading(locator, page_text))


def _is_heading(locator: str, page_text: str) -> bool:
    """The locator is a short line of the page (a heading, as Markdown, HTML or a PDF sets it apart)."""
    wanted = " ".join(_WORD.findall(normalize(locator).lower()))
    if not wanted:
        return False
    for line in page_text.splitlines():
        words = _WORD.findall(normalize(line).lower())
        while words and words[0][:1].isdigit():  # a numbered heading: "4.1 Environments"
            words = words[1:]
        if 0 < len(words) <= _HEADING_WORDS and " ".join(words) == wanted:
            return True
    return False


_SECTION = re.compile(r"^\s*§\s*(\d+(?:\.\d+)*)\s*$")


def locator_on_page(locator: str | None, page_text: str | None) -> bool:
    """Whether the page's text holds the locator: its words as written ("Table 5", "Quickstart"), or for
    a section ("§3.5") a line of the page that starts with its number (a numbered heading)."""
    if not locator or not locator.strip() or not page_text:
        return False
    if normalize(locator) in normalize(page_text):
        return True
    section = _SECTION.match(locator)
    if section is None:
        return False
    number = re.compile(rf"^[#\s]*{re.escape(section.group(1))}\.?\s+\S", re.M)
    return number.search(page_text) is not None
