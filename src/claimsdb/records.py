"""Reading data files (JSON in the claimsdb/1 format, or flat CSV) into validated records.

Nothing here touches the database: checks that need it (known tags, known sources) are in store.py.
Every problem is an InvalidRecord naming the file, the record and the field. The rules and limits
here are the JSON Schema's (data/schema/claims.schema.json); tests hold the two to the same cases.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import hashlib
import io
import json
import math
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from claimsdb.errors import InvalidName, InvalidRecord, shown
from claimsdb.escaping import (
    CITE_KEY_PATTERN,
    FIGURE_NAME_PATTERN,
    FORBIDDEN_CHARS,
    KEY_PATTERN,
    RESERVED_FIGURE_NAME,
    http_url,
)
from claimsdb.figures import FigureError, Quantity, parse
from claimsdb.identity import person_name
from claimsdb.models import (
    ALIAS_SEPARATOR,
    CLAIM_STATUSES,
    COMPARATORS,
    FIGURE_KINDS,
    RANKS,
    SOURCE_KINDS,
    TRUST_LEVELS,
)

# Limits: far above what a note needs, low enough that every output command stays quick on the longest.
MAX_KEY = 200  # claim, source and tag keys, citation keys
MAX_LINE = (
    2_000  # one-line text: subject, stage, basis, section, title, publisher, locator, URL, path
)
MAX_TEXT = 20_000  # statements, quotes, tag descriptions, status reasons
MAX_FIGURE = 200  # a figure as written, its name, unit and counted thing
MAX_LABEL = 100  # a claim's grid label: a cell's phrase (the note's longest is 79 characters)
MAX_ITEMS = 100  # figures and evidence per claim, steps per figure
MAX_DEPTH = 16  # nesting of JSON objects and arrays (the format itself needs 6)
MAX_CSV_CELL = MAX_TEXT  # characters in one CSV cell

DATE_PATTERN = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
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
NUMERIC_OVERRIDES = ("value", "low", "high", "start", "end", "active")
TEXT_OVERRIDES = ("unit", "counted")
# A figure in these units (or none) may be a signed change; any other unit, or a counted thing, is an amount.
SIGNED_UNITS = (None, "%", "x")


@dataclass(frozen=True)
class Rule:
    """How long a text field may be, and whether it must stay on one line."""

    max_length: int
    one_line: bool = True


KEY = Rule(MAX_KEY)
LINE = Rule(MAX_LINE)
TEXT = Rule(MAX_TEXT, one_line=False)
SHORT = Rule(MAX_FIGURE)
LABEL = Rule(MAX_LABEL)


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
class RereadRecord:
    """A person's re-read of a claim, as a data file records it: who, on which day, in which primary page,
    where in it and what they saw. Only a claim with a verified tag carries one (store.py checks the tag's
    trust and the page)."""

    by: str
    at: str  # YYYY-MM-DD
    source: str
    locator: str
    quote: str


@dataclass(frozen=True)
class ClaimRecord:
    key: str
    subject: str
    statement: str
    tag: str
    basis: str
    stage: str | None = None
    section: str | None = None
    aliases: str | None = (
        None  # other names of the subject, one per line (ALIAS_SEPARATOR); None for none
    )
    status: str = "active"
    status_reason: str | None = None
    superseded_by: str | None = None
    quantity: str | None = (
        None  # the key of the quantity it states, when several claims compete on it
    )
    rank: str = "normal"
    rank_reason: str | None = None
    figures: tuple[FigureRecord, ...] = ()
    evidence: tuple[EvidenceRecord, ...] = ()
    reread: RereadRecord | None = None
    file: str = ""
    record_name: str = ""  # how errors name this record: its key, or its index when it has none
    label: str | None = (
        None  # the short phrase a grid cell shows instead of the figures; None for none
    )


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
        named = _named(self.raw)
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
            return _tag(self.file, self.index, self.raw)
        if self.kind == "source":
            return _source(self.file, self.index, self.raw, self.label)
        if self.kind == "quantity":
            return _quantity(self.file, self.index, self.raw, self.label)
        return _claim(self.file, self.index, self.raw, self.label)

    def digest(self) -> str:
        """The record as read, and the rules that read it: equal digests import equally. (repr, not a
        canonical JSON: the same text reads to the same repr; another order of its fields only costs a
        full read.)"""
        # surrogatepass: a lone surrogate is refused by validation, which comes after the digest
        return hashlib.sha256(
            (_rules_digest() + repr(self.raw)).encode("utf-8", "surrogatepass")
        ).hexdigest()


# Data sets repeat figures ("2,048 H800", "14.8T tokens"); the parser is pure and its Quantity frozen.
_parsed = lru_cache(maxsize=4096)(parse)


@lru_cache(maxsize=1)
def _rules_digest() -> str:
    """A hash of the code that validates records and reads figures: when either changes, a stored
    record's digest no longer matches and the next import reads the record again in full."""
    from claimsdb import figures

    here = Path(__file__).resolve()
    parts = [here, *sorted(Path(figures.__file__).resolve().parent.glob("*.py"))]
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
    RecursionError; a field given twice in one object is remembered (see _no_unknown)."""
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
    _no_unknown(doc, {"$schema", "format", "tags", "sources", "quantities", "claims"}, name, None)
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


def _no_unknown(
    record: dict, allowed: set[str], name: str, label: str | None, at: str = ""
) -> None:
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise InvalidRecord(
            name, label, at + unknown[0], f"unknown field (allowed: {', '.join(sorted(allowed))})"
        )
    duplicate = getattr(record, "duplicate", None)
    if duplicate is not None:
        raise InvalidRecord(name, label, at + duplicate, "given twice in one object")


def _named(record: Any) -> str | None:
    """How an error names a record by its key, or None when the key cannot name it (missing, too long)."""
    key = record.get("key") or record.get("name") if isinstance(record, dict) else None
    if isinstance(key, str) and key and len(key) <= MAX_KEY and not FORBIDDEN_CHARS.search(key):
        return repr(key)
    return None


def _label(kind: str, index: int, record: Any) -> str:
    return _named(record) or f"{kind}[{index}]"


def _text(
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
    if len(value) > rule.max_length:
        raise InvalidRecord(
            name,
            label,
            at,
            f"is {len(value):,} characters long; the most allowed is {rule.max_length:,}",
        )
    if (
        value.isprintable()
    ):  # most text: no control, format or surrogate character, so nothing below applies
        return value
    bad = FORBIDDEN_CHARS.search(value)
    if bad:
        raise InvalidRecord(
            name, label, at, f"holds {bad.group()!r}, a control or bidirectional-override character"
        )
    if rule.one_line and ("\n" in value or "\r" in value):
        raise InvalidRecord(name, label, at, "must be one line")
    return value


def _key(record: dict, field: str, name: str, label: str, *, at: str | None = None) -> str:
    key = _text(record, field, name, label, required=True, rule=KEY, at=at)
    assert key is not None
    if not KEY_PATTERN.fullmatch(key):
        raise InvalidRecord(
            name,
            label,
            at or field,
            f"{shown(key)} is not a key: use lowercase letters, digits, '.', '_', '-'",
        )
    return key


def _choice(
    record: dict,
    field: str,
    choices: tuple[str, ...],
    name: str,
    label: str,
    default: str | None = None,
) -> str:
    value = _text(record, field, name, label, required=default is None) or default
    if value not in choices:
        raise InvalidRecord(
            name, label, field, f"{shown(value)} is not one of: {', '.join(choices)}"
        )
    return value


def _tag(name: str, index: int, record: Any) -> TagRecord:
    label = _label("tags", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a tag must be an object")
    _no_unknown(record, {"name", "trust", "description"}, name, label)
    return TagRecord(
        name=_key(record, "name", name, label),
        trust=_choice(record, "trust", TRUST_LEVELS, name, label),
        description=_text(record, "description", name, label, rule=TEXT) or "",
    )


def source_record(record: Any, *, file: str, label: str | None = None) -> SourceRecord:
    """One source from its fields (a data file's record, or command-line options), validated."""
    return _source(file, 0, record, label)


def _source(name: str, index: int, record: Any, label: str | None = None) -> SourceRecord:
    label = label or _label("sources", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a source must be an object")
    _no_unknown(record, {f.name for f in dataclasses.fields(SourceRecord)}, name, label)
    key = _key(record, "key", name, label)
    url = _text(record, "url", name, label)
    if url is not None and http_url(url) is None:
        raise InvalidRecord(name, label, "url", f"{shown(url)} is not an http(s) URL")
    cite_key = _text(record, "cite_key", name, label, rule=KEY)
    if cite_key is not None and not CITE_KEY_PATTERN.fullmatch(cite_key):
        raise InvalidRecord(
            name,
            label,
            "cite_key",
            f"{shown(cite_key)} is not a citation key: use letters, digits "
            "and _ : . + / -, starting with a letter or digit (it is written as is into LaTeX and BibTeX)",
        )
    return SourceRecord(
        key=key,
        title=_text(record, "title", name, label, required=True),
        kind=_choice(record, "kind", SOURCE_KINDS, name, label),
        url=url,
        publisher=_text(record, "publisher", name, label),
        date=_date(record, name, label, "date"),
        path=_text(record, "path", name, label),
        cite_key=cite_key,
        authors=_text(record, "authors", name, label),
        accessed=_date(record, name, label, "accessed", day=True),
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
        description=_text(record, "description", name, label, rule=TEXT),
    )


def _date(
    record: dict, name: str, label: str, field: str, *, day: bool = False, at: str | None = None
) -> str | None:
    """A calendar date: YYYY-MM-DD, or also YYYY and YYYY-MM unless a `day` is needed."""
    at = at or field
    date = _text(record, field, name, label, at=at)
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


CLAIM_FIELDS = {
    "key",
    "subject",
    "stage",
    "statement",
    "tag",
    "basis",
    "section",
    "aliases",
    "label",
    "status",
    "status_reason",
    "superseded_by",
    "quantity",
    "rank",
    "rank_reason",
    "figures",
    "evidence",
    "reread",
}
REREAD_FIELDS = ("by", "at", "source", "locator", "quote")
# The latest calendar date anywhere on Earth is UTC+14: a re-read dated after it has not happened yet.
LATEST_UTC_OFFSET = datetime.timedelta(hours=14)
MAX_ALIASES = 20


def claim_record(record: Any, *, file: str, label: str | None = None) -> ClaimRecord:
    """One claim from its fields (a data file's record, or command-line options), validated."""
    return _claim(file, 0, record, label)


def _claim(name: str, index: int, record: Any, label: str | None = None) -> ClaimRecord:
    label = label or _label("claims", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a claim must be an object")
    _no_unknown(record, CLAIM_FIELDS, name, label)
    key = _key(record, "key", name, label)
    figures = _items(record, "figures", name, label)
    evidence = _items(record, "evidence", name, label)
    if not evidence:
        raise InvalidRecord(
            name, label, "evidence", "is required: at least one source that supports the claim"
        )
    status = _choice(record, "status", CLAIM_STATUSES, name, label, default="active")
    superseded_by = (
        _key(record, "superseded_by", name, label)
        if record.get("superseded_by") is not None
        else None
    )
    if status == "superseded" and superseded_by is None:
        raise InvalidRecord(
            name,
            label,
            "superseded_by",
            "is required when the status is superseded: the claim that replaces it",
        )
    if superseded_by is not None and status != "superseded":
        raise InvalidRecord(
            name,
            label,
            "superseded_by",
            f"is only for a superseded claim, and the status is {status}",
        )
    if superseded_by == key:
        raise InvalidRecord(name, label, "superseded_by", "a claim cannot supersede itself")
    parsed = tuple(
        figure(f, name=name, label=label, field=f"figures[{i}]") for i, f in enumerate(figures)
    )
    names = [f.name for f in parsed if f.name]
    for i, f in enumerate(parsed):
        if f.name and names.count(f.name) > 1:
            raise InvalidRecord(
                name, label, f"figures[{i}].name", f"{f.name!r} names two figures of this claim"
            )
    return ClaimRecord(
        key=key,
        subject=_text(record, "subject", name, label, required=True),
        statement=_text(record, "statement", name, label, required=True, rule=TEXT),
        tag=_key(record, "tag", name, label),
        basis=_text(record, "basis", name, label, required=True),
        stage=_text(record, "stage", name, label),
        section=_text(record, "section", name, label),
        aliases=_aliases(record, name, label),
        status=status,
        status_reason=_text(record, "status_reason", name, label, rule=TEXT),
        superseded_by=superseded_by,
        quantity=_key(record, "quantity", name, label)
        if record.get("quantity") is not None
        else None,
        rank=_choice(record, "rank", RANKS, name, label, default="normal"),
        rank_reason=_text(record, "rank_reason", name, label, rule=TEXT),
        figures=parsed,
        evidence=tuple(_evidence(e, name, label, f"evidence[{i}]") for i, e in enumerate(evidence)),
        reread=_reread(record.get("reread"), name, label),
        file=name,
        record_name=label,
        label=_cell_label(record, name, label),
    )


def _reread(raw: Any, name: str, label: str) -> RereadRecord | None:
    """Who re-read the claim, when, in which page, where and what they saw: every part required, the
    name a person's (identity.person_name), the day a calendar date that has come."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InvalidRecord(
            name, label, "reread", f"must be an object with {', '.join(REREAD_FIELDS)}"
        )
    _no_unknown(raw, set(REREAD_FIELDS), name, label, at="reread.")
    if raw.get("by") is None:
        raise InvalidRecord(
            name, label, "reread.by", "is required: the person who re-read the page"
        )
    try:
        by = person_name(raw["by"], field="reread.by")
    except InvalidName as exc:
        raise InvalidRecord(
            name, label, "reread.by", f"{shown(exc.value)} is not a person's name: {exc.reason}"
        ) from None
    at = _date(raw, name, label, "at", day=True, at="reread.at")
    if at is None:
        raise InvalidRecord(
            name, label, "reread.at", "is required: the day the page was re-read (YYYY-MM-DD)"
        )
    if (
        datetime.date.fromisoformat(at)
        > (datetime.datetime.now(datetime.UTC) + LATEST_UTC_OFFSET).date()
    ):
        raise InvalidRecord(
            name,
            label,
            "reread.at",
            f"{at} has not come yet: a re-read is recorded once it was done",
        )
    return RereadRecord(
        by=by,
        at=at,
        source=_key(raw, "source", name, label, at="reread.source"),
        locator=_text(raw, "locator", name, label, required=True, at="reread.locator"),
        quote=_text(raw, "quote", name, label, required=True, rule=TEXT, at="reread.quote"),
    )


def _aliases(record: dict, name: str, label: str) -> str | None:
    """Other names of the claim's subject ("Open Athena" for "Open Athena 535B"): distinct one-line texts
    with a letter in each, stored one per line."""
    items = record.get("aliases")
    if items is None:
        return None
    if not isinstance(items, list):
        raise InvalidRecord(name, label, "aliases", "must be a list of names")
    if len(items) > MAX_ALIASES:
        raise InvalidRecord(
            name, label, "aliases", f"has {len(items):,} names; the most allowed is {MAX_ALIASES}"
        )
    out: list[str] = []
    for i, item in enumerate(items):
        at = f"aliases[{i}]"
        alias = _text({"alias": item}, "alias", name, label, required=True, rule=SHORT, at=at)
        assert alias is not None
        if not any(ch.isalpha() for ch in alias):
            raise InvalidRecord(name, label, at, f"{shown(alias)} is not a name: it has no letter")
        if alias.casefold() in (a.casefold() for a in out):
            raise InvalidRecord(name, label, at, f"{shown(alias)} is given twice")
        out.append(alias)
    return ALIAS_SEPARATOR.join(out) or None


def _cell_label(record: dict, name: str, label: str) -> str | None:
    """The claim's grid label ("curation, dedup, mixture"): one line of at most MAX_LABEL characters,
    shorter than the statement it stands for (a label as long as the statement is the statement)."""
    text = _text(record, "label", name, label, rule=LABEL)
    statement = record.get("statement")
    if text is not None and isinstance(statement, str) and len(text) >= len(statement.strip()):
        raise InvalidRecord(
            name,
            label,
            "label",
            f"is as long as the statement ({len(text)} characters): "
            "a label is a short phrase for the grid, or leave it out",
        )
    return text


def _items(record: dict, field: str, name: str, label: str) -> list:
    items = record.get(field, [])
    if not isinstance(items, list):
        raise InvalidRecord(name, label, field, "must be a list")
    if len(items) > MAX_ITEMS:
        raise InvalidRecord(
            name, label, field, f"has {len(items):,} items; the most allowed is {MAX_ITEMS}"
        )
    return items


def _evidence(record: Any, name: str, label: str, field: str) -> EvidenceRecord:
    if not isinstance(record, dict):
        raise InvalidRecord(
            name, label, field, "evidence must be an object with source, locator, quote"
        )
    _no_unknown(record, {"source", "locator", "quote"}, name, label, at=f"{field}.")
    if not isinstance(record.get("source"), str):
        raise InvalidRecord(name, label, f"{field}.source", "must be a source key")
    return EvidenceRecord(
        source=_key(record, "source", name, label, at=f"{field}.source"),
        locator=_text(record, "locator", name, label, at=f"{field}.locator"),
        quote=_text(record, "quote", name, label, rule=TEXT, at=f"{field}.quote"),
    )


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
    _no_unknown(spec, allowed, name, label, at=f"{field}.")
    raw = _text(spec, "raw", name, label, required=True, rule=SHORT, at=f"{field}.raw")
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
        text = _text({"raw": raw}, "raw", "", "", required=True, rule=SHORT)
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
    figure_name = _text(spec, "name", name, label, rule=SHORT, at=at)
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


def _number(value: Any, name: str, label: str, at: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRecord(name, label, at, "must be a finite number")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise InvalidRecord(name, label, at, "must be a finite number (this one is too large)")
    return number


def _overrides(spec: dict, name: str, label: str, field: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in NUMERIC_OVERRIDES:
        if key in spec:
            value = spec[key]
            out[key] = None if value is None else _number(value, name, label, f"{field}.{key}")
    for key in TEXT_OVERRIDES:
        if key in spec:
            value = spec[key]
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidRecord(name, label, f"{field}.{key}", "must be non-empty text or null")
            out[key] = _text(spec, key, name, label, rule=SHORT, at=f"{field}.{key}")
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
            _number(s, name, label, f"{field}.steps[{i}]") for i, s in enumerate(steps)
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
        label = _named(row) or f"row {index + 2}"
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
