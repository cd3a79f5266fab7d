"""Canonical forms: written forms of a number that the grammar reads in one spelling.

Scientific notation ("3.8 × 10^25", "3.8×10²⁵", "3.8 \\times 10^{25}", "7.3 × 10−6") becomes "3.8e25";
siunitx ("\\num{1.5e3}", "\\qty{2.4}{\\giga\\hertz}", "\\SI{...}{...}") becomes the number and its unit
("2.4 GHz"); thousands groups separated by a thin space, a narrow or plain no-break space, "\\," or "{,}"
("1\\,355\\,921") lose the separator, and so do plain spaces where the groups cannot be a list
("10 000 GPUs"); Markdown emphasis between a number and its scale ("**39.3**M") is dropped; compound
number words ("a hundred and two", "twenty-eight thousand six hundred forty-two", "two and a half",
"half a million", "three quarters", "one sixth"), vulgar fractions ("1½", "⅓"), mixed numbers ("2 1/2"),
a fraction before a measure or "of" ("1/4 inch", "1/40 of") and a power of another base ("2^10",
"8×2^10") become digits; "minus 387" becomes "-387"; a currency code glued to an amount is set apart
("USD1,700" -> "USD 1,700"); and the hyphen of a range's first end that waits for the second's unit is
dropped ("8- to 16-meter" -> "8 to 16-meter"). `_canonical` returns the rewritten text and its
`MappedText` (the map back to the original's offsets).

Standard library only; no output.
"""

from __future__ import annotations

import re

from claimsdb.figures import vocabulary as V
from claimsdb.figures.lexing import MAX_DIGITS, ODD_CASE, _folded
from claimsdb.figures.mapped_text import MappedText, Rewriter
from claimsdb.figures.units import CURRENCY_CODES, MEASURES

