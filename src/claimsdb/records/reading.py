"""Reading data files (JSON in the claimsdb/1 format, or flat CSV) into validated records.

Here: finding the records of a file (JSON, JSON Lines, CSV) as entries, each validated when asked
(record_validation, record_fields, record_figures; the record types and limits in record_types).
Nothing here touches the database: checks that need it (known tags, known sources) are import_checks'.
Every problem is an InvalidRecord naming the file, the record and the field. The rules and limits
are the JSON Schema's (data/schema/claims.schema.json); tests hold the two to the same cases.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from claimsdb.errors import InvalidRecord
from claimsdb.records.fields import key_name, no_unknown
from claimsdb.records.types import (
    MAX_CSV_CELL,
    MAX_DEPTH,
    ClaimRecord,
    DataFile,
    QuantityRecord,
    SourceRecord,
    TagRecord,
)
from claimsdb.records.validation import (
    CLAIM_FIELDS,
    read_claim,
    read_quantity,
    read_source,
    tag_record,
)

CSV_COLUMNS = (
    "key",
    "subject",
    "stage",
    "statement",
    "tag",
    "basis",
    "section",
    "label",
    "status",
    "status_reason",
    "figures",
    "source",
    "locator",
    "quote",
)
CSV_FIGURE_SEPARATOR = " | "

STDIN = "-"
STDIN_NAME = "<stdin>"
JSON_LINES_SUFFIX = ".jsonl"
ENTRY_KINDS = ("tag", "source", "quantity", "claim")


def json_lines(path: str | Path) -> bool:
    """Whether a file is read as JSON Lines: standard input ("-") or a .jsonl path, the format agents write."""
    return str(path) == STDIN or Path(path).suffix.lower() == JSON_LINES_SUFFIX


@dataclass(frozen=True)
class Entry:
    """One record of a data file as read, not yet validated. Validating (and parsing figures) is what an
    import spends its time on, so an import asks for `record()` only when the claim is new or its
    `digest()` differs from the one stored with it."""

    kind: str  # one of ENTRY_KINDS
    file: str
    index: int
    where: str  # how errors name it when its key cannot: "claims" (then "claims[3]"), "line 7", "row 4"
    raw: Any

    @property
    def label(self) -> str:
        """How errors name this record (worked out only when needed: an import rarely does)."""
        named = key_name(self.raw)
        if self.where.startswith("line "):  # JSON Lines: the line always, and the key of a claim
            return f"{named} ({self.where})" if named and self.kind == "claim" else self.where
        if self.where.startswith("row "):  # CSV
            return named or self.where
        return named or f"{self.where}[{self.index}]"

    @property
    def key(self) -> str | None:
        key = self.raw.get("key") if isinstance(self.raw, dict) else None
        return key if isinstance(key, str) else None

    def record(self) -> TagRecord | SourceRecord | QuantityRecord | ClaimRecord:
        if self.kind == "tag":
            return tag_record(self.file, self.index, self.raw)
        if self.kind == "source":
            return read_source(self.file, self.index, self.raw, self.label)
        if self.kind == "quantity":
            return read_quantity(self.file, self.index, self.raw, self.label)
        return read_claim(self.file, self.index, self.raw, self.label)

    def digest(self) -> str:
        """The record as read, and the rules that read it: equal digests import equally. (repr, not a
        canonical JSON: the same text reads to the same repr; another order of its fields only costs a
        full read.)"""
        # surrogatepass: a lone surrogate is refused by validation, which comes after the digest
        return hashlib.sha256(
            (_rules_digest() + repr(self.raw)).encode("utf-8", "surrogatepass")
        ).hexdigest()


@lru_cache(maxsize=1)
def _rules_digest() -> str:
    """A hash of the code that validates records and reads figures: when either changes, a stored
    record's digest no longer matches and the next import reads the record again in full."""
    from claimsdb import figures

    here = Path(__file__).resolve().parent
    parts = [
        *sorted(here.glob("*.py")),
        *sorted(Path(figures.__file__).resolve().parent.glob("*.py")),
    ]
    return hashlib.sha256(b"".join(p.read_bytes() for p in parts)).hexdigest()[:16]


