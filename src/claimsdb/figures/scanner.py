"""`scan`: the figures of running prose, each read by `parse`, with their offsets in the text as written.

Standard library only; no output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from claimsdb.figures import vocabulary as V
from claimsdb.figures.canonical import _canonical
from claimsdb.figures.lexing import (
    _AND,
    _ARROW,
    _NUM,
    _NUM_START,
    _PROSE_WORDS,
    _QUAL_SYMS_RE,
    _QUAL_WORDS_RE,
    _RANGE_SEP,
    _RATIO_SEP,
    _REPEAT_UNIT,
    _SPAN_UNIT,
    _SYMBOL_UNITS,
    _TO,
    _UNIT_ALIASES,
    _WORDNUM,
    _is_accel,
    _repeated_unit_end,
    _Term,
    _term,
    _unit_of,
    fold_forms,
)
from claimsdb.figures.parser import parse
from claimsdb.figures.phrases import _modifier
from claimsdb.figures.quantity import FigureError, Quantity
from claimsdb.figures.units import CURRENCY_CODES

# --- scan: figures in running prose ----------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A figure found in running text: fold_forms(text[start:end]) == raw (the text as written, fullwidth
    forms and other scripts' digits as ASCII: "１００" is "100") and parse(raw) == quantity."""

    start: int
    end: int
    raw: str
    quantity: Quantity


# Every whitespace or control character becomes one space, so offsets in the scanned copy are the
# text's own offsets and the regular expressions above (written for cleaned figures) apply.
_SPACE_TABLE = {
    c: " "
    for c in [
        *range(0x00, 0x20),
        *range(0x7F, 0xA1),
        0x1680,
        *range(0x2000, 0x200B),
        0x2028,
        0x2029,
        0x202F,
        0x205F,
        0x3000,
    ]
}
_CODES = "|".join(re.escape(c) for c in sorted(CURRENCY_CODES, key=len, reverse=True))
_SCAN_START = re.compile(rf"{_NUM_START.pattern}|{_WORDNUM.pattern}", re.I)
# What may stand before the number and belong to the figure: a qualifier ("about", "up to", "~", "> "),
# "between" (a qualifier may follow it: "from about $350"), a currency sign. ">" and "<" that are part
# of an arrow ("->", "=>", "<-") are not qualifiers.
_SCAN_PREFIX = re.compile(
    rf"(?:(?<!\w)(?:{_QUAL_WORDS_RE})\s+|(?<![-=<>])(?:{_QUAL_SYMS_RE})(?![-=])\s*)?"
    rf"(?:(?P<between>(?<!\w)(?P<span>between|from)\s+)(?:(?:{_QUAL_WORDS_RE})\s+)?)?"
    rf"(?:[$€£]|(?<![\w$])(?-i:{_CODES}) ?)?\Z",
    re.I,
)
_SCAN_WORD = re.compile(r"[^\W\d_](?:[\w\-/'’]*[\w'’])?|%|×|°[CF]")
# A capitalised name ("Llama", "DeepSeek"), not an acronym or its plural ("GPUs", "H100s").
_SCAN_NAME = re.compile(r"(?![A-Z0-9]+s?\Z)[A-Z][\w\-/'’]*[a-z][\w\-/'’]*")
_SCAN_PLURAL = re.compile(
    r"[^\W\d_][\w\-]*[^\W\d_sui]s|[A-Z][A-Z0-9]+s"
)  # "rollouts", "GPUs"; not "class", "bus"
_SCAN_AFTER_WORD = set(" ,;:!?.)]}\"'”’…")
_SCAN_PHRASE_WORDS = 3  # prose goes on after the unit; three words cover "2.788M H800 GPU hours"
_SCAN_LOOKBEHIND = 40  # characters searched for a qualifier before the number


