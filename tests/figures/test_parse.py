"""Tests for claimsdb.figures: the figure parser contract (spec/QUANTITIES.md)."""

from __future__ import annotations

import json
import math
from decimal import Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimsdb.figures import FigureError, Quantity, normalize_unit, parse, same_unit

FAST = settings(max_examples=150, deadline=None)


def V(value, unit=None, comparator="=", counted=None):
    return {
        "kind": "value",
        "value": value,
        "unit": unit,
        "comparator": comparator,
        "counted": counted,
    }


def R(low, high, unit=None, comparator="=", counted=None):
    return {
        "kind": "range",
        "low": low,
        "high": high,
        "unit": unit,
        "comparator": comparator,
        "counted": counted,
    }


def T(*steps, unit=None, comparator="=", counted=None):
    return {
        "kind": "transition",
        "start": steps[0],
        "end": steps[-1],
        "steps": tuple(steps),
        "unit": unit,
        "comparator": comparator,
        "counted": counted,
    }


def RATIO(*steps, unit=None, comparator="=", counted=None):
    return {
        "kind": "ratio",
        "steps": tuple(steps),
        "unit": unit,
        "comparator": comparator,
        "counted": counted,
    }


def MOE(total, active, comparator="=", counted=None):
    return {
        "kind": "moe",
        "value": total,
        "active": active,
        "unit": "parameters",
        "comparator": comparator,
        "counted": counted,
    }


def TEXT(unit=None, comparator="=", counted=None):
    return {"kind": "text", "unit": unit, "comparator": comparator, "counted": counted}