_SMALL = rf"(?:(?:{'|'.join(V.TENS)})(?:-(?:{'|'.join(V.ONES[1:10])}))?|{'|'.join(V.ONES[1:])})"
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SCALE_NAMES = "|".join(V.SCALE_WORDS)
# One word of a number written out: "twenty-eight", "six", "hundred", "thousand" (joined by spaces,
# hyphens or "and" into "twenty-eight thousand six hundred forty-two").
_NUMBER_WORD = rf"(?:{_SMALL}|{_SCALE_NAMES})"
# A run of number words ("twenty-eight thousand six hundred forty-two"), read by `_words_value`. A
# pattern of its own, tried only near the words such a run must hold (`_word_spots`).
_WORDS = re.compile(
    rf"(?P<words>(?<![\w-]){_NUMBER_WORD}(?:(?:[ ]+|-)(?:and[ ]+)?{_NUMBER_WORD})+(?![\w-]))"
    r"|(?P<minus>(?<![\w-])minus[ ]+(?=[0-9]))",
    re.I,
)
_CANONICAL_ALTERNATIVES = (
    r"(?P<sci>(?<![\w.])(?P<mant>[0-9]+(?:\.[0-9]+)?)[ \u00a0\u2009\u202f]*(?:[×xX·⋅]|\\times|\\cdot)"
    r"[ \u00a0\u2009\u202f]*10[ \u00a0\u2009\u202f]*"
    rf"(?:\^[ ]*\{{?[ ]*(?P<e1>[-−+]?[0-9]{{1,3}})(?:[ ]*\}})?|(?P<e2>[⁻⁺]?[{_SUP}]+)|(?P<e3>[-−][0-9]{{1,2}}))(?![0-9]))"
    rf"|(?P<pow>(?<![\w.])10(?:\^\{{?(?P<p1>[-−+]?[0-9]{{1,3}})\}}?|(?P<p2>[⁻⁺]?[{_SUP}]+))(?![0-9]))"
    # another base with a caret ("2^10 bits", "8×2^10", "2^{22} tokens"), read as the number it is
    r"|(?P<bpow>(?<![\w.^])(?:(?P<bm>[0-9]{1,3})[ ]*[×xX·⋅][ ]*)?(?P<base>[2-9]|1[1-9]|[2-9][0-9])"
    r"\^\{?(?P<be>[0-9]{1,2})\}?(?![0-9^]|\.[0-9]))"
    r"|(?P<si>\\(?:num|qty|SI|unit)\{(?P<sinum>[^{}]*)\}(?:\{(?P<siunit>[^{}]*)\})?)"
    r"|(?P<group>(?<![0-9.,])[0-9]{1,3}(?:(?:[\u2009\u202f\u00a0]|\\,|\{,\})[0-9]{3})+(?![0-9]))"
    r"|(?P<spaced>(?<![0-9.,] )(?<![0-9.,])(?:[0-9]{1,3}(?: [0-9]{3}){2,}|[0-9]{2}(?: [0-9]{3})|[0-9]{1,3} 000)"
    r"(?![0-9.,]| [0-9]))"
    r"|(?P<emph>(?<=[0-9])(?:\*{1,3}|_{2,3})(?=[A-Za-z%×])|(?<![\w*])(?:\*{1,3}|_{2,3})(?=[0-9]))"
    rf"|(?P<hundred>(?<![\w-])(?:(?P<h>a|one|{_SMALL})[ ]+hundred(?:[ ]+and[ ]+(?P<hrest>{_SMALL}))?)(?![\w-]))"
    rf"|(?P<andhalf>(?<![\w-])(?P<whole>{_SMALL}|[0-9]+)[ ]+and[ ]+a[ ]+(?P<part>half|third|quarter)(?![\w-]))"
    r"|(?P<halfa>(?<![\w-])half[ ]+a[ ]+(?P<hscale>thousand|million|billion|trillion)(?![\w-]))"
    rf"|(?P<frac>(?<![\w-])(?P<fnum>a|one|{_SMALL})[ -](?P<fden>halves|half|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?)"
    r"(?![\w-]))"
    r"|(?P<ascale>(?<![\w-])a[ ]+(?=(?:thousand|million|billion|trillion)(?![\w-])))"
    rf"|(?P<vulgar>(?<![^\W\d_])(?P<vint>[0-9]{{0,{MAX_DIGITS}}})(?P<vfrac>[{''.join(V.VULGAR_FRACTIONS)}]))"
)
# Every match above starts with a digit, a backslash, "*", "_" or a vulgar fraction, or at the start of a
# word with the first letter of "a", "one", "half" or a number word. The two are looked for apart: the
# first everywhere, the lookahead skipping most positions of running text in one cheap test; the second
# only near a word such a match must hold (`_WORD_KEYS`), since most words of a page start with one of
# those letters.
_CANONICAL = re.compile(
    rf"(?=[0-9\\*_{''.join(V.VULGAR_FRACTIONS)}])(?:{_CANONICAL_ALTERNATIVES})",
    re.I,
)
_CANONICAL_WORDS = re.compile(rf"(?<![\w-])(?=[aefhnost])(?:{_CANONICAL_ALTERNATIVES})", re.I)
# A match of _CANONICAL_WORDS holds one of these ("a hundred", "two and a half", "half a million", "one
# sixth", "a thousand"), no further than _KEY_REACH characters from its start or end.
_WORD_KEYS = (
    "hundred",
    "half",
    "halves",
    "third",
    "quarter",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "thousand",
    "million",
    "billion",
    "trillion",
)
_KEY_REACH = 48
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
# Forms with a slash or a suspended hyphen ("2 1/2", "1/4 inch", "8- to 16-meter"): a pattern of their
# own, tried only on texts that hold "/" or "- to".
_SLASHED = re.compile(
    r"(?=[0-9-])"  # the first character of each form: a cheap test that skips most positions
    r"(?:(?P<mixed>(?<![\w./])(?P<mw>[0-9]{1,3}) (?P<ma>[1-9])/(?P<mb>[0-9]{1,2})(?![\w./]))"
    r"|(?P<susp>(?<=[0-9])-(?=[ ]+to[ ]+[$€£]?[0-9]))"
    r"|(?P<slash>(?<![\w./])(?P<sa>[0-9]{1,2})/(?P<sb>[0-9]{1,3})(?=[ ]+(?P<sw>[^\W\d_]+))(?![\w./])))",
    re.I,
)
# The rewrites the trigger above does not test: "minus 387", runs of number words ("twenty one",
# "twenty-eight thousand six hundred forty-two"), "one sixth", "two halves". Each is looked for only
# near a piece of text it must hold, which plain substring tests find far cheaper than a pattern tried
# at every letter of a page.
_RUN_PIECES = ("hundred", "thousand", "illion", "minus")
_TENS_BEFORE = tuple(t[:-2] for t in V.TENS)  # "twen", "thir", ...: the word before "ty "
_SPOT_REACH = 160  # characters around a piece searched for the run that holds it
# A currency sign or capital right before a digit: where a glued currency code ("USD1,700") may end.
_CODE_HINT = re.compile(r"(?:[A-Z$]{2}|Rs)[0-9]")
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


