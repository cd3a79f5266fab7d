"""The history of each claim: a hash chain of events, the state it implies, and the check that the
cached state agrees with it.

Every event is written through `append`: it is linked to the latest event of the whole store
(`prev_sha256`), hashed with its content (`sha256`, as git hashes a commit), and inserted before the
claim's cached tag or status changes (the database's triggers refuse the change otherwise).

`derive` replays a claim's events into the state they imply: the tag and status, the content and the
stored record last recorded, and what a verified tag vouches for. A re-read vouches for the content it
saw (its `content_sha256`); when a data file declares a verified tag, the file vouches for its own
content. If the content changes after a person's re-read, the re-read no longer vouches: the claim is
"changed since re-read" and not paper-safe until someone re-reads it again.

`problems` compares a claim's cached columns, its content and its stored record with what its
history says and recomputes each event's hash; every claim view runs it (`queries.claim_views`), so
`claims db check`, `export`, `lint`, `verify`, `show` and the recording commands all see the same
verdict, and exports, lint, verify and the recording commands refuse a claim that disagrees
(`integrity.ensure_intact`).

What is covered, column by column:

- **content** (`content_digest`, recorded as `content_sha256` by the events that change it): the
  subject, the statement, each figure as written (`raw`) and its name, and each piece of evidence
  (source, locator, quote), in order. This is what a re-read vouches for, so parsed fields stay out
  of it: a better parser must not void people's re-reads.
- **stored record** (`stored_digest`, recorded as `stored_sha256`): what an import wrote beside the
  content and a reader or a check still depends on: each figure's parsed columns (kind, comparator,
  value, low, high, start, end, steps, active, unit, counted) with its raw text and name, in order,
  and the claim's stage, basis, section and quantity. Every import event (`imported`, `updated`)
  records it as the rows stand after the event, whatever the parser read or the data file set
  explicitly (a figure record's `kind`, `value`, `unit`... override the parser), so the check needs
  neither the parser nor the file: a stored row must be exactly the row the import wrote. A better
  parser changes nothing until the next import reads the record again; that import rewrites the rows
  and records them with an `updated` event, leaving the content, and so every re-read, as it was.
- **tag, status, rank**: the cached columns must be what the latest event setting each says.
- **the events themselves**: each event's hash, and (in `integrity.check_store`) every link of the chain and
  the trace index (figure_number) against the figures.

Not covered here: a claim's status_reason and superseded_by (its status is), the source, quantity and
tag rows themselves (the database fixes a tag's trust), and verifications (append-only in the
database, but outside the chain). Nor can a chain without a secret tell a forged event from a real
one: whoever can write to the database and compute SHA-256 can append an event that extends it.

A store written before the stored record existed (schema 0007 and earlier) recorded none. Its
figures cannot be re-derived from their raw text on read: the parser of the release that wrote them
may have read them otherwise, and the explicit fields of a data file were never recorded. So the
upgrade to schema 0009 appends one `sealed` event to each claim, recording its rows as they stand at
the upgrade (taken as they were: nothing earlier vouched for them), and lists in that event's detail
each figure whose stored columns differ from what the parser now reads in its raw text, so a person
can see what the seal took on trust. From then on every claim has a stored record in its history,
and a claim without one was written outside claims.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, text
from sqlmodel import Session

from claimsdb import canonical
from claimsdb.db import insert_rows, parameter_mark, stream_rows
from claimsdb.models import FIGURE_COLUMNS, Event

# Bumped if the hashed fields ever change; part of every digest.
HASH_VERSION = 1
EVENT_FIELDS = (
    "at",
    "kind",
    "actor",
    "tag_before",
    "tag_after",
    "status_after",
    "origin",
    "detail",
    "content_sha256",
    "prev_sha256",
)
# Fields added after the first version of the chain: hashed only when set, so earlier digests hold.
LATER_FIELDS = ("rank_after", "stored_sha256")
DEFAULT_RANK = "normal"
IMPORT_KINDS = ("imported", "updated")
REREAD_KIND = "reread"
SEALED_KIND = "sealed"
# The figure columns the stored record covers, in this order (the figure row without its ids and position:
# the figures are taken in the order of their positions).
STORED_FIGURE_COLUMNS = FIGURE_COLUMNS
VERIFIED = "verified"
# PostgreSQL: writers of events queue on this transaction-level advisory lock, so the chain never forks.
CHAIN_LOCK = 0x636C61696D73  # "claims"
CHUNK = 2000


_ENCODE = canonical.encoder()  # json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _sha256(payload: list[Any]) -> str:
    """The digest of a payload's canonical JSON text (UTF-8; lone surrogates kept as they are)."""
    return hashlib.sha256(_ENCODE(payload).encode("utf-8", "surrogatepass")).hexdigest()


