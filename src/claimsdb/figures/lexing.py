"""The figure grammar's lexical layer: the patterns, cleaning a figure (`_clean`, `_mask_groups`), and
reading one number with its scale and what is glued to it (`_term`, a `_Term`).

Standard library only; no output.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from claimsdb.figures import vocabulary as V
from claimsdb.figures.quantity import FigureError
from claimsdb.figures.units import SYMBOL_UNITS as _SYMBOL_UNITS
from claimsdb.figures.units import UNIT_ALIASES as _UNIT_ALIASES
from claimsdb.figures.units import normalize_unit

# --- lexical pieces ----------------------------------------------------------------------------

_SCALES = V.SCALES
_SCALE_WORDS = V.SCALE_WORDS

_ONES = V.ONES
_TENS = V.TENS
_WORD_VALUES = {w: i for i, w in enumerate(_ONES)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
# Without case, re.I also matches four letters outside ASCII to ASCII ones: "ſ" (long s) to s, "ı" and "İ"
# to i, the Kelvin sign "K" to k. A word the patterns matched is looked up in the tables folded the same
# way, so "ſix" reads as six and "2 bİllion" as 2 billion, as a reader sees them (`lower()` alone would
# miss the tables: "İ".lower() is "i" and a combining dot).
_ASCII_CASE = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})
ODD_CASE = tuple(map(chr, _ASCII_CASE))  # those four letters


# Digits of other scripts and fullwidth forms ("１００，０００ tasks", "١٢٣", "𝟏𝟎𝟎"), which print as figures:
# read as the ASCII they stand for, one character for one, so that every offset stays where it was.
# Every such character is above U+065F (the first digit outside ASCII is U+0660); runs of those are few
# in most pages ("—", "×", "’"), and each is looked at alone.
_ABOVE_ARABIC = re.compile(r"[^\x00-\u065f]+")


def _ascii_form(c: str) -> str:
    if "\uff01" <= c <= "\uff5e":
        return chr(ord(c) - 0xFEE0)
    return str(unicodedata.decimal(c)) if c.isdecimal() else c


def fold_forms(text: str) -> str:
    """`text` with fullwidth characters and the digits of other scripts as ASCII, the same length."""
    if text.isascii():
        return text
    out: list[str] = []
    done = 0
    for m in _ABOVE_ARABIC.finditer(text):
        run = m.group(0)
        folded = "".join(map(_ascii_form, run))
        if folded != run:
            out += [text[done : m.start()], folded]
            done = m.end()
    return "".join(out) + text[done:] if out else text


def _folded(word: str) -> str:
    """A matched word as the tables spell it: lowercase ASCII."""
    return word.translate(_ASCII_CASE).lower()


_WORDNUM_CORE = rf"(?:(?P<tens>{'|'.join(_TENS)})(?:-(?P<unit>{'|'.join(_ONES[1:10])}))?|(?P<ones>{'|'.join(_ONES)}))"
# The lookahead is implied by the words (each starts with one of these letters, matched the same way
# under re.I); it lets a search skip every other position cheaply.
_WORD_INITIALS = "".join(sorted({w[0] for w in (*_ONES, *_TENS)}))
_WORDNUM = re.compile(rf"(?=[{_WORD_INITIALS}])(?<![\w-]){_WORDNUM_CORE}(?!\w)", re.I)

# The most characters a pattern lets one number's digits (with their separators) run: far above any
# figure written (a 64-digit number), and a bound on how far a pattern backtracks at each start, so that
# no scan of a run of numbers ("9,9,9,...") takes time quadratic in its length.
MAX_DIGITS = 64
# Where a number starts: a digit (or sign/point + digit) not glued to a word ("H100", "GPT-4", "v1.5",
# "pass@1"), nor an exponent ("m^2").
_NUM_START = re.compile(r"(?<![\w.@^])(?<![\w.][-−+])(?:[-−+](?=\.?[0-9]))?\.?[0-9]")
_NUM = re.compile(
    r"(?P<sign>[-−+])?(?P<num>[0-9][0-9,.]*|\.[0-9][0-9,.]*)(?P<exp>[eE][-+]?[0-9]{1,4}(?![0-9]))?"
)
_VALID_NUM = re.compile(r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)?(?:\.[0-9]+)?")
_MOE = re.compile(r"(?P<s1>[KkMBT])-A(?P<num>[0-9][0-9,.]*)(?P<s2>[KkMBT])(?!\w)")
_GLUED_SCALE = re.compile(r"[KkMBT](?!\w)")
_AMBIGUOUS_LOWER = re.compile(r"[bmt](?!\w)")
_LOWER_SCALE = re.compile(rf"(?:{'|'.join(V.GLUED_LOWER_SCALES)})(?!\w)")  # "$1.8bn", "£3mn"
_AFTER_CURRENCY = re.compile(r"[bmtk](?!\w)")  # "$35m": after a currency sign, m is millions
_SCALE_WORD = re.compile(
    r"[ -](hundred|thousand|million|billion|trillion|quadrillion)(?!\w)", re.I
)  # "535-billion-parameter"
_ACCEL = V.ACCELERATOR


# The first character each of these may match (the letters only of "[^\W\d_]": isalnum).
_SCALE_LETTERS = frozenset("KkMBT")  # _MOE, _GLUED_SCALE
_LOWER_LETTERS = frozenset("bmt")  # _AMBIGUOUS_LOWER, _LOWER_SCALE
_X_LETTERS = frozenset("x×X")  # _GLUED_X
_GLUED_X = re.compile(rf"[x×X](?:(?P<acc>{_ACCEL})s?)?(?![A-Za-z])")
_GLUED_HYPHEN = re.compile(r"-(?P<w>[^\W\d_][\w]*)(?:-[^\W\d_][\w]*)*")
_GLUED_LETTERS = re.compile(r"[^\W\d_]+(?:/[^\W\d_]+)?")
_GLUED_FLAG = re.compile(r"-?(ish|plus)(?!\w)", re.I)
_ORDINALS = {"st", "nd", "rd", "th"}

_ARROW = re.compile(r"[\s\x00]*(?:→|->|⟶|➔|➝|➞)\s*")
# The second end of a range may repeat the currency sign: "$10 to $15 billion", "between €2 and €3".
_RANGE_SEP = re.compile(rf"\s*[{V.DASHES}-]\s*[$€£]?|\s+to\s+[$€£]?", re.I)
_AND = re.compile(r"\s+and\s+[$€£]?", re.I)
_TO = re.compile(r"\s+to\s+[$€£]?", re.I)
# What a span may repeat after its first number before "and" / "to":
# "between 3.3 times and 17.7 times", also a rate "from 4 mg per day to 8 mg per day".
_SPAN_UNIT = re.compile(
    r"(?:\s+(?!(?:and|to)\b)[^\W\d_][\w\-]*){1,2}(?:\s+per\s+[^\W\d_][\w\-]*)?(?=\s+(?:and|to)\s)",
    re.I,
)
_RATIO_SEP = re.compile(r"\s*([:/])\s*")
# A range whose ends both carry the unit ("44 mg to 50 mg", "-18 °C to -34 °C"): the unit word and the
# separator; the caller checks that the same word follows the second end.
_REPEAT_UNIT = re.compile(r"(?P<u> °?[^\W\d_][\w/]*)(?:\s+to\s+|\s*[–—-]\s*)[$€£]?", re.I)


def _repeated_unit_end(s: str, second: _Term, m: re.Match) -> bool:
    """True if the unit `m` read after the first end follows the second end too."""
    end = second.end + len(m["u"])
    return s.startswith(m["u"], second.end) and not s[end : end + 1].isalnum()


# What _ARROW, _RANGE_SEP and _RATIO_SEP each need at least (each match starts like this): a cheap test first.
_CONNECTOR = re.compile(rf"[\s\x00]*[→⟶➔➝➞:/{V.DASHES}-]|\s+to\s", re.I)

_QUALIFIER_WORDS = V.QUALIFIER_WORDS
_QUALIFIER_SYMBOLS = V.QUALIFIER_SYMBOLS
_QUALIFIERS = V.QUALIFIERS
_QUAL_WORDS_RE = "|".join(r"\s+".join(re.escape(p) for p in w.split()) for w, _ in _QUALIFIER_WORDS)
_QUAL_SYMS_RE = "|".join(re.escape(s) for s, _ in _QUALIFIER_SYMBOLS)
_QUAL_FULL = re.compile(rf"(?:{_QUAL_WORDS_RE}|{_QUAL_SYMS_RE})", re.I)

_VAGUE_WORDS = "|".join(V.VAGUE_WORDS)
_VAGUE = re.compile(
    rf"(?<![\w-])(?:a\s+)?(?:{_VAGUE_WORDS})"
    r"(?:(?:\s+of)?\s+(?:dozens|tens|hundreds|thousands|millions|billions|trillions|"
    r"hundred|thousand|million|billion|trillion))*(?!\w)",
    re.I,
)

_STOP_WORDS = V.PHRASE_STOP_WORDS
_PROSE_WORDS = (
    _STOP_WORDS
    | {w.lower() for q, _ in _QUALIFIER_WORDS for w in q.split()}
    | set(_VAGUE_WORDS.split("|"))
    | {"approx.", "ca.", "no", "just", "well", "up"}
)
_CTRL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ZERO_WIDTH = re.compile(r"[\u00ad\u200b-\u200d\u2060\ufeff]")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


@dataclass
class _Term:
    """One number as written: digits (Decimal), decimal exponent from its scale, glued unit, flags."""

    mant: Decimal
    exp: int
    end: int
    text: str
    has_scale: bool = False
    scientific: bool = False
    unit: str | None = None
    counted: str | None = None
    plus: bool = False
    approx: bool = False
    vague: bool = False
    active: tuple[Decimal, int] | None = None


def _to_float(raw: str, mant: Decimal, exp: int, text: str) -> float:
    if exp:
        sign, digits, e = mant.as_tuple()
        scaled = Decimal((sign, digits, int(e) + exp))
    else:
        scaled = mant  # the same sign, digits and exponent
    f = float(scaled)
    if not math.isfinite(f):
        raise FigureError(raw, f"number too large: {text!r}")
    if f == 0 and scaled != 0:
        raise FigureError(raw, f"number too small: {text!r}")
    return f


_is_accel = lru_cache(maxsize=8192)(V.accelerator)  # pure, and asked for the same few words
_unit_of = lru_cache(maxsize=8192)(normalize_unit)  # the same: "tokens", "GPUs", "H100"

# --- preprocessing -------------------------------------------------------------------------------


def _clean(raw: str) -> str:
    if raw.isprintable():
        # No control or zero-width character is printable, and the only printable white space is " ": the
        # text is already clean unless it has a backquote or a space to trim or collapse.
        s = raw.replace("`", " ")
        if s[:1] == " " or s[-1:] == " " or "  " in s:
            return " ".join(s.split())
        return s
    s = _CTRL.sub(" ", raw)
    s = _ZERO_WIDTH.sub("", s)
    s = s.replace("`", " ")
    return " ".join(s.split())


_BRACKET = re.compile(r"[(){}\[\]]")


def _mask_groups(raw: str, s: str) -> str:
    """Replace each bracketed group ("(YaRN)", "[12]") by a stop marker; its contents are ignored.
    `s` is text as `_clean` returns it, which is also what this returns when there is no bracket."""
    if not _BRACKET.search(s):
        return s
    while len(s) >= 2 and s[0] in _OPEN and _closing_index(s) == len(s) - 1:
        s = s[1:-1].strip()  # the whole figure in parentheses: "(8B)"
    out: list[str] = []
    stack: list[str] = []
    for ch in s:
        if ch in _OPEN:
            stack.append(_OPEN[ch])
        elif ch in _CLOSE:
            if not stack or stack.pop() != ch:
                raise FigureError(raw, "unbalanced parentheses")
            if not stack:
                out.append(" \x00 ")
        elif not stack:
            out.append(ch)
    if stack:
        raise FigureError(raw, "unbalanced parentheses")
    return " ".join("".join(out).split())


def _closing_index(s: str) -> int:
    stack: list[str] = []
    for i, ch in enumerate(s):
        if ch in _OPEN:
            stack.append(_OPEN[ch])
        elif ch in _CLOSE:
            if not stack or stack.pop() != ch:
                return -1
            if not stack:
                return i
    return -1


# --- numbers -------------------------------------------------------------------------------------


def _first_number(s: str, start: int = 0, skip_one: bool = False) -> int | None:
    m = _NUM_START.search(s, start)
    pos = m.start() if m else None
    if pos == start:
        return pos  # no number word can start before it
    for w in _WORDNUM.finditer(s, start):
        if skip_one and w.group(0).lower() == "one":
            continue
        if pos is None or w.start() < pos:
            pos = w.start()
        break
    return pos


def _term(raw: str, s: str, pos: int) -> _Term | None:
    """Read one number at `pos` with its scale and glued unit; None if no number starts there."""
    m = _NUM.match(s, pos)
    word = False
    if m:
        num, sign, exp = m.group("num", "sign", "exp")
        end = m.end("num")
        if exp is None and num[-1] in ",." and len(num) > 1:
            num, end = num[:-1], end - 1  # sentence punctuation: "2,048," / "12."
        # num is never empty, and every non-empty text _VALID_NUM matches holds a digit
        if not _VALID_NUM.fullmatch(num):
            raise FigureError(raw, f"malformed number {num!r}")
        negative = sign in ("-", "−")
        mant = Decimal(("-" if negative else "") + num.replace(",", "") + (exp or ""))
        scientific = exp is not None
        if scientific:  # an exponent is never empty text
            end = m.end()
    else:
        m = _WORDNUM.match(s, pos)
        if not m:
            return None
        if m["ones"]:
            n = _WORD_VALUES[_folded(m["ones"])]
        else:
            n = _WORD_VALUES[_folded(m["tens"])] + (
                _WORD_VALUES[_folded(m["unit"])] if m["unit"] else 0
            )
        mant, end, word, scientific = Decimal(n), m.end(), True, False
    t = _Term(mant=mant, exp=0, end=end, text=s[pos:end], scientific=scientific)

    # Each expression below starts with one character: a test of that character skips most of them.
    c = s[end : end + 1]
    if not word and not scientific and c in _SCALE_LETTERS:
        if mm := _MOE.match(s, end):
            inner = mm["num"]
            if inner[-1] in ",." or not _VALID_NUM.fullmatch(inner):
                raise FigureError(raw, f"malformed number {inner!r}")
            t.exp, t.has_scale = _SCALES[mm["s1"]], True
            t.active = (Decimal(inner.replace(",", "")), _SCALES[mm["s2"]])
            t.end = end = mm.end()
        elif mm := _GLUED_SCALE.match(s, end):
            t.exp, t.has_scale, end = _SCALES[mm.group(0)], True, mm.end()
    elif not word and not scientific and c in _LOWER_LETTERS:
        if mm := _LOWER_SCALE.match(s, end):
            t.exp, t.has_scale, end = V.GLUED_LOWER_SCALES[mm.group(0)], True, mm.end()
        elif s[pos - 1 : pos] in V.CURRENCIES and (mm := _AFTER_CURRENCY.match(s, end)):
            t.exp, t.has_scale, end = V.AFTER_CURRENCY_SCALES[mm.group(0)], True, mm.end()
        elif mm := _AMBIGUOUS_LOWER.match(s, end):
            letter = mm.group(0)
            hint = {
                "b": "B for billion",
                "m": "M for million or 'min' for minutes",
                "t": "T for trillion",
            }[letter]
            raise FigureError(raw, f"ambiguous '{letter}' after a number (write {hint})")
    if not t.has_scale and s[end : end + 1] in (" ", "-") and (mm := _SCALE_WORD.match(s, end)):
        t.exp, t.has_scale, end = _SCALE_WORDS[_folded(mm.group(1))], True, mm.end()

    if t.active is None:
        end = _glued(raw, s, end, t, word)
    if end < len(s) and (
        s[end].isalnum() or s[end] == "_" or (s[end] == "." and s[end + 1 : end + 2].isdigit())
    ):
        raise FigureError(raw, f"unexpected text after the number: {s[pos:].split(' ', 1)[0]!r}")
    t.end = end
    t.text = s[pos:end]
    return t


def _glued(raw: str, s: str, end: int, t: _Term, word: bool) -> int:
    """Read what is glued to a number: %, ×, "-token", "s", "GB", then "+" or "-ish"."""
    unit_done = False
    c = s[end : end + 1]  # what each expression below must start with is tested first
    if c == "%":
        t.unit, end, unit_done = "%", end + 1, True
    elif c in _X_LETTERS and (mm := _GLUED_X.match(s, end)) and not word:
        t.unit, end, unit_done = "x", mm.end(), True
        if mm["acc"]:
            t.counted = mm["acc"]
    elif c == "-" and (mm := _GLUED_HYPHEN.match(s, end)):
        end = mm.end()
        _glued_word(raw, mm["w"], t, hyphen=True, word=word)
        unit_done = True
    elif not word and c.isalnum() and (mm := _GLUED_LETTERS.match(s, end)):
        end = mm.end()
        _glued_word(raw, mm.group(0), t, hyphen=False)
        unit_done = True
    if unit_done and s.startswith("+", end):
        t.plus, end = True, end + 1
    elif unit_done and (mm := _GLUED_FLAG.match(s, end)):
        if mm.group(1).lower() == "ish":
            t.approx = True
        else:
            t.plus = True
        end = mm.end()
    elif not unit_done and s.startswith("+", end):
        t.plus, end = True, end + 1
    return end


_ORDINAL_WORDS = {
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
}


def _glued_word(raw: str, w: str, t: _Term, hyphen: bool, word: bool = False) -> None:
    low = w.lower()
    if word and hyphen and low in _ORDINAL_WORDS:
        raise FigureError(
            raw, f"an ordinal is not a figure: '-{w}'"
        )  # "Thirty-Second", "twenty-first"
    if low == "ish":
        t.approx = True
    elif low == "plus":
        t.plus = True
    elif low in ("odd", "something"):
        t.vague = True
    elif hyphen and re.fullmatch(r"A[0-9.,]+[KkMBT]?", w):
        raise FigureError(raw, f"malformed MoE size (write it like 355B-A32B): '-{w}'")
    elif acc := _is_accel(w):
        t.counted, t.unit = acc, "GPUs"
    elif hyphen:
        t.unit = _unit_of(w)
    elif w in _ORDINALS:
        raise FigureError(raw, f"an ordinal is not a figure: '{w}'")
    elif _glued_unit_ok(w):
        t.unit = _unit_of(w)
    else:
        raise FigureError(raw, f"unrecognised unit or scale glued to the number: '{w}'")


def _glued_unit_ok(w: str) -> bool:
    """Letters that may be glued to a number: known unit symbols ("20s", "2TB", "5kW") and a single
    capital letter that is not a scale ("4D", "3D"). Anything else ("4Ks", "3up") is an error."""
    if w in _UNIT_ALIASES or w in _SYMBOL_UNITS or w.lower() in ("gpu", "gpus"):
        return True
    return len(w) == 1 and w.isupper() and w not in _SCALES