_SCALE_EXP = {w: 10**e for w, e in V.SCALE_WORDS.items() if w != "hundred"}


def _words_value(words: str) -> int | None:
    """The value of a number written out ("twenty-eight thousand six hundred forty-two"), or None
    when the words are not one number ("one two", "thousand million") or a scale word alone would
    read them ("two million", "six hundred", "thirty-four": the grammar reads those as they are)."""
    tokens = [t for t in re.split(r"[ -]+", _folded(words)) if t != "and"]
    if len(tokens) < 2 or (len(tokens) == 2 and tokens[1] in V.SCALE_WORDS):
        return None
    total, group, last_scale = 0, 0, None
    prev = ""  # "small", "tens", "hundred" or "scale"
    for t in tokens:
        if t == "hundred":
            if prev not in ("small", "tens") or group >= 100 or group == 0 or group >= 10:
                return None
            group, prev = group * 100, "hundred"
        elif t in _SCALE_EXP:
            mult = _SCALE_EXP[t]
            if group == 0 or (last_scale is not None and mult >= last_scale):
                return None
            total, group, last_scale, prev = total + group * mult, 0, mult, "scale"
        else:
            n = _word_int(t)
            if prev == "tens" and 0 < n < 10:
                group, prev = group + n, "small"  # "twenty one"
            elif prev in ("", "hundred", "scale") and group % 100 == 0:
                group, prev = group + n, "tens" if n >= 20 and n % 10 == 0 else "small"
            else:
                return None
    return total + group


def _exponent(plain: str | None, sup: str | None, minus: str | None) -> str:
    e = (
        plain
        if plain is not None
        else (sup.translate(V.SUPERSCRIPTS) if sup is not None else minus or "0")
    )
    return e.replace("−", "-").replace("+", "")


_POWER_DIGITS = 20  # "2^64" is written out whole; a larger power in exponent notation


def _power(m: re.Match) -> str:
    """ "2^10" -> "1024", "8×2^10" -> "8192": a power of a base other than ten, times its multiplier."""
    value = int(m["bm"] or 1) * int(m["base"]) ** int(m["be"])
    digits = str(value)
    if len(digits) <= _POWER_DIGITS:
        return digits
    return f"{digits[0]}.{digits[1:16]}e{len(digits) - 1}"


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
    if g == "bpow":
        return _power(m)
    if g == "si":
        number = _canonical(m["sinum"].strip())[0].replace(" ", "")
        unit = _si_unit(m["siunit"] or "")
        return f"{number} {unit}" if unit else number
    if g in ("group", "spaced"):
        return re.sub(r"[^0-9]", "", m.group(0))
    if g == "emph":
        return ""
    if g == "mixed":
        a, b = int(m["ma"]), int(m["mb"])
        if a < b:
            return f"{int(m['mw']) + a / b:.6g}"  # "2 1/2 in": two and a half
        return m.group(0)
    if g == "susp":
        return ""  # "8- to 16-meter": the first end's hyphen waits for the unit of the second
    if g == "slash":
        a, b = int(m["sa"]), int(m["sb"])
        if 0 < a < b and (m["sw"] in MEASURES or m["sw"].lower() == "of"):
            # "1/4 inch", "3/4 mile", "1/40 of the wavelength": a fraction of a measure or of a whole,
            # not a ratio
            return f"{a / b:.6g}"
        return m.group(0)
    if g == "hundred":
        return str(100 * _word_int(m["h"]) + (_word_int(m["hrest"]) if m["hrest"] else 0))
    if g == "andhalf":
        return str(_word_int(m["whole"])) + _PART[_folded(m["part"])][1:]
    if g == "halfa":
        return f"0.5 {_folded(m['hscale'])}"
    if g == "frac":
        if _folded(m["fnum"]) in V.TENS and not _folded(m["fden"]).endswith("s"):
            return m.group(0)  # "thirty-eighth", "twenty sixth": an ordinal, not 30/8
        den = V.FRACTION_WORDS[_folded(m["fden"])]
        return f"{_word_int(m['fnum']) / den:.6g}"
    if g == "ascale":
        return "1 "
    if g == "vulgar":
        frac = V.VULGAR_FRACTIONS[m["vfrac"]]
        return (m["vint"] + frac[1:]) if m["vint"] else frac
    return m.group(0)


def _offsets(low: str, pieces: tuple[str, ...]) -> list[int]:
    """Where each of `pieces` occurs in `low`, every time."""
    spots = []
    for piece in pieces:
        i = low.find(piece)
        while i != -1:
            spots.append(i)
            i = low.find(piece, i + 1)
    return spots