_EVENT_VALUES = operator.itemgetter(*EVENT_FIELDS, *LATER_FIELDS)
_LATER = len(LATER_FIELDS)


def event_digest(claim_key: str, event: Mapping[str, Any]) -> str:
    """The SHA-256 of one event: its claim's key, its fields (in EVENT_FIELDS order, then any of
    LATER_FIELDS that is set, by name) and the previous event's digest, as one JSON array."""
    try:
        values = _EVENT_VALUES(event)  # every read has every field: one lookup
    except KeyError:
        values = tuple(event.get(k) for k in (*EVENT_FIELDS, *LATER_FIELDS))
    return row_digest(claim_key, values[:-_LATER], values[-_LATER:])


def row_digest(claim_key: str, values: Sequence[Any], later: Sequence[Any]) -> str:
    """`event_digest` of an event given as its EVENT_FIELDS values and its LATER_FIELDS values, in
    those orders (a row as the driver returns it: `db check` hashes every event without a mapping)."""
    payload = [HASH_VERSION, claim_key, *values]
    if later[0] is not None or later[1] is not None:  # most events set neither
        payload += [[k, v] for k, v in zip(LATER_FIELDS, later) if v is not None]
    return _sha256(payload)


def content_digest(
    subject: str,
    statement: str,
    figures: Iterable[tuple[str, str | None]],
    evidence: Iterable[tuple[str, str | None, str | None]],
    label: str | None = None,
) -> str:
    """The SHA-256 of what a person reads when they re-read a claim: subject, statement, each figure as
    written (and its name), each piece of evidence (source key, locator, quote), in their order, and
    its grid label when it has one.

    Parsed figure fields are left out on purpose: a better parser must not void people's re-reads.
    The label is hashed only when set, so the digests of claims without one (every claim of a store
    before schema 0011) are what they were: a grid prints the label in place of the figures, so a re-read
    vouches for it, and a label changed afterwards needs a re-read like a changed figure.
    """
    payload = [
        HASH_VERSION,
        subject,
        statement,
        [list(f) for f in figures],
        [list(e) for e in evidence],
    ]
    if label is not None:
        payload.append(["label", label])
    return _sha256(payload)


def stored_digest(
    stage: str | None,
    basis: str | None,
    section: str | None,
    quantity_id: int | None,
    figures: Iterable[Mapping[str, Any]],
    observation: bool = False,
) -> str:
    """The SHA-256 of a claim's stored record: its stage, basis, section and quantity, and each figure's
    STORED_FIGURE_COLUMNS in position order, and whether it is an observation (hashed only when it is,
    as the label is in `content_digest`: every earlier digest stays what it was). A figure is a mapping of those columns: a figure table row
    (`steps` as JSON text) or a claim view's figure (`steps` as a list). Numbers are hashed as floats
    (both engines store doubles; 3 and 3.0, -0.0 and 0.0 are one number), so the digest of the rows an
    import writes is the digest of the rows read back on SQLite and PostgreSQL alike."""
    return stored_rows_digest(
        stage, basis, section, quantity_id, map(_FIGURE_VALUES, figures), observation
    )


