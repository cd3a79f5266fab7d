"""What stands around a figure's numbers: the prefix (qualifier, label, "between", currency) and the
unit phrase after them (unit and counted thing), each word's reading remembered.

Standard library only; no output.
"""

from __future__ import annotations

import re
from functools import lru_cache

from claimsdb.figures import vocabulary as V
from claimsdb.figures.lexing import (
    _PROSE_WORDS,
    _QUAL_SYMS_RE,
    _QUAL_WORDS_RE,
    _QUALIFIERS,
    _SCALE_WORDS,
    _STOP_WORDS,
    _SYMBOL_UNITS,
    _first_number,
    _is_accel,
    _unit_of,
)
from claimsdb.figures.quantity import FigureError
from claimsdb.figures.units import CURRENCY_CODES, _is_plain_word, same_unit

_PER_CENT = re.compile(r"^\s*per\s?cent(?!\w)", re.I)
_PHRASE_TOKEN = re.compile(r"\x00|[,;:!?\"“”]|[^\s,;:!?\"“”\x00]+")
_PHRASE_WORD = re.compile(r"[^\W\d_](?:[\w.\-/'’]*[\w'’])?|%|×|°[CF]")
_LABEL_WORD = re.compile(r"[^\W\d][\w.\-/'’]*")
_BETWEEN_END = re.compile(r"(?:^|\s)(between|from)$", re.I)
_AMBIGUOUS_AFTER = {"K", "M", "B", "T", "k", "m", "b", "t"}
_PLURAL_SCALES = V.PLURAL_SCALES
_CURRENCIES = V.CURRENCIES
_CODED_SIGNS = tuple(c for c in CURRENCY_CODES if c.endswith("$"))  # "US$", "HK$": a code
_QUAL_END = re.compile(rf"(?:(?<![^\s=:])(?P<w>{_QUAL_WORDS_RE})|(?P<s>{_QUAL_SYMS_RE}))$", re.I)


# --- prefix and phrase ----------------------------------------------------------------------------


def _parse_prefix(raw: str, prefix: str) -> tuple[str | None, str | None, str | None, str | None]:
    """Split the text before the first number into (comparator, label, between, currency)."""
    if not prefix:
        return None, None, None, None
    p = " ".join(prefix.replace("\x00", " ").split())
    comparator = label = currency = None
    between: str | None = None  # "between" (a range) or "from" (a change)
    if p and p[-1] in _CURRENCIES and not p.endswith(_CODED_SIGNS):
        currency, p = _CURRENCIES[p[-1]], p[:-1].rstrip()
    elif (code := p.rsplit(None, 1)[-1] if p else "") in CURRENCY_CODES:  # "USD 1,700", "HK$ 5"
        currency, p = CURRENCY_CODES[code], p[: -len(code)].rstrip()
    if m := _BETWEEN_END.search(p):
        between, p = m.group(1).lower(), p[: m.start()].rstrip()
    if m := _QUAL_END.search(p):
        key = " ".join((m["w"] or m["s"]).lower().split())
        comparator, p = _QUALIFIERS[key], p[: m.start()].rstrip()
        if between is None and (m := _BETWEEN_END.search(p)):  # "from about $350 ... to ..."
            between, p = m.group(1).lower(), p[: m.start()].rstrip()
    if p:
        sep = p[-1] in "=:"
        if sep:
            p = p[:-1].rstrip()
            if not p:
                raise FigureError(raw, "nothing before '=' or ':'")
        words = p.split()
        ok = all(_LABEL_WORD.fullmatch(w) for w in words)
        if ok and not sep:
            ok = len(words) <= 4 and not any(w.lower() in _PROSE_WORDS for w in words)
        if not ok:
            raise FigureError(raw, f"unexpected text before the number: {p!r}")
        label = " ".join(words)
    return comparator, label, between, currency


