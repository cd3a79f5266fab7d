"""Names that read alike: a name's Unicode skeleton (after UTS #39, "Unicode Security Mechanisms", §4).

Two names are confusable when their skeletons are equal: "іmport" (a Cyrillic і), "ｉｍｐｏｒｔ" (full-width)
and "𝐢𝐦𝐩𝐨𝐫𝐭" (mathematical bold) all have the skeleton of "import". `trust.identity` refuses a person's
name whose skeleton is a reserved name's, and `trust.people` one that reads as a registered person's but is
spelt otherwise.

What it covers, and how it departs from UTS #39: no package this project installs ships the confusables data
(confusables.txt), and nothing is fetched at run time, so the table below is a small excerpt of it: the
Cyrillic, Greek and Armenian letters, and the few Latin letters, digits and dashes, that draw as a basic
Latin letter, digit or hyphen. Letters that only resemble a Latin letter in some fonts, and multi-character
confusions ("rn" for "m"), are not in it. NFKD folds compatibility forms (full-width, mathematical letters,
ligatures, superscripts) before the table applies, and the skeleton is case-insensitive (casefold): the
capitals that draw as Latin capitals are mapped to them first, so "ІМРОRТ" (Cyrillic) reads as "import".
UTS #39 maps "I" (and the letters drawn like it) to "l"; a case-insensitive skeleton cannot, or "Import"
and "import" would differ, so "I"/"l" confusions are not caught.

Source: https://www.unicode.org/Public/security/latest/confusables.txt (the mappings to a Latin letter, digit
or hyphen of the characters listed below).
"""

from __future__ import annotations

import unicodedata

# Capitals drawn as a Latin capital, mapped before casefolding (Cyrillic, then Greek)
_CAPITALS = {
    "\u0405": "S",
    "\u0406": "I",
    "\u0408": "J",
    "\u0410": "A",
    "\u0412": "B",
    "\u0415": "E",
    "\u041a": "K",
    "\u041c": "M",
    "\u041d": "H",
    "\u041e": "O",
    "\u0420": "P",
    "\u0421": "C",
    "\u0422": "T",
    "\u0425": "X",
    "\u04ae": "Y",
    "\u04c0": "I",
    "\u051a": "Q",
    "\u051c": "W",
    "\u0391": "A",
    "\u0392": "B",
    "\u0395": "E",
    "\u0396": "Z",
    "\u0397": "H",
    "\u0399": "I",
    "\u039a": "K",
    "\u039c": "M",
    "\u039d": "N",
    "\u039f": "O",
    "\u03a1": "P",
    "\u03a4": "T",
    "\u03a5": "Y",
    "\u03a7": "X",
}
# Small letters, digits and dashes drawn as a basic Latin one, mapped after casefolding
_SMALL = {
    "\u0430": "a",
    "\u0435": "e",
    "\u043e": "o",
    "\u0440": "p",
    "\u0441": "c",
    "\u0443": "y",
    "\u0445": "x",
    "\u0455": "s",
    "\u0456": "i",
    "\u0458": "j",
    "\u04af": "y",
    "\u04bb": "h",
    "\u04cf": "l",
    "\u0501": "d",
    "\u051b": "q",
    "\u051d": "w",
    "\u03b1": "a",
    "\u03b3": "y",
    "\u03b9": "i",
    "\u03bd": "v",
    "\u03bf": "o",
    "\u03c1": "p",
    "\u0570": "h",
    "\u0578": "n",
    "\u057d": "u",
    "\u0585": "o",
    "\u0131": "i",
    "\u0251": "a",
    "\u0261": "g",
    "\u0269": "i",
    "\u01c0": "l",
    "0": "o",
    "1": "l",
    "|": "l",
    "\u2010": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2212": "-",
}


def skeleton(text: str) -> str:
    """The form two names that read alike share: compatibility forms folded, format characters dropped,
    letters drawn alike mapped to one, case folded."""
    decomposed = unicodedata.normalize("NFKD", text)
    capitals = "".join(
        _CAPITALS.get(ch, ch) for ch in decomposed if unicodedata.category(ch) != "Cf"
    )
    folded = unicodedata.normalize("NFKD", capitals.casefold())
    return unicodedata.normalize("NFKD", "".join(_SMALL.get(ch, ch) for ch in folded))


def confusable(a: str, b: str) -> bool:
    """Whether two names read alike (equal skeletons)."""
    return skeleton(a) == skeleton(b)
