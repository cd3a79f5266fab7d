"""Is this written figure that stored one? `match(stored, written, context)` gives one named verdict.

trace, lint and verify ask only this function, so a figure is judged the same way everywhere.

Verdicts, checked in this order (the first that holds):
- "unrelated": the two cannot be the same figure: they measure different things (another unit, another
  counted thing), or the written number is bare and the stored one has a unit that the context does not
  supply ("a bare number never matches a figure that has a unit"), or the written figure has a unit or
  counted thing and the stored one has none, but the store's words for it (`measures`) name something
  else and neither they nor its name stand nearby ("1,000,000 GPUs" is not a "1M" context length), or
  the context does not name the
  claim's subject (without it, a number is anybody's), or one of them has no number.
- "same": the written figure states the stored one: the same value (relative tolerance 1e-9), the
  total or active size of a MoE figure, the same range, transition (or its steps in order) or ratio; a
  fraction written with a slash ("1/4") is its value next to a value ("1/4 of the nodes" reads 0.25).
  A transition also matches a span written "from X to Y" / "X to Y" with the same ends. The comparator
  may differ ("100,000 tasks" states "up to 100,000 tasks"); the reason says so.
- "rounded": the written value is more precise and rounds to the stored one at the precision the stored
  figure is written in, with its leading digit in the same place ("5.93T" for "5.9T", "16,384" for
  "16K"; not "671B" for "1T"), or the stored figure is approximate ("~50B") and the written one is
  within 10 % of it.
- "contained": one figure lies inside the other's range without stating it: "32.5T" in "32–33T", an
  end of a range, two ranges that overlap, or one step of a stored change ("128K" of "4K → 128K"). A stored value inside a written range counts only when
  both say what they count ("2–4× speedups" does not hold a bare stored "4"). A bound is not a range: "95%" is not "> 90%" (it is a
  different value), and "> 1k rollouts" does not hold 2,048 of them.
- "different": the written figure measures the same thing (the same unit or counted thing, stated by
  the written figure and by the stored one or the last word of its name: "14 instances" for a bare
  "11" named "instances", not "1T models" for a "397B" named "model size"; nearby words are not enough) of a subject the context names, within a factor of 10 of the stored value,
  but states another value ("10,000 tasks" for "100,000 tasks", "15T tokens" for "14.8T tokens").
- otherwise "unrelated".

What the context says: whether the claim's subject is named near the written figure (`subject`), the
words around it that may name what it counts (`words`: the sentence before it, a table's row and column
headers: "node occupancy reached 278" supplies "nodes"), and the stored figure's name in the data
(`name`, "instances"), which may stand for its unit. `Context.query()` is a person asking about a number
(`claims trace`): the subject is whatever they mean, so it counts as named, and a bare number ("466")
may count anything.

Pure; standard library only.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal

from claimsdb.figures.parser import precision  # the grammar knows how a number was written
from claimsdb.figures.quantity import REL_TOLERANCE, Quantity
from claimsdb.figures.units import plural, unit_key
from claimsdb.figures.vocabulary import FUNCTION_WORDS
from claimsdb.figures.wording import magnitude

__all__ = [
    "CONTAINED",
    "DIFFERENT",
    "ROUNDED",
    "SAME",
    "UNRELATED",
    "VERDICTS",
    "Context",
    "Verdict",
    "match",
]

SAME, ROUNDED, CONTAINED, DIFFERENT, UNRELATED = (
    "same",
    "rounded",
    "contained",
    "different",
    "unrelated",
)
VERDICTS = (SAME, ROUNDED, CONTAINED, DIFFERENT, UNRELATED)
MAGNITUDE = 10.0  # a "different" value is within this factor of the stored one: a revision, not another quantity
APPROXIMATE = 0.10  # how far a value may be from an approximate ("~50B") stored one


@dataclass(frozen=True)
class Context:
    """What stands around the written figure. See the module docstring."""

    subject: bool = False
    words: str = ""
    name: str | None = None
    open_measure: bool = False  # a bare written number may count anything: a person's query ("466")
    # Other words the store uses for what the stored figure measures (`measure_words`: its name, the
    # words of a setting's key, the noun the claim's statement puts after it).
    measures: tuple[str, ...] = ()
    # The written number needs evidence (a small count, a subject only carried over): its unit, or the
    # words around a bare one, must name what the stored figure measures, even when that one is bare.
    evidence: bool = False

    @staticmethod
    def query() -> Context:
        return Context(subject=True, open_measure=True)


@dataclass(frozen=True)
class Verdict:
    """One judgment. Callers decide on `verdict` and the flags after it, never on `reason`: those are
    words for people, free to be reworded (tests/test_lint.py rewords them and expects the same lint)."""

    verdict: str  # one of VERDICTS
    reason: str  # a few words for people
    measure: str = (
        "unknown"  # "agree" (same unit or thing), "unknown" (nothing to compare), "conflict"
    )
    value_agrees: bool = False  # some stated number is the same, whatever the measure
    within: bool = (
        False  # "contained": the written value lies inside the stored range (it does not state it)
    )
    step: bool = (
        False  # "contained": the written value is one step of the stored change (it states it)
    )
    comparators_differ: bool = (
        False  # "same": the value agrees, but one side is a bound ("up to", ">")
    )

    @property
    def states(self) -> bool:
        """The written figure is the stored one or a more precise reading of it."""
        return self.verdict in (SAME, ROUNDED)


def _close(a: float | None, b: float | None) -> bool:
    return (
        a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=REL_TOLERANCE)
    )


# --- measure: do they count the same thing? ----------------------------------------------------------

_WORD = re.compile(r"[^\W\d_][\w\-]*")


def _measures(q: Quantity) -> list[str]:
    return [m for m in (q.unit, q.counted) if m]


def _same_measure(a: str, b: str) -> bool:
    # case matters for symbols ("S" the setting is not "s" the second), not for words ("Tokens")
    return unit_key(a) == unit_key(b) or (len(a) > 2 and a.casefold() == b.casefold())


def _joined(word: str) -> str:
    return word.casefold().replace("-", "")


@functools.lru_cache(maxsize=256)
def _word_keys(words: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words as a measure may be named by them: each written without hyphens, case-free ("pre-training"
    names "pretraining"), and each as a unit key, also in the plural. Worked out once for a context,
    which lint asks about every stored figure of the subjects in scope."""
    found = _WORD.findall(words)
    joined = frozenset(_joined(w) for w in found)
    keys = frozenset(unit_key(w) for w in found) | {unit_key(plural(w.lower())) for w in found}
    return joined, keys