# (raw, expected fields); every field not named must keep its default (None / () / "=").
CASES = [
    # numbers: thousand separators and decimals
    ("2,048", V(2048.0)),
    ("1,024", V(1024.0)),
    ("100,000", V(100000.0)),
    ("1,234,567.89", V(1234567.89)),
    ("14.8", V(14.8)),
    ("5.9", V(5.9)),
    ("2048", V(2048.0)),
    ("466", V(466.0)),
    (".5", V(0.5)),
    ("-0.5", V(-0.5)),
    ("3e-4", V(0.0003)),
    ("3.8e25 FLOPs", V(3.8e25, unit="FLOPs")),
    ("2,048.", V(2048.0)),  # sentence punctuation
    # scale: K/k, M, B, T and words; decimal not binary
    ("1k", V(1000.0)),
    ("100k", V(100000.0)),
    ("4K", V(4000.0)),
    ("14.8T", V(14.8e12)),
    ("10M", V(10e6)),
    ("50B", V(50e9)),
    ("16K H100", V(16000.0, unit="GPUs", counted="H100")),
    ("1.5 million GPUs", V(1.5e6, unit="GPUs")),
    ("2 thousand", V(2000.0)),
    ("5 hundred", V(500.0)),
    ("3 billion", V(3e9)),
    ("1.8 trillion parameters", V(1.8e12, unit="parameters")),
    ("12.7T (8B)", V(12.7e12)),  # trailing parenthetical ignored
    # approximations
    ("~50B", V(50e9, comparator="~")),
    ("about 20 s", V(20.0, unit="s", comparator="~")),
    ("roughly 700", V(700.0, comparator="~")),
    ("approximately 3", V(3.0, comparator="~")),
    ("around 4", V(4.0, comparator="~")),
    ("≈ 5", V(5.0, comparator="~")),
    ("~ 6", V(6.0, comparator="~")),
    # bounds
    ("> 30T tokens", V(30e12, unit="tokens", comparator=">")),
    ("< 30 s", V(30.0, unit="s", comparator="<")),
    ("up to 1,024 H100", V(1024.0, unit="GPUs", comparator="up to", counted="H100")),
    ("<= 8", V(8.0, comparator="<=")),
    (">= 8", V(8.0, comparator=">=")),
    ("≤ 8", V(8.0, comparator="<=")),
    ("≥8", V(8.0, comparator=">=")),
    ("at least 8", V(8.0, comparator=">=")),
    ("more than 8", V(8.0, comparator=">")),
    ("less than 8", V(8.0, comparator="<")),
    ("at most 8", V(8.0, comparator="<=")),
    ("over 8", V(8.0, comparator=">")),
    ("under 8", V(8.0, comparator="<")),
    ("> 1k concurrent rollouts", V(1000.0, unit="rollouts", comparator=">")),
    # ranges
    ("32–33T tokens", R(32e12, 33e12, unit="tokens")),
    ("~32–33T", R(32e12, 33e12, comparator="~")),
    ("300–550 concurrent rollouts", R(300.0, 550.0, unit="rollouts")),
    ("10 to 20", R(10.0, 20.0)),
    ("1-2", R(1.0, 2.0)),
    ("2–4×", R(2.0, 4.0, unit="x")),
    ("2x-4x", R(2.0, 4.0, unit="x")),
    ("1.5–2×", R(1.5, 2.0, unit="x")),
    ("40–60K sandboxes", R(40e3, 60e3, unit="sandboxes")),
    ("1K–2K", R(1000.0, 2000.0)),
    ("10 to 20 million", R(10e6, 20e6)),
    ("10%–20%", R(10.0, 20.0, unit="%")),
    ("between 10 and 20 GPUs", R(10.0, 20.0, unit="GPUs")),
    ("5–5", R(5.0, 5.0)),
    # transitions
    ("4K → 128K", T(4000.0, 128000.0)),
    ("4K→128K", T(4000.0, 128000.0)),
    ("32K → 128K (YaRN)", T(32000.0, 128000.0)),
    ("4K → 128K → 200K", T(4000.0, 128000.0, 200000.0)),
    ("4K -> 128K", T(4000.0, 128000.0)),
    ("MFU 21% → 24%", T(21.0, 24.0, unit="%", counted="MFU")),
    ("24% → 21%", T(24.0, 21.0, unit="%")),
    ("~4K → 128K", T(4000.0, 128000.0, comparator="~")),
    ("4K (base) → 128K", T(4000.0, 128000.0)),
    # ratios and splits
    ("16:44", RATIO(16.0, 44.0)),
    ("12:8", RATIO(12.0, 8.0)),
    ("4/8", RATIO(4.0, 8.0)),
    ("η = 4/8", RATIO(4.0, 8.0, counted="η")),
    ("1:1:2", RATIO(1.0, 1.0, 2.0)),
    # multipliers and percentages
    ("2×", V(2.0, unit="x")),
    ("2x", V(2.0, unit="x")),
    ("2 ×", V(2.0, unit="x")),
    ("2.5x throughput", V(2.5, unit="x")),
    ("> 90%", V(90.0, unit="%", comparator=">")),
    ("99.9%", V(99.9, unit="%")),
    ("90 percent", V(90.0, unit="%")),
    # mixture-of-experts sizes
    ("355B-A32B", MOE(355e9, 32e9)),
    ("744B-A40B", MOE(744e9, 40e9)),
    ("67B-A2B", MOE(67e9, 2e9)),
    ("1T-A32B", MOE(1e12, 32e9)),
    ("~355B-A32B", MOE(355e9, 32e9, comparator="~")),
    ("235B-A22B MoE", MOE(235e9, 22e9)),
    # glued units
    ("20s", V(20.0, unit="s")),
    ("5.9T-token", V(5.9e12, unit="tokens")),
    ("278-node", V(278.0, unit="nodes")),
    ("54-day", V(54.0, unit="days")),
    ("8-GPU", V(8.0, unit="GPUs")),
    ("1M-token context", V(1e6, unit="tokens")),
    ("2TB", V(2.0, unit="TB")),
    ("4D", V(4.0, unit="D")),
    # unit from the words after the number
    ("4,000 env instances per batch", V(4000.0, unit="instances")),
    ("466 interruptions", V(466.0, unit="interruptions")),
    ("54 days", V(54.0, unit="days")),
    ("16,000 H100 GPUs", V(16000.0, unit="GPUs", counted="H100")),
    ("2,048 H800", V(2048.0, unit="GPUs", counted="H800")),
    ("16K H100s", V(16000.0, unit="GPUs", counted="H100")),
    ("8 MI300X", V(8.0, unit="GPUs", counted="MI300X")),
    ("72 GB200", V(72.0, unit="GPUs", counted="GB200")),
    ("1,024 H100 nodes", V(1024.0, unit="nodes", counted="H100")),
    ("2.788M H800 GPU hours", V(2.788e6, unit="h", counted="H800")),
    ("16 GB HBM", V(16.0, unit="GB")),
    ("20 s per step", V(20.0, unit="s")),
    ("1,000 tokens/s", V(1000.0, unit="tokens/s")),
    ("128K context", V(128000.0, unit="context")),
    ("405B dense", V(405e9)),
    ("16K H100 in one cluster", V(16000.0, unit="GPUs", counted="H100")),
    ("2,048, all", V(2048.0)),
    # label prefix before the number
    ("max_off_policy_steps = 8", V(8.0, counted="max_off_policy_steps")),
    ("S=3", V(3.0, counted="S")),
    ("TP=8", V(8.0, counted="TP")),
    ("MFU ~38%", V(38.0, unit="%", comparator="~", counted="MFU")),
    ("p99 < 2 s", V(2.0, unit="s", comparator="<", counted="p99")),
    ("batch size: 2,048", V(2048.0, counted="batch size")),
    ("S = ~3", V(3.0, comparator="~", counted="S")),
    # text with no exact value
    ("hundreds of thousands", TEXT()),
    ("thousands", TEXT()),
    ("dozens", TEXT()),
    ("several", TEXT()),
    ("a few hundred", TEXT()),
    ("several thousand GPUs", TEXT(unit="GPUs")),
    ("dozens of nodes", TEXT(unit="nodes")),
    ("> hundreds of thousands", TEXT(comparator=">")),
    ("30-odd nodes", TEXT(unit="nodes")),
    # words for small numbers
    ("four verl hooks", V(4.0, unit="hooks")),
    ("two", V(2.0)),
    ("three", V(3.0)),
    ("six", V(6.0)),
    ("twelve", V(12.0)),
    ("eighteen", V(18.0)),
    ("twenty-four layers", V(24.0, unit="layers")),
    ("two million", V(2e6)),
    ("Four nodes", V(4.0, unit="nodes")),
    # glued qualifiers and currency (decided here, see module docstring)
    ("1,000+ GPUs", V(1000.0, unit="GPUs", comparator=">=")),
    ("100K+", V(100000.0, comparator=">=")),
    ("20-ish", V(20.0, comparator="~")),
    ("~$5.6M", V(5.6e6, unit="USD", comparator="~")),
]


