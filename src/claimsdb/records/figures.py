"""A claim's figures as a data file gives them: the text alone (parsed), or an object with the text,
a name and parsed fields set by hand; each checked to hang together (`inconsistency`)."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from claimsdb.errors import InvalidRecord, shown
from claimsdb.escaping import FIGURE_NAME_PATTERN, RESERVED_FIGURE_NAME
from claimsdb.figures import FigureError, Quantity, parse
from claimsdb.models import COMPARATORS, FIGURE_KINDS
from claimsdb.records.fields import finite_number, no_unknown, text_field
from claimsdb.records.types import MAX_ITEMS, SHORT, FigureRecord

NUMERIC_OVERRIDES = ("value", "low", "high", "start", "end", "active")
TEXT_OVERRIDES = ("unit", "counted")
# A figure in these units (or none) may be a signed change; any other unit, or a counted thing, is an amount.
SIGNED_UNITS = (None, "%", "x")

# Data sets repeat figures ("2,048 H800", "14.8T tokens"); the parser is pure and its Quantity frozen.
_parsed = lru_cache(maxsize=4096)(parse)


def figure(spec: Any, *, name: str, label: str, field: str) -> FigureRecord:
    """A figure from its raw text, or from {"raw": ..., "name": ..., explicit parsed fields}."""
    if isinstance(spec, str):
        done = _plain_figure(spec)
        if isinstance(done, FigureRecord):
            return done
        at, reason = done
        raise InvalidRecord(name, label, f"{field}{at}", reason)
    if not isinstance(spec, dict):
        raise InvalidRecord(name, label, field, "a figure is its raw text, or an object with raw")
    allowed = {"raw", "name", "kind", "comparator", "steps", *NUMERIC_OVERRIDES, *TEXT_OVERRIDES}
    no_unknown(spec, allowed, name, label, at=f"{field}.")
    raw = text_field(spec, "raw", name, label, required=True, rule=SHORT, at=f"{field}.raw")
    assert raw is not None
    figure_name = _figure_name(spec, name, label, field)
    overrides = _overrides(spec, name, label, field)
    try:
        quantity = _parsed(raw)
    except FigureError as exc:
        if "kind" not in overrides:
            raise InvalidRecord(
                name, label, field, f"cannot parse figure {raw!r}: {exc.reason}"
            ) from None
        quantity = Quantity(raw=raw, kind=overrides["kind"])
    if overrides:
        quantity = dataclasses.replace(quantity, **overrides)
    problem = inconsistency(quantity)
    if problem:
        raise InvalidRecord(name, label, field, f"figure {raw!r}: {problem}")
    return FigureRecord(quantity=quantity, name=figure_name)


@lru_cache(maxsize=4096)
def _plain_figure(raw: str) -> FigureRecord | tuple[str, str]:
    """A figure given as its text alone, or (where, why) it is refused: the same rules as figure(),
    remembered, because a data set writes the same figures again and again ("2,048 H800")."""
    try:
        text = text_field({"raw": raw}, "raw", "", "", required=True, rule=SHORT)
    except InvalidRecord as exc:
        return ".raw", exc.reason
    try:
        quantity = _parsed(text)
    except FigureError as exc:
        return "", f"cannot parse figure {text!r}: {exc.reason}"
    problem = inconsistency(quantity)
    return ("", f"figure {text!r}: {problem}") if problem else FigureRecord(quantity=quantity)


def _figure_name(spec: dict, name: str, label: str, field: str) -> str | None:
    at = f"{field}.name"
    if spec.get("name") is not None and not (
        isinstance(spec["name"], str) and spec["name"].strip()
    ):
        raise InvalidRecord(name, label, at, "must be non-empty text")
    figure_name = text_field(spec, "name", name, label, rule=SHORT, at=at)
    if figure_name is None:
        return None
    if not FIGURE_NAME_PATTERN.fullmatch(figure_name):
        raise InvalidRecord(
            name,
            label,
            at,
            f"{shown(figure_name)} is not a figure name: use letters, digits, "
            "spaces, '_' and '-', starting with a letter or digit (it is written as is into "
            "LaTeX macros and Quarto variables)",
        )
    if RESERVED_FIGURE_NAME.fullmatch(figure_name):
        raise InvalidRecord(
            name,
            label,
            at,
            f"{figure_name!r} is reserved: fig, fig1, fig2, ... and plain "
            "numbers already name a claim's figures by position",
        )
    return figure_name


def _overrides(spec: dict, name: str, label: str, field: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in NUMERIC_OVERRIDES:
        if key in spec:
            value = spec[key]
            out[key] = (
                None if value is None else finite_number(value, name, label, f"{field}.{key}")
            )
    for key in TEXT_OVERRIDES:
        if key in spec:
            value = spec[key]
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidRecord(name, label, f"{field}.{key}", "must be non-empty text or null")
            out[key] = text_field(spec, key, name, label, rule=SHORT, at=f"{field}.{key}")
    if "kind" in spec:
        if spec["kind"] not in FIGURE_KINDS:
            raise InvalidRecord(
                name, label, f"{field}.kind", f"must be one of: {', '.join(FIGURE_KINDS)}"
            )
        out["kind"] = spec["kind"]
    if "comparator" in spec:
        if spec["comparator"] not in COMPARATORS:
            raise InvalidRecord(
                name, label, f"{field}.comparator", f"must be one of: {', '.join(COMPARATORS)}"
            )
        out["comparator"] = spec["comparator"]
    if "steps" in spec:
        steps = spec["steps"]
        if not isinstance(steps, list) or len(steps) > MAX_ITEMS:
            raise InvalidRecord(
                name, label, f"{field}.steps", f"must be a list of at most {MAX_ITEMS} numbers"
            )
        out["steps"] = tuple(
            finite_number(s, name, label, f"{field}.steps[{i}]") for i, s in enumerate(steps)
        )
    return out


def inconsistency(q: Quantity) -> str | None:
    """Why a (possibly overridden) quantity does not hang together, or None."""
    if q.kind == "value" and q.value is None:
        return "kind value needs a value"
    if q.kind == "range":
        if q.low is None or q.high is None:
            return "kind range needs low and high"
        if q.low > q.high:
            return f"range low {q.low:g} is above high {q.high:g}"
    if q.kind == "transition" and (q.start is None or q.end is None):
        return "kind transition needs start and end"
    if q.kind == "ratio" and len(q.steps) < 2:
        return "kind ratio needs at least two parts in steps"
    if q.kind == "moe" and (q.value is None or q.active is None):
        return "kind moe needs value (total) and active"
    if q.kind == "text" and q.numbers():
        return "kind text has no value: a figure with a number needs another kind"
    if (q.counted or q.unit not in SIGNED_UNITS) and any(n < 0 for n in q.numbers()):
        what = q.counted or q.unit
        return (
            f"an amount of {what} cannot be negative (only a change in %, × or without a unit can)"
        )
    return None