def _in_words(measure: str, words: str) -> bool:
    """The context names this unit or thing: "node occupancy" names "nodes", "| H800 |" names "H800"."""
    joined, keys = _word_keys(words)
    return _joined(measure) in joined or unit_key(measure) in keys


def _named_nearby(name: str, words: str) -> bool:
    """A word of the stored figure's name stands nearby, a capitalised one too ("Dolmino")."""
    return any(len(w) > 2 and _in_words(w, words) for w in _WORD.findall(name))


def _named_by_head(measures: list[str], name: str | None) -> bool:
    """The last word of the stored figure's name is what the written figure counts: "instances"."""
    words = _WORD.findall(name or "")
    return bool(words) and any(_in_words(m, words[-1]) for m in measures)


def _another_word(measure: str, ctx: Context) -> bool:
    """The store's other words for the stored figure's measure include this one ("tasks" for two
    Terminal-Bench 4 parser repairs, "steps" for max_off_policy_steps)."""
    return any(
        _same_measure(measure, w)
        or unit_key(plural(w.lower())) == unit_key(plural(measure.lower()))
        for w in ctx.measures
    )


def _measure(stored: Quantity, written: Quantity, ctx: Context) -> tuple[str, str]:
    """("agree" | "unknown" | "conflict" | "bare", why)."""
    s_m, w_m = _measures(stored), _measures(written)
    if stored.counted and written.counted and not _same_measure(stored.counted, written.counted):
        return "conflict", f"counts {written.counted}, not {stored.counted}"
    if stored.unit and written.unit and not _same_measure(stored.unit, written.unit):
        if not (stored.counted and written.counted) and not _another_word(written.unit, ctx):
            return "conflict", f"in {written.unit}, not {stored.unit}"
    if s_m and w_m:
        if any(_same_measure(a, b) for a in s_m for b in w_m):
            return "agree", ""
        if any(_another_word(m, ctx) for m in w_m):
            return "agree", "the store's words for what it measures"
        return "conflict", f"{' '.join(w_m)}, not {' '.join(s_m)}"
    if s_m:  # the written number is bare: the context must say what it counts
        if any(_in_words(m, ctx.words) for m in s_m) or any(
            _in_words(m, ctx.words) for m in ctx.measures
        ):
            return "agree", "what it counts stands nearby"
        if ctx.open_measure:
            return "unknown", ""
        return "bare", f"a bare number, and the stored figure counts {' '.join(s_m)}"
    if w_m and ctx.name and any(_in_words(m, ctx.name) for m in w_m):
        return "agree", f"the stored figure's name is {ctx.name}"
    if w_m and any(_another_word(m, ctx) for m in w_m):
        return "agree", "the store's words for what it measures"

    # The stored figure is bare: only its name or the words around can say they agree.
    def nearby() -> bool:
        return any(_in_words(m, ctx.words) for m in ctx.measures)

    if (
        w_m
        and ctx.measures
        and not nearby()
        and not (ctx.name and _named_nearby(ctx.name, ctx.words))
    ):
        # A written unit or counted thing that the store's words for this figure do not name, with
        # nothing nearby naming what the figure measures either, measures something else: "1,000,000
        # GPUs" is not a "1M" context length.
        return "conflict", f"{' '.join(w_m)}, not the stored figure's {' '.join(ctx.measures)}"
    if ctx.evidence:
        if not w_m and nearby():
            return "agree", "what it measures stands nearby"
        return (
            ("conflict", f"{' '.join(w_m)}, not what the store's figure measures")
            if w_m
            else ("bare", "a bare number, and nothing nearby says what it measures")
        )
    return "unknown", ""