def stored_rows_digest(
    stage: str | None,
    basis: str | None,
    section: str | None,
    quantity_id: int | None,
    figures: Iterable[Sequence[Any]],
    observation: bool = False,
) -> str:
    """`stored_digest` of figures given as their STORED_FIGURE_COLUMNS values, in that order (a figure
    row as the driver returns it: a whole-store read hashes them without a mapping)."""
    payload = [
        HASH_VERSION,
        "stored",
        stage,
        basis,
        section,
        quantity_id,
        [_stored_figure(f) for f in figures],
    ]
    if observation:  # kept out of a grid: an SQL edit either way would add or drop a grid's row
        payload.append(["observation", True])
    return _sha256(payload)


_FIGURE_VALUES = operator.itemgetter(*STORED_FIGURE_COLUMNS)
# _stored_figure takes a figure's values in this order; a change of the columns must change it too.
_STORED_ORDER = (
    "name",
    "raw",
    "kind",
    "comparator",
    "value",
    "low",
    "high",
    "start",
    "end",
    "steps",
)
if STORED_FIGURE_COLUMNS != (*_STORED_ORDER, "active", "unit", "counted"):  # pragma: no cover
    raise ImportError("history._stored_figure does not match the figure's stored columns")


def _stored_figure(f: Sequence[Any]) -> list[Any]:
    """One figure's STORED_FIGURE_COLUMNS values as hashed (spelled out: this runs for every figure read)."""
    name, raw, kind, comparator, value, low, high, start, end, steps, active, unit, counted = f
    if isinstance(steps, str):
        steps = json.loads(steps)
    return [
        name,
        raw,
        kind,
        comparator,
        None if value is None else float(value) + 0.0,
        None if low is None else float(low) + 0.0,
        None if high is None else float(high) + 0.0,
        None if start is None else float(start) + 0.0,
        None if end is None else float(end) + 0.0,
        [float(x) + 0.0 for x in steps or ()],
        None if active is None else float(active) + 0.0,
        unit,
        counted,
    ]


def head(session: Session) -> str | None:
    """The digest of the latest event: it names the whole history (an export's manifest carries it)."""
    return session.execute(select(Event.sha256).order_by(Event.id.desc()).limit(1)).scalar()


