"""The checks of one field of a record, shared by every kind of record: text (length, one line, no
control character), keys, choices, dates, lists, finite numbers, unknown or repeated fields. Each
problem is an InvalidRecord naming the file, the record and the field."""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

from claimsdb.errors import InvalidRecord, shown
from claimsdb.escaping import FORBIDDEN_CHARS, KEY_PATTERN
from claimsdb.records.types import KEY, LINE, MAX_ITEMS, MAX_KEY, Rule

DATE_PATTERN = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def no_unknown(record: dict, allowed: set[str], name: str, label: str | None, at: str = "") -> None:
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise InvalidRecord(
            name, label, at + unknown[0], f"unknown field (allowed: {', '.join(sorted(allowed))})"
        )
    duplicate = getattr(record, "duplicate", None)
    if duplicate is not None:
        raise InvalidRecord(name, label, at + duplicate, "given twice in one object")


def key_name(record: Any) -> str | None:
    """How an error names a record by its key, or None when the key cannot name it (missing, too long)."""
    key = record.get("key") or record.get("name") if isinstance(record, dict) else None
    if isinstance(key, str) and key and len(key) <= MAX_KEY and not FORBIDDEN_CHARS.search(key):
        return repr(key)
    return None


def default_label(kind: str, index: int, record: Any) -> str:
    return key_name(record) or f"{kind}[{index}]"


def text_field(
    record: dict,
    field: str,
    name: str,
    label: str,
    *,
    required: bool = False,
    rule: Rule = LINE,
    at: str | None = None,
) -> str | None:
    at = at or field
    value = record.get(field)
    if value is None:
        if required:
            raise InvalidRecord(name, label, at, "is required")
        return None
    if not isinstance(value, str):
        raise InvalidRecord(name, label, at, f"must be text, not {type(value).__name__}")
    value = value.strip()
    if not value:
        if required:
            raise InvalidRecord(name, label, at, "must not be empty")
        return None
    problem = text_problem(value, rule)
    if problem is not None:
        raise InvalidRecord(name, label, at, problem)
    return value


def text_problem(value: str, rule: Rule) -> str | None:
    """Why a text (stripped) breaks its rule, or None: too long, a control or bidirectional-override
    character, a line break in a one-line field. Every door's text goes through it: data files, `claims
    add`, MCP, and what a person types for a re-read, a retag or a withdrawal (recording.clean)."""
    if len(value) > rule.max_length:
        return f"is {len(value):,} characters long; the most allowed is {rule.max_length:,}"
    if value.isprintable():  # most text: no control, format or surrogate character
        return None
    bad = FORBIDDEN_CHARS.search(value)
    if bad:
        return f"holds {bad.group()!r}, a control or bidirectional-override character"
    if rule.one_line and ("\n" in value or "\r" in value):
        return "must be one line"
    return None


def key_field(record: dict, field: str, name: str, label: str, *, at: str | None = None) -> str:
    key = text_field(record, field, name, label, required=True, rule=KEY, at=at)
    assert key is not None
    if not KEY_PATTERN.fullmatch(key):
        raise InvalidRecord(
            name,
            label,
            at or field,
            f"{shown(key)} is not a key: use lowercase letters, digits, '.', '_', '-'",
        )
    return key


def choice_field(
    record: dict,
    field: str,
    choices: tuple[str, ...],
    name: str,
    label: str,
    default: str | None = None,
) -> str:
    value = text_field(record, field, name, label, required=default is None) or default
    if value not in choices:
        raise InvalidRecord(
            name, label, field, f"{shown(value)} is not one of: {', '.join(choices)}"
        )
    return value


def date_field(
    record: dict, name: str, label: str, field: str, *, day: bool = False, at: str | None = None
) -> str | None:
    """A calendar date: YYYY-MM-DD, or also YYYY and YYYY-MM unless a `day` is needed."""
    at = at or field
    date = text_field(record, field, name, label, at=at)
    if date is None:
        return None
    match = DATE_PATTERN.fullmatch(date)
    if not match or (day and match.group(3) is None):
        use = "YYYY-MM-DD" if day else "YYYY, YYYY-MM or YYYY-MM-DD"
        raise InvalidRecord(name, label, at, f"{shown(date)} is not a date: use {use}")
    year, month, number = match.groups()
    try:
        datetime.date(int(year), int(month or 1), int(number or 1))
    except ValueError:
        raise InvalidRecord(name, label, at, f"{shown(date)} is not a calendar date") from None
    return date


def item_list(record: dict, field: str, name: str, label: str) -> list:
    items = record.get(field, [])
    if not isinstance(items, list):
        raise InvalidRecord(name, label, field, "must be a list")
    if len(items) > MAX_ITEMS:
        raise InvalidRecord(
            name, label, field, f"has {len(items):,} items; the most allowed is {MAX_ITEMS}"
        )
    return items


def finite_number(value: Any, name: str, label: str, at: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRecord(name, label, at, "must be a finite number")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise InvalidRecord(name, label, at, "must be a finite number (this one is too large)")
    return number