_KEY_PARTS = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])")
_KEY_FILLER = {
    "max",
    "min",
    "num",
    "n",
    "nb",
    "count",
    "size",
    "total",
    "per",
    "of",
    "the",
    "to",
    "in",
    "is",
    "and",
    "or",
    "for",
    "a",
    "an",
    "at",
    "by",
    "on",
    "with",
}
SETTING_KEY = re.compile(
    r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+"
)


def measure_words(
    stored: Quantity, name: str | None = None, statement: str | None = None
) -> tuple[str, ...]:
    """The store's other words for what a stored figure measures: the words of its name ("staleness
    bound"), the words of a setting's key (max_off_policy_steps: "off", "policy", "steps"), and the nouns
    its claim's statement puts right after it ("Two Terminal-Bench 4 tasks ..." counts "tasks").
    Capitalised words name things, not measures ("Terminal-Bench"), and function words and a key's
    fillers ("max", "num") say nothing: both are left out."""
    out: list[str] = []
    if name:
        out += _WORD.findall(name)
    for key in (stored.counted, stored.unit):
        if key and SETTING_KEY.fullmatch(key):
            out += _KEY_PARTS.findall(key.replace(".", "_"))
    if statement:
        out += _statement_nouns(stored, statement)
    seen: dict[str, str] = {}
    for w in out:
        if (
            w.lower() not in _KEY_FILLER
            and w.lower() not in FUNCTION_WORDS
            and len(w) > 1
            and not w[0].isdigit()
            and (not w[0].isupper() or w.isupper())
        ):
            seen.setdefault(w.casefold(), w)
    return tuple(seen.values())