@pytest.mark.parametrize(("raw", "fields"), CASES, ids=[c[0] for c in CASES])
def test_parse_table(raw, fields):
    q = parse(raw)
    assert q == Quantity(raw=raw, **fields)


def test_table_covers_every_brief_example():
    brief = {
        "~50B",
        "32–33T tokens",
        "2,048 H800",
        "4K → 128K",
        "355B-A32B",
        "> 90%",
        "16:44",
        "2–4×",
        "20s",
        "5.9T-token",
        "hundreds of thousands",
        "up to 1,024 H100",
        "MFU 21% → 24%",
        "S=3",
        "max_off_policy_steps = 8",
        "η = 4/8",
        "four verl hooks",
        "> 1k concurrent rollouts",
        "4,000 env instances per batch",
        "278-node",
        "12.7T (8B)",
        "2048",
        "2,048",
        "14.8T",
        "16K H100",
        "100k",
        "466",
    }
    assert brief <= {raw for raw, _ in CASES}


@pytest.mark.parametrize(
    ("raw", "value", "unit", "counted"),
    [
        ("2048", 2048.0, None, None),
        ("2,048", 2048.0, None, None),
        ("14.8T", 14.8e12, None, None),
        ("16K H100", 16000.0, "GPUs", "H100"),
        ("100k", 100000.0, None, None),
        ("466", 466.0, None, None),
    ],
)
def test_trace_queries_parse_as_single_values(raw, value, unit, counted):
    q = parse(raw)
    assert (q.kind, q.value, q.unit, q.counted) == ("value", value, unit, counted)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("14.8T", "14.8e12"),
        ("5.9T-token", "5.9e12"),
        ("12.7T (8B)", "12.7e12"),
        ("0.1B", "0.1e9"),
        ("2.788M", "2.788e6"),
        ("1.1k", "1.1e3"),
        ("0.3T", "0.3e12"),
        ("4.6 billion", "4.6e9"),
    ],
)
def test_scaled_decimals_are_exact(raw, expected):
    assert parse(raw).value == float(expected)


@pytest.mark.parametrize(
    ("raw", "digits", "exp"),
    [("1.005K", "1.005", 3), ("2.01T", "2.01", 12), ("0.27T", "0.27", 12), ("1.07B", "1.07", 9)],
)
def test_scaling_does_not_use_float_multiplication(raw, digits, exp):
    assert float(digits) * 10.0**exp != float(f"{digits}e{exp}")  # the trap this guards against
    assert parse(raw).value == float(f"{digits}e{exp}")