def scan(text: str) -> list[Found]:
    """Every figure in running prose, left to right, non-overlapping, each read by `parse`.

    Decisions, beyond the grammar of `parse`:
    - a figure is a number (digits or a number word) with what `parse` reads around it: a qualifier,
      "between" or a currency sign before it; a range, transition, ratio or MoE size; a unit phrase of at
      most three words after it, ending at a stop word, a number, punctuation, a blank line, a known
      unit or plural noun ("2,048 GPUs ran"), a past participle after the first word ("8 GPUs trained")
      or a capitalised name after the first word or on the next line ("GPUs Llama", "2,048\nFigure").
      If `parse` rejects the longest reading, shorter ones are tried (fewer unit words, no second number,
      no qualifier); if none parses, the number is skipped: "1st", "7b", "2,048H800", "1,2,3".
    - numbers glued to a name are not figures ("H100", "GPT-4", "Qwen2.5", "K2-V2", "v1.5", "pass@1"),
      nor is a name's number: a capitalised word that names something (not a function word, verb,
      gerund, adverb, unit or currency code), one space, then a version "X.Y" ("Gemini 1.5",
      "Terminal-Bench 2.0") or a whole number of one to three digits ("Llama 4 Scout", "Gemma 3
      models", "Table 3", "S&P 500"), unless a unit or scale follows ("Qwen3 235 billion"). A day
      before or after its month ("9 May", "March 29", "Oct. 31") is a date, not a figure.
    - a name right after a number is what it counts only if a noun follows ("3 Llama models"; "In
      2024 Meta trained" is the year alone).
    - "from X to Y" after a change word ("grew from 4K to 128K") is a change (a transition); other
      "from X to Y", "X to Y" and "X–Y" are ranges, low end first ("from roughly 700 to 480 words" is
      two figures), except "between 20 and 10" and values below zero joined by "to" ("-18 °C to -34 °C").
    - a colon or slash joins a ratio only when spaced the same on both sides ("16:44", "4 / 8"), so
      "Table 3: 16 GPUs" is 3 and 16 GPUs.
    - bracketed text is never part of a figure: "12.7T (8B)" is two figures.
    - vague phrases without a number ("hundreds of thousands") are not reported.
    - years, footnote marks and times are figures too; callers decide what to ignore.
    Never raises; runs in linear time in the length of the text.
    """
    if not isinstance(text, str):
        return []
    text = fold_forms(text)  # "１００，０００ tasks" as "100,000 tasks", at the same offsets
    canonical, omap = _canonical(text)
    found = _scan(canonical)
    if omap is None:
        return found
    out: list[Found] = []
    for f in found:  # back to the text as written: "3.8 × 10^25 FLOPs", not "3.8e25 FLOPs"
        start, end = omap.start(f.start), omap.end(f.end)
        raw = text[start:end]
        q = _parse_or_none(
            raw
        )  # read again as written: a boundary inside a rewritten piece reads differently
        if q is not None and q.kind == "ratio" and f.quantity.kind == "value":
            # a slash the words after the figure made a fraction ("1/40 of the wavelength"): as read here
            q = replace(f.quantity, raw=raw)
        if q is not None and (not out or out[-1].end <= start):
            out.append(Found(start, end, raw, q))
    return out


def _scan(text: str) -> list[Found]:
    s = text.translate(_SPACE_TABLE)
    found: list[Found] = []
    pos = 0  # nothing before pos may belong to a new figure
    for m in _SCAN_START.finditer(s):
        c = m.start()
        if c < pos:
            continue
        if (version := _version_end(text, s, c)) is not None:
            end, bare = (
                version  # "Gemma 3 models", "Llama 4 Scout", "Gemini 1.5": a name, not a figure
            )
            if bare and (q := _parse_or_none(text[c:end])) is not None:
                found.append(Found(c, end, text[c:end], q))  # "Table 3": the number alone
            pos = end
            continue
        f = _scan_at(text, s, c, pos)
        if f is None:
            dead = _NUM.match(s, c)
            pos = max(
                pos, dead.end() if dead else m.end()
            )  # no figure inside "1,2,3" or "2,048H800"
        else:
            found.append(f)
            pos = f.end
    return found