_NEXT_WORDS = 4  # how far after the figure's number the statement may name what it counts


def _statement_nouns(stored: Quantity, statement: str) -> list[str]:
    """What the statement's own wording of the figure counts: the figure written as stored if the
    statement has it ("ten fleets", not the "ten ledger rows" beside it), else each with its numbers."""
    from claimsdb.figures.scanner import scan  # the statement is read as prose is

    numbers = stored.numbers()
    found = [
        f
        for f in scan(statement)
        if any(_close(a, b) for a in numbers for b in f.quantity.numbers())
    ]
    exact = [f for f in found if spelled(f.raw) == spelled(stored.raw)]
    words: list[str] = []
    for f in exact or found:
        words += _measures(f.quantity)
        tail = re.split(r"[,;:.()]", statement[f.end : f.end + 80], maxsplit=1)[0]
        words += _WORD.findall(tail)[:_NEXT_WORDS]
    return words


def _step(q: Quantity) -> float | None:
    """The precision the stored figure is written in: 0.1e12 for "5.9T", 1e3 for "16K", 1 for "466"."""
    return precision(q)


def _interval(q: Quantity) -> tuple[float, float] | None:
    """The values a figure allows, as a closed interval (bounds open to infinity), or None."""
    if q.kind == "range" and q.low is not None and q.high is not None:
        return float(q.low), float(q.high)
    if q.kind == "value" and q.value is not None:
        v = float(q.value)
        return v, v  # a bound is not a range: "> 1k rollouts" does not state 2,048 of them
    return None


def _states(stored: Quantity, written: Quantity, raw_to: bool) -> str | None:
    """Why the written figure states the stored one, or None."""
    s, w = stored, written
    if w.kind in ("value", "moe") and w.value is not None:
        x = w.value
        if w.kind == "moe" and s.kind == "moe":
            return "the same size" if _close(s.value, x) and _close(s.active, w.active) else None
        if s.kind in ("value", "moe") and (_close(s.value, x) or _close(s.active, x)):
            return "the same value" if _close(s.value, x) else "the active size"
        return None
    if w.kind == "range":
        if s.kind == "range" and _close(s.low, w.low) and _close(s.high, w.high):
            return "the same range"
        if (
            s.kind == "transition"
            and raw_to
            and len(s.steps) == 2
            and _close(s.steps[0], w.low)
            and _close(s.steps[-1], w.high)
        ):
            return "the same change, written as a span"
        return None
    if w.kind == "transition":
        if s.kind == "transition":
            steps = iter(s.steps)
            if all(any(_close(x, y) for y in steps) for x in w.steps):  # a subsequence, in order
                return "the same change"
        if (
            s.kind == "range"
            and len(w.steps) == 2
            and _close(s.low, w.steps[0])
            and _close(s.high, w.steps[-1])
        ):
            return "the same span, written as a change"
        return None
    if w.kind == "ratio" and s.kind == "ratio":
        if len(s.steps) == len(w.steps) and all(map(_close, s.steps, w.steps)):
            return "the same ratio"
    return None


def _rounds(stored: Quantity, written: Quantity) -> str | None:
    if (
        stored.kind != "value"
        or written.kind != "value"
        or stored.value is None
        or written.value is None
    ):
        return None
    s, w = float(stored.value), float(written.value)
    if stored.comparator == "~" and s != 0 and abs(w - s) <= APPROXIMATE * abs(s):
        return f"{written.raw} is about {stored.raw}"
    step = _step(stored)
    w_step = _step(written)
    if not step or not w_step or w_step >= step:
        return None  # the written value is no more precise than the stored one
    if s == 0 or w == 0 or math.floor(math.log10(abs(w))) != math.floor(math.log10(abs(s))):
        return None  # "671B" is not a more precise "1T": a rounding keeps the leading digit's place
    if math.isclose(round(w / step) * step, s, rel_tol=REL_TOLERANCE, abs_tol=step * 1e-9):
        return f"{written.raw} rounds to {stored.raw}"
    return None


