"""Canonical forms: written forms of a number that the grammar reads in one spelling.

Scientific notation ("3.8 × 10^25", "3.8×10²⁵", "3.8 \\times 10^{25}", "7.3 × 10−6") becomes "3.8e25";
siunitx ("\\num{1.5e3}", "\\qty{2.4}{\\giga\\hertz}", "\\SI{...}{...}") becomes the number and its unit
("2.4 GHz"); thousands groups separated by a thin space, a narrow or plain no-break space, "\\," or "{,}"
("1\\,355\\,921") lose the separator, and so do plain spaces where the groups cannot be a list
("10 000 GPUs"); Markdown emphasis between a number and its scale ("**39.3**M") is dropped; compound
number words ("a hundred and two", "two and a half", "half a million", "three quarters") and vulgar
fractions ("1½") become digits. `_canonical` returns the rewritten text and its `MappedText` (the map
back to the original's offsets).

Standard library only; no output.
"""

from __future__ import annotations

import re

from claimsdb.figures import vocabulary as V
from claimsdb.figures.lexing import MAX_DIGITS, _folded
from claimsdb.figures.mapped_text import MappedText, Rewriter

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
    rf"|(?P<vulgar>(?<![^\W\d_])(?P<vint>[0-9]{{0,{MAX_DIGITS}}})(?P<vfrac>[{''.join(V.VULGAR_FRACTIONS)}]))"
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
        if m.group(0)[len(m["fnum"])] == "-" and _folded(m["fnum"]) in V.TENS:
            return m.group(0)  # "thirty-eighth" is an ordinal, not 30/8
        den = V.FRACTION_WORDS[_folded(m["fden"])]
        return f"{_word_int(m['fnum']) / den:.6g}"
    if g == "ascale":
        return "1 "
    if g == "vulgar":
        frac = V.VULGAR_FRACTIONS[m["vfrac"]]
        return (m["vint"] + frac[1:]) if m["vint"] else frac
    return m.group(0)


def _canonical(text: str) -> tuple[str, MappedText | None]:
    """`text` in canonical spellings (see above) and the map back, or (text, None) if nothing changed."""
    if not _TRIGGER.search(text) and not (" " in text and _HALVES.search(text)):
        return text, None
    out = Rewriter(text)
    for m in _CANONICAL.finditer(text):
        rep = _canonical_piece(m)
        if rep != m.group(0):
            out.replace(m.start(), m.end(), rep)
    mapped = out.finish()
    return (mapped.text, mapped) if mapped.rewritten else (text, None)