# A name's number after it: a capitalised word that names something (not a function word, qualifier,
# verb, gerund, adverb or unit), one space, then a version ("Gemini 1.5", "Terminal-Bench 2.0") or a
# whole number of one to three digits ("Llama 4 Scout", "Gemma 3 models", "S&P 500 rose", "Game 7"),
# unless a unit or scale follows it ("Llama 405 billion"). Only these decide; no list of names.
_NAME_WORD = re.compile(r"[A-Z][\w\-/'’&]*")
_OPENERS = "([{\"'“‘*_"
_VERSION = re.compile(r"[0-9]\.[0-9]{1,2}(?![\w.,%×])")
_VERSION_INT = re.compile(r"[0-9]{1,3}(?![\w:/%×'’\-–−]|[.,][0-9])")
_MONTHS = (
    "January February March April May June July August September October November December "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec"
).split()
# A day before its month ("on 9 May", "1 September 2019"): a date, not a figure.
_DAY_MONTH = re.compile(rf"(?:[1-9]|[12][0-9]|3[01]) (?:{'|'.join(_MONTHS)})\b\.?(?![\w-])")
_AFTER_NUMBER = re.compile(r" (?P<w>[^\W\d_][\w\-/'’]*)")
_NOT_NAME_ENDINGS = ("ing", "ed")  # "Using 8 GPUs", "Trained 3 models"
# Capitalised words that stand before a number without naming anything: sentence adverbs and labels of
# a total ("Perhaps 8 GPUs", "Total 512"); -ly adverbs and adjectives are found by their form.
_NOT_NAMES = V.NOT_NAMES | {
    "perhaps",
    "maybe",
    "still",
    "now",
    "today",
    "once",
    "total",
    "overall",
    "average",
    "mean",
    "median",
    "per",
}
# Words that refer to a part of a text by its number ("Table 3", "Section 4.2", "Eq. 7").
_REFERENCES = frozenset(
    """section sections sec secs table tables tab figure figures fig figs equation equations eq eqs appendix
    chapter chapters algorithm algorithms listing line lines theorem lemma definition example examples
    footnote page pages part parts stage stages phase phases row rows column columns step steps version
    versions no nos question revision release""".split()
)
# Abbreviations written with a point before a number that belong to it: months and references.
_DOTTED = frozenset(_MONTHS) | {
    "Fig",
    "Figs",
    "No",
    "Nos",
    "Eq",
    "Eqs",
    "Sec",
    "Secs",
    "Vol",
    "Tab",
}


def _version_end(text: str, s: str, c: int) -> tuple[int, bool] | None:
    """(the end of the number at c, whether it stands alone) when it belongs to a name or a date, or
    None (a figure). A reference's number ("Table 3", "Section 4.2") stands alone: it is not a count,
    and callers may skip it as a reference."""
    if not s[c].isdigit():
        return None
    if (d := _DAY_MONTH.match(s, c)) is not None:
        return d.end(), False
    if c < 2 or text[c - 1] != " ":
        return None  # the common case: no name can stand right before the number
    k = s.rfind(" ", max(0, c - _SCAN_LOOKBEHIND), c - 1)
    word = s[k + 1 : c - 1].lstrip(_OPENERS)  # the word before: "Llama", "(Gemma", "Sept."
    dot = word.endswith(".")
    if dot:
        word = word[:-1]
    if not word[:1].isupper() or not _NAME_WORD.fullmatch(word) or not _names(word):
        return None
    if dot and word not in _DOTTED:
        return None  # a sentence's last word, not an abbreviation
    v = _VERSION.match(s, c) or _VERSION_INT.match(s, c)
    if v is None:
        return None
    after = _AFTER_NUMBER.match(s, v.end())
    if after is not None and _measures(after["w"]):
        return None  # "Llama 405 billion", "Claude 200 ms": a figure after all
    return v.end(), word.lower() in _REFERENCES