def _is_step(stored: Quantity, written: Quantity) -> bool:
    """The written value is one step of the stored change (128K of 4K → 128K): the store states it."""
    return (
        stored.kind == "transition"
        and written.kind == "value"
        and any(_close(written.value, n) for n in stored.steps)
    )


def _contains(stored: Quantity, written: Quantity) -> str | None:
    if _is_step(stored, written):
        return f"one step of the change {stored.raw}"
    si, wi = _interval(stored), _interval(written)
    if si is None or wi is None or (si[0] == si[1] and wi[0] == wi[1]):
        return None
    if si[0] <= wi[0] and wi[1] <= si[1]:
        return f"within {stored.raw}"
    if wi[0] <= si[0] and si[1] <= wi[1]:
        return f"{stored.raw} lies within it"
    if wi[0] <= si[1] and si[0] <= wi[1]:
        return f"overlaps {stored.raw}"
    return None


def _same_order(stored: Quantity, written: Quantity) -> bool:
    a, b = stored.numbers(), written.numbers()
    if not a or not b:
        return False
    x, y = abs(a[0]), abs(b[0])
    if x == 0 or y == 0:
        return x == y
    return max(x, y) / min(x, y) <= MAGNITUDE


def _comparable_kinds(stored: Quantity, written: Quantity) -> bool:
    singles = ("value", "moe", "range")
    return (stored.kind in singles and written.kind in singles) or stored.kind == written.kind


_SPELLED = re.compile(r"[\W_]+")


def fraction_value(q: Quantity) -> float | None:
    """The value of a fraction written with a slash, smaller over larger ("1/4": 0.25, to six significant
    digits as the grammar reads "1/40 of" as 0.025); None for any other figure. A colon ("1:4") stays a
    ratio: one part to four is a fifth of the whole."""
    if q.kind != "ratio" or len(q.steps) != 2 or "/" not in q.raw or ":" in q.raw:
        return None
    part, whole = q.steps
    return float(f"{part / whole:.6g}") if 0 < part < whole else None


def _as_fraction(q: Quantity) -> Quantity:
    """A slash fraction as the value it is ("1/4" alone is a ratio, and 0.25 in "1/4 of the nodes"): so
    match, and the trace index, see one figure in both spellings."""
    value = fraction_value(q)
    if value is None:
        return q
    digits = Decimal(f"{value:.6g}")
    return replace(q, kind="value", value=value, steps=(), first_term=(digits, 0))


def spelled(text: str) -> str:
    """A figure written without digits, as words to compare: "Hundreds-of-thousands" ~ "hundreds of thousands"."""
    return _SPELLED.sub(" ", text.casefold()).strip()


