"""The unit words of figures: aliases ("sec" -> "s", "params" -> "parameters"), unit symbols, words that
take no plural, and normalising a unit word (`normalize_unit`, `same_unit`, `unit_key`, `plural`).

Parser, matcher, lint and verify read these lists; none keeps a copy. Standard library only.
"""

from __future__ import annotations

import re
from functools import lru_cache

from claimsdb.figures.vocabulary import _SYNONYM

UNIT_ALIASES = {
    "token": "tokens",
    "tokens": "tokens",
    "tok": "tokens",
    "toks": "tokens",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "ms": "ms",
    "msec": "ms",
    "millisecond": "ms",
    "milliseconds": "ms",
    "µs": "µs",
    "μs": "µs",
    "us": "µs",
    "microsecond": "µs",
    "microseconds": "µs",
    "ns": "ns",
    "nanosecond": "ns",
    "nanoseconds": "ns",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "d": "days",
    "day": "days",
    "days": "days",
    "wk": "weeks",
    "wks": "weeks",
    "week": "weeks",
    "weeks": "weeks",
    "mo": "months",
    "month": "months",
    "months": "months",
    "yr": "years",
    "yrs": "years",
    "year": "years",
    "years": "years",
    "%": "%",
    "percent": "%",
    "pct": "%",
    "per cent": "%",
    "×": "x",
    "x": "x",
    "X": "x",
    "times": "x",
    "fold": "x",
    "param": "parameters",
    "params": "parameters",
    "parameter": "parameters",
    "parameters": "parameters",
    "node": "nodes",
    "nodes": "nodes",
    # measures written glued to a number in news and reports ("50mph", "278kg", "140km/h"); never
    # one letter ("35m", "5g", "2t"): those are ambiguous or a scale
    "mph": "mph",
    "kph": "km/h",
    "km/h": "km/h",
    "kmh": "km/h",
    "km": "km",
    "cm": "cm",
    "mm": "mm",
    "nm": "nm",
    "mi": "mi",
    "ft": "ft",
    "kg": "kg",
    "kgs": "kg",
    "mg": "mg",
    "lb": "lb",
    "lbs": "lb",
    "oz": "oz",
    "ml": "ml",
    "mL": "ml",
    "mAh": "mAh",
    "mpg": "mpg",
    "sqft": "sq ft",
    "°C": "°C",
    "°F": "°F",
}
# The measures above: a fraction before one is a value ("1/4 inch", "3/4 mile"), not a ratio.
MEASURES = frozenset(
    "mph km/h km cm mm mi ft kg mg lb oz ml inch inches mile miles cup cups pound pounds gallon "
    "gallons litre litres liter liters metre metres meter meters teaspoon teaspoons".split()
)
UNCOUNTABLE = {
    "data",
    "memory",
    "bandwidth",
    "throughput",
    "compute",
    "traffic",
    "storage",
    "information",
    "code",
    "hardware",
    "software",
    "infrastructure",
    "context",
    "people",
    "children",
    "criteria",
    "analyses",
}
IRREGULAR_PLURALS = {
    "child": "children",
    "person": "people",
    "analysis": "analyses",
    "axis": "axes",
    "criterion": "criteria",
}
# Currency codes written before an amount, glued or spaced ("USD1,700", "RM120,000", "EUR 5"), and
# what each stands for. Only capitals (or "Rs"): a lowercase word before a number is prose.
CURRENCY_CODES = {
    "USD": "USD",
    "US$": "USD",
    "$US": "USD",
    "$A": "AUD",
    "$NZ": "NZD",
    "$C": "CAD",
    "EUR": "EUR",
    "GBP": "GBP",
    "JPY": "JPY",
    "CNY": "CNY",
    "RMB": "CNY",
    "INR": "INR",
    "Rs": "INR",
    "AUD": "AUD",
    "A$": "AUD",
    "CAD": "CAD",
    "C$": "CAD",
    "CHF": "CHF",
    "HKD": "HKD",
    "HK$": "HKD",
    "SGD": "SGD",
    "S$": "SGD",
    "NZD": "NZD",
    "KRW": "KRW",
    "MYR": "MYR",
    "RM": "MYR",
    "ZAR": "ZAR",
    "BRL": "BRL",
    "R$": "BRL",
    "MXN": "MXN",
    "SEK": "SEK",
    "NOK": "NOK",
    "DKK": "DKK",
    "RUB": "RUB",
    "AED": "AED",
    "SAR": "SAR",
    "NGN": "NGN",
    "KES": "KES",
    "IDR": "IDR",
    "THB": "THB",
    "PKR": "PKR",
    "EGP": "EGP",
}
# Units that win when they are the first word after the number (normalised spellings).
SYMBOL_UNITS = {
    "%",
    "x",
    "s",
    "ms",
    "µs",
    "ns",
    "min",
    "h",
    "days",
    "weeks",
    "months",
    "years",
    "B",
    "KB",
    "kB",
    "MB",
    "GB",
    "TB",
    "PB",
    "EB",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "PiB",
    "Kb",
    "Mb",
    "Gb",
    "Tb",
    "Mbps",
    "Gbps",
    "Tbps",
    "MB/s",
    "GB/s",
    "TB/s",
    "Gb/s",
    "W",
    "kW",
    "MW",
    "GW",
    "kWh",
    "MWh",
    "GWh",
    "Hz",
    "kHz",
    "MHz",
    "GHz",
    "THz",
    "FLOPs",
    "FLOPS",
    "GFLOPs",
    "GFLOPS",
    "TFLOPs",
    "TFLOPS",
    "PFLOPs",
    "PFLOPS",
    "EFLOPs",
    "EFLOPS",
    "°C",
    "°F",
}


