"""The parser's shortcuts give what the plain reading gives, at the edge of each one.

`parse` skips work it can prove unneeded: cleaning text that is already clean, masking brackets when there
is none, looking for a number word before a number at the very start, trying a scale or glued unit whose
first character is absent, trying a range, transition or ratio when no connector follows, and reading the
text after the number again (remembered). Each case below sits on one of those edges; the expected
readings are those of the parser before the shortcuts (same values, bit for bit, and the same reasons).
"""

from __future__ import annotations

import pytest

from claimsdb.figures import FigureError, parse
from claimsdb.figures import parser as P

FIELDS = (
    "kind",
    "comparator",
    "value",
    "low",
    "high",
    "start",
    "end",
    "steps",
    "active",
    "unit",
    "counted",
)

GOLDEN = [
    (
        "5 million GPUs",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "GPUs", None),
        1000000.0,
    ),
    (
        "5  million GPUs",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "GPUs", None),
        1000000.0,
    ),
    (
        " 5 million GPUs ",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "GPUs", None),
        1000000.0,
    ),
    (
        "5\tmillion GPUs",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "GPUs", None),
        1000000.0,
    ),
    (
        "5\xa0million GPUs",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "GPUs", None),
        1000000.0,
    ),
    (
        "`5` million GPUs",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "GPUs", None),
        1000000.0,
    ),
    (
        "5`million GPUs",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "GPUs", None),
        1000000.0,
    ),
    (
        "2,048\u200b H800",
        "ok",
        ("value", "=", 2048.0, None, None, None, None, (), None, "GPUs", "H800"),
        1.0,
    ),
    (
        "2,0\u200b48 H800",
        "ok",
        ("value", "=", 2048.0, None, None, None, None, (), None, "GPUs", "H800"),
        1.0,
    ),
    ("\x005 GPUs", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", None), 1.0),
    (
        "16K\u2009H100",
        "ok",
        ("value", "=", 16000.0, None, None, None, None, (), None, "GPUs", "H100"),
        1000.0,
    ),
    (
        "between  10  and  20 GB",
        "ok",
        ("range", "=", None, 10.0, 20.0, None, None, (), None, "GB", None),
        1.0,
    ),
    (
        "about  5 GPUs",
        "ok",
        ("value", "~", 5.0, None, None, None, None, (), None, "GPUs", None),
        1.0,
    ),
    (
        "up  to 8 nodes",
        "ok",
        ("value", "up to", 8.0, None, None, None, None, (), None, "nodes", None),
        1.0,
    ),
    (
        "(8B)",
        "ok",
        ("value", "=", 8000000000.0, None, None, None, None, (), None, None, None),
        1000000000.0,
    ),
    ("[12] 5 GPUs", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", None), 1.0),
    (
        "5 GPUs (YaRN)",
        "ok",
        ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", None),
        1.0,
    ),
    (
        "128K (YaRN) tokens",
        "ok",
        ("value", "=", 128000.0, None, None, None, None, (), None, None, None),
        1000.0,
    ),
    ("5 GPUs (", "error", "unbalanced parentheses", None),
    ("5 GPUs)", "error", "unbalanced parentheses", None),
    ("{5} GPUs", "error", "no number in figure", None),
    (
        "((8B))",
        "ok",
        ("value", "=", 8000000000.0, None, None, None, None, (), None, None, None),
        1000000000.0,
    ),
    ("(5) (6)", "error", "no number in figure", None),
    ("one 5 GPUs", "error", "more than one number: split it into separate figures", 1.0),
    ("about one hundred 5", "error", "more than one number: split it into separate figures", 100.0),
    ("five GPUs", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", None), 1.0),
    (
        "twenty-two GPUs",
        "ok",
        ("value", "=", 22.0, None, None, None, None, (), None, "GPUs", None),
        1.0,
    ),
    ("FIVE", "ok", ("value", "=", 5.0, None, None, None, None, (), None, None, None), 1.0),
    ("about 5", "ok", ("value", "~", 5.0, None, None, None, None, (), None, None, None), 1.0),
    (
        "Model = 5 GPUs",
        "ok",
        ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", "Model"),
        1.0,
    ),
    (
        "16K H100 in one cluster",
        "ok",
        ("value", "=", 16000.0, None, None, None, None, (), None, "GPUs", "H100"),
        1000.0,
    ),
    ("one", "ok", ("value", "=", 1.0, None, None, None, None, (), None, None, None), 1.0),
    ("label: 12", "ok", ("value", "=", 12.0, None, None, None, None, (), None, None, "label"), 1.0),
    ("20-ish", "ok", ("value", "~", 20.0, None, None, None, None, (), None, None, None), 1.0),
    (
        "1,000+ GPUs",
        "ok",
        ("value", ">=", 1000.0, None, None, None, None, (), None, "GPUs", None),
        1.0,
    ),
    ("8×H100", "ok", ("value", "=", 8.0, None, None, None, None, (), None, "x", "H100"), 1.0),
    ("8x H100", "ok", ("value", "=", 8.0, None, None, None, None, (), None, "x", "H100"), 1.0),
    ("2TB", "ok", ("value", "=", 2.0, None, None, None, None, (), None, "TB", None), 1.0),
    ("4D", "ok", ("value", "=", 4.0, None, None, None, None, (), None, "D", None), 1.0),
    ("7b", "error", "ambiguous 'b' after a number (write B for billion)", None),
    (
        "10m",
        "error",
        "ambiguous 'm' after a number (write M for million or 'min' for minutes)",
        None,
    ),
    ("3t", "error", "ambiguous 't' after a number (write T for trillion)", None),
    ("15 T", "error", "ambiguous 'T' after a number (glue the scale: 16K, 14.8T)", 1.0),
    (
        "355B-A32B",
        "ok",
        ("moe", "=", 355000000000.0, None, None, None, None, (), 32000000000.0, "parameters", None),
        1000000000.0,
    ),
    (
        "5 million",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, None, None),
        1000000.0,
    ),
    (
        "5 hundred GPUs",
        "ok",
        ("value", "=", 500.0, None, None, None, None, (), None, "GPUs", None),
        100.0,
    ),
    (
        "5 Million",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, None, None),
        1000000.0,
    ),
    ("5%", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "%", None), 1.0),
    ("5%+", "ok", ("value", ">=", 5.0, None, None, None, None, (), None, "%", None), 1.0),
    ("30-odd GPUs", "ok", ("text", "=", None, None, None, None, None, (), None, "GPUs", None), 1.0),
    ("20-something", "ok", ("text", "=", None, None, None, None, None, (), None, None, None), 1.0),
    ("54-day", "ok", ("value", "=", 54.0, None, None, None, None, (), None, "days", None), 1.0),
    (
        "2K-token",
        "ok",
        ("value", "=", 2000.0, None, None, None, None, (), None, "tokens", None),
        1000.0,
    ),
    (
        "3.8e25 FLOPs",
        "ok",
        ("value", "=", 3.8e25, None, None, None, None, (), None, "FLOPs", None),
        1e24,
    ),
    ("1e400 steps", "error", "number too large: '1e400'", None),
    ("1e-400 steps", "error", "number too small: '1e-400'", 0.0),
    ("2,048,", "ok", ("value", "=", 2048.0, None, None, None, None, (), None, None, None), 1.0),
    ("12.", "ok", ("value", "=", 12.0, None, None, None, None, (), None, None, None), 1.0),
    ("1,2,3", "error", "malformed number '1,2,3'", None),
    ("5.4.3", "error", "malformed number '5.4.3'", None),
    ("-0.5", "ok", ("value", "=", -0.5, None, None, None, None, (), None, None, None), 0.1),
    (
        "−5% → +3%",
        "ok",
        ("transition", "=", None, None, None, -5.0, 3.0, (-5.0, 3.0), None, "%", None),
        1.0,
    ),
    ("5x", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "x", None), 1.0),
    ("5xH100s", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "x", "H100"), 1.0),
    ("1st", "error", "an ordinal is not a figure: 'st'", None),
    ("5GPUs", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", None), 1.0),
    ("5 GPU", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", None), 1.0),
    ("5kW", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "kW", None), 1.0),
    ("5Ks", "error", "unrecognised unit or scale glued to the number: 'Ks'", None),
    ("5_", "error", "unexpected text after the number: '5_'", None),
    ("5.a", "ok", ("value", "=", 5.0, None, None, None, None, (), None, None, None), 1.0),
    ("twenty-first", "error", "an ordinal is not a figure: '-first'", None),
    ("355B-A3.5", "error", "malformed MoE size (write it like 355B-A32B): '-A3'", None),
    ("355B-A32", "error", "malformed MoE size (write it like 355B-A32B): '-A32'", None),
    (
        "4K → 128K",
        "ok",
        (
            "transition",
            "=",
            None,
            None,
            None,
            4000.0,
            128000.0,
            (4000.0, 128000.0),
            None,
            None,
            None,
        ),
        1000.0,
    ),
    (
        "4K->128K",
        "ok",
        (
            "transition",
            "=",
            None,
            None,
            None,
            4000.0,
            128000.0,
            (4000.0, 128000.0),
            None,
            None,
            None,
        ),
        1000.0,
    ),
    (
        "32–33T",
        "ok",
        ("range", "=", None, 32000000000000.0, 33000000000000.0, None, None, (), None, None, None),
        1.0,
    ),
    (
        "32-33T tokens",
        "ok",
        (
            "range",
            "=",
            None,
            32000000000000.0,
            33000000000000.0,
            None,
            None,
            (),
            None,
            "tokens",
            None,
        ),
        1.0,
    ),
    ("10 to 20 GB", "ok", ("range", "=", None, 10.0, 20.0, None, None, (), None, "GB", None), 1.0),
    (
        "16:44",
        "ok",
        ("ratio", "=", None, None, None, None, None, (16.0, 44.0), None, None, None),
        1.0,
    ),
    (
        "4 / 8",
        "ok",
        ("ratio", "=", None, None, None, None, None, (4.0, 8.0), None, None, None),
        1.0,
    ),
    (
        "4/8/16",
        "ok",
        ("ratio", "=", None, None, None, None, None, (4.0, 8.0, 16.0), None, None, None),
        1.0,
    ),
    ("5 GB and 6 GB", "error", "more than one number: split it into separate figures", 1.0),
    ("5 - 6", "ok", ("range", "=", None, 5.0, 6.0, None, None, (), None, None, None), 1.0),
    ("5 -", "ok", ("value", "=", 5.0, None, None, None, None, (), None, None, None), 1.0),
    ("5 to", "ok", ("value", "=", 5.0, None, None, None, None, (), None, None, None), 1.0),
    ("5 :", "ok", ("value", "=", 5.0, None, None, None, None, (), None, None, None), 1.0),
    (
        "from 4K to 128K",
        "ok",
        (
            "transition",
            "=",
            None,
            None,
            None,
            4000.0,
            128000.0,
            (4000.0, 128000.0),
            None,
            None,
            None,
        ),
        1000.0,
    ),
    (
        "between 3.3 times and 17.7 times",
        "ok",
        ("range", "=", None, 3.3, 17.7, None, None, (), None, "x", None),
        0.1,
    ),
    (
        "5 ➔ 6",
        "ok",
        ("transition", "=", None, None, None, 5.0, 6.0, (5.0, 6.0), None, None, None),
        1.0,
    ),
    ("5 GB", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "GB", None), 1.0),
    ("5% GB", "error", "the figure has two units: '%' and 'GB'", 1.0),
    ("5x GPUs", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "x", None), 1.0),
    ("5 s", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "s", None), 1.0),
    ("5s GPUs", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "s", None), 1.0),
    ("$5 GB", "error", "the figure has two units: 'USD' and 'GB'", 1.0),
    (
        "$5M",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "USD", None),
        1000000.0,
    ),
    ("€5", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "EUR", None), 1.0),
    ("5 K", "error", "ambiguous 'K' after a number (glue the scale: 16K, 14.8T)", 1.0),
    ("5 thousands", "error", "'thousands' after a number is not an exact value", 1.0),
    (
        "5 million tokens",
        "ok",
        ("value", "=", 5000000.0, None, None, None, None, (), None, "tokens", None),
        1000000.0,
    ),
    (
        "14.8T diverse and high-quality tokens",
        "ok",
        ("value", "=", 14800000000000.0, None, None, None, None, (), None, "tokens", None),
        100000000000.0,
    ),
    ("5 per cent", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "%", None), 1.0),
    ("5 percent", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "%", None), 1.0),
    (
        "1,024 H100 nodes",
        "ok",
        ("value", "=", 1024.0, None, None, None, None, (), None, "nodes", "H100"),
        1.0,
    ),
    (
        "8 H100 GPUs",
        "ok",
        ("value", "=", 8.0, None, None, None, None, (), None, "GPUs", "H100"),
        1.0,
    ),
    ("5 tokens.", "ok", ("value", "=", 5.0, None, None, None, None, (), None, "tokens", None), 1.0),
    ("5 GPUs, 6 nodes", "error", "more than one number: split it into separate figures", 1.0),
    (
        "5 GPUs trained",
        "ok",
        ("value", "=", 5.0, None, None, None, None, (), None, "GPUs", None),
        1.0,
    ),
    (
        "hundreds of thousands",
        "ok",
        ("text", "=", None, None, None, None, None, (), None, None, None),
        None,
    ),
    ("a few GPUs", "ok", ("text", "=", None, None, None, None, None, (), None, "GPUs", None), None),
    (
        "about a dozen GPUs",
        "ok",
        ("text", "~", None, None, None, None, None, (), None, "GPUs", None),
        None,
    ),
]


@pytest.mark.parametrize(
    ("raw", "outcome", "expected", "step"), GOLDEN, ids=[repr(g[0]) for g in GOLDEN]
)
def test_reading_is_unchanged(raw, outcome, expected, step):
    for _ in range(2):  # the second reading comes from what the parser remembers
        if outcome == "ok":
            q = parse(raw)
            got = tuple(getattr(q, f) for f in FIELDS)
            assert got == expected
            assert [repr(x) for x in got] == [repr(x) for x in expected]  # -0.0, float bits
        else:
            with pytest.raises(FigureError) as err:
                parse(raw)
            assert err.value.reason == expected
            assert err.value.raw == raw


@pytest.mark.parametrize(
    ("raw", "outcome", "expected", "step"), GOLDEN, ids=[repr(g[0]) for g in GOLDEN]
)
def test_precision_is_unchanged(raw, outcome, expected, step):
    assert P.precision(raw) == step  # read on its own
    try:
        q = parse(raw)
    except FigureError:
        return
    assert P.precision(q) == step  # as `parse` carries it
