"""Every table of the claims store.

A claim is the unit of provenance: one tag per claim. Claims are never deleted; their status changes.
The event table is the claim's append-only history, a hash chain (each event stores the SHA-256 of
its content and of the event before it). `claim.tag` and `claim.status` are a cache of what the
events say: the latest event with `tag_after` (`status_after`) set decides them, database triggers
refuse a change to either that is not preceded by its event, and `history.py` checks them on read.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import CheckConstraint, Index, Table, UniqueConstraint
from sqlmodel import Field, SQLModel

from claimsdb.figures import COMPARATORS
from claimsdb.figures import KINDS as FIGURE_KINDS
from claimsdb.figures.quantity import FIELDS as FIGURE_FIELDS

TRUST_LEVELS = ("verified", "secondary", "unverified")
CLAIM_STATUSES = ("active", "superseded", "withdrawn")
SOURCE_KINDS = ("paper", "report", "blog", "readme", "note", "code", "docs", "news", "other")
# How a source was registered: a bibliography (`claims sources import`), a data file (or JSON Lines),
# by hand (`claims sources add`), or a URL named as a page and registered on the spot. Only a
# bibliography's own sources are updated by the next bibliography import; NULL: registered before 0012.
SOURCE_ORIGINS = ("bibliography", "data-file", "by-hand", "url")
# "sealed": the upgrade to schema 0009 recorded each claim's stored record (history.stored_digest) as it stood.
DEFINITION_KINDS = ("tag", "source", "quantity", "aliases")
EVENT_KINDS = (
    "imported",
    "updated",
    "retagged",
    "reread",
    "status",
    "verified",
    "ranked",
    "sealed",
)
# What a row of the people registry records (trust.people): a key added to a person (the first person is
# added unsigned), a key of theirs removed, a passkey added, or the rule that from then on only signed
# re-reads vouch.
PERSON_KINDS = ("added", "removed", "passkey", "required")
# How a claim stands among the competing values of its quantity (Wikidata's statement ranks).
RANKS = ("preferred", "normal", "deprecated")
FETCH_OUTCOMES = ("fetched", "not-modified", "unreachable")
VERIFY_OUTCOMES = (
    "confirmed",
    "reworded",
    "rounded",
    "partial",
    "figure-changed",
    "not-found",
    "nothing-to-check",
    "unreachable",
)
# A claim's aliases are one-line names: a line break separates them in claim.aliases.
ALIAS_SEPARATOR = "\n"


def utcnow() -> str:
    """UTC time as ISO 8601 text: sortable, and the same in SQLite and PostgreSQL."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def table_of(model: type[SQLModel]) -> Table:
    """A model's table (SQLModel sets `__table__` at run time, unseen by the type checker)."""
    return SQLModel.metadata.tables[str(model.__tablename__)]


def aliases_of(stored: str | None) -> list[str]:
    """The names a claim's aliases column holds, as a list."""
    return stored.split(ALIAS_SEPARATOR) if stored else []


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Tag(SQLModel, table=True):
    __tablename__ = "tag"
    __table_args__ = (CheckConstraint(_in("trust", TRUST_LEVELS), name="ck_tag_trust"),)

    name: str = Field(primary_key=True)
    trust: str
    description: str = ""


class SourceFields(SQLModel):
    """A source's own fields, the one list of them: what a data file, a bibliography entry or `claims
    sources add` gives (record_types.SourceRecord holds them validated); the table adds its id and where
    the source came from."""

    key: str = Field(unique=True, index=True)
    title: str
    kind: str
    url: str | None = None
    publisher: str | None = None
    date: str | None = None
    path: str | None = None
    cite_key: str | None = None
    authors: str | None = None
    accessed: str | None = None  # when the page was read, YYYY-MM-DD


class Source(SourceFields, table=True):
    __tablename__ = "source"
    __table_args__ = (CheckConstraint(_in("kind", SOURCE_KINDS), name="ck_source_kind"),)

    id: int | None = Field(default=None, primary_key=True)
    origin: str | None = (
        None  # one of SOURCE_ORIGINS (written by the code, so no CHECK: NULL before 0012)
    )


class MeasuredQuantity(SQLModel, table=True):
    """What a claim measures, when several claims report it: a subject and a measure (the Kimi
    checkpoint-engine's update time for a 1T model). The claims on one quantity are competing values."""

    __tablename__ = "quantity"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, index=True)
    subject: str
    measure: str
    description: str | None = None