# --- unit normalisation ----------------------------------------------------------------------------


def _is_plain_word(w: str) -> bool:
    """A lowercase or Capitalised alphabetic word (a noun we may pluralise), not an acronym."""
    return w.isalpha() and (w.islower() or (w[0].isupper() and (len(w) == 1 or w[1:].islower())))


def plural(w: str) -> str:
    if w in UNCOUNTABLE:
        return w
    if w in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[w]
    if w.endswith(("ss", "sh", "ch", "x", "z")):
        return w + "es"
    if w.endswith("s"):
        return w
    if w.endswith("y") and len(w) > 1 and w[-2] not in "aeiou":
        return w[:-1] + "ies"
    return w + "s"


def normalize_unit(word: str) -> str:
    """Normalise a unit word: "GPU" -> "GPUs", "-token" -> "tokens", "sec" -> "s", "percent" -> "%",
    "×" -> "x", "params" -> "parameters", "rollout" -> "rollouts". Acronyms and symbols ("GB",
    "TFLOPs", "H100") are kept as written. A phrase is normalised by its last word."""
    w = " ".join(str(word).split())
    if w.lower() in UNIT_ALIASES and " " in w:
        return UNIT_ALIASES[w.lower()]
    if " " in w:
        w = w.rsplit(" ", 1)[1]
    w = w.lstrip("-")
    if not w:
        return ""
    if "/" in w and len(w) > 1:
        num, _, den = w.partition("/")
        den_unit = (
            UNIT_ALIASES.get(den, den)
            if den in ("s", "sec", "h", "hr", "min", "ms", "day", "d")
            else den
        )
        return f"{normalize_unit(num) if num else ''}/{den_unit}"
    low = w.lower()
    if low in ("gpu", "gpus"):
        return "GPUs"
    if w in UNIT_ALIASES:
        return UNIT_ALIASES[w]
    if len(w) > 1 and _is_plain_word(w) and low in UNIT_ALIASES:
        return UNIT_ALIASES[low]
    if len(w) >= 3 and _is_plain_word(w):
        return plural(low)
    return w


@lru_cache(maxsize=8192)
def unit_key(u: str) -> str:
    """What two spellings of one unit have in common: "GPUs" ~ "GPU", "TFLOPS" ~ "TFLOPs", "cards" ~ "GPUs"."""
    n = normalize_unit(u)
    if n.lower() in _SYNONYM:
        n = _SYNONYM[n.lower()]
    if len(n) > 2 and re.fullmatch(r"[A-Z][A-Z0-9]*[sS]", n):
        n = n[:-1]
    return n


def same_unit(a: str | None, b: str | None) -> bool:
    """True if both are None or both normalise to the same unit ("GPU" ~ "GPUs", "sec" ~ "s")."""
    if a is None or b is None:
        return a is None and b is None
    return unit_key(a) == unit_key(b)