@lru_cache(maxsize=8192)
def _measures(word: str) -> bool:
    """A word after a number that makes it a figure: a scale, a unit or "per cent"."""
    low = word.lower()
    return (
        low in V.SCALE_WORDS
        or low in V.PLURAL_SCALES
        or low in ("per", "percent", "percentage", "times", "fold")
        or low in _UNIT_ALIASES
        or word in _UNIT_ALIASES
        or _unit_of(word) in _SYMBOL_UNITS
    )


@lru_cache(maxsize=8192)
def _names(word: str) -> bool:
    """A capitalised word that may name a model, product or benchmark (not "In", "Using", "About",
    "GPUs", "Roughly")."""
    low = word.lower()
    return not (
        low in _NOT_NAMES
        or low in _PROSE_WORDS
        or low.endswith(_NOT_NAME_ENDINGS)
        or V.is_verb(word)
        or V.is_modifier(word)
        or _measures(word)
        or bool(_SCAN_PLURAL.fullmatch(word) and word[1:2].isupper())
        or bool(_is_accel(word))
        or word in CURRENCY_CODES
    )


@lru_cache(maxsize=8192)
def _parse_or_none(raw: str) -> Quantity | None:
    # Pages repeat their figures ("2024", "one", "8 GPUs"); parse is pure and Quantity frozen.
    try:
        return parse(raw)
    except FigureError:
        return None


def _safe_term(s: str, pos: int) -> _Term | None:
    try:
        return _term(s, s, pos)
    except FigureError:
        return None


def _scan_at(text: str, s: str, c: int, floor: int) -> Found | None:
    """The figure whose number starts at c, or None. Nothing before `floor` is taken."""
    first = _safe_term(s, c)
    if first is None:
        return None
    pm = _SCAN_PREFIX.search(s, max(floor, c - _SCAN_LOOKBEHIND), c)
    pstart = pm.start() if pm else c
    span = pm["span"].lower() if pm and pm["span"] else None
    if (
        span == "from"
        and pm is not None
        and not _CHANGE_BEFORE.search(s, max(0, pstart - _SCAN_LOOKBEHIND), pstart)
    ):  # the change word may belong to the figure before ("AIME 2024 increases from 15.6% to 71.0%")
        # "models ranging from 2B to 462B": a span, read as the range "2B to 462B"; "increased from
        # 3072 to 15360" is a change, read as the transition "from 3072 to 15360".
        pstart, span = pm.end("between") if pm.start("between") == pstart else pstart, None
        if pm.start("between") != pm.start():
            pstart = c  # a qualifier before "from": keep the number alone
    cores = [first.end]  # possible ends of the number part, longest first
    if first.active is None:
        end = _scan_connected(s, first, span)
        if end is not None:
            cores.insert(0, end)
        elif span and pm:
            pstart = pm.end("between")  # "between 10" with no "and": only a currency sign stays
    starts = [pstart, c] if pstart != c else [c]
    for start in starts:
        for core in cores:
            for end in reversed(_scan_phrase(text, s, core)):
                raw = text[start:end]
                q = _parse_or_none(raw)
                if q is not None:
                    return Found(start, end, raw, q)
    return None


# A change word shortly before "from" makes "from X to Y" a transition ("grew from 4K to 128K").
_CHANGE_BEFORE = re.compile(rf"(?<![\w-]){V.CHANGE_WORDS.pattern}[^.;:!?\n]{{0,30}}\Z", re.I)


