"""A parsed figure (`Quantity`) and the error the parser raises (`FigureError`).

Standard library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

__all__ = ["COMPARATORS", "KINDS", "REL_TOLERANCE", "FigureError", "Quantity"]

KINDS = ("value", "range", "transition", "ratio", "moe", "text")
COMPARATORS = ("=", "~", "<", "<=", ">", ">=", "up to")
REL_TOLERANCE = 1e-9

# A parsed figure's fields, in the order the figure table stores them (models.FIGURE_COLUMNS).
FIELDS = (
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
)
_NUMBER_FIELDS = ("value", "low", "high", "start", "end", "active")


class FigureError(ValueError):
    """A figure the parser cannot read. `raw` is the text, `reason` a short human-readable reason."""

    def __init__(self, raw: Any, reason: str) -> None:
        super().__init__(raw, reason)
        self.raw = raw
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class Quantity:
    """One parsed figure. See the module contract for what each field holds per kind."""

    raw: str
    kind: str  # "value" | "range" | "transition" | "ratio" | "moe" | "text"
    comparator: str = "="  # "=", "~", "<", "<=", ">", ">=", "up to"
    value: float | None = None
    low: float | None = None
    high: float | None = None
    start: float | None = None
    end: float | None = None
    steps: tuple[float, ...] = ()
    active: float | None = None
    unit: str | None = None
    counted: str | None = None
    # The first number as `parse` read it from the figure as written (digits, scale exponent), for
    # `precision`; None when not read so (a stored figure, a canonical spelling, no number). Not part of
    # the figure's value: not compared, shown or stored.
    first_term: tuple[Decimal, int] | None = field(default=None, compare=False, repr=False)

    def numbers(self) -> tuple[float, ...]:
        """Every stated number, in order: value, low, high, steps, (start, end if not in steps), active."""
        out: list[float] = [float(n) for n in (self.value, self.low, self.high) if n is not None]
        out.extend(float(n) for n in self.steps)
        for n in (self.start, self.end):
            if n is not None and float(n) not in out:
                out.append(float(n))
        if self.active is not None:
            out.append(float(self.active))
        return tuple(out)

    def contains(self, x: float) -> bool:
        """True if x equals a stated number (relative tolerance 1e-9) or lies inside a range."""
        try:
            x = float(x)
        except (TypeError, ValueError, OverflowError):
            return False
        if math.isnan(x):
            return False
        if any(math.isclose(x, n, rel_tol=REL_TOLERANCE) for n in self.numbers()):
            return True
        if self.kind == "range" and self.low is not None and self.high is not None:
            return float(self.low) <= x <= float(self.high)
        return False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with a stable key order (steps as a list)."""
        out: dict[str, Any] = {}
        for name in FIELDS:
            v = getattr(self, name)
            out[name] = [float(s) for s in v] if name == "steps" else v
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Quantity:
        """Inverse of to_dict. Raises FigureError on unknown fields or invalid kind/comparator."""
        if not isinstance(data, dict):
            raise FigureError(data, "a quantity must be an object")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise FigureError(data.get("raw"), f"unknown quantity field {unknown[0]!r}")
        raw = data.get("raw")
        if not isinstance(raw, str):
            raise FigureError(raw, "quantity raw must be text")
        kind = data.get("kind")
        if kind not in KINDS:
            raise FigureError(raw, f"unknown kind {kind!r}")
        comparator = data.get("comparator", "=")
        if comparator not in COMPARATORS:
            raise FigureError(raw, f"unknown comparator {comparator!r}")
        fields: dict[str, Any] = {"raw": raw, "kind": kind, "comparator": comparator}
        try:
            for name in _NUMBER_FIELDS:
                v = data.get(name)
                fields[name] = None if v is None else float(v)
            fields["steps"] = tuple(float(s) for s in (data.get("steps") or ()))
        except (TypeError, ValueError) as exc:
            raise FigureError(raw, "quantity numbers must be numbers") from exc
        for name in ("unit", "counted"):
            v = data.get(name)
            if v is not None and not isinstance(v, str):
                raise FigureError(raw, f"quantity {name} must be text")
            fields[name] = v
        return cls(**fields)