def entries(path: str | Path) -> Iterator[Entry]:
    """The records of one data file in order (tags, sources and quantities before the claims that use
    them in a JSON file; as they come in JSON Lines and CSV). JSON Lines, and "-" (JSON Lines on
    standard input), are read a line at a time, so a file of any length imports in bounded memory."""
    name = str(path)
    if name == STDIN:
        yield from _line_entries(STDIN_NAME, _stdin_lines())
        return
    p = Path(path)
    if not p.is_file():
        raise InvalidRecord(name, None, None, "no such file")
    suffix = p.suffix.lower()
    if suffix not in (".json", ".csv", ".jsonl"):
        raise InvalidRecord(name, None, None, "unknown file type: use .json, .jsonl or .csv")
    try:
        if suffix == ".jsonl":
            with open(p, encoding="utf-8-sig", newline="") as fh:
                yield from _line_entries(name, fh)
            return
        text = p.read_text(encoding="utf-8-sig")  # a byte-order mark is not part of the data
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRecord(name, None, None, f"cannot read: {exc}") from None
    if suffix == ".json":
        yield from _json_entries(name, text)
    else:
        yield from _csv_entries(name, text)


def _stdin_lines() -> Iterator[str]:
    try:
        first = True
        for line in sys.stdin:
            yield line.removeprefix("\ufeff") if first else line
            first = False
    except UnicodeDecodeError as exc:
        raise InvalidRecord(STDIN_NAME, None, None, f"cannot read: {exc}") from None


def load(path: str | Path) -> DataFile:
    """One data file, every record validated (for callers that want the whole file at once)."""
    records: dict[str, list] = {kind: [] for kind in ENTRY_KINDS}
    for entry in entries(path):
        records[entry.kind].append(entry.record())
    return DataFile(
        STDIN_NAME if str(path) == STDIN else str(path),
        tuple(records["tag"]),
        tuple(records["source"]),
        tuple(records["claim"]),
        tuple(records["quantity"]),
    )


# --- JSON ---------------------------------------------------------------------------------------


def _parse(text: str, name: str, label: str | None) -> Any:
    """One JSON document (a file, or a line of JSON Lines): nesting counted first, so never a
    RecursionError; a field given twice in one object is remembered (see no_unknown)."""
    if _depth(text) > MAX_DEPTH:
        raise InvalidRecord(
            name, label, None, f"nested deeper than {MAX_DEPTH} levels of objects and arrays"
        )
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_JSONObject.of)
    except json.JSONDecodeError as exc:
        raise InvalidRecord(name, label, None, f"not valid JSON: {exc}") from None
    except ValueError as exc:  # a constant JSON does not allow, or an integer too long to read
        reason = "a number has more digits than can be read" if "digits" in str(exc) else str(exc)
        raise InvalidRecord(name, label, None, f"not valid JSON: {reason}") from None


def parse_json(text: str, name: str) -> Any:
    """One JSON document read under the data files' rules: nesting bounded, no NaN, a name given twice in
    one object remembered on it (`duplicate_name`)."""
    return _parse(text, name, None)


def duplicate_name(obj: Any) -> str | None:
    """The name given twice in a JSON object parse_json read, if any."""
    return getattr(obj, "duplicate", None)


def _json_entries(name: str, text: str) -> Iterator[Entry]:
    doc = _parse(text, name, None)
    if not isinstance(doc, dict):
        raise InvalidRecord(
            name, None, None, "the top level must be an object with tags, sources and claims"
        )
    no_unknown(doc, {"$schema", "format", "tags", "sources", "quantities", "claims"}, name, None)
    for kind, field in (
        ("tag", "tags"),
        ("source", "sources"),
        ("quantity", "quantities"),
        ("claim", "claims"),
    ):
        for i, raw in enumerate(_list(doc, field, name)):
            yield Entry(kind, name, i, field, raw)


