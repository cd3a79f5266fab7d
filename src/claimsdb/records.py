"""Reading data files (JSON in the claimsdb/1 format, or flat CSV) into validated records.

Nothing here touches the database: checks that need it (known tags, known sources) are in store.py.
Every problem is an InvalidRecord naming the file, the record and the field.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimsdb.errors import InvalidRecord
from claimsdb.models import CLAIM_STATUSES, COMPARATORS, FIGURE_KINDS, RANKS, SOURCE_KINDS, TRUST_LEVELS
from claimsdb.figures import FigureError, Quantity, parse

KEY_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
DATE_PATTERN = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
CSV_COLUMNS = (
    "key", "subject", "stage", "statement", "tag", "basis", "section", "status", "status_reason",
    "figures", "source", "locator", "quote",
)
CSV_FIGURE_SEPARATOR = " | "
NUMERIC_OVERRIDES = ("value", "low", "high", "start", "end", "active")
TEXT_OVERRIDES = ("unit", "counted")


@dataclass(frozen=True)
class TagRecord:
    name: str
    trust: str
    description: str


@dataclass(frozen=True)
class SourceRecord:
    key: str
    title: str
    kind: str
    url: str | None = None
    publisher: str | None = None
    date: str | None = None
    path: str | None = None
    cite_key: str | None = None
    authors: str | None = None
    accessed: str | None = None

    def fields(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class FigureRecord:
    quantity: Quantity
    name: str | None = None


@dataclass(frozen=True)
class EvidenceRecord:
    source: str
    locator: str | None = None
    quote: str | None = None


@dataclass(frozen=True)
class ClaimRecord:
    key: str
    subject: str
    statement: str
    tag: str
    basis: str
    stage: str | None = None
    section: str | None = None
    status: str = "active"
    status_reason: str | None = None
    superseded_by: str | None = None
    quantity: str | None = None  # the key of the quantity it states, when several claims compete on it
    rank: str = "normal"
    rank_reason: str | None = None
    figures: tuple[FigureRecord, ...] = ()
    evidence: tuple[EvidenceRecord, ...] = ()
    file: str = ""
    label: str = ""  # how errors name this record: its key, or its index when it has none


@dataclass(frozen=True)
class QuantityRecord:
    key: str
    subject: str
    measure: str
    description: str | None = None

    def fields(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class DataFile:
    path: str
    tags: tuple[TagRecord, ...]
    sources: tuple[SourceRecord, ...]
    claims: tuple[ClaimRecord, ...]
    quantities: tuple[QuantityRecord, ...] = ()


STDIN = "-"
STDIN_NAME = "<stdin>"


def load(path: str | Path) -> DataFile:
    """Read one data file; the format follows the file's ending (.json, .jsonl or .csv). "-" reads
    JSON Lines from standard input."""
    name = str(path)
    if name == STDIN:
        try:
            return _load_lines(STDIN_NAME, sys.stdin.read())
        except UnicodeDecodeError as exc:
            raise InvalidRecord(STDIN_NAME, None, None, f"cannot read: {exc}") from None
    p = Path(path)
    if not p.is_file():
        raise InvalidRecord(name, None, None, "no such file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRecord(name, None, None, f"cannot read: {exc}") from None
    suffix = p.suffix.lower()
    if suffix == ".json":
        return _load_json(name, text)
    if suffix == ".csv":
        return _load_csv(name, text)
    if suffix == ".jsonl":
        return _load_lines(name, text)
    raise InvalidRecord(name, None, None, "unknown file type: use .json, .jsonl or .csv")


# --- JSON ---------------------------------------------------------------------------------------


def _parse(text: str, name: str, label: str | None) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        raise InvalidRecord(name, label, None, f"not valid JSON: {exc}") from None


def _load_json(name: str, text: str) -> DataFile:
    doc = _parse(text, name, None)
    if not isinstance(doc, dict):
        raise InvalidRecord(name, None, None, "the top level must be an object with tags, sources and claims")
    _no_unknown(doc, {"$schema", "format", "tags", "sources", "quantities", "claims"}, name, None)
    tags = tuple(_tag(name, i, r) for i, r in enumerate(_list(doc, "tags", name)))
    sources = tuple(_source(name, i, r) for i, r in enumerate(_list(doc, "sources", name)))
    quantities = tuple(_quantity(name, i, r) for i, r in enumerate(_list(doc, "quantities", name)))
    claims = tuple(_claim(name, i, r) for i, r in enumerate(_list(doc, "claims", name)))
    return DataFile(name, tags, sources, claims, quantities)


def _load_lines(name: str, text: str) -> DataFile:
    """JSON Lines: one JSON object per line, each a claim (the fields of a data file's claim), or
    {"source": {...}} or {"tag": {...}} for a source or a tag. Blank lines are skipped."""
    tags, sources, claims, quantities = [], [], [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        label = f"line {number}"
        doc = _parse(line, name, label)
        if not isinstance(doc, dict):
            raise InvalidRecord(name, label, None, "each line must be a JSON object")
        if set(doc) == {"tag"}:
            tags.append(_tag(name, number, doc["tag"]))
        elif set(doc) == {"source"}:
            sources.append(_source(name, number, doc["source"], label))
        elif set(doc) == {"quantity"} and isinstance(doc["quantity"], dict):
            quantities.append(_quantity(name, number, doc["quantity"], label))
        else:
            key = doc.get("key")
            claims.append(_claim(name, number, doc, f"{key!r} ({label})" if isinstance(key, str) and key else label))
    return DataFile(name, tuple(tags), tuple(sources), tuple(claims), tuple(quantities))


def _reject_constant(token: str):
    raise ValueError(f"{token} is not a number JSON allows")


def _list(doc: dict, field: str, name: str) -> list:
    value = doc.get(field, [])
    if not isinstance(value, list):
        raise InvalidRecord(name, None, field, "must be a list")
    return value


def _no_unknown(record: dict, allowed: set[str], name: str, label: str | None) -> None:
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise InvalidRecord(name, label, unknown[0], f"unknown field (allowed: {', '.join(sorted(allowed))})")


def _label(kind: str, index: int, record: Any) -> str:
    key = record.get("key") or record.get("name") if isinstance(record, dict) else None
    return f"{key!r}" if isinstance(key, str) and key else f"{kind}[{index}]"


def _text(record: dict, field: str, name: str, label: str, *, required: bool = False) -> str | None:
    value = record.get(field)
    if value is None:
        if required:
            raise InvalidRecord(name, label, field, "is required")
        return None
    if not isinstance(value, str):
        raise InvalidRecord(name, label, field, f"must be text, not {type(value).__name__}")
    value = value.strip()
    if not value:
        if required:
            raise InvalidRecord(name, label, field, "must not be empty")
        return None
    if "\n" in value and field in ("key", "tag", "basis", "subject", "stage", "title"):
        raise InvalidRecord(name, label, field, "must be one line")
    return value


def _key(record: dict, field: str, name: str, label: str) -> str:
    key = _text(record, field, name, label, required=True)
    assert key is not None
    if not KEY_PATTERN.match(key):
        raise InvalidRecord(name, label, field, f"{key!r} is not a key: use lowercase letters, digits, '.', '_', '-'")
    return key


def _choice(record: dict, field: str, choices: tuple[str, ...], name: str, label: str, default: str | None = None) -> str:
    value = _text(record, field, name, label, required=default is None) or default
    if value not in choices:
        raise InvalidRecord(name, label, field, f"{value!r} is not one of: {', '.join(choices)}")
    return value


def _tag(name: str, index: int, record: Any) -> TagRecord:
    label = _label("tags", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a tag must be an object")
    _no_unknown(record, {"name", "trust", "description"}, name, label)
    return TagRecord(
        name=_key(record, "name", name, label),
        trust=_choice(record, "trust", TRUST_LEVELS, name, label),
        description=_text(record, "description", name, label) or "",
    )


def source_record(record: Any, *, file: str, label: str | None = None) -> SourceRecord:
    """One source from its fields (a data file's record, or command-line options), validated."""
    return _source(file, 0, record, label)


def _source(name: str, index: int, record: Any, label: str | None = None) -> SourceRecord:
    label = label or _label("sources", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a source must be an object")
    _no_unknown(record, {f.name for f in dataclasses.fields(SourceRecord)}, name, label)
    url = _text(record, "url", name, label)
    if url is not None and not re.match(r"^https?://\S+$", url):
        raise InvalidRecord(name, label, "url", f"{url!r} is not an http(s) URL")
    date = _text(record, "date", name, label)
    if date is not None and not DATE_PATTERN.match(date):
        raise InvalidRecord(name, label, "date", f"{date!r} is not a date: use YYYY, YYYY-MM or YYYY-MM-DD")
    accessed = _text(record, "accessed", name, label)
    if accessed is not None and not re.match(r"^\d{4}-\d{2}-\d{2}$", accessed):
        raise InvalidRecord(name, label, "accessed", f"{accessed!r} is not a day: use YYYY-MM-DD")
    return SourceRecord(
        key=_key(record, "key", name, label),
        title=_text(record, "title", name, label, required=True),
        kind=_choice(record, "kind", SOURCE_KINDS, name, label),
        url=url,
        publisher=_text(record, "publisher", name, label),
        date=date,
        path=_text(record, "path", name, label),
        cite_key=_text(record, "cite_key", name, label),
        authors=_text(record, "authors", name, label),
        accessed=accessed,
    )


def _quantity(name: str, index: int, record: Any, label: str | None = None) -> QuantityRecord:
    label = label or _label("quantities", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a quantity must be an object")
    _no_unknown(record, {f.name for f in dataclasses.fields(QuantityRecord)}, name, label)
    return QuantityRecord(
        key=_key(record, "key", name, label),
        subject=_text(record, "subject", name, label, required=True),
        measure=_text(record, "measure", name, label, required=True),
        description=_text(record, "description", name, label),
    )


CLAIM_FIELDS = {
    "key", "subject", "stage", "statement", "tag", "basis", "section", "status", "status_reason",
    "superseded_by", "quantity", "rank", "rank_reason", "figures", "evidence",
}


def claim_record(record: Any, *, file: str, label: str | None = None) -> ClaimRecord:
    """One claim from its fields (a data file's record, or command-line options), validated."""
    return _claim(file, 0, record, label)


def _claim(name: str, index: int, record: Any, label: str | None = None) -> ClaimRecord:
    label = label or _label("claims", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a claim must be an object")
    _no_unknown(record, CLAIM_FIELDS, name, label)
    figures = record.get("figures", [])
    if not isinstance(figures, list):
        raise InvalidRecord(name, label, "figures", "must be a list")
    evidence = record.get("evidence", [])
    if not isinstance(evidence, list):
        raise InvalidRecord(name, label, "evidence", "must be a list")
    superseded_by = record.get("superseded_by")
    return ClaimRecord(
        key=_key(record, "key", name, label),
        subject=_text(record, "subject", name, label, required=True),
        statement=_text(record, "statement", name, label, required=True),
        tag=_key(record, "tag", name, label),
        basis=_text(record, "basis", name, label, required=True),
        stage=_text(record, "stage", name, label),
        section=_text(record, "section", name, label),
        status=_choice(record, "status", CLAIM_STATUSES, name, label, default="active"),
        status_reason=_text(record, "status_reason", name, label),
        superseded_by=_key(record, "superseded_by", name, label) if superseded_by is not None else None,
        quantity=_key(record, "quantity", name, label) if record.get("quantity") is not None else None,
        rank=_choice(record, "rank", RANKS, name, label, default="normal"),
        rank_reason=_text(record, "rank_reason", name, label),
        figures=tuple(figure(f, name=name, label=label, field=f"figures[{i}]") for i, f in enumerate(figures)),
        evidence=tuple(_evidence(e, name, label, f"evidence[{i}]") for i, e in enumerate(evidence)),
        file=name,
        label=label,
    )


def _evidence(record: Any, name: str, label: str, field: str) -> EvidenceRecord:
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, field, "evidence must be an object with source, locator, quote")
    unknown = sorted(set(record) - {"source", "locator", "quote"})
    if unknown:
        raise InvalidRecord(name, label, f"{field}.{unknown[0]}", "unknown field (allowed: locator, quote, source)")
    source = record.get("source")
    if not isinstance(source, str) or not KEY_PATTERN.match(source.strip()):
        raise InvalidRecord(name, label, f"{field}.source", "must be a source key")
    out = {}
    for part in ("locator", "quote"):
        value = record.get(part)
        if value is not None and not isinstance(value, str):
            raise InvalidRecord(name, label, f"{field}.{part}", "must be text")
        out[part] = value.strip() or None if isinstance(value, str) else None
    return EvidenceRecord(source=source.strip(), **out)


def figure(spec: Any, *, name: str, label: str, field: str) -> FigureRecord:
    """A figure from its raw text, or from {"raw": ..., "name": ..., explicit parsed fields}."""
    if isinstance(spec, str):
        spec = {"raw": spec}
    if not isinstance(spec, dict):
        raise InvalidRecord(name, label, field, "a figure is its raw text, or an object with raw")
    allowed = {"raw", "name", "kind", "comparator", "steps", *NUMERIC_OVERRIDES, *TEXT_OVERRIDES}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise InvalidRecord(name, label, f"{field}.{unknown[0]}", f"unknown field (allowed: {', '.join(sorted(allowed))})")
    raw = spec.get("raw")
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidRecord(name, label, f"{field}.raw", "is required: the figure as written")
    raw = raw.strip()
    overrides = _overrides(spec, name, label, field)
    try:
        quantity = parse(raw)
    except FigureError as exc:
        if "kind" not in overrides:
            raise InvalidRecord(name, label, field, f"cannot parse figure {raw!r}: {exc.reason}") from None
        quantity = Quantity(raw=raw, kind=overrides["kind"])
    if overrides:
        quantity = dataclasses.replace(quantity, **overrides)
    problem = inconsistency(quantity)
    if problem:
        raise InvalidRecord(name, label, field, f"figure {raw!r}: {problem}")
    figure_name = spec.get("name")
    if figure_name is not None and (not isinstance(figure_name, str) or not figure_name.strip()):
        raise InvalidRecord(name, label, f"{field}.name", "must be non-empty text")
    return FigureRecord(quantity=quantity, name=figure_name.strip() if figure_name else None)


def _overrides(spec: dict, name: str, label: str, field: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in NUMERIC_OVERRIDES:
        if key in spec:
            value = spec[key]
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
                raise InvalidRecord(name, label, f"{field}.{key}", "must be a finite number or null")
            out[key] = float(value) if value is not None else None
    for key in TEXT_OVERRIDES:
        if key in spec:
            value = spec[key]
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidRecord(name, label, f"{field}.{key}", "must be non-empty text or null")
            out[key] = value.strip() if value else None
    if "kind" in spec:
        if spec["kind"] not in FIGURE_KINDS:
            raise InvalidRecord(name, label, f"{field}.kind", f"must be one of: {', '.join(FIGURE_KINDS)}")
        out["kind"] = spec["kind"]
    if "comparator" in spec:
        if spec["comparator"] not in COMPARATORS:
            raise InvalidRecord(name, label, f"{field}.comparator", f"must be one of: {', '.join(COMPARATORS)}")
        out["comparator"] = spec["comparator"]
    if "steps" in spec:
        steps = spec["steps"]
        if not isinstance(steps, list) or not all(
            isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s) for s in steps
        ):
            raise InvalidRecord(name, label, f"{field}.steps", "must be a list of numbers")
        out["steps"] = tuple(float(s) for s in steps)
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
    return None


# --- CSV ----------------------------------------------------------------------------------------


def _load_csv(name: str, text: str) -> DataFile:
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [c for c in ("key", "subject", "statement", "tag", "basis") if c not in header]
    if missing:
        raise InvalidRecord(name, None, missing[0], "required column missing from the header")
    unknown = [c for c in header if c not in CSV_COLUMNS]
    if unknown:
        raise InvalidRecord(name, None, unknown[0], f"unknown column (allowed: {', '.join(CSV_COLUMNS)})")
    claims = []
    for index, row in enumerate(reader):
        label = f"{row.get('key')!r}" if row.get("key") else f"row {index + 2}"
        if None in row:
            raise InvalidRecord(name, label, None, "more cells than the header has columns")
        record: dict[str, Any] = {k: v for k, v in row.items() if k in CLAIM_FIELDS and v not in (None, "")}
        raw_figures = (row.get("figures") or "").strip()
        record["figures"] = [f for f in raw_figures.split(CSV_FIGURE_SEPARATOR.strip()) if f.strip()] if raw_figures else []
        record["figures"] = [f.strip() for f in record["figures"]]
        if row.get("source"):
            record["evidence"] = [{"source": row["source"], "locator": row.get("locator") or None, "quote": row.get("quote") or None}]
        elif row.get("locator") or row.get("quote"):
            raise InvalidRecord(name, label, "source", "a locator or quote needs a source")
        claims.append(_claim(name, index, record, label))
    return DataFile(name, (), (), tuple(claims))
