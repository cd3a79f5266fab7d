"""Names that read alike share a skeleton (trust.confusables); names that do not, do not."""

from __future__ import annotations

import pytest

from claimsdb.trust.confusables import confusable, skeleton


@pytest.mark.parametrize(
    "a, b",
    [
        ("import", "\u0456mport"),  # Cyrillic і
        ("import", "\uff49\uff4d\uff50\uff4f\uff52\uff54"),  # full-width
        ("Import", "IMPORT"),  # case
        ("Grace Hopper", "Gr\u0430ce H\u043epper"),  # Cyrillic а, о
        ("Grace Hopper", "GRACE HOPPER"),
        ("ACME", "\u0410\u0421\u041c\u0395"),  # Cyrillic А С М, Greek Ε
        ("Ada", "\U0001d400da"),  # mathematical bold A
        ("Jos\u00e9", "Jose\u0301"),  # composed and decomposed
        ("Jos\u00e9", "J\u043es\u00e9"),
        ("Ada-Lovelace", "Ada\u2010Lovelace"),  # hyphen
        ("Ada", "A\u200bda"),  # a zero-width space draws nothing
    ],
)
def test_names_that_read_alike_share_a_skeleton(a, b):
    assert confusable(a, b) and skeleton(a) == skeleton(b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("import", "importer"),
        ("Grace", "Grade"),
        ("Jose", "Jos\u00e9"),  # an accent is seen
        ("\u0418\u0432\u0430\u043d", "Ivan"),  # a Cyrillic name is not its transliteration
        ("\u674e", "\u5b63"),
    ],
)
def test_names_that_do_not_read_alike_differ(a, b):
    assert not confusable(a, b)