def _phrase(rest: str) -> list[str]:
    """The words after the number up to a stop word, punctuation or parenthetical."""
    if m := _PER_CENT.match(rest):  # anchored at the start: the one place re.sub could replace
        rest = "%" + rest[m.end() :]
    words: list[str] = []
    for m in _PHRASE_TOKEN.finditer(rest):
        tok = m.group(0)
        last = False
        if len(tok) > 1 and tok.endswith(".") and tok.lower() not in _STOP_WORDS:
            tok, last = tok[:-1], True
        if tok.lower() in ("and", "or") and words and all(_modifier(w) for w in words):
            continue  # "14.8T diverse and high-quality tokens": the adjectives are joined, the noun follows
        if _ends_phrase(tok):
            break
        words.append(tok)
        if last:
            break
    while words and _modifier(words[-1]) and _unit_of(words[-1]) not in _SYMBOL_UNITS:
        words.pop()  # a unit or counted thing is a noun: never "diverse", "synthetically"
    return words


# Pure functions of one word, asked again and again for the same few words ("tokens", "GPUs", "H100"):
# remembered, a bounded number of them. Parser code calls them with text (str) only.
_WORD_CACHE = 8192


@lru_cache(maxsize=_WORD_CACHE)
def _ends_phrase(tok: str) -> bool:
    """A token that ends the unit phrase: a stop word, punctuation or a non-word, or a verb."""
    return tok.lower() in _STOP_WORDS or not _PHRASE_WORD.fullmatch(tok) or V.is_verb(tok)


@lru_cache(maxsize=_WORD_CACHE)
def _modifier(word: str) -> bool:
    return V.is_modifier(word) and not V.accelerator(word)


def _phrase_unit(words: list[str], glued: str | None) -> tuple[str | None, str | None, str | None]:
    """(unit, counted, None) from the words after the number, given the unit glued to it (if any), or
    (None, None, reason) if they cannot be read."""
    counted = None
    accel_at = None
    for i, w in enumerate(words):
        if acc := _is_accel(w):
            counted, accel_at = acc, i
            break
    if not words:
        return glued, None, None
    first = words[0]
    if glued is not None:
        other = _unit_of(first)
        if other in _SYMBOL_UNITS and not same_unit(other, glued):
            return None, None, f"the figure has two units: {glued!r} and {other!r}"
        return glued, counted, None
    if first in _AMBIGUOUS_AFTER:
        return None, None, f"ambiguous '{first}' after a number (glue the scale: 16K, 14.8T)"
    if first.lower() in _PLURAL_SCALES:
        return None, None, f"'{first}' after a number is not an exact value"
    if first.lower() in _SCALE_WORDS:
        return None, None, f"'{first}' after a number that already has a scale"
    first_unit = _unit_of(first)
    if first_unit in _SYMBOL_UNITS:
        return first_unit, counted, None
    if accel_at is not None:
        last = words[-1]
        if accel_at == len(words) - 1 or not _is_plain_word(last):
            return "GPUs", counted, None
        return _unit_of(last), counted, None
    return _unit_of(words[-1]), counted, None


def _rest_unit_read(rest: str, glued: str | None) -> tuple[str | None, str | None, str | None]:
    return _phrase_unit(_phrase(rest), glued)


def _has_number_read(rest: str) -> bool:
    return _first_number(rest, skip_one=True) is not None


# What follows the numbers repeats from figure to figure (" H100", " tokens", " GPUs"): both readings of
# it below are pure functions of that text, remembered for short texts (a bounded number of them).
_REST_CACHE = 8192
_REST_LONGEST = 64
_rest_unit_cached = lru_cache(maxsize=_REST_CACHE)(_rest_unit_read)
_has_number_cached = lru_cache(maxsize=_REST_CACHE)(_has_number_read)


def _rest_unit(raw: str, rest: str, glued: str | None) -> tuple[str | None, str | None]:
    """(unit, counted) from the text after the number, given the unit glued to it (if any)."""
    if len(rest) <= _REST_LONGEST:
        unit, counted, reason = _rest_unit_cached(rest, glued)
    else:
        unit, counted, reason = _rest_unit_read(rest, glued)
    if reason is not None:
        raise FigureError(raw, reason)
    return unit, counted


def _has_number(rest: str) -> bool:
    if len(rest) <= _REST_LONGEST:
        return _has_number_cached(rest)
    return _has_number_read(rest)