def _word_spots(low: str) -> list[int]:
    """Offsets of the pieces a run of number words or "minus" must hold, in the lowercased text."""
    spots = _offsets(low, _RUN_PIECES)
    i = low.find("ty ")
    while i != -1:
        if low[max(0, i - 5) : i].endswith(_TENS_BEFORE):  # "twenty one", not "quality data"
            spots.append(i)
        i = low.find("ty ", i + 1)
    return spots


def _word_pieces(text: str, low: str) -> list[tuple[int, int, str]]:
    """The rewrites of runs of number words and of "minus" ("minus 387" -> "-387")."""
    found: dict[int, tuple[int, int, str]] = {}
    for spot in _word_spots(low):
        lo, hi = max(0, spot - _SPOT_REACH), min(len(text), spot + _SPOT_REACH)
        for m in _WORDS.finditer(text, lo, hi):
            if m.start() in found or (m.end() == hi and hi < len(text)):
                continue  # seen from another spot, or cut by the window
            if m["minus"]:
                found[m.start()] = (m.start(), m.end(), "-")
            elif (value := _words_value(m.group(0))) is not None:
                found[m.start()] = (m.start(), m.end(), str(value))
    return list(found.values())


def _code_pieces(text: str) -> list[tuple[int, int, str]]:
    """A currency code glued to an amount, set apart: "USD1,700" -> "USD 1,700", "$US5" -> "$US 5"."""
    out = []
    for m in _CODE_HINT.finditer(text):
        end = m.end() - 1  # the digit
        start = end - 1
        while start > 0 and (text[start - 1].isalpha() or text[start - 1] == "$"):
            start -= 1
        code = text[start:end]
        if code in CURRENCY_CODES and not (start and text[start - 1].isalnum()):
            out.append((start, end, code + " "))
    return out


def _worded_pieces(text: str) -> list[tuple[int, int, str]]:
    """The rewrites that start with a word ("a hundred and two", "one sixth"), looked for near the
    words they hold."""
    # as re.I matches them: "thırd" holds "third" (four letters that lower() alone does not fold so)
    odd = any(c in text for c in ODD_CASE)
    spots = sorted(_offsets(_folded(text) if odd else text.lower(), _WORD_KEYS))
    if not spots:
        return []
    found: dict[int, tuple[int, int, str]] = {}
    searched = 0  # text before this was searched from an earlier spot
    for spot in spots:
        lo, hi = max(searched, spot - _KEY_REACH), min(len(text), spot + _KEY_REACH)
        for m in _CANONICAL_WORDS.finditer(text, lo, hi):
            if m.end() == hi and hi < len(text):
                break  # cut by the window: found whole from the next spot, or not a match
            found.setdefault(m.start(), (m.start(), m.end(), _canonical_piece(m)))
            searched = max(searched, m.end())
        searched = max(searched, min(hi, spot))
    return list(found.values())


def _canonical(text: str) -> tuple[str, MappedText | None]:
    """`text` in canonical spellings (see above) and the map back, or (text, None) if nothing changed."""
    rare: list[tuple[int, int, str]] = []
    fractions = False
    if " " in text:
        low = text.lower()
        if (
            "hundred" in low
            or "thousand" in low
            or "illion" in low
            or "minus" in low
            or "ty " in low
        ):
            rare = _word_pieces(text, low)
        fractions = "xth" in low or "nth" in low or "halves" in low
        if "/" in text or "- to" in text:
            rare.extend((m.start(), m.end(), _canonical_piece(m)) for m in _SLASHED.finditer(text))
    if _CODE_HINT.search(text):
        rare.extend(_code_pieces(text))
    if not (rare or fractions or _TRIGGER.search(text)):
        return text, None
    out = Rewriter(text)
    pieces = [(m.start(), m.end(), _canonical_piece(m)) for m in _CANONICAL.finditer(text)]
    worded = _worded_pieces(text)
    # a run of number words wins over the pieces inside it ("six hundred" in a longer run)
    if rare or worded:
        pieces.extend(rare)
        pieces.extend(worded)
        pieces.sort(key=lambda p: (p[0], -p[1]))
    pos = 0
    for start, end, rep in pieces:
        if start >= pos and rep != text[start:end]:
            out.replace(start, end, rep)
            pos = end
    mapped = out.finish()
    return (mapped.text, mapped) if mapped.rewritten else (text, None)
