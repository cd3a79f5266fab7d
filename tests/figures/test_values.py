"""Values right on the public forms authors write (issue 38, item 2): currency codes glued to grouped
numbers, "minus", a currency sign on both ends of a range, "from X to Y" after a year, caret exponents
before a word, fractions, compound number words up to 10^15, and units glued to the number. Each case
names the figure `scan` must find and its numbers; an ambiguous lowercase scale stays refused."""

from __future__ import annotations

import pytest

from claimsdb.figures import FigureError, parse, scan


@pytest.mark.parametrize(
    ("text", "raw", "numbers", "unit"),
    [
        ("the grant was USD1,700 in cash", "USD1,700", (1700.0,), "USD"),
        ("a prize of RM120,000 was paid", "RM120,000", (120000.0,), "MYR"),
        ("worth $US55,931,000 in all", "$US55,931,000", (55931000.0,), "USD"),
        ("it cost EUR 5 per seat", "EUR 5", (5.0,), "EUR"),
        ("the index fell to minus 387 points", "minus 387 points", (-387.0,), "points"),
        ("a fine of $10 to $15 billion", "$10 to $15 billion", (1e10, 1.5e10), "USD"),
        ("between €2 and €3 million", "between €2 and €3 million", (2e6, 3e6), "EUR"),
        ("decays to 2.2 × 10^-4 during warmup", "2.2 × 10^-4", (2.2e-4,), None),
        ("a gap of 1/4 inch.", "1/4 inch", (0.25,), "inches"),
        ("the door is 2 1/2 in thick", "2 1/2", (2.5,), None),
        ("the odds are one sixth", "one sixth", (1 / 6,), None),
        ("a ⅓ cup of sauce", "⅓ cup", (1 / 3,), "cups"),
        ("three quarters of the fleet", "three quarters", (0.75,), None),
        (
            "twenty-eight thousand six hundred forty-two students",
            "twenty-eight thousand six hundred forty-two students",
            (28642.0,),
            "students",
        ),
        ("two hundred billion parameters", "two hundred billion parameters", (2e11,), "parameters"),
        ("nine hundred nine billion eight hundred twelve million", None, (909812000000.0,), None),
        ("two quadrillion tokens", "two quadrillion tokens", (2e15,), "tokens"),
        ("twenty one days", "twenty one days", (21.0,), "days"),
        ("the car reached 50mph", "50mph", (50.0,), "mph"),
        ("it weighed 278kg", "278kg", (278.0,), "kg"),
        ("at 140km/h on the track", "140km/h", (140.0,), "km/h"),
        ("a loss of $1.762bn", "$1.762bn", (1.762e9,), "USD"),
        ("a loss of $35m", "$35m", (35e6,), "USD"),
        ("given 44 mg to 50 mg daily", "44 mg to 50 mg", (44.0, 50.0), "mg"),
        ("apertures of 8- to 16-meter, as planned", "8- to 16-meter", (8.0, 16.0), "meters"),
        ("between 44 mg to 50 mg daily", "between 44 mg to 50 mg", (44.0, 50.0), "mg"),
        ("it was -18 °C at night", "-18 °C", (-18.0,), "°C"),
        ("about 1/40 of the wavelength", "about 1/40", (0.025,), None),
        ("the fleet ran １００，０００ tasks", "100,000 tasks", (100000.0,), "tasks"),  # fullwidth
        ("a cluster of ٢٠٤٨ GPUs", "2048 GPUs", (2048.0,), "GPUs"),  # Arabic-Indic digits
        ("trained on 𝟏𝟒.𝟖T tokens", "14.8T tokens", (14.8e12,), "tokens"),  # mathematical bold
        ("a kibibyte is 8x2^10 bits, exactly", "8x2^10 bits", (8192.0,), "bits"),
        ("a batch of 2^22 tokens.", "2^22 tokens", (4194304.0,), "tokens"),
        ("temperatures ranged from -18 °C to -34 °C", "-18 °C to -34 °C", (-34.0, -18.0), "°C"),
        (
            "it rose from about $350 per kg to $680",
            "from about $350 per kg to $680",
            (350.0, 680.0),
            "USD",
        ),
        ("raised from 4 mg per day to 8 mg per day", "from 4 mg per day to 8 mg", (4.0, 8.0), "mg"),
    ],
)
def test_scan_reads_the_value_as_written(text, raw, numbers, unit):
    found = scan(text)
    assert len(found) == 1, [f.raw for f in found]
    f = found[0]
    if raw is not None:
        assert f.raw == raw
    assert f.quantity.numbers() == pytest.approx(numbers, rel=1e-5)
    assert f.quantity.unit == unit


def test_from_x_to_y_after_a_year_is_a_change_not_a_range():
    found = scan("AIME 2024 increases from 15.6% to 71.0% after training")
    assert [f.raw for f in found] == ["2024", "from 15.6% to 71.0%"]
    assert found[1].quantity.kind == "transition"
    assert (found[1].quantity.start, found[1].quantity.end) == (15.6, 71.0)


@pytest.mark.parametrize(
    "text",
    [
        "one two three",  # a list of numbers, not one number
        "thousand million",  # scales out of order
        "the twenty-eighth run",  # an ordinal
        "in the Thirty-eighth Annual Conference",  # an ordinal, not 30/8
    ],
)
def test_words_that_are_not_one_number_stay_apart(text):
    assert all(f.quantity.value not in (123.0, 1e9, 28 / 8, 30 / 8) for f in scan(text))


def test_an_ambiguous_lowercase_scale_stays_refused_with_its_reason():
    assert scan("the company lost 35m last year") == []
    with pytest.raises(FigureError) as e:
        parse("35m")
    assert "ambiguous 'm'" in e.value.reason


def test_a_fraction_of_a_setting_stays_two_values():
    """'η = 4/8' writes two settings, not a half: a slash is a fraction only before a measure or
    "of"."""
    q = parse("4/8")
    assert q.kind == "ratio" and q.steps == (4.0, 8.0)
    assert [f.quantity.kind for f in scan("a ratio of 1/40 was kept")] == ["ratio"]


def test_a_range_written_from_its_high_end_needs_a_word_that_makes_it_a_span():
    """'between 20 and 10 GPUs' and '-18 °C to -34 °C' (below zero, by magnitude) are spans read from
    their high end; '10–4' (a score, a label) stays refused, and so does '700 to 480 words', which a
    change reads the same; a scale borrowed from the second end never turns a range round ('100 to 2K'
    is not 2K-100K)."""
    q = parse("between 20 and 10 GPUs")
    assert (q.kind, q.low, q.high) == ("range", 10.0, 20.0)
    q = parse("-18 °C to -34 °C")
    assert (q.kind, q.low, q.high) == ("range", -34.0, -18.0)
    for raw in ("10–4", "10-4 days", "100 to 2K", "700 to 480 words", "-2–-5"):
        with pytest.raises(FigureError, match="low end"):
            parse(raw)
    found = scan("overview prose from roughly 700 to 480 words")
    assert [f.quantity.numbers() for f in found] == [(700.0,), (480.0,)]


def test_an_exponent_after_a_unit_is_not_a_figure():
    assert [f.raw for f in scan("exposed to 20 J/m^2 per year")] == ["20"]
    assert [f.quantity.value for f in scan("an area of 4 km^2 in all")] == [4.0]
