"""The digests' JSON text (canonical.encoder) is the standard library's, byte for byte: stores hold
digests computed with `json.JSONEncoder(...).encode`, so a faster encoder may not change one byte."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from claimsdb import canonical, history

# every code point, lone surrogates included (a claim's text may hold one: it is hashed with surrogatepass)
TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
LEAF = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
TREE = st.recursive(
    LEAF,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(TEXT, inner, max_size=3)
    ),
    max_leaves=12,
)
EDGES = [
    [1e16, 1e-05, 0.0001, -0.0, 3.0, 5e-324, 1.7976931348623157e308, 2.5e-300],
    [math.nan, math.inf, -math.inf],
    [2**63, 2**64, -(2**63) - 1, 10**40],
    ['\u00e9\u2028\u2029\x7f\x00\x1f"\\/', "\ud800", "\ud83d\ude00", "\U0001f4a1"],
    [(1, "a"), [], {}, {"b": 1, "a": [None, True]}],
]


def standard(sort_keys: bool, separators: tuple[str, str]):
    return json.JSONEncoder(ensure_ascii=False, separators=separators, sort_keys=sort_keys).encode


def test_the_edges_encode_as_the_standard_library_does():
    for sort_keys, separators in ((False, (",", ":")), (True, (", ", ": ")), (False, (", ", ": "))):
        ours = canonical.encoder(sort_keys=sort_keys, separators=separators)
        for payload in EDGES:
            assert ours(payload) == standard(sort_keys, separators)(payload)


@settings(max_examples=300, deadline=None)
@given(TREE)
def test_any_payload_encodes_as_the_standard_library_does(payload):
    assert canonical.encoder()(payload) == standard(False, (",", ":"))(payload)
    keyed = canonical.encoder(sort_keys=True, separators=(", ", ": "))
    assert keyed(payload) == standard(True, (", ", ": "))(payload)


def test_digests_of_edge_inputs_are_what_earlier_releases_computed():
    """Pinned from the release before canonical.encoder (json.JSONEncoder.encode per call)."""
    figure = {
        "name": "n\u00e9",
        "raw": "1e16 \ud800 \U0001f4a1",
        "kind": "value",
        "comparator": None,
        "value": 1e16,
        "low": -0.0,
        "high": math.nan,
        "start": 1e-05,
        "end": 3,
        "steps": "[1e-05, 2.5, 1e300]",
        "active": math.inf,
        "unit": "tokens",
        "counted": None,
    }
    stored = "4e966ea58e46d08d225cd97cd4e41caa62655eab974ffb5e21206f91e2ec1529"
    assert history.stored_digest("Pretrain", "b\u2028", None, 2**70, [figure]) == stored
    row = tuple(figure[c] for c in history.STORED_FIGURE_COLUMNS)
    assert history.stored_rows_digest("Pretrain", "b\u2028", None, 2**70, [row]) == stored
    assert (
        history.content_digest(
            "S\u00fcbject \ud83d\ude00",
            'It used \x00\x1f\x7f "q" \\ /.',
            [("3,072 H100", None), ("\udfff", "n")],
            [("src", None, "q\u2029")],
            "l\u00e9",
        )
        == "835a0bcca9b174ea14753e62bac97afdcbab52921c8d846c7ded7df9d8b80a5d"
    )
    event = dict.fromkeys(history.EVENT_FIELDS)
    event.update(
        at="2026-01-01T00:00:00",
        kind="imported",
        actor="Zo\u00eb \udc80",
        detail='{"a": 1}',
        content_sha256="c" * 64,
        rank_after="high",
        stored_sha256="s" * 64,
    )
    assert (
        history.event_digest("k.\u00e9", event)
        == "e63ccda5ba641e5c374c3028a299a1fd08b0962f23abcb66ee78ea960b4d1241"
    )