class Claim(SQLModel, table=True):
    __tablename__ = "claim"
    __table_args__ = (
        CheckConstraint(_in("status", CLAIM_STATUSES), name="ck_claim_status"),
        CheckConstraint(_in("rank", RANKS), name="ck_claim_rank"),
    )

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, index=True)
    subject: str  # filters match it in any case (lower()), which an index could not serve
    stage: str | None = None
    statement: str
    tag: str = Field(foreign_key="tag.name", index=True)
    basis: str
    section: str | None = None
    # Other names of the subject a manuscript may use, one per line (record_types.ClaimRecord.aliases).
    aliases: str | None = None
    # The short phrase a grid cell shows for the claim, instead of its figures (record_types.ClaimRecord.label).
    label: str | None = None
    # About no one system (records.types.ClaimRecord.observation): listed, never a row of a grid.
    observation: bool = False
    status: str = "active"
    status_reason: str | None = None
    superseded_by: str | None = None
    quantity_id: int | None = Field(default=None, foreign_key="quantity.id", index=True)
    rank: str = "normal"  # a cache of the latest event with rank_after, like tag and status
    # The data-file record as last imported (records.Entry.digest): an unchanged record is not read again.
    record_sha256: str | None = None
    created_at: str = Field(default_factory=utcnow)
    updated_at: str = Field(default_factory=utcnow)


class Evidence(SQLModel, table=True):
    __tablename__ = "evidence"
    __table_args__ = (UniqueConstraint("claim_id", "position", name="uq_evidence_position"),)

    id: int | None = Field(default=None, primary_key=True)
    claim_id: int = Field(foreign_key="claim.id")  # uq_evidence_position indexes it
    source_id: int = Field(foreign_key="source.id", index=True)
    position: int
    locator: str | None = None
    quote: str | None = None
    # The person's event (a re-read) that added this evidence; None for evidence a data file owns.
    event_id: int | None = Field(default=None, foreign_key="event.id")


# A stored figure's columns beside its claim and position: its name, then what the parser read.
FIGURE_COLUMNS = ("name", *FIGURE_FIELDS)


class Figure(SQLModel, table=True):
    __tablename__ = "figure"
    __table_args__ = (
        UniqueConstraint("claim_id", "position", name="uq_figure_position"),
        CheckConstraint(_in("kind", FIGURE_KINDS), name="ck_figure_kind"),
        CheckConstraint(_in("comparator", COMPARATORS), name="ck_figure_comparator"),
    )

    id: int | None = Field(default=None, primary_key=True)
    claim_id: int = Field(foreign_key="claim.id")  # uq_figure_position indexes it
    position: int
    name: str | None = None
    raw: str
    kind: str
    comparator: str = "="
    value: float | None = None
    low: float | None = None
    high: float | None = None
    start: float | None = None
    end: float | None = None
    steps: str | None = None  # JSON list: every point of a transition, or the parts of a ratio
    active: float | None = None
    unit: str | None = None
    counted: str | None = None


class FigureNumber(SQLModel, table=True):
    """Where each figure can be found by number: one row per stated number (or range) with the interval
    of magnitudes a written figure may have to match it (figures.reach). `claims trace` reads this
    index on both engines instead of scanning every figure."""

    __tablename__ = "figure_number"
    __table_args__ = (Index("ix_figure_number_reach", "tier", "lo", "hi"),)

    id: int | None = Field(default=None, primary_key=True)
    claim_id: int = Field(foreign_key="claim.id", index=True)
    position: int  # the figure's position in its claim
    lo: float
    hi: float
    tier: int  # how wide its reach may be (figures.REACH_TIERS), or figures.SPAN for a stored range


class Event(SQLModel, table=True):
    __tablename__ = "event"
    __table_args__ = (CheckConstraint(_in("kind", EVENT_KINDS), name="ck_event_kind"),)

    id: int | None = Field(default=None, primary_key=True)
    claim_id: int = Field(foreign_key="claim.id", index=True)
    at: str = Field(default_factory=utcnow)
    kind: str
    actor: str
    tag_before: str | None = None
    tag_after: str | None = None  # set only by tag-changing events
    status_after: str | None = (
        None  # set only by status-setting events (imports, withdraw, supersede)
    )
    rank_after: str | None = (
        None  # set only by rank-setting events (imports that rank, prefer, deprecate)
    )
    origin: str | None = (
        None  # where it came from: "data/x.json#key" for imports, a source for re-reads
    )
    detail: str | None = None  # JSON: changed fields, what was seen, reasons
    content_sha256: str | None = (
        None  # the claim's content (history.content_digest) after this event
    )
    stored_sha256: str | None = (
        None  # its stored record (history.stored_digest) after this event, if it wrote one
    )
    prev_sha256: str | None = None  # the sha256 of the event before this one (None for the first)
    sha256: str  # of this event's fields and prev_sha256 (history.event_digest)


