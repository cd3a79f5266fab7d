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
    """'η = 4/8' writes two settings, not a half: a slash is a fraction only before a measure."""
    q = parse("4/8")
    assert q.kind == "ratio" and q.steps == (4.0, 8.0)
