"""Parse figures as written in research notes ("~50B", "32–33T tokens", "4K → 128K", "355B-A32B").

`parse(raw)` turns one figure into a `Quantity` or raises `FigureError` with a short reason;
`scan(text)` finds the figures in running prose with the same grammar (see its docstring). The
parser never guesses: text without an exact value is kind "text" with value None, and text it cannot
read unambiguously (malformed numbers, two unrelated numbers, ambiguous scales) is an error.

Numbers are converted exactly: the decimal digits and the scale are combined as a decimal string and
rounded to a float once, so "14.8T" is exactly float("14.8e12").

Rules decided here, beyond the plain cases:
- bracketed groups anywhere ("(YaRN)", "[12]") are ignored and end the unit phrase; a figure wholly in
  parentheses is unwrapped; unbalanced brackets are an error.
- a number glued to a word is part of a name, not a figure: "H100", "GPT-4", "v1.5", "Qwen2.5".
- a sign is kept ("-0.5", "−5% → +3%"); scientific notation is read ("3e-4", "3.8e25").
- glued "+" means ">=" ("1,000+ GPUs"); glued "-ish" means "~"; "30-odd" / "20-something" are text.
- "$5.6M" / "€" / "£" give unit USD / EUR / GBP; "hundred" is a scale word like "thousand".
- lowercase glued b, m, t ("7b", "10m") and a spaced K/M/B/T ("15 T") are ambiguous: errors. Letters
  glued to a number must be a known unit ("20s", "2TB", "5kW") or one capital letter ("4D").
- a range's second-end scale applies to the first ("32–33T"); transitions and ratios never share scales.
- an accelerator followed by a plain noun gives that noun as unit: "1,024 H100 nodes" -> nodes, counted
  H100; a unit symbol still wins: "8× H100" -> unit "x", counted H100.
- a label needs "="/":" or must be at most four words none of which is prose (stop words, qualifiers).
- "one" after the figure ("16K H100 in one cluster") does not count as a second number.
- uncountable nouns ("context", "data", "memory") are not pluralised; adjectives such as "active",
  "dense" end the unit phrase.

Standard library only; no output.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

__all__ = [
    "COMPARATORS",
    "KINDS",
    "FigureError",
    "Found",
    "Quantity",
    "normalize_unit",
    "parse",
    "same_unit",
    "scan",
]

from claimsdb.figures import vocabulary as V
from claimsdb.figures.quantity import COMPARATORS, KINDS, FigureError, Quantity
from claimsdb.figures.vocabulary import SYMBOL_UNITS as _SYMBOL_UNITS
from claimsdb.figures.vocabulary import UNIT_ALIASES as _UNIT_ALIASES
from claimsdb.figures.vocabulary import _is_plain_word, normalize_unit, same_unit

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


def _folded(word: str) -> str:
    """A matched word as the tables spell it: lowercase ASCII."""
    return word.translate(_ASCII_CASE).lower()


_WORDNUM_CORE = rf"(?:(?P<tens>{'|'.join(_TENS)})(?:-(?P<unit>{'|'.join(_ONES[1:10])}))?|(?P<ones>{'|'.join(_ONES)}))"
# The lookahead is implied by the words (each starts with one of these letters, matched the same way
# under re.I); it lets a search skip every other position cheaply.
_WORD_INITIALS = "".join(sorted({w[0] for w in (*_ONES, *_TENS)}))
_WORDNUM = re.compile(rf"(?=[{_WORD_INITIALS}])(?<![\w-]){_WORDNUM_CORE}(?!\w)", re.I)

# Where a number starts: a digit (or sign/point + digit) not glued to a word ("H100", "GPT-4", "v1.5").
_NUM_START = re.compile(r"(?<![\w.])(?<![\w.][-−+])(?:[-−+](?=\.?[0-9]))?\.?[0-9]")
_NUM = re.compile(
    r"(?P<sign>[-−+])?(?P<num>[0-9][0-9,.]*|\.[0-9][0-9,.]*)(?P<exp>[eE][-+]?[0-9]{1,4}(?![0-9]))?"
)
_VALID_NUM = re.compile(r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)?(?:\.[0-9]+)?")
_MOE = re.compile(r"(?P<s1>[KkMBT])-A(?P<num>[0-9][0-9,.]*)(?P<s2>[KkMBT])(?!\w)")
_GLUED_SCALE = re.compile(r"[KkMBT](?!\w)")
_AMBIGUOUS_LOWER = re.compile(r"[bmt](?!\w)")
_SCALE_WORD = re.compile(
    r"[ -](hundred|thousand|million|billion|trillion)(?!\w)", re.I
)  # "535-billion-parameter"
_ACCEL = V.ACCELERATOR


# The first character each of these may match (the letters only of "[^\W\d_]": isalnum).
_SCALE_LETTERS = frozenset("KkMBT")  # _MOE, _GLUED_SCALE
_LOWER_LETTERS = frozenset("bmt")  # _AMBIGUOUS_LOWER
_X_LETTERS = frozenset("x×X")  # _GLUED_X
_GLUED_X = re.compile(rf"[x×X](?:(?P<acc>{_ACCEL})s?)?(?![A-Za-z])")
_GLUED_HYPHEN = re.compile(r"-(?P<w>[^\W\d_][\w]*)(?:-[^\W\d_][\w]*)*")
_GLUED_LETTERS = re.compile(r"[^\W\d_]+(?:/[^\W\d_]+)?")
_GLUED_FLAG = re.compile(r"-?(ish|plus)(?!\w)", re.I)
_ORDINALS = {"st", "nd", "rd", "th"}

_ARROW = re.compile(r"[\s\x00]*(?:→|->|⟶|➔|➝|➞)\s*")
_RANGE_SEP = re.compile(rf"\s*[{V.DASHES}-]\s*|\s+to\s+", re.I)
_AND = re.compile(r"\s+and\s+", re.I)
_TO = re.compile(r"\s+to\s+", re.I)
# What a span may repeat after its first number before "and" / "to": "between 3.3 times and 17.7 times".
_SPAN_UNIT = re.compile(r"(?:\s+(?!(?:and|to)\b)[^\W\d_][\w\-]*){1,2}(?=\s+(?:and|to)\s)", re.I)
_RATIO_SEP = re.compile(r"\s*([:/])\s*")
# What _ARROW, _RANGE_SEP and _RATIO_SEP each need at least (each match starts like this): a cheap test first.
_CONNECTOR = re.compile(rf"[\s\x00]*[→⟶➔➝➞:/{V.DASHES}-]|\s+to\s", re.I)

_QUALIFIER_WORDS = V.QUALIFIER_WORDS
_QUALIFIER_SYMBOLS = V.QUALIFIER_SYMBOLS
_QUALIFIERS = V.QUALIFIERS
_QUAL_WORDS_RE = "|".join(r"\s+".join(re.escape(p) for p in w.split()) for w, _ in _QUALIFIER_WORDS)
_QUAL_SYMS_RE = "|".join(re.escape(s) for s, _ in _QUALIFIER_SYMBOLS)
_QUAL_END = re.compile(rf"(?:(?<![^\s=:])(?P<w>{_QUAL_WORDS_RE})|(?P<s>{_QUAL_SYMS_RE}))$", re.I)
_QUAL_FULL = re.compile(rf"(?:{_QUAL_WORDS_RE}|{_QUAL_SYMS_RE})", re.I)
_BETWEEN_END = re.compile(r"(?:^|\s)(between|from)$", re.I)
_CURRENCIES = V.CURRENCIES

_VAGUE_WORDS = "|".join(V.VAGUE_WORDS)
_VAGUE = re.compile(
    rf"(?<![\w-])(?:a\s+)?(?:{_VAGUE_WORDS})"
    r"(?:(?:\s+of)?\s+(?:dozens|tens|hundreds|thousands|millions|billions|trillions|"
    r"hundred|thousand|million|billion|trillion))*(?!\w)",
    re.I,
)
_AMBIGUOUS_AFTER = {"K", "M", "B", "T", "k", "m", "b", "t"}
_PLURAL_SCALES = V.PLURAL_SCALES

_STOP_WORDS = V.PHRASE_STOP_WORDS
_PROSE_WORDS = (
    _STOP_WORDS
    | {w.lower() for q, _ in _QUALIFIER_WORDS for w in q.split()}
    | set(_VAGUE_WORDS.split("|"))
    | {"approx.", "ca.", "no", "just", "well", "up"}
)
_LABEL_WORD = re.compile(r"[^\W\d][\w.\-/'’]*")
_PER_CENT = re.compile(r"^\s*per\s?cent(?!\w)", re.I)
_PHRASE_TOKEN = re.compile(r"\x00|[,;:!?\"“”]|[^\s,;:!?\"“”\x00]+")
_PHRASE_WORD = re.compile(r"[^\W\d_](?:[\w.\-/'’]*[\w'’])?|%|×")
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


# --- canonical forms ------------------------------------------------------------------------------
#
# Written forms that the grammar below reads in one spelling: scientific notation ("3.8 × 10^25",
# "3.8×10²⁵", "3.8 \times 10^{25}", "7.3 × 10−6") becomes "3.8e25"; siunitx ("\num{1.5e3}",
# "\qty{2.4}{\giga\hertz}", "\SI{...}{...}") becomes the number and its unit ("2.4 GHz"); thousands groups
# separated by a thin space, a narrow or plain no-break space, "\," or "{,}" ("1\,355\,921") lose the
# separator, and so do plain spaces where the groups cannot be a list ("10 000 GPUs"); Markdown emphasis
# between a number and its scale ("**39.3**M") is dropped; compound number words ("a hundred and two",
# "two and a half", "half a million", "three quarters") and vulgar fractions ("1½") become digits.
# `_canonical` returns the rewritten text and a map back to the original's offsets.

_SMALL = rf"(?:(?:{'|'.join(V.TENS)})(?:-(?:{'|'.join(V.ONES[1:10])}))?|{'|'.join(V.ONES[1:])})"
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_CANONICAL_ALTERNATIVES = (
    r"(?P<sci>(?<![\w.])(?P<mant>[0-9]+(?:\.[0-9]+)?)[ \u00a0\u2009\u202f]*(?:[×xX·⋅]|\\times|\\cdot)"
    r"[ \u00a0\u2009\u202f]*10[ \u00a0\u2009\u202f]*"
    rf"(?:\^[ ]*\{{?[ ]*(?P<e1>[-−+]?[0-9]{{1,3}})[ ]*\}}?|(?P<e2>[⁻⁺]?[{_SUP}]+)|(?P<e3>[-−][0-9]{{1,2}}))(?![0-9]))"
    rf"|(?P<pow>(?<![\w.])10(?:\^\{{?(?P<p1>[-−+]?[0-9]{{1,3}})\}}?|(?P<p2>[⁻⁺]?[{_SUP}]+))(?![0-9]))"
    r"|(?P<si>\\(?:num|qty|SI|unit)\{(?P<sinum>[^{}]*)\}(?:\{(?P<siunit>[^{}]*)\})?)"
    r"|(?P<group>(?<![0-9.,])[0-9]{1,3}(?:(?:[\u2009\u202f\u00a0]|\\,|\{,\})[0-9]{3})+(?![0-9]))"
    r"|(?P<spaced>(?<![0-9.,] )(?<![0-9.,])(?:[0-9]{1,3}(?: [0-9]{3}){2,}|[0-9]{2}(?: [0-9]{3})|[0-9]{1,3} 000)"
    r"(?![0-9.,]| [0-9]))"
    r"|(?P<emph>(?<=[0-9])(?:\*{1,3}|_{2,3})(?=[A-Za-z%×])|(?<![\w*])(?:\*{1,3}|_{2,3})(?=[0-9]))"
    rf"|(?P<hundred>(?<![\w-])(?:(?P<h>a|one|{_SMALL})[ ]+hundred(?:[ ]+and[ ]+(?P<hrest>{_SMALL}))?)(?![\w-]))"
    rf"|(?P<andhalf>(?<![\w-])(?P<whole>{_SMALL}|[0-9]+)[ ]+and[ ]+a[ ]+(?P<part>half|third|quarter)(?![\w-]))"
    r"|(?P<halfa>(?<![\w-])half[ ]+a[ ]+(?P<hscale>thousand|million|billion|trillion)(?![\w-]))"
    rf"|(?P<frac>(?<![\w-])(?P<fnum>a|one|{_SMALL})[ -](?P<fden>halves|thirds?|quarters?|fifths?|eighths?|tenths?)"
    r"(?![\w-]))"
    r"|(?P<ascale>(?<![\w-])a[ ]+(?=(?:thousand|million|billion|trillion)(?![\w-])))"
    rf"|(?P<vulgar>(?<![^\W\d_])(?P<vint>[0-9]*)(?P<vfrac>[{''.join(V.VULGAR_FRACTIONS)}]))"
)
# Every match above starts with a digit, a backslash, "*", "_" or a vulgar fraction, or at the start of a
# word with the first letter of "a", "one", "half" or a number word: the lookahead says so in one cheap
# test, which skips most positions of running text without trying each alternative there.
_CANONICAL = re.compile(
    rf"(?=[0-9\\*_{''.join(V.VULGAR_FRACTIONS)}]|(?<![\w-])[aefhnost])(?:{_CANONICAL_ALTERNATIVES})",
    re.I,
)
# What some rewrite above needs: one of these, or a plain space where one can matter (between digits,
# after "a" before a scale word, anywhere in a text with "halves"). Most figures have none and skip the
# scan ("2,048 H800", "14.8T tokens").
_TRIGGER_ALTERNATIVES = (
    r"[×xX·⋅^⁰¹²³⁴⁵⁶⁷⁸⁹\\\u2009\u202f\u00a0*_]|hundred|half|third|quarter|fifth|eighth|tenth|"
    rf"[{''.join(V.VULGAR_FRACTIONS)}]|\{{,\}}|[0-9] [0-9]|a +(?:thousand|million|billion|trillion)"
)
# The lookahead holds the first character of every alternative: a cheap test that skips most positions.
_TRIGGER = re.compile(
    rf"(?=[×xX·⋅^⁰¹²³⁴⁵⁶⁷⁸⁹\\\u2009\u202f\u00a0*_htqfe{''.join(V.VULGAR_FRACTIONS)}{{0-9a])"
    rf"(?:{_TRIGGER_ALTERNATIVES})",
    re.I,
)
_HALVES = re.compile("halves", re.I)
_WORD_INT = {w: i for i, w in enumerate(V.ONES)} | {w: 20 + 10 * i for i, w in enumerate(V.TENS)}
_PART = {"half": "0.5", "third": "0.333333", "quarter": "0.25"}


def _word_int(w: str) -> int:
    w = _folded(w)
    if w in ("a", "one"):
        return 1
    if "-" in w:
        tens, ones = w.split("-", 1)
        return _WORD_INT[tens] + _WORD_INT[ones]
    return int(w) if w.isdigit() else _WORD_INT[w]


def _exponent(plain: str | None, sup: str | None, minus: str | None) -> str:
    e = (
        plain
        if plain is not None
        else (sup.translate(V.SUPERSCRIPTS) if sup is not None else minus or "0")
    )
    return e.replace("−", "-").replace("+", "")


def _si_unit(spec: str) -> str:
    out = []
    for cmd, plain in re.findall(r"\\([A-Za-z]+)|([^\\\s{}]+)", spec):
        if cmd:
            out.append(V.SI_PREFIXES.get(cmd, V.SI_UNITS.get(cmd, "")))
        else:
            out.append(plain)
    return "".join(out)


def _canonical_piece(m: re.Match) -> str:
    g = m.lastgroup
    if g == "sci":
        return f"{m['mant']}e{_exponent(m['e1'], m['e2'], m['e3'])}"
    if g == "pow":
        return f"1e{_exponent(m['p1'], m['p2'], None)}"
    if g == "si":
        number = _canonical(m["sinum"].strip())[0].replace(" ", "")
        unit = _si_unit(m["siunit"] or "")
        return f"{number} {unit}" if unit else number
    if g in ("group", "spaced"):
        return re.sub(r"[^0-9]", "", m.group(0))
    if g == "emph":
        return ""
    if g == "hundred":
        return str(100 * _word_int(m["h"]) + (_word_int(m["hrest"]) if m["hrest"] else 0))
    if g == "andhalf":
        return str(_word_int(m["whole"])) + _PART[_folded(m["part"])][1:]
    if g == "halfa":
        return f"0.5 {_folded(m['hscale'])}"
    if g == "frac":
        den = V.FRACTION_WORDS[_folded(m["fden"])]
        return f"{_word_int(m['fnum']) / den:.6g}"
    if g == "ascale":
        return "1 "
    if g == "vulgar":
        frac = V.VULGAR_FRACTIONS[m["vfrac"]]
        return (m["vint"] + frac[1:]) if m["vint"] else frac
    return m.group(0)


class _OffsetMap:
    """Offsets in a rewritten text back to the original: verbatim stretches shift, rewritten pieces
    map to their whole original span."""

    def __init__(self) -> None:
        self.starts: list[int] = []  # rewritten start of each rewritten piece
        self.ends: list[int] = []  # rewritten end of each piece
        self.orig: list[tuple[int, int]] = []  # original span of each piece

    def add(self, new_start: int, new_end: int, orig_start: int, orig_end: int) -> None:
        self.starts.append(new_start)
        self.ends.append(new_end)
        self.orig.append((orig_start, orig_end))

    def _shift(self, k: int) -> int:
        return self.orig[k][1] - self.ends[k] if k >= 0 else 0

    def start(self, p: int) -> int:
        k = bisect.bisect_right(self.starts, p) - 1
        if k >= 0 and p < self.ends[k]:
            return self.orig[k][0]
        return p + self._shift(k)

    def end(self, p: int) -> int:
        k = bisect.bisect_left(self.ends, p)
        if k < len(self.starts) and self.starts[k] < p <= self.ends[k]:
            return self.orig[k][1]
        return p + self._shift(bisect.bisect_right(self.ends, p) - 1)


def _canonical(text: str) -> tuple[str, _OffsetMap | None]:
    """`text` in canonical spellings (see above) and the map back, or (text, None) if nothing changed."""
    if not _TRIGGER.search(text) and not (" " in text and _HALVES.search(text)):
        return text, None
    parts: list[str] = []
    omap = _OffsetMap()
    last = new_len = 0
    for m in _CANONICAL.finditer(text):
        rep = _canonical_piece(m)
        if rep == m.group(0):
            continue
        parts.append(text[last : m.start()])
        new_len += m.start() - last
        parts.append(rep)
        omap.add(new_len, new_len + len(rep), m.start(), m.end())
        new_len += len(rep)
        last = m.end()
    if not omap.starts:
        return text, None
    parts.append(text[last:])
    return "".join(parts), omap


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
        if mm := _AMBIGUOUS_LOWER.match(s, end):
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


# --- prefix and phrase ----------------------------------------------------------------------------


def _parse_prefix(raw: str, prefix: str) -> tuple[str | None, str | None, str | None, str | None]:
    """Split the text before the first number into (comparator, label, between, currency)."""
    if not prefix:
        return None, None, None, None
    p = " ".join(prefix.replace("\x00", " ").split())
    comparator = label = currency = None
    between: str | None = None  # "between" (a range) or "from" (a change)
    if p and p[-1] in _CURRENCIES:
        currency, p = _CURRENCIES[p[-1]], p[:-1].rstrip()
    if m := _BETWEEN_END.search(p):
        between, p = m.group(1).lower(), p[: m.start()].rstrip()
    if m := _QUAL_END.search(p):
        key = " ".join((m["w"] or m["s"]).lower().split())
        comparator, p = _QUALIFIERS[key], p[: m.start()].rstrip()
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


_unit_of = lru_cache(maxsize=_WORD_CACHE)(normalize_unit)


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


# --- parse ----------------------------------------------------------------------------------------


def parse(raw: str) -> Quantity:
    """Parse one figure as written in a note. Raises FigureError with a short reason."""
    if not isinstance(raw, str):
        raise FigureError(raw, "a figure must be text")
    canonical, omap = _canonical(raw)
    s = _clean(canonical)
    if not s:
        raise FigureError(raw, "empty figure")
    s = _mask_groups(raw, s)
    start = _first_number(s)
    if start is None:
        return _parse_vague(raw, s)

    comparator, label, between, currency = _parse_prefix(raw, s[:start])
    first = _term(raw, s, start)
    assert first is not None  # _first_number found a number here
    if omap is None:  # read from the figure as written: what `precision` would read
        _remember_first(raw, (first.mant, first.exp))
    terms = [first]
    pos = first.end
    kind = "value"
    if first.active is not None:
        kind = "moe"
    elif between:
        joint = _AND if between == "between" else _TO
        unit = _SPAN_UNIT.match(s, pos)
        m = joint.match(s, unit.end() if unit else pos)
        t = _term(raw, s, m.end()) if m else None
        if t is None:
            example = "'between 10 and 20'" if between == "between" else "'from 4K to 128K'"
            raise FigureError(raw, f"'{between}' needs two numbers: {example}")
        terms.append(t)
        kind, pos = ("range" if between == "between" else "transition"), t.end
    elif not _CONNECTOR.match(s, pos):
        pass  # no arrow, dash, "to", colon or slash follows: none of the three below can match
    elif (m := _ARROW.match(s, pos)) and (t := _term(raw, s, m.end())):
        kind = "transition"
        while t is not None:
            terms.append(t)
            pos = t.end
            m = _ARROW.match(s, pos)
            t = _term(raw, s, m.end()) if m else None
    elif (m := _RANGE_SEP.match(s, pos)) and (t := _term(raw, s, m.end())):
        kind = "range"
        terms.append(t)
        pos = t.end
    elif (m := _RATIO_SEP.match(s, pos)) and (t := _term(raw, s, m.end())):
        kind = "ratio"
        sep = m.group(1)
        while t is not None:
            terms.append(t)
            pos = t.end
            m = _RATIO_SEP.match(s, pos)
            t = _term(raw, s, m.end()) if m and m.group(1) == sep else None

    rest = s[pos:]
    if _has_number(rest):
        if kind == "range" and _RANGE_SEP.match(rest):
            raise FigureError(raw, "a range has two ends")
        raise FigureError(raw, "more than one number: split it into separate figures")
    single = len(terms) == 1  # most figures: the checks over every term below need only the first
    if not single and any(t.active is not None for t in terms[1:]):
        raise FigureError(raw, "a MoE size cannot be part of a range, transition or ratio")

    # qualifiers glued to the number: "1,000+", "20-ish", "30-odd"
    if first.vague if single else any(t.vague for t in terms):
        if len(terms) > 1:
            raise FigureError(raw, "a vague number cannot be part of a range, transition or ratio")
        unit, counted = _rest_unit(raw, rest, None)
        return Quantity(
            raw=raw, kind="text", comparator=comparator or "=", unit=unit, counted=counted or label
        )
    if (first.plus or first.approx) if single else any(t.plus or t.approx for t in terms):
        if len(terms) > 1:
            raise FigureError(raw, "'+' or '-ish' only applies to a single number")
        glued_cmp = ">=" if first.plus else "~"
        if first.plus and first.approx:
            raise FigureError(raw, "conflicting qualifiers")
        if comparator is not None and comparator != glued_cmp:
            raise FigureError(raw, "conflicting qualifiers")
        comparator = glued_cmp
    comparator = comparator or "="

    # a scale on the second end of a range applies to both when the first has none: "32–33T"
    if kind == "range" and not first.has_scale and not first.scientific and terms[1].has_scale:
        first.exp = terms[1].exp

    if single:
        glued = first.unit
    else:
        glued_units = [t.unit for t in terms if t.unit is not None]
        for u in glued_units[1:]:
            if not same_unit(u, glued_units[0]):
                raise FigureError(
                    raw, f"the numbers have different units: {glued_units[0]!r} and {u!r}"
                )
        glued = glued_units[0] if glued_units else None
    if currency is not None:
        if glued is not None:
            raise FigureError(raw, f"a currency amount cannot also be in {glued!r}")
        glued = currency
    unit, counted = _rest_unit(raw, rest, glued)
    if not counted:
        counted = (
            first.counted if single else next((t.counted for t in terms if t.counted), None)
        ) or label

    if single:
        values = [_to_float(raw, first.mant, first.exp, first.text)]
    else:
        values = [_to_float(raw, t.mant, t.exp, t.text) for t in terms]
    if kind == "moe":
        mant, exp = first.active  # type: ignore[misc]
        active = _to_float(raw, mant, exp, first.text)
        if active > values[0]:
            raise FigureError(raw, "active parameters exceed the total")
        return Quantity(
            raw=raw,
            kind="moe",
            comparator=comparator,
            value=values[0],
            active=active,
            unit="parameters",
            counted=counted,
        )
    if kind == "value":
        return Quantity(
            raw=raw,
            kind="value",
            comparator=comparator,
            value=values[0],
            unit=unit,
            counted=counted,
        )
    if kind == "range":
        low, high = values
        if low > high:
            raise FigureError(
                raw, f"range low end {terms[0].text!r} is above the high end {terms[1].text!r}"
            )
        return Quantity(
            raw=raw,
            kind="range",
            comparator=comparator,
            low=low,
            high=high,
            unit=unit,
            counted=counted,
        )
    if kind == "transition":
        return Quantity(
            raw=raw,
            kind="transition",
            comparator=comparator,
            start=values[0],
            end=values[-1],
            steps=tuple(values),
            unit=unit,
            counted=counted,
        )
    return Quantity(
        raw=raw,
        kind="ratio",
        comparator=comparator,
        steps=tuple(values),
        unit=unit,
        counted=counted,
    )


# raw -> its first number as read (digits, scale exponent), or None: what `precision` works from. `parse`
# fills it for the figures it reads (an import asks each one's precision once the batch is read: `reach`).
# Emptied when full: room for three import batches of 5,000 claims with two figures each, so that a
# batch's figures are rarely forgotten before their precision is asked (at 16,384, 60% of the distinct
# figures of bench_import were read again; at 32,768, 8%).
_FIRST_TERMS: dict[str, tuple[Decimal, int] | None] = {}
_FIRST_TERMS_MAX = 32_768


def _remember_first(raw: str, first: tuple[Decimal, int] | None) -> None:
    if len(_FIRST_TERMS) >= _FIRST_TERMS_MAX:
        _FIRST_TERMS.clear()
    _FIRST_TERMS[raw] = first


def precision(raw: str) -> float | None:
    """The step of the last digit of the figure's first number: 1e11 for "5.9T", 1e3 for "16K", 1 for
    "466". None if the figure has no number. Never raises."""
    if raw in _FIRST_TERMS:
        first = _FIRST_TERMS[raw]
    else:
        first = _first_term(raw)
        if (
            first is None and "\\" in raw
        ):  # siunitx: "\num{16384}" is written as precisely as "16384"
            first = _first_term(_canonical(raw)[0])
        _remember_first(raw, first)
    if first is None:
        return None
    exponent = first[0].as_tuple().exponent
    if not isinstance(exponent, int):
        return None
    try:
        return 10.0 ** (int(exponent) + first[1])
    except OverflowError:  # "1e400 steps": no float holds that step
        return None


def _first_term(raw: str) -> tuple[Decimal, int] | None:
    try:
        s = _mask_groups(raw, _clean(raw))
        start = _first_number(s)
        t = _term(raw, s, start) if start is not None else None
    except FigureError:
        t = None
    return (t.mant, t.exp) if t is not None else None


def _parse_vague(raw: str, s: str) -> Quantity:
    """Text without a number: a vague-number phrase ("hundreds of thousands") or an error."""
    m = _VAGUE.search(s)
    if not m:
        raise FigureError(raw, "no number in figure")
    prefix = " ".join(s[: m.start()].replace("\x00", " ").split())
    comparator = "="
    unit = counted = None
    if prefix and _QUAL_FULL.fullmatch(prefix):
        comparator = _QUALIFIERS[" ".join(prefix.lower().split())]
    if not prefix or comparator != "=":
        rest = re.sub(r"^\s*of(?!\w)", "", s[m.end() :], flags=re.I)
        try:
            unit, counted = _rest_unit(raw, rest, None)
        except FigureError:
            unit = counted = (
                None  # "thousands of K..." : no unit rather than an error on vague text
            )
    return Quantity(raw=raw, kind="text", comparator=comparator, unit=unit, counted=counted)


# --- scan: figures in running prose ----------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A figure found in running text: text[start:end] == raw and parse(raw) == quantity."""

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
_SCAN_START = re.compile(rf"{_NUM_START.pattern}|{_WORDNUM.pattern}", re.I)
# What may stand before the number and belong to the figure: a qualifier ("about", "up to", "~", "> "),
# "between", a currency sign. ">" and "<" that are part of an arrow ("->", "=>", "<-") are not qualifiers.
_SCAN_PREFIX = re.compile(
    rf"(?:(?<!\w)(?:{_QUAL_WORDS_RE})\s+|(?<![-=<>])(?:{_QUAL_SYMS_RE})(?![-=])\s*)?"
    r"(?P<between>(?<!\w)(?P<span>between|from)\s+)?[$€£]?\Z",
    re.I,
)
_SCAN_WORD = re.compile(r"[^\W\d_](?:[\w\-/'’]*[\w'’])?|%|×")
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
    - numbers glued to a name are not figures ("H100", "GPT-4", "Qwen2.5", "K2-V2", "v1.5").
    - "from X to Y" is two figures, X and Y (a change, not a range); "X to Y" and "X–Y" are ranges.
    - a colon or slash joins a ratio only when spaced the same on both sides ("16:44", "4 / 8"), so
      "Table 3: 16 GPUs" is 3 and 16 GPUs.
    - bracketed text is never part of a figure: "12.7T (8B)" is two figures.
    - vague phrases without a number ("hundreds of thousands") are not reported.
    - years, section numbers, footnote marks and times are figures too; callers decide what to ignore.
    Never raises; runs in linear time in the length of the text.
    """
    if not isinstance(text, str):
        return []
    canonical, omap = _canonical(text)
    found = _scan(canonical)
    if omap is None:
        return found
    out = []
    for f in found:  # back to the text as written: "3.8 × 10^25 FLOPs", not "3.8e25 FLOPs"
        start, end = omap.start(f.start), omap.end(f.end)
        raw = text[start:end]
        q = _parse_or_none(
            raw
        )  # read again as written: a boundary inside a rewritten piece reads differently
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
    if span == "from" and not _CHANGE_BEFORE.search(
        s, max(floor, pstart - _SCAN_LOOKBEHIND), pstart
    ):
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
        m = (_AND if span == "between" else _TO).match(s, unit.end() if unit else first.end)
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
    m = _RATIO_SEP.match(s, first.end)
    end = None
    sep = m.group(1) if m else None
    while m and m.group(1) == sep and (m.start(1) > m.start()) == (m.end() > m.end(1)):
        t = _safe_term(s, m.end())
        if t is None:
            break
        end = t.end
        m = _RATIO_SEP.match(s, end)
    return end


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
        ends.append(i)
        unit = _unit_of(w)
        if unit in _SYMBOL_UNITS or (i < n and s[i] != " "):
            break  # a unit symbol is the whole unit ("20 s per step"); punctuation ends the phrase
        if unit == "GPUs" or low in _UNIT_ALIASES or _SCAN_PLURAL.fullmatch(w):
            nxt = _SCAN_WORD.match(s, i + 1)
            if not (nxt and nxt.group(0).lower() in _UNIT_ALIASES):
                break  # a unit or plural noun ends the phrase ("2,048 GPUs ran"), unless a unit follows ("GPU hours")
    return ends
