"""The one table of names a person may not be recorded as, and of names that stand; every door that
records a name (the domain, `--by`, CLAIMS_READER, the settings file, git's user.name, the web form) is
checked against it."""

from __future__ import annotations

import pytest

# (what it is, the name, a part of the reason given)
REFUSED = [
    ("hangul filler", "\u3164", "U+3164 HANGUL FILLER"),
    ("hangul choseong filler", "\u115f", "U+115F"),
    ("hangul jungseong filler", "\u1160", "U+1160"),
    ("halfwidth hangul filler", "\uffa0", "U+FFA0"),
    ("braille blank", "\u2800", "U+2800 BRAILLE PATTERN BLANK"),
    ("filler inside a name", "Ada\u3164Lovelace", "U+3164"),
    ("zero-width space", "\u200b", "U+200B ZERO WIDTH SPACE"),
    ("zero-width space inside", "Ada\u200bLovelace", "U+200B"),
    ("zero-width joiner", "A\u200dB", "U+200D"),
    ("word joiner", "Ada\u2060", "U+2060"),
    ("byte order mark", "\ufeffAda", "U+FEFF"),
    ("soft hyphen", "Ada\u00ad", "U+00AD"),
    ("variation selector", "Ada\ufe0f", "U+FE0F"),
    ("combining grapheme joiner", "Ada\u034f", "U+034F"),
    ("left-to-right embedding", "\u202aAda", "U+202A"),
    ("right-to-left override", "Ada\u202eecalevoL", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("pop directional formatting", "Ada\u202c", "U+202C"),
    ("left-to-right isolate", "\u2066Ada", "U+2066"),
    ("pop directional isolate", "Ada\u2069", "U+2069"),
    ("left-to-right mark", "Ada\u200e", "U+200E"),
    ("right-to-left mark", "\u200fAda", "U+200F"),
    ("arabic letter mark", "Ada\u061c", "U+061C"),
    ("nul", "Ada\x00", "U+0000, a control character"),
    ("escape", "ok\x1b[2Jcleared", "U+001B, a control character"),
    ("tab inside", "Ada\tLovelace", "U+0009, a control character"),
    ("line break inside", "Ada\nMallory", "U+000A, a control character"),
    ("control at the start", "\x1fAda", "U+001F, a control character"),
    ("delete", "Ada\x7f", "U+007F"),
    ("next line", "Ada\x85", "U+0085"),
    ("line separator", "Ada\u2028Mallory", "U+2028 LINE SEPARATOR"),
    ("private use", "Ada\ue000", "private-use"),
    ("empty", "", "must not be empty"),
    ("blanks", "   ", "must not be empty"),
    ("ideographic spaces", "\u3000\u3000", "must not be empty"),
    ("punctuation only", "- . -", "visible letter or digit"),
    ("combining mark only", "\u0301", "visible letter or digit"),
    ("emoji only", "\U0001f600", "visible letter or digit"),
    ("too long", "A" * 81, "at most 80 characters"),
    ("the tool's own name", " Import ", "what the tool's own acts are recorded as"),
    # names compared by their Unicode skeleton (UTS #39): what reads as a reserved name is refused as one
    ("a Cyrillic i in the tool's name", "\u0456mport", "what the tool's own acts are recorded as"),
    ("the tool's name full-width", "\uff49\uff4d\uff50\uff4f\uff52\uff54", "the tool's own acts"),
    ("the tool's name in capitals, Greek and Cyrillic", "IMP\u039fR\u0422", "the tool's own acts"),
    (
        "the tool's name in mathematical bold",
        "\U0001d422\U0001d426\U0001d429\U0001d428\U0001d42b\U0001d42d",
        "the tool's own acts",
    ),
    ("the upgrade's seal", "claimsdb", "what the tool's own acts are recorded as"),
    ("the upgrade's seal with a Cyrillic a", "cl\u0430imsdb", "the tool's own acts"),
]
REFUSED_PARAMS = [pytest.param(name, reason, id=what) for what, name, reason in REFUSED]

# (as typed, as recorded)
ACCEPTED = [
    ("Ada Lovelace", "Ada Lovelace"),
    ("  Ada   Lovelace\n", "Ada Lovelace"),  # trimmed, spaces run together
    ("Ada\u3000Lovelace", "Ada Lovelace"),
    ("Jose\u0301", "Jos\u00e9"),  # NFC: one spelling of one name
    ("李小龍", "李小龍"),
    ("O'Brien-Smith, J.", "O'Brien-Smith, J."),
    ("R2", "R2"),
    ("A" * 80, "A" * 80),
    (
        "\u0406\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432",
        "\u0406\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432",
    ),  # Cyrillic names stand
    ("Importer", "Importer"),  # only the reserved names themselves are refused
]