def test_scaling_is_exact_in_every_kind():
    assert parse("14.8T").value == float("14.8e12")
    q = parse("0.1B–0.3B")
    assert (q.low, q.high) == (float("0.1e9"), float("0.3e9"))
    assert parse("0.3T → 1.1T").steps == (float("0.3e12"), float("1.1e12"))
    q = parse("1.1T-A0.3B")
    assert (q.value, q.active) == (float("1.1e12"), float("0.3e9"))


ERRORS = [
    ("", "empty"),
    ("   ", "empty"),
    ("abc", "no number"),
    ("weekly", "no number"),
    ("1,2,3,,4", "malformed number"),
    ("12..5", "malformed number"),
    ("1,5", "malformed number"),
    ("1.2.3", "malformed number"),
    ("466 interruptions in 54 days", "more than one number"),
    ("Llama 3 405B", "more than one number"),
    ("2 048", "more than one number"),
    ("12.7T (8B) and 15T", "more than one number"),
    ("33–32", "low end"),
    ("100–2K", "low end"),  # the scale applies to both ends: 100K–2K
    ("1–2–3", "two ends"),
    ("7b", "ambiguous 'b'"),
    ("10m", "ambiguous 'm'"),
    ("15 T tokens", "ambiguous 'T'"),
    ("2 thousands", "not an exact value"),
    ("5k thousand", "already has a scale"),
    ("4Ks", "unrecognised unit"),
    ("3up to 4T", "unrecognised unit"),
    ("1st", "ordinal"),
    ("(", "unbalanced"),
    ("12.7T (8B", "unbalanced"),
    ("32B-A355B", "active parameters exceed"),
    ("355-A32B", "MoE"),
    ("1e400", "too large"),
    ("1e-400", "too small"),
    ("10%–20 s", "two units"),
    ("=8", "nothing before"),
    ("hundreds of 8-GPU nodes", "before the number"),
    ("trained on 16K H100", "before the number"),
    ("~20+", "conflicting"),
    ("2,048H800", "after the number"),
    ("between 10", "between"),
]


@pytest.mark.parametrize(("raw", "reason"), ERRORS, ids=[e[0] or "<empty>" for e in ERRORS])
def test_errors(raw, reason):
    with pytest.raises(FigureError) as info:
        parse(raw)
    err = info.value
    assert reason in err.reason
    assert err.raw == raw
    assert str(err) == err.reason
    assert isinstance(err, ValueError)


@pytest.mark.parametrize("raw", [None, 42, b"2048", ["2048"]])
def test_non_text_is_an_error(raw):
    with pytest.raises(FigureError, match="must be text"):
        parse(raw)


# --- Quantity methods -------------------------------------------------------------------------


def test_contains_value_uses_relative_tolerance():
    q = parse("14.8T")
    assert q.contains(14.8e12)  # 14800000000000.002: within 1e-9
    assert q.contains(float("14.8e12") * (1 + 1e-10))
    assert not q.contains(float("14.8e12") * (1 + 1e-8))
    assert not q.contains(float("nan"))
    assert not q.contains("abc")


def test_bound_contains_only_its_stated_number():
    q = parse("> 30T")
    assert q.contains(30e12)
    assert not q.contains(31e12)
    assert parse("up to 1,024 H100").contains(1024)
    assert not parse("up to 1,024 H100").contains(512)


def test_range_contains_inside_and_ends():
    q = parse("32–33T tokens")
    for x in (32e12, 32.5e12, 33e12):
        assert q.contains(x)
    assert not q.contains(31.9e12)
    assert not q.contains(33.1e12)


def test_transition_contains_steps_only():
    q = parse("4K → 128K → 200K")
    for x in (4000, 128000, 200000):
        assert q.contains(x)
    assert not q.contains(100000)


def test_ratio_moe_text_contains():
    assert parse("16:44").contains(44) and not parse("16:44").contains(30)
    q = parse("355B-A32B")
    assert q.contains(355e9) and q.contains(32e9) and not q.contains(100e9)
    assert not parse("hundreds of thousands").contains(200000)


