"""Canonical forms: written forms of a number that the grammar reads in one spelling.

Scientific notation ("3.8 × 10^25", "3.8×10²⁵", "3.8 \\times 10^{25}", "7.3 × 10−6") becomes "3.8e25";
siunitx ("\\num{1.5e3}", "\\qty{2.4}{\\giga\\hertz}", "\\SI{...}{...}") becomes the number and its unit
("2.4 GHz"); thousands groups separated by a thin space, a narrow or plain no-break space, "\\," or "{,}"
("1\\,355\\,921") lose the separator, and so do plain spaces where the groups cannot be a list
("10 000 GPUs"); Markdown emphasis between a number and its scale ("**39.3**M") is dropped; compound
number words ("a hundred and two", "twenty-eight thousand six hundred forty-two", "two and a half",
"half a million", "three quarters", "one sixth"), vulgar fractions ("1½", "⅓"), mixed numbers ("2 1/2")
and a fraction before a measure ("1/4 inch") become digits; "minus 387" becomes "-387"; a currency code
glued to an amount is set apart ("USD1,700" -> "USD 1,700"); and the hyphen of a range's first end that
waits for the second's unit is dropped ("8- to 16-meter" -> "8 to 16-meter"). `_canonical` returns the rewritten text and its `MappedText` (the map
back to the original's offsets).

Standard library only; no output.
"""

from __future__ import annotations

import re

from claimsdb.figures import vocabulary as V
from claimsdb.figures.lexing import MAX_DIGITS, _folded
from claimsdb.figures.mapped_text import MappedText, Rewriter
from claimsdb.figures.units import CURRENCY_CODES, MEASURES