class Snapshot(SQLModel, table=True):
    """One fetch of a source: the body lives in the snapshot store under its SHA-256."""

    __tablename__ = "snapshot"
    __table_args__ = (CheckConstraint(_in("outcome", FETCH_OUTCOMES), name="ck_snapshot_outcome"),)

    id: int | None = Field(default=None, primary_key=True)
    source_id: int = Field(foreign_key="source.id", index=True)
    fetched_at: str = Field(default_factory=utcnow)
    url: str | None = None
    status: int | None = None
    outcome: str
    content_sha256: str | None = None  # for not-modified: the body of the snapshot it confirmed
    content_type: str | None = None
    size: int | None = None
    etag: str | None = None
    last_modified: str | None = None
    error: str | None = None


class Verification(SQLModel, table=True):
    """One check of one claim against one source's snapshot. Never updated; the latest one counts."""

    __tablename__ = "verification"
    __table_args__ = (
        CheckConstraint(_in("outcome", VERIFY_OUTCOMES), name="ck_verification_outcome"),
    )

    id: int | None = Field(default=None, primary_key=True)
    claim_id: int = Field(foreign_key="claim.id", index=True)
    source_id: int = Field(foreign_key="source.id", index=True)
    snapshot_id: int | None = Field(default=None, foreign_key="snapshot.id")
    at: str = Field(default_factory=utcnow)
    outcome: str
    passage: str | None = None
    score: float | None = None
    content_sha256: str | None = None
    detail: str | None = (
        None  # JSON: figure changes (old, new), missing figures, the quote looked for, errors
    )


class Anchor(SQLModel, table=True):
    """A head of the history chain taken by `claims db anchor`: the digest of the event at `length` (with
    its id). Append-only (triggers; on PostgreSQL a writer may only insert, and only an anchor the chain
    holds: migration 0015), and the anchor file the
    command writes keeps a copy outside the database: `claims db check --anchor FILE` proves the chain
    still holds it."""

    __tablename__ = "anchor"

    id: int | None = Field(default=None, primary_key=True)
    at: str = Field(default_factory=utcnow)
    actor: str
    event_id: int
    length: int
    head: str
    people_head: str | None = (
        None  # the people registry's head then (trust.people), from schema 0013
    )
    people_length: int | None = None
    # the definitions' head then (claimsdb.definitions), from schema 0014
    definitions_head: str | None = None
    definitions_length: int | None = None


class Definition(SQLModel, table=True):
    """What a verdict reads besides a claim's own rows, hash-chained like the history (its own chain):
    each row records one definition as it was made (a tag's trust level and description, a source's or a
    quantity's registered fields).
    Append-only (triggers; on PostgreSQL a writer may only insert); claimsdb.definitions reads it."""

    __tablename__ = "definition"
    __table_args__ = (
        CheckConstraint(_in("kind", DEFINITION_KINDS), name="ck_definition_kind"),
        Index("ix_definition_kind_name", "kind", "name", "id"),  # a read's latest definitions
    )

    id: int | None = Field(default=None, primary_key=True)
    at: str = Field(default_factory=utcnow)
    kind: str
    name: str  # what is defined: the tag's name, the source's or the quantity's key
    # JSON: the defined fields (a tag: trust, description; a source, a quantity: its registered fields)
    fields: str
    actor: str  # who made it: the import, a person, or `claims db upgrade`
    prev_sha256: str | None = None
    sha256: str


class Person(SQLModel, table=True):
    """The people registry: who may vouch, with the public keys their re-reads are signed with. Append-only
    and hash-chained like the history (its own chain: `prev_sha256`, `sha256`); every row after the first
    is signed by a person already registered (trust.people)."""

    __tablename__ = "person"
    __table_args__ = (CheckConstraint(_in("kind", PERSON_KINDS), name="ck_person_kind"),)

    id: int | None = Field(default=None, primary_key=True)
    at: str = Field(default_factory=utcnow)
    kind: str
    name: str  # the person the row is about (for "required": the person who required signatures)
    key: str | None = (
        None  # an OpenSSH public key line ("ssh-ed25519 AAAA..."), or a passkey (JSON)
    )
    fingerprint: str | None = None  # its SHA256 fingerprint, as ssh-keygen -l prints it
    actor: str  # who recorded the row: the person whose key signed it (or the first person)
    signer: str | None = None  # the fingerprint of the key that signed it (None: the first row)
    signature: str | None = None  # the SSH signature (SSHSIG, armored) over the row's message
    prev_sha256: str | None = None
    sha256: str