def begin_write(session: Session) -> None:
    """Serialise writers before they read what they will change, so that what an event records (the
    content it saw, the head it extends) is still true when it is written. SQLite transactions hold
    the write lock from their start (BEGIN IMMEDIATE); PostgreSQL writers queue on an advisory lock,
    held until the transaction ends."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": CHAIN_LOCK})


def _locked_head(session: Session) -> str | None:
    """The head the next event must name as its `prev_sha256` (taking the writers' lock if not yet held)."""
    begin_write(session)
    return head(session)


def _hashed(events: Sequence[dict[str, Any]], prev: str | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for event in events:
        row = {k: v for k, v in event.items() if k != "claim"}
        for k in (*EVENT_FIELDS, *LATER_FIELDS):
            row.setdefault(k, None)
        row["prev_sha256"] = prev
        row["sha256"] = prev = event_digest(event["claim"], row)
        rows.append(row)
    return rows


def append(session: Session, events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Hash and insert events in order. Each dict holds the event's columns plus `claim` (the claim's
    key, which the digest covers instead of the row id). Returns the inserted rows with their digests."""
    rows = _hashed(events, _locked_head(session))
    for i in range(0, len(rows), CHUNK):
        insert_rows(session, Event.__table__, rows[i : i + CHUNK])
    return rows


def append_one(session: Session, event: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Append a single event; returns its id and its row."""
    row = _hashed([event], _locked_head(session))[0]
    result = session.execute(Event.__table__.insert().values(**row))
    return result.inserted_primary_key[0], row


@dataclass(frozen=True)
class SetBy:
    """Who set a claim's tag, status or rank, when it was not an import: the actor (a person's name, or
    a software agent through its door), the kind of the event and when."""

    actor: str
    kind: str
    at: Any

    @classmethod
    def of(cls, event: Mapping[str, Any]) -> SetBy:
        return cls(event["actor"], event["kind"], event["at"])

    @property
    def day(self) -> str:
        return str(self.at)[:10]

    def __str__(self) -> str:
        return f"{self.actor} ({self.kind}, {str(self.at)[:19]}Z)"


@dataclass
class ClaimState:
    """What a claim's events say about it."""

    tag: str | None = None
    status: str | None = None
    rank: str = DEFAULT_RANK
    rank_event: Mapping[str, Any] | None = None  # the event that set the current rank
    content_sha256: str | None = None  # the content as last recorded
    tag_event: Mapping[str, Any] | None = None  # the event that set the current tag
    vouched_sha256: str | None = None  # the content the verified tag vouches for
    vouched_by: Mapping[str, Any] | None = None  # that re-read (or the import of a verified tag)
    stored_sha256: str | None = None  # the stored record (stored_digest) as last recorded
    # the latest event other than an import that set the status: once someone set it, it is theirs
    status_event: Mapping[str, Any] | None = None
    # the latest re-read that corrected a figure to what the page says: the statement and figures are
    # then a person's, which no import changes
    corrected_event: Mapping[str, Any] | None = None

    def set_by(self, field: str) -> SetBy | None:
        """Who set the claim's "tag", "status" or "rank": None when an import did (or nothing did),
        which a data file may then change. The tag and the rank are whoever set their current value; the
        status is whoever last set it other than an import."""
        event = {"tag": self.tag_event, "rank": self.rank_event, "status": self.status_event}[field]
        if event is None or event["kind"] in IMPORT_KINDS:
            return None
        return SetBy.of(event)

    def vouches_for(self, content_sha256: str) -> bool:
        return self.vouched_sha256 is not None and self.vouched_sha256 == content_sha256


def derive(events: Iterable[Mapping[str, Any]], trust: Mapping[str, str]) -> ClaimState:
    """Replay a claim's events, oldest first."""
    state = ClaimState()
    for e in events:
        if e["tag_after"] is not None:
            state.tag, state.tag_event = e["tag_after"], e
            if trust.get(e["tag_after"]) != VERIFIED:
                state.vouched_sha256 = state.vouched_by = None
            elif e["kind"] == REREAD_KIND:
                state.vouched_sha256, state.vouched_by = e["content_sha256"], e
            elif e["kind"] in IMPORT_KINDS:  # an import never vouches by itself: a re-read must
                state.vouched_sha256 = state.vouched_by = None
            # a retag between two verified tags keeps what was vouched for
        if e["kind"] == REREAD_KIND and _corrects(e.get("detail")):
            state.corrected_event = e
        if e["content_sha256"] is not None:
            state.content_sha256 = e["content_sha256"]
        if e.get("stored_sha256") is not None:
            state.stored_sha256 = e["stored_sha256"]
        if e["status_after"] is not None:
            state.status = e["status_after"]
            if e["kind"] not in IMPORT_KINDS:
                state.status_event = e
        if e.get("rank_after") is not None:
            state.rank, state.rank_event = e["rank_after"], e
    return state


def detail_key(key: str) -> str:
    """How a key stands in an event's detail as stored (JSON text, json.dumps's separators): no string
    inside the JSON can spell it, since a quote inside a string is escaped. SQL reads it with LIKE."""
    return f'"{key}": '


def _corrects(detail: Any) -> bool:
    """A re-read's detail (JSON text, or decoded) records a correction of the claim's figures."""
    if isinstance(detail, str):
        return detail_key("corrected") in detail
    return isinstance(detail, Mapping) and bool(detail.get("corrected"))


def problems(
    claim_key: str,
    cached_tag: str,
    cached_status: str,
    content_sha256: str,
    events: Sequence[Mapping[str, Any]],
    state: ClaimState,
    cached_rank: str = DEFAULT_RANK,
    *,
    stored_sha256: str,
    events_checked: bool = False,
) -> list[str]:
    """Every way a claim disagrees with its history (empty when it agrees). `content_sha256` and
    `stored_sha256` are the digests of the claim as it is stored now (content_digest, stored_digest).
    `events_checked`: the caller has just recomputed every event's hash (integrity.check_store's pass
    over the chain), so they are not recomputed here."""
    if not events:
        return ["has no history: it was written outside claims"]
    found = []
    for e in [] if events_checked else events:
        if e["sha256"] != event_digest(claim_key, e):
            found.append(
                f"its {e['kind']} event of {str(e['at'])[:19]} does not match its hash: "
                "the event was edited or written outside claims"
            )
            break
    if cached_tag != state.tag:
        found.append(f"its tag is {cached_tag!r} but its history says {state.tag!r}")
    if cached_status != state.status:
        found.append(f"its status is {cached_status!r} but its history says {state.status!r}")
    if cached_rank != state.rank:
        found.append(f"its rank is {cached_rank!r} but its history says {state.rank!r}")
    if state.content_sha256 is not None and content_sha256 != state.content_sha256:
        found.append(
            "its statement, figures, evidence or label differ from what its history recorded"
        )
    if state.stored_sha256 is None:
        found.append(
            "its figures were never recorded in its history: they were written outside claims"
        )
    elif stored_sha256 != state.stored_sha256:
        found.append(
            "its stored figures (what each states: value, range, unit, counted thing, comparator, kind, "
            "name) or its stage, basis, section or quantity differ from what its history recorded"
        )
    return found


@dataclass(frozen=True)
class Walk:
    """The event chain as one ordered pass found it: how many events it read, the last one's digest and
    id, and the first break (what is wrong, and the id of the event where it is), if any."""

    count: int
    head: str | None
    head_id: int | None
    broken: str | None = None
    broken_id: int | None = None


def walk(session: Session, upto: int | None = None) -> Walk:
    """Every link of the event chain, oldest first, up to and including event `upto` (all of it when
    None): each event must name the one before it and its stored digest must be recomputed from its own
    fields (so an event rewritten with its digest recomputed breaks the next link, and one whose next
    link was relinked breaks its own digest). Stops at the first break; one pass, nothing held per claim."""
    columns = ("id", "claim_id", "sha256", *EVENT_FIELDS, *LATER_FIELDS)
    fields, later = slice(3, 3 + len(EVENT_FIELDS)), slice(3 + len(EVENT_FIELDS), -1)
    prev_at = columns.index("prev_sha256")
    selected = ", ".join(f'e."{c}"' for c in columns)
    where, params = "", ()
    if upto is not None:
        where, params = f" WHERE e.id <= {parameter_mark(session.connection())}", (upto,)
    sql = f'SELECT {selected}, c."key" FROM event e LEFT JOIN claim c ON c.id = e.claim_id{where} ORDER BY e.id'
    prev_sha = prev_id = None
    count = 0
    for r in stream_rows(session, sql, params):
        count += 1
        broken = None
        if r[prev_at] != prev_sha:
            broken = (
                f"{_where(dict(zip(columns, r)), r[-1])} does not follow event {prev_id}: an event "
                "before it was removed, inserted or edited"
                if prev_id is not None
                else f"{_where(dict(zip(columns, r)), r[-1])} is the first event but names a predecessor"
            )
        elif r[2] != row_digest(r[-1] or "", r[fields], r[later]):
            broken = (
                f"{_where(dict(zip(columns, r)), r[-1])} does not match its hash: it was edited or "
                "written outside claims"
            )
        if broken:
            return Walk(count, prev_sha, prev_id, broken, r[0])
        prev_sha, prev_id = r[2], r[0]
    return Walk(count, prev_sha, prev_id)


def _where(row: Mapping[str, Any], key: str | None) -> str:
    return (
        f"event {row['id']} ({row['kind']} of {key or '?'} by {row['actor']} at "
        f"{str(row['at'])[:19]})"
    )