def _scan_connected(s: str, first: _Term, span: str | None) -> int | None:
    """End of a range, transition or ratio starting with `first`, or None if it stands alone."""
    if span:
        unit = _SPAN_UNIT.match(s, first.end)
        at = unit.end() if unit else first.end
        m = (_AND.match(s, at) or _TO.match(s, at)) if span == "between" else _TO.match(s, at)
        t = _safe_term(s, m.end()) if m else None
        return t.end if t else None
    m = _ARROW.match(s, first.end)
    t = _safe_term(s, m.end()) if m else None
    if t is not None:
        while t is not None:
            end = t.end
            m = _ARROW.match(s, end)
            t = _safe_term(s, m.end()) if m else None
        return end
    m = _RANGE_SEP.match(s, first.end)
    if m:
        t = _safe_term(s, m.end())
        if t is not None:
            return t.end
    m = _REPEAT_UNIT.match(s, first.end)
    if m and (t := _safe_term(s, m.end())) is not None and _repeated_unit_end(s, t, m):
        return t.end  # "44 mg to 50 mg"
    m = _RATIO_SEP.match(s, first.end)
    ratio_end: int | None = None
    sep = m.group(1) if m else None
    while m and m.group(1) == sep and (m.start(1) > m.start()) == (m.end() > m.end(1)):
        t = _safe_term(s, m.end())
        if t is None:
            break
        ratio_end = t.end
        m = _RATIO_SEP.match(s, ratio_end)
    return ratio_end


def _scan_phrase(text: str, s: str, core: int) -> list[int]:
    """Possible ends of the figure: after the number, then after each unit word (shortest first)."""
    ends = [core]
    i = core
    n = len(s)
    modifiers = 0  # adjectives and adverbs so far: they may lead to the noun, never end the phrase
    k = -1
    while k + 1 < _SCAN_PHRASE_WORDS + min(modifiers, 3):
        k += 1
        j = i
        while j < n and s[j] == " ":
            j += 1
        if j == i or text.count("\n", i, j) >= 2 or "\t" in text[i:j]:
            break  # glued punctuation, a blank line, or a tab (a table's next cell): the figure ends here
        m = _SCAN_WORD.match(s, j)
        if not m or (m.end() < n and s[m.end()] not in _SCAN_AFTER_WORD):
            break
        w = m.group(0)
        low = w.lower()
        if low in ("and", "or") and modifiers == k and k:
            i = m.end()  # "diverse and high-quality tokens"
            modifiers += 1
            continue
        if low in _PROSE_WORDS or _WORDNUM.fullmatch(w) or V.is_verb(w):
            break
        if _modifier(w) and _unit_of(w) not in _SYMBOL_UNITS:
            i = m.end()
            modifiers += 1
            if i < n and s[i] != " ":
                break
            continue
        name = bool(_SCAN_NAME.fullmatch(w)) and w not in _SYMBOL_UNITS
        participle = low.endswith("ed") and not low.endswith("eed")
        if (name and (k or "\n" in text[i:j])) or (participle and k):
            break  # "2,048 GPUs DeepSeek ...", "GPUs: 2,048\nFigure 3 ...", "8 GPUs trained ..."
        i = m.end()
        if name and low not in _UNIT_ALIASES and not _SCAN_PLURAL.fullmatch(w):
            # a name right after the number is what it counts only if a noun follows ("3 Llama
            # models"): "In 2024 Meta trained" is the year alone
            if i < n and s[i] != " ":
                break
            continue
        ends.append(i)
        unit = _unit_of(w)
        if unit in _SYMBOL_UNITS or (i < n and s[i] != " "):
            break  # a unit symbol is the whole unit ("20 s per step"); punctuation ends the phrase
        if unit == "GPUs" or low in _UNIT_ALIASES or _SCAN_PLURAL.fullmatch(w):
            nxt = _SCAN_WORD.match(s, i + 1)
            if not (nxt and nxt.group(0).lower() in _UNIT_ALIASES):
                break  # a unit or plural noun ends the phrase ("2,048 GPUs ran"), unless a unit follows ("GPU hours")
    return ends