@pytest.mark.parametrize(
    ("raw", "numbers"),
    [
        ("466", (466.0,)),
        ("2–4×", (2.0, 4.0)),
        ("4K → 128K → 200K", (4000.0, 128000.0, 200000.0)),
        ("16:44", (16.0, 44.0)),
        ("355B-A32B", (355e9, 32e9)),
        ("thousands", ()),
    ],
)
def test_numbers(raw, numbers):
    assert parse(raw).numbers() == numbers


def test_numbers_and_contains_use_start_end_when_steps_are_missing():
    q = Quantity(raw="x", kind="transition", start=1.0, end=5.0)
    assert q.numbers() == (1.0, 5.0)
    assert q.contains(5.0) and not q.contains(3.0)


def test_to_dict_is_json_ready_with_stable_keys():
    d = parse("4K → 128K → 200K").to_dict()
    assert list(d) == [
        "raw",
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
    ]
    assert d["steps"] == [4000.0, 128000.0, 200000.0]
    assert json.loads(json.dumps(d)) == d
    assert Quantity.from_dict(d) == parse("4K → 128K → 200K")


@pytest.mark.parametrize(
    "data",
    [
        {"raw": "x", "kind": "nope"},
        {"raw": "x", "kind": "value", "comparator": "!="},
        {"raw": 1, "kind": "value"},
        {"raw": "x", "kind": "value", "bogus": 1},
        {"raw": "x", "kind": "value", "value": "abc"},
        "not a dict",
    ],
)
def test_from_dict_rejects_bad_data(data):
    with pytest.raises(FigureError):
        Quantity.from_dict(data)


# --- units --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "unit"),
    [
        ("GPU", "GPUs"),
        ("GPUs", "GPUs"),
        ("gpus", "GPUs"),
        ("token", "tokens"),
        ("tokens", "tokens"),
        ("-token", "tokens"),
        ("s", "s"),
        ("sec", "s"),
        ("secs", "s"),
        ("second", "s"),
        ("seconds", "s"),
        ("%", "%"),
        ("percent", "%"),
        ("×", "x"),
        ("x", "x"),
        ("params", "parameters"),
        ("parameters", "parameters"),
        ("node", "nodes"),
        ("nodes", "nodes"),
        ("day", "days"),
        ("days", "days"),
        ("rollout", "rollouts"),
        ("Rollouts", "rollouts"),
        ("instance", "instances"),
        ("hook", "hooks"),
        ("policy", "policies"),
        ("batch", "batches"),
        ("GB", "GB"),
        ("TFLOPs", "TFLOPs"),
        ("H100", "H100"),
        ("hours", "h"),
        ("min", "min"),
        ("tokens/sec", "tokens/s"),
        ("env instances", "instances"),
        ("per cent", "%"),
        ("data", "data"),
    ],
)
def test_normalize_unit(word, unit):
    assert normalize_unit(word) == unit


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("GPU", "GPUs", True),
        ("sec", "s", True),
        ("token", "-token", True),
        (None, None, True),
        ("s", None, False),
        (None, "s", False),
        ("s", "ms", False),
        ("rollout", "rollouts", True),
        ("TFLOPS", "TFLOPs", True),
        ("nodes", "GPUs", False),
        ("%", "percent", True),
    ],
)
def test_same_unit(a, b, same):
    assert same_unit(a, b) is same


# --- properties ---------------------------------------------------------------------------------

SCALES = {"K": 3, "k": 3, "M": 6, "B": 9, "T": 12}


def _exact(text: str, exp: int) -> float:
    with localcontext() as ctx:
        ctx.prec = 200
        return float(Decimal(text.replace(",", "")) * Decimal(10) ** exp)


@FAST
@given(st.integers(min_value=0, max_value=10**15))
def test_prop_thousand_separators_round_trip(n):
    for text in (f"{n:,}", str(n)):
        q = parse(text)
        assert (q.kind, q.value, q.unit, q.comparator) == ("value", float(n), None, "=")


decimals = st.builds(
    lambda i, frac: f"{i:,}" + (f".{frac}" if frac else ""),
    st.integers(min_value=0, max_value=10**9),
    st.one_of(st.none(), st.from_regex(r"[0-9]{1,6}", fullmatch=True)),
)


@FAST
@given(decimals, st.sampled_from(sorted(SCALES)))
def test_prop_scale_suffix_is_exact(number, suffix):
    q = parse(number + suffix)
    assert q.kind == "value"
    assert q.value == _exact(number, SCALES[suffix])