def _line_entries(name: str, lines: Iterable[str]) -> Iterator[Entry]:
    """JSON Lines: one JSON object per line, each a claim (the fields of a data file's claim), or
    {"source": {...}}, {"tag": {...}} or {"quantity": {...}}. Blank lines are skipped. Lines end at
    "\\n" only: U+2028 is text in JSON."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        label = f"line {number}"
        doc = _parse(line, name, label)
        if not isinstance(doc, dict):
            raise InvalidRecord(name, label, None, "each line must be a JSON object")
        if set(doc) == {"tag"}:
            yield Entry("tag", name, number, label, doc["tag"])
        elif set(doc) == {"source"}:
            yield Entry("source", name, number, label, doc["source"])
        elif set(doc) == {"quantity"} and isinstance(doc["quantity"], dict):
            yield Entry("quantity", name, number, label, doc["quantity"])
        else:
            yield Entry("claim", name, number, label, doc)


# A string, or an unterminated one to the end: the closing quote is optional so that a match never
# fails and is retried from the next quote (which would make a hostile file take quadratic time).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_PLAIN_STRING = re.compile(r'"[^"]*"?')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _depth(text: str) -> int:
    """How deep objects and arrays nest, counted without parsing (so without recursion)."""
    # with no escaped quote in the text, every quote opens or closes a string: the simpler pattern finds them
    outside = (_JSON_STRING if '\\"' in text else _PLAIN_STRING).sub("", text)
    depth = deepest = 0
    for ch in _NOT_BRACKET.sub("", outside):
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        else:
            depth -= 1
    return deepest


class _JSONObject(dict):
    """A JSON object that remembers a name given twice (json keeps the last silently)."""

    duplicate: str | None = None

    @classmethod
    def of(cls, pairs: list[tuple[str, Any]]) -> _JSONObject:
        obj = cls(pairs)
        if len(obj) != len(pairs):  # rare: then find which name came twice
            names: set[str] = set()
            obj.duplicate = next(k for k, _ in pairs if k in names or names.add(k))
        return obj


def _reject_constant(token: str):
    raise ValueError(f"{token} is not a number JSON allows")


def _list(doc: dict, field: str, name: str) -> list:
    value = doc.get(field, [])
    if not isinstance(value, list):
        raise InvalidRecord(name, None, field, "must be a list")
    return value


# --- CSV ----------------------------------------------------------------------------------------


def _csv_entries(name: str, text: str) -> Iterator[Entry]:
    """Rows through the standard csv module: quoted commas, quotes and line breaks stay in their cell."""
    previous = csv.field_size_limit(MAX_CSV_CELL)
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        yield from list(_csv_claims(name, reader))
    except csv.Error as exc:
        where = f"line {reader.line_num + 1}"  # the line being read when it failed
        if "field larger than field limit" in str(exc):
            raise InvalidRecord(
                name,
                where,
                None,
                f"a cell is longer than {MAX_CSV_CELL:,} characters, the most one cell may hold",
            ) from None
        raise InvalidRecord(name, where, None, f"not valid CSV: {exc}") from None
    finally:
        csv.field_size_limit(previous)


def _csv_claims(name: str, reader: csv.DictReader):
    header = reader.fieldnames or []
    missing = [
        c for c in ("key", "subject", "statement", "tag", "basis", "source") if c not in header
    ]
    if missing:
        raise InvalidRecord(name, None, missing[0], "required column missing from the header")
    unknown = [c for c in header if c not in CSV_COLUMNS]
    if unknown:
        raise InvalidRecord(
            name, None, unknown[0], f"unknown column (allowed: {', '.join(CSV_COLUMNS)})"
        )
    for index, row in enumerate(reader):
        label = key_name(row) or f"row {index + 2}"
        if None in row:
            raise InvalidRecord(name, label, None, "more cells than the header has columns")
        record: dict[str, Any] = {
            k: v for k, v in row.items() if k in CLAIM_FIELDS and v not in (None, "")
        }
        raw_figures = (row.get("figures") or "").strip()
        record["figures"] = [
            f.strip() for f in raw_figures.split(CSV_FIGURE_SEPARATOR.strip()) if f.strip()
        ]
        if not (row.get("source") or "").strip():
            raise InvalidRecord(
                name, label, "source", "is required: the source that supports the claim"
            )
        record["evidence"] = [
            {
                "source": row["source"],
                "locator": row.get("locator") or None,
                "quote": row.get("quote") or None,
            }
        ]
        yield Entry("claim", name, index, f"row {index + 2}", record)