def match(stored: Quantity, written: Quantity, context: Context | None = None) -> Verdict:
    """The verdict on written figure `written` against stored figure `stored`. See the module docstring."""
    ctx = context or Context()
    if written.kind == "text" or not stored.numbers() or not written.numbers():
        if written.kind == "text" and not re.search(r"\d", stored.raw):
            if spelled(stored.raw) == spelled(written.raw):
                return Verdict(SAME, "the same words", "unknown", True)
            size = magnitude(stored.raw)
            if size is not None and size == magnitude(written.raw):
                return Verdict(
                    SAME, f"the same order of magnitude as {stored.raw}", "unknown", True
                )
        return Verdict(UNRELATED, "no number to compare")
    if stored.kind == "ratio" and written.kind == "value":
        stored = _as_fraction(stored)
    elif written.kind == "ratio" and stored.kind == "value":
        written = _as_fraction(written)
    if (
        stored.kind == "ratio"
        and written.kind != "ratio"
        or written.kind == "ratio"
        and stored.kind != "ratio"
    ):
        return Verdict(UNRELATED, "the parts of a ratio are not numbers on their own")
    measure, why = _measure(stored, written, ctx)
    value_agrees = any(_close(a, b) for a in stored.numbers() for b in written.numbers())
    if measure in ("conflict", "bare"):
        return Verdict(UNRELATED, why, measure, value_agrees)
    if not ctx.subject:
        return Verdict(UNRELATED, "the claim's subject is not named", measure, value_agrees)
    raw_to = bool(re.search(r"\bto\b|→", written.raw, re.I))
    stated = _states(stored, written, raw_to)
    if stated:
        differ = stored.comparator != written.comparator
        if differ:
            stated += f" (stored as {_COMPARATOR_WORDS[stored.comparator]}, written as "
            stated += f"{_COMPARATOR_WORDS[written.comparator]})"
        return Verdict(SAME, stated, measure, True, comparators_differ=differ)
    rounded = _rounds(stored, written)
    if rounded:
        return Verdict(ROUNDED, rounded, measure, value_agrees)
    contained = _contains(stored, written)
    if contained and (measure == "agree" or stored.kind in ("range", "transition")):
        within = stored.kind == "range" and written.kind == "value"
        return Verdict(
            CONTAINED,
            contained,
            measure,
            value_agrees,
            within=within,
            step=_is_step(stored, written),
        )
    # Both say what they count: the written figure by its unit or counted thing, the stored one by its
    # own or by its name's last word ("14 instances" of WeirdML's "11", named "instances"; not "1T
    # models" of a "397B" named "model size"); nearby words are not enough.
    w_m = _measures(written)
    explicit = bool(w_m) and (bool(_measures(stored)) or _named_by_head(w_m, ctx.name))
    if (
        measure == "agree"
        and explicit
        and _comparable_kinds(stored, written)
        and _same_order(stored, written)
    ):
        return Verdict(
            DIFFERENT, f"states {written.raw}; the store has {stored.raw}", measure, value_agrees
        )
    return Verdict(UNRELATED, "another value", measure, value_agrees)


_COMPARATOR_WORDS = {
    "=": "exact",
    "~": "approximate",
    "<": "below",
    "<=": "at most",
    ">": "above",
    ">=": "at least",
    "up to": "up to",
}


# How far a point's reach may extend, relative to its value, by tier; the last tier is a stored range.
# Trace scans each tier's index for low ends within [x(1 - w)/(1 + w), x]: narrow tiers scan little.
REACH_TIERS = (1e-9, 1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.5)
SPAN = len(REACH_TIERS)


def reach(stored: Quantity) -> list[tuple[float, float, int]]:
    """The magnitudes a written figure may have for `match` to find this stored one the same, a rounding
    of it, or within it: intervals (low, high, tier) over absolute values. A point is a stated number
    widened by its rounding step (half the last digit's place) or by APPROXIMATE for "~" figures, never
    wider than [x/2, 3x/2]; its tier is the narrowest of REACH_TIERS that holds its relative width. A
    stored range is one interval of tier SPAN; a slash fraction also reaches its value. The store indexes these for trace."""
    out: list[tuple[float, float, int]] = []
    if (value := _as_fraction(stored)) is not stored:
        out.extend(reach(value))  # "1/4" reaches 0.25 too, as match finds it
    for i, n in enumerate(stored.numbers()):
        x = abs(float(n))
        width = x * REACH_TIERS[0]
        if i == 0 and stored.kind == "value":
            step = _step(stored) or 0.0
            width = max(width, min(step / 2, x / 2))
            if stored.comparator == "~":
                width = max(width, APPROXIMATE * x)
        tier = next(
            (t for t, w in enumerate(REACH_TIERS) if width <= w * x * (1 + 1e-12)),
            len(REACH_TIERS) - 1,
        )
        out.append((x - width, x + width, tier))
    if stored.kind == "range" and stored.low is not None and stored.high is not None:
        lo, hi = sorted((abs(float(stored.low)), abs(float(stored.high))))
        out.append((lo, hi, SPAN))
    return out