@FAST
@given(
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.sampled_from(["", "K", "M", "B", "T"]),
    st.sampled_from(["–", "-", " to ", "—", " – "]),
)
def test_prop_range(a, b, suffix, sep):
    a, b = min(a, b), max(a, b)
    q = parse(f"{a}{sep}{b}{suffix}")
    exp = SCALES.get(suffix, 0)
    assert q.kind == "range"
    assert (q.low, q.high) == (_exact(str(a), exp), _exact(str(b), exp))
    assert q.low <= q.high
    assert q.contains(q.low) and q.contains(q.high) and q.contains((q.low + q.high) / 2)


@FAST
@given(st.integers(0, 10**6), st.integers(1, 10**6))
def test_prop_range_low_above_high_is_an_error(a, gap):
    with pytest.raises(FigureError, match="low end"):
        parse(f"{a + gap}–{a}")


@FAST
@given(
    st.lists(
        st.tuples(st.integers(0, 10**6), st.sampled_from(["", "K", "M", "B", "T", "%"])),
        min_size=2,
        max_size=5,
    ),
    st.sampled_from([" → ", "→", " -> "]),
)
def test_prop_transition_steps_round_trip(points, arrow):
    if len({s == "%" for _, s in points}) > 1:  # mixed % / no unit ends are fine; keep it simple
        points = [(n, "") for n, _ in points]
    q = parse(arrow.join(f"{n}{s}" for n, s in points))
    expected = tuple(_exact(str(n), SCALES.get(s, 0)) for n, s in points)
    assert q.kind == "transition"
    assert q.steps == expected
    assert (q.start, q.end) == (expected[0], expected[-1])
    assert all(q.contains(x) for x in expected)
    assert q.unit == ("%" if points[0][1] == "%" else None)


@FAST
@given(st.lists(st.integers(0, 10**4), min_size=2, max_size=4), st.sampled_from([":", "/"]))
def test_prop_ratio_parts_round_trip(parts, sep):
    q = parse(sep.join(map(str, parts)))
    assert (q.kind, q.steps) == ("ratio", tuple(float(p) for p in parts))


QUALIFIERS = [
    ("~", "~"),
    ("about ", "~"),
    ("roughly ", "~"),
    ("approximately ", "~"),
    ("around ", "~"),
    ("≈", "~"),
    ("<", "<"),
    ("> ", ">"),
    ("<=", "<="),
    (">= ", ">="),
    ("≤", "<="),
    ("≥ ", ">="),
    ("up to ", "up to"),
    ("at least ", ">="),
    ("more than ", ">"),
    ("less than ", "<"),
    ("at most ", "<="),
    ("over ", ">"),
    ("under ", "<"),
]


@FAST
@given(st.sampled_from(QUALIFIERS), decimals, st.sampled_from(["", "K", "B", "%", " GPUs"]))
def test_prop_qualifier_sets_comparator_and_keeps_the_stated_number(qualifier, number, suffix):
    prefix, comparator = qualifier
    q = parse(f"{prefix}{number}{suffix}")
    stated = _exact(number, SCALES.get(suffix, 0))
    assert (q.kind, q.comparator, q.value) == ("value", comparator, stated)
    assert q.contains(stated)
    assert not q.contains(stated * 1.5 + 1)


ALPHABET = st.sampled_from(
    list("0123456789,.-–—→>:/=~≈≤≥<%×xX+$()[] KkMBTbmtsAHe")
    + [
        "->",
        " to ",
        " and ",
        "between ",
        "up to ",
        "H100",
        " GPUs",
        " per ",
        "ish",
        "-odd",
        "one",
        "four",
        "twenty-",
        "hundreds of ",
        " thousand",
        "η",
        "\x00",
        "\u2009",
        "`",
        "(YaRN)",
        " of ",
        "e5",
        "-A3B",
    ]
)
texts = st.one_of(st.text(max_size=30), st.lists(ALPHABET, max_size=10).map("".join))


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(texts)
def test_prop_any_text_parses_or_raises_figure_error(raw):
    try:
        q = parse(raw)
    except FigureError as err:
        assert isinstance(err.reason, str) and err.reason
        return
    assert parse(raw) == q  # deterministic
    d = q.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert Quantity.from_dict(d) == q
    assert all(math.isfinite(n) for n in q.numbers())
    assert q.kind in ("value", "range", "transition", "ratio", "moe", "text")
    assert q.comparator in ("=", "~", "<", "<=", ">", ">=", "up to")
    if q.kind == "text":
        assert q.numbers() == ()
    else:
        assert q.numbers()
    if q.kind == "range":
        assert q.low <= q.high
    if q.kind == "value":
        assert q.value is not None and q.contains(q.value)