_SMALL = rf"(?:(?:{'|'.join(V.TENS)})(?:-(?:{'|'.join(V.ONES[1:10])}))?|{'|'.join(V.ONES[1:])})"
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SCALE_NAMES = "|".join(V.SCALE_WORDS)
# One word of a number written out: "twenty-eight", "six", "hundred", "thousand" (joined by spaces,
# hyphens or "and" into "twenty-eight thousand six hundred forty-two").
_NUMBER_WORD = rf"(?:{_SMALL}|{_SCALE_NAMES})"
_CODES = "|".join(re.escape(c) for c in sorted(CURRENCY_CODES, key=len, reverse=True))
_CANONICAL_ALTERNATIVES = (
    r"(?P<sci>(?<![\w.])(?P<mant>[0-9]+(?:\.[0-9]+)?)[ \u00a0\u2009\u202f]*(?:[×xX·⋅]|\\times|\\cdot)"
    r"[ \u00a0\u2009\u202f]*10[ \u00a0\u2009\u202f]*"
    rf"(?:\^[ ]*\{{?[ ]*(?P<e1>[-−+]?[0-9]{{1,3}})(?:[ ]*\}})?|(?P<e2>[⁻⁺]?[{_SUP}]+)|(?P<e3>[-−][0-9]{{1,2}}))(?![0-9]))"
    rf"|(?P<pow>(?<![\w.])10(?:\^\{{?(?P<p1>[-−+]?[0-9]{{1,3}})\}}?|(?P<p2>[⁻⁺]?[{_SUP}]+))(?![0-9]))"
    r"|(?P<si>\\(?:num|qty|SI|unit)\{(?P<sinum>[^{}]*)\}(?:\{(?P<siunit>[^{}]*)\})?)"
    r"|(?P<group>(?<![0-9.,])[0-9]{1,3}(?:(?:[\u2009\u202f\u00a0]|\\,|\{,\})[0-9]{3})+(?![0-9]))"
    r"|(?P<spaced>(?<![0-9.,] )(?<![0-9.,])(?:[0-9]{1,3}(?: [0-9]{3}){2,}|[0-9]{2}(?: [0-9]{3})|[0-9]{1,3} 000)"
    r"(?![0-9.,]| [0-9]))"
    r"|(?P<emph>(?<=[0-9])(?:\*{1,3}|_{2,3})(?=[A-Za-z%×])|(?<![\w*])(?:\*{1,3}|_{2,3})(?=[0-9]))"
    rf"|(?P<words>(?<![\w-]){_NUMBER_WORD}(?:(?:[ ]+|-)(?:and[ ]+)?{_NUMBER_WORD})+(?![\w-]))"
    r"|(?P<minus>(?<![\w-])minus[ ]+(?=[0-9]))"
    rf"|(?P<code>(?<![\w$])(?-i:{_CODES})(?=[0-9]))"
    r"|(?P<mixed>(?<![\w./])(?P<mw>[0-9]{1,3}) (?P<ma>[1-9])/(?P<mb>[0-9]{1,2})(?![\w./]))"
    r"|(?P<susp>(?<=[0-9])-(?=[ ]+to[ ]+[$€£]?[0-9]))"
    r"|(?P<slash>(?<![\w./])(?P<sa>[0-9]{1,2})/(?P<sb>[0-9]{1,3})(?=[ ]+(?P<sw>[^\W\d_]+))(?![\w./]))"
    rf"|(?P<hundred>(?<![\w-])(?:(?P<h>a|one|{_SMALL})[ ]+hundred(?:[ ]+and[ ]+(?P<hrest>{_SMALL}))?)(?![\w-]))"
    rf"|(?P<andhalf>(?<![\w-])(?P<whole>{_SMALL}|[0-9]+)[ ]+and[ ]+a[ ]+(?P<part>half|third|quarter)(?![\w-]))"
    r"|(?P<halfa>(?<![\w-])half[ ]+a[ ]+(?P<hscale>thousand|million|billion|trillion)(?![\w-]))"
    rf"|(?P<frac>(?<![\w-])(?P<fnum>a|one|{_SMALL})[ -](?P<fden>halves|half|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?)"
    r"(?![\w-]))"
    r"|(?P<ascale>(?<![\w-])a[ ]+(?=(?:thousand|million|billion|trillion)(?![\w-])))"
    rf"|(?P<vulgar>(?<![^\W\d_])(?P<vint>[0-9]{{0,{MAX_DIGITS}}})(?P<vfrac>[{''.join(V.VULGAR_FRACTIONS)}]))"
)
# Every match above starts with a digit, a backslash, "*", "_" or a vulgar fraction, or at the start of a
# word with the first letter of "a", "one", "half" or a number word: the lookahead says so in one cheap
# test, which skips most positions of running text without trying each alternative there.
_CANONICAL = re.compile(
    rf"(?=[0-9\\*_{''.join(V.VULGAR_FRACTIONS)}]|(?<=[0-9])-|(?<![\w-])[aefhmnost]|(?<![\w$])\$?(?-i:[A-Z]))"
    rf"(?:{_CANONICAL_ALTERNATIVES})",
    re.I,
)
# What some rewrite above needs: one of these, or a plain space where one can matter (between digits,
# after "a" before a scale word, anywhere in a text with "halves"). Most figures have none and skip the
# scan ("2,048 H800", "14.8T tokens").
_TRIGGER_ALTERNATIVES = (
    r"[×xX·⋅^⁰¹²³⁴⁵⁶⁷⁸⁹\\\u2009\u202f\u00a0*_]|hundred|half|third|quarter|fifth|sixth|seventh|eighth|"
    r"ninth|tenth|minus +[0-9]|[0-9]/[0-9]|[0-9]- +to +|(?:thousand|million|billion|trillion|quadrillion)[ -]+(?:and +)?"
    rf"{_SMALL}|(?:{'|'.join(V.TENS)}) +(?:{'|'.join(V.ONES[1:10])})(?![\w-])|"
    rf"[{''.join(V.VULGAR_FRACTIONS)}]|\{{,\}}|[0-9] [0-9]|a +(?:thousand|million|billion|trillion)"
)
# The lookahead holds the first character of every alternative: a cheap test that skips most positions.
_TRIGGER = re.compile(
    rf"(?=[×xX·⋅^⁰¹²³⁴⁵⁶⁷⁸⁹\\\u2009\u202f\u00a0*_htqfesnmbf{''.join(V.VULGAR_FRACTIONS)}{{0-9a])"
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
    if g == "words":
        value = _words_value(m.group(0))
        return m.group(0) if value is None else str(value)
    if g == "minus":
        return "-"
    if g == "code":
        return m.group(0) + " "  # "USD1,700" reads as "USD 1,700"
    if g == "mixed":
        a, b = int(m["ma"]), int(m["mb"])
        if a < b:
            return f"{int(m['mw']) + a / b:.6g}"  # "2 1/2 in": two and a half
        return m.group(0)
    if g == "susp":
        return ""  # "8- to 16-meter": the first end's hyphen waits for the unit of the second
    if g == "slash":
        a, b = int(m["sa"]), int(m["sb"])
        if 0 < a < b and m["sw"] in MEASURES:
            return f"{a / b:.6g}"  # "1/4 inch", "3/4 mile": a fraction of a measure, not a ratio
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


# A currency code glued to an amount ("USD1,700"): case matters, so it is looked for apart.
_CODE_TRIGGER = re.compile(rf"(?<![\w$])(?:{_CODES})[0-9]")


def _canonical(text: str) -> tuple[str, MappedText | None]:
    """`text` in canonical spellings (see above) and the map back, or (text, None) if nothing changed."""
    if (
        not _TRIGGER.search(text)
        and not (" " in text and _HALVES.search(text))
        and not _CODE_TRIGGER.search(text)
    ):
        return text, None
    out = Rewriter(text)
    for m in _CANONICAL.finditer(text):
        rep = _canonical_piece(m)
        if rep != m.group(0):
            out.replace(m.start(), m.end(), rep)
    mapped = out.finish()
    return (mapped.text, mapped) if mapped.rewritten else (text, None)
