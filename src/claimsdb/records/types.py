"""The records a data file holds, once validated (tags, sources, quantities, claims with their
figures, evidence and re-read), and the limits every record keeps to (the JSON Schema's,
data/schema/claims.schema.json)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict

from claimsdb.figures import Quantity
from claimsdb.models import SourceFields

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
MAX_ALIASES = 20  # other names of a claim's subject
MAX_INTEGER = 2**63 - 1  # a whole number a database holds (SQLite's INTEGER, PostgreSQL's bigint)


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


class SourceRecord(SourceFields):
    """A source's fields (models.SourceFields), validated (record_validation.read_source); immutable."""

    model_config = ConfigDict(frozen=True)

    def fields(self) -> dict[str, Any]:
        return self.model_dump()


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
    where in it and what they saw. Only a claim with a verified tag carries one (import_checks checks the tag's
    trust and the page)."""

    by: str
    at: str  # YYYY-MM-DD
    source: str
    locator: str
    quote: str
    signature: str | None = None  # the person's SSH signature of it (trust.signatures), armored


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
    observation: bool = False  # about no one system: listed, never a row of a grid


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