@FAST
@given(st.text(alphabet=st.sampled_from(list("abcdxyzsSGPUHK-/% ×")), max_size=12))
def test_prop_normalize_unit_is_idempotent(word):
    once = normalize_unit(word)
    assert normalize_unit(once) == once
    assert same_unit(word, once)


# Letters outside ASCII that match ASCII ones without case (long s U+017F, dotless i U+0131, capital I with a
# dot U+0130, the Kelvin sign U+212A): number, scale and fraction words written with them once raised
# KeyError out of parse, precision and scan (a traceback from `claims lint`). They read as the same words
# in ASCII, as a reader sees them.
@pytest.mark.parametrize(
    "raw, ascii_raw",
    [
        ("\u017fix", "six"),
        ("f\u0131ve GPUs", "five GPUs"),
        ("twenty-\u017fix", "twenty-six"),
        ("2 b\u0130llion tokens", "2 billion tokens"),
        ("1.5 thou\u017fand H100", "1.5 thousand H100"),
        ("\u017fix hundred", "six hundred"),
        ("three and a th\u0131rd", "three and a third"),
        ("half a m\u0131llion", "half a million"),
        ("two f\u0131fths", "two fifths"),
        ("f\u0130fty-\u017fix steps", "fifty-six steps"),
    ],
)
def test_number_words_with_letters_that_match_ascii_ones_without_case(raw, ascii_raw):
    from dataclasses import replace

    from claimsdb.figures.parser import precision
    from claimsdb.figures.scanner import scan

    expected = parse(ascii_raw)
    assert expected.value is not None  # the ASCII spelling is a figure with a value
    assert parse(raw) == replace(expected, raw=raw)
    assert precision(raw) == precision(ascii_raw)
    assert [f.quantity.value for f in scan(f"It used {raw} in all.")] == [
        f.quantity.value for f in scan(f"It used {ascii_raw} in all.")
    ]


def test_every_number_word_spelled_with_such_letters_reads_or_is_refused_never_crashes():
    from claimsdb.figures import vocabulary as V
    from claimsdb.figures.parser import precision
    from claimsdb.figures.scanner import scan

    odd = {"s": "\u017f", "i": "\u0131\u0130", "k": "\u212a"}
    words = {
        *V.ONES,
        *V.TENS,
        *V.SCALE_WORDS,
        *V.FRACTION_WORDS,
        "half",
        "third",
        "quarter",
        "hundred",
    }
    spelled = {
        w[:i] + o + w[i + 1 :] for w in words for i, c in enumerate(w) for o in odd.get(c, "")
    }
    texts = [
        t.format(w)
        for w in sorted(spelled)
        for t in (
            "{}",
            "2 {} GPUs",
            "{} hundred",
            "three and a {}",
            "half a {}",
            "twenty-{}",
            "one {}",
        )
    ]
    assert len(texts) > 400
    for text in texts:
        try:
            parse(text)
        except FigureError:
            pass
        precision(text)
        scan(text)


@pytest.mark.parametrize(
    "text, value, unit",
    [
        (
            "a 535-billion-parameter model",
            535e9,
            "parameters",
        ),  # the scale word, then the counted noun
        ("535-billion parameters", 535e9, "parameters"),
        ("the 1.5-trillion-token corpus", 1.5e12, "tokens"),
        ("two-thousand GPUs", 2000, "GPUs"),
    ],
)
def test_a_scale_word_joined_by_a_hyphen_scales_the_number(text, value, unit):
    from claimsdb.figures.scanner import scan

    (f,) = scan(text)
    assert (f.quantity.value, f.quantity.unit) == (value, unit)


@pytest.mark.parametrize(
    "raw, step", [("\\num{16384}", 1.0), ("\\qty{20}{\\second}", 1.0), ("\\num{1.5e3}", 100.0)]
)
def test_siunitx_figures_are_as_precise_as_the_number_they_typeset(raw, step):
    from claimsdb.figures.parser import precision

    assert precision(raw) == step
