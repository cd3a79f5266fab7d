"""The store as an AI agent reaches it over MCP (`claims mcp`): the tools with their input schemas, the
resources, and the door's limits. Domain code: it returns JSON-ready values or raises a ClaimsError, prints
nothing, and knows nothing of the protocol (mcp_server.py speaks it).

Reading tools call what the read commands call (`trace`, `show`, `list`, `values`, `sources`) and return
the shapes their `--format json` prints. The one writing tool, `add_claim`, is an agent channel
(`store.AGENT`, through `store.add_claim` as `claims add` is): every claim it records is `agent-reported`,
whatever the agent says; it needs the page the agent read, where in it and the page's own words; a field
that would vouch for anything (a tag, a trust level, a re-read, a tag definition, a rank) is refused by
name. The event records the software agent (agents.SoftwareAgent): the client as it named itself, the
server's name for it and the person it acts for.

Limits: the records' own (records.py, the same as every import), text arguments of the reading tools
bounded alike, pages of at most MAX_PAGE claims, at most `max_writes_per_minute` claims added a minute,
and a read-only mode in which `add_claim` is neither listed nor run. Calls run one at a time, each in its
own transaction, so a refused call leaves the database as it was.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from claimsdb import db, queries, sources, store, views
from claimsdb.errors import (
    AgentCannotVouch,
    BadQuery,
    DatabaseProblem,
    InvalidRecord,
    ReadOnly,
    TooManyWrites,
    shown,
)
from claimsdb.escaping import http_url
from claimsdb.figures import as_quantity
from claimsdb.models import CLAIM_STATUSES, TRUST_LEVELS, Claim
from claimsdb.queries import ClaimFilter
from claimsdb.records import types as record_types
from claimsdb.trust.agents import SoftwareAgent
from claimsdb.trust.rule import page_to_reread, reread_doors, reread_hint

ORIGIN = "claims mcp"  # the door's name: an added claim's origin in its history, and where errors say they arose
AGENT_TAG = "agent-reported"  # the one tag an agent over MCP records
DEFAULT_MAX_WRITES = 30  # claims added a minute, by default
WINDOW_S = 60.0
PAGE, MAX_PAGE = 20, 100  # claims a search or trace returns by default, and at most
RESOURCE_PAGE = 100  # claims a resources/list page names, and the unverified resource holds
UNVERIFIED_URI = "claims://unverified"
CLAIM_URI_PREFIX = "claims://claim/"
CLAIM_URI_TEMPLATE = CLAIM_URI_PREFIX + "{key}"
MIME = "application/json"
BASIS = (
    "An AI agent's report over MCP; nobody has re-read the page yet."  # when the agent gives none
)

# What an agent may never set, and why: each would vouch for the claim (store.AGENT's rules, by field).
_TAG_WHY = (
    "an agent over MCP records every claim as agent-reported (unverified trust): a tag above that "
    f"rests on a person's re-read of the page, which that person records {reread_doors()}"
)
VOUCHING = {
    "tag": _TAG_WHY,
    "trust": _TAG_WHY,
    "reread": (
        "an agent channel cannot record a re-read: the person who re-read the page records it "
        + reread_doors()
    ),
    "tags": "an agent channel cannot define tags: a data file read from a path defines them",
    "tag_definition": "an agent channel cannot define tags: a data file read from a path defines them",
    "rank": (
        "an agent channel cannot rank a value: which value of a quantity to use is a person's call, "
        "or a data file's"
    ),
    "preferred": (
        "an agent channel cannot prefer a value: which value of a quantity to use is a person's "
        "call, or a data file's"
    ),
}
_WHY_REQUIRED = {
    "source": "the page the figure was read in: a registered source's key, or its URL",
    "locator": 'where in the page the figure stands ("§3.5", "Table 5"), so a person can find it',
    "quote": "the page's own words that state the figure, so a person can check them",
}


def _text(description: str, max_length: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_length, "description": description}


def _count(description: str, default: int, low: int, high: int | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "type": "integer",
        "minimum": low,
        "default": default,
        "description": description,
    }
    # every count has a maximum: at most what a database takes (an offset of 10**20 overflowed SQLite)
    rule["maximum"] = high if high is not None else record_types.MAX_INTEGER
    return rule


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        out["required"] = list(required)
    return out


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the server lists it: its name, a title and a description for the model, its input schema
    (JSON Schema, additionalProperties false) and whether it writes."""

    name: str
    title: str
    description: str
    schema: dict[str, Any]
    writes: bool = False


LINE, TEXT, KEY = record_types.MAX_LINE, record_types.MAX_TEXT, record_types.MAX_KEY
TOOLS = (
    ToolSpec(
        "trace",
        "Trace a figure",
        (
            "Where does this number come from? Every stored claim stating a figure (a number, range or transition "
            'as written: 466, 2,048, 14.8T, "16K H100", 32–33T, "4K → 128K"), rounding to it or overlapping it, '
            "each with its tag, trust level, sources with locators and quotes, and latest events. When nothing "
            "matches, `nearest` lists the closest figures (the same value with another unit or thing, or the same "
            "thing with a close value). Ask this before adding a claim."
        ),
        _schema(
            {
                "figure": _text("The figure as written.", LINE),
                "limit": _count(
                    "At most this many matches in full (`total` counts them all).",
                    PAGE,
                    1,
                    MAX_PAGE,
                ),
            },
            ("figure",),
        ),
    ),
    ToolSpec(
        "show",
        "Show a claim",
        (
            "One claim: statement, tag and trust, why it has that tag, parsed figures, sources with locators and "
            "quotes, the latest verification of each page, competing values, and its whole history."
        ),
        _schema({"key": _text("The claim's key.", KEY)}, ("key",)),
    ),
    ToolSpec(
        "search",
        "Search claims",
        (
            "Claims matching every filter given, in key order, a page at a time: `total` counts them all, "
            "`next_offset` gives the next page (null on the last)."
        ),
        _schema(
            {
                "subject": _text("The subject contains this text (any case).", LINE),
                "text": _text("The statement contains this text (any case).", LINE),
                "stage": _text("The stage or topic is this (any case).", LINE),
                "tag": _text("The provenance tag is this.", KEY),
                "trust": {
                    "type": "string",
                    "enum": list(TRUST_LEVELS),
                    "description": "The tag's trust level: verified, secondary or unverified.",
                },
                "status": {
                    "type": "string",
                    "enum": list(CLAIM_STATUSES),
                    "description": "active, superseded or withdrawn.",
                },
                "source": _text("The claim cites this source key.", KEY),
                "limit": _count("Claims in this page.", PAGE, 1, MAX_PAGE),
                "offset": _count("Claims to skip (the previous page's next_offset).", 0, 0),
            }
        ),
    ),
    ToolSpec(
        "values",
        "Competing values",
        (
            "The competing values of a quantity (a subject and what is measured), or of every quantity: each "
            "claim's figure, tag, sources, rank (preferred, normal, deprecated) and why."
        ),
        _schema({"quantity": _text("A quantity's key; every quantity when left out.", KEY)}),
    ),
    ToolSpec(
        "sources",
        "Sources",
        (
            "The registered sources (pages, reports, notes) and how many claims cite each; with `key`, one source "
            "with the claims citing it, locator and quote."
        ),
        _schema(
            {"key": _text("A source's key: that source alone, with the claims citing it.", KEY)}
        ),
    ),
    ToolSpec(
        "add_claim",
        "Add a claim (agent-reported)",
        (
            "Record one claim you read in a page. It is always recorded agent-reported (unverified): it is blocked "
            "from papers until a person re-reads the page, and no argument can change that (a tag, trust, re-read, "
            "tag definition or rank is refused). It needs the page (a registered source's key, or its URL, "
            "registered on the spot), where in it (locator) and the page's own words (quote). The answer gives the "
            "new key and the stored claims of the same subject that already state the figure (duplicates) or "
            "another value of what it measures (contradictions), the first 20 in `existing` and all counted: trace "
            "the figure first to avoid duplicates. `reread` says which page a person re-reads to raise it, "
            "and where they record that: tell the person; you cannot record it."
        ),
        _schema(
            {
                "subject": _text("The system or model the claim is about.", LINE),
                "statement": _text("The claim in one sentence, as the page supports it.", TEXT),
                "figures": {
                    "type": "array",
                    "maxItems": record_types.MAX_ITEMS,
                    "items": {"type": "string", "maxLength": record_types.MAX_FIGURE},
                    "description": 'Each figure as written in the statement ("2,048 H800", "up to 100,000 '
                    'tasks").',
                },
                "source": _text("The page: a registered source's key, or its http(s) URL.", LINE),
                "locator": _text('Where in the page: "§3.5", "Table 5".', LINE),
                "quote": _text("The page's own words that state the figure.", TEXT),
                "stage": _text('Stage or topic ("Pretrain", "weight sync").', LINE),
                "basis": _text(
                    "One line on how you found it (default: who reported it, over MCP).", LINE
                ),
                "section": _text("Where it stands in the notes it belongs to.", LINE),
            },
            ("subject", "statement", "source", "locator", "quote"),
        ),
        writes=True,
    ),
)
_SPECS = {t.name: t for t in TOOLS}


@dataclass(frozen=True)
class ResourceInfo:
    """A resource as the server lists it."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str = MIME


@dataclass
class ClaimsTools:
    """The tools and resources over one database (`db`: a path or URL, as --db takes it). `agent`: the name
    the server was started with; `person`: who it acts for (None: nobody named)."""

    db: str | None
    agent: str | None = None
    person: str | None = None
    read_only: bool = False
    max_writes_per_minute: int = DEFAULT_MAX_WRITES
    clock: Callable[[], float] = time.monotonic
    _engine: Any = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _writes: deque = field(default_factory=deque, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_writes_per_minute < 1:
            raise BadQuery(
                "the write cap is at least 1 claim a minute (a server that records nothing is read-only)"
            )

    # --- what is offered ----------------------------------------------------------------------

    def tools(self) -> list[ToolSpec]:
        """The tools this server lists: without add_claim when read-only."""
        return [t for t in TOOLS if not (t.writes and self.read_only)]

    def open(self) -> bool:
        """Open the database if there is one, refusing one at another schema revision (DatabaseProblem);
        False when there is none yet."""
        if db.current_revision(db.make_engine(db.resolve_url(self.db))) is None:
            return False
        self._engine = db.open_engine(self.db, create=False)
        return True

    # --- calls --------------------------------------------------------------------------------

    def call(
        self, name: str, arguments: Any, *, client: tuple[object, object] = (None, None)
    ) -> dict[str, Any]:
        """Run one tool: its result as JSON-ready values, or a ClaimsError (nothing written). `client`: the
        MCP client's name and version as it gave them."""
        spec = _SPECS.get(name)
        if spec is None:
            raise BadQuery(
                f"no tool {shown(name)} (tools: {', '.join(t.name for t in self.tools())})"
            )
        if spec.writes and self.read_only:
            raise ReadOnly(name)
        args = _arguments(spec, arguments)
        with self._lock:
            if spec.writes:
                return _plain(self._add_claim(args, client))
            with self._session() as session:
                return _plain(getattr(self, "_" + name)(session, **args))

    def _trace(self, session: Session, figure: str, limit: int = PAGE) -> dict[str, Any]:
        return queries.trace(session, figure, limit=limit)

    def _show(self, session: Session, key: str) -> dict[str, Any]:
        return queries.show(session, key)

    def _search(
        self,
        session: Session,
        limit: int = PAGE,
        offset: int = 0,
        text: str | None = None,
        **filters: str,
    ) -> dict[str, Any]:
        chosen = ClaimFilter(search=text, **filters).apply(select(Claim.id))
        total = session.scalar(select(func.count()).select_from(chosen.subquery()))
        page = list(session.scalars(chosen.order_by(Claim.key).offset(offset).limit(limit)))
        following = offset + limit if offset + limit < total else None
        return {
            "total": total,
            "offset": offset,
            "limit": limit,
            "next_offset": following,
            "claims": [v.to_json() for v in views.load(session, page)],
        }

    def _values(self, session: Session, quantity: str | None = None) -> dict[str, Any]:
        return {"quantities": queries.values(session, quantity)}

    def _sources(self, session: Session, key: str | None = None) -> dict[str, Any]:
        return (
            {"source": sources.show(session, key)}
            if key is not None
            else {"sources": queries.list_sources(session)}
        )

    def _add_claim(self, args: dict[str, Any], client: tuple[object, object]) -> dict[str, Any]:
        reporter = SoftwareAgent.named(*client, name=self.agent, person=self.person)
        self._check_rate()
        fields = {
            "subject": args["subject"],
            "statement": args["statement"],
            "figures": args.get("figures", []),
            "tag": AGENT_TAG,
            "stage": args.get("stage"),
            "section": args.get("section"),
            "basis": args.get("basis") or BASIS,
            "locator": args["locator"],
            "quote": args["quote"],
        }
        with self._session(create=True) as session:
            source = args["source"].strip()
            if http_url(source) is None and sources.get_source(session, source).kind == "note":
                raise InvalidRecord(
                    ORIGIN,
                    None,
                    "source",
                    f"{source!r} is a note, not a page: give the page the "
                    "figure was read in (its URL registers it)",
                )
            added = store.add_claim(
                session,
                fields,
                source=source,
                actor=reporter.actor,
                origin=ORIGIN,
                detail={"agent": reporter.detail()},
            )
            view = queries.claim_views(
                session, [queries.get_claim(session, added["key"])], events=None
            )[0]
            existing = queries.same_subject(
                session, view.subject, [as_quantity(f) for f in view.figures], exclude=view.key
            )
        self._writes.append(self.clock())
        return {
            **added,
            "trust": view.trust,
            "actor": reporter.actor,
            "claim": view.to_json(),
            "duplicates": sum(e["relation"] == queries.DUPLICATE for e in existing),
            "contradictions": sum(e["relation"] == queries.CONTRADICTION for e in existing),
            "existing": existing[:PAGE],
            "reread": reread_hint(view.key, page_to_reread(view.sources)),
        }

    def _check_rate(self) -> None:
        now = self.clock()
        while self._writes and now - self._writes[0] >= WINDOW_S:
            self._writes.popleft()
        if len(self._writes) >= self.max_writes_per_minute:
            raise TooManyWrites(self.max_writes_per_minute, self._writes[0] + WINDOW_S - now)

    # --- resources ----------------------------------------------------------------------------

    def resources(self, offset: int = 0) -> tuple[list[ResourceInfo], int | None]:
        """The resources, a page at a time: the unverified list first, then one per claim in key order.
        Returns the page and the offset of the next one (None on the last)."""
        with self._lock, self._session() as session:
            rows = session.execute(
                select(Claim.key, Claim.subject, Claim.statement, Claim.tag)
                .order_by(Claim.key)
                .offset(offset)
                .limit(RESOURCE_PAGE + 1)
            ).all()
        page = (
            []
            if offset
            else [
                ResourceInfo(
                    UNVERIFIED_URI,
                    "unverified",
                    "Claims nobody has re-read",
                    f"The active claims of unverified trust (the first {RESOURCE_PAGE}, and how many there are): what a "
                    "person still has to re-read before a paper may use them.",
                )
            ]
        )
        page += [
            ResourceInfo(
                CLAIM_URI_PREFIX + key, key, _short(f"{subject}: {statement}"), f"tag {tag}"
            )
            for key, subject, statement, tag in rows[:RESOURCE_PAGE]
        ]
        return page, offset + RESOURCE_PAGE if len(rows) > RESOURCE_PAGE else None

    def read(self, uri: str) -> dict[str, Any]:
        """A resource's contents, as JSON-ready values."""
        with self._lock, self._session() as session:
            if uri == UNVERIFIED_URI:
                ids = views.select_ids(session, ClaimFilter(trust="unverified", status="active"))
                return _plain(
                    {
                        "total": len(ids),
                        "limit": RESOURCE_PAGE,
                        "claims": [v.to_json() for v in views.load(session, ids[:RESOURCE_PAGE])],
                    }
                )
            if uri.startswith(CLAIM_URI_PREFIX):
                return _plain(queries.show(session, uri.removeprefix(CLAIM_URI_PREFIX)))
        raise BadQuery(f"no resource {shown(uri)}: read {UNVERIFIED_URI} or {CLAIM_URI_TEMPLATE}")

    @contextmanager
    def _session(self, *, create: bool = False) -> Iterator[Session]:
        """One transaction; the engine is opened once (a missing database: an error for a read, made by the
        first write that succeeds, as `claims add` makes it)."""
        if self._engine is None and not create and not self.open():
            raise DatabaseProblem(
                f"no claims database at {db.describe_url(db.resolve_url(self.db))} yet: the first "
                "claim added creates it (add_claim), or `claims import` a data file"
            )
        if self._engine is None and create and not self.open():
            # the first claim added makes the store as `claims add` does: in place only if the call succeeds
            with db.session_of(self.db, create=True) as session:
                yield session
            self.open()
            return
        with db.session_scope(self._engine) as session:
            yield session


def _arguments(spec: ToolSpec, arguments: Any) -> dict[str, Any]:
    """A call's arguments checked against the tool's schema (the checks the records do not make: unknown
    and vouching fields, types, required fields, bounds); the records check the rest with their own
    messages, as for `claims add`."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidRecord(ORIGIN, None, None, f"{spec.name} takes an object of named arguments")
    properties = spec.schema["properties"]
    for name in arguments:
        if name in properties:
            continue
        if spec.writes and name in VOUCHING:
            raise AgentCannotVouch(ORIGIN, None, name, f"is not taken: {VOUCHING[name]}")
        shown_name = (
            name if len(name) <= 80 else name[:79] + "…"
        )  # a field's name is the caller's text too
        raise InvalidRecord(
            ORIGIN, None, shown_name, f"unknown field (allowed: {', '.join(properties)})"
        )
    required = spec.schema.get("required", ())
    out: dict[str, Any] = {}
    for name, rule in properties.items():
        value = arguments.get(name)
        if value is None or (isinstance(value, str) and not value.strip() and name in required):
            if name in required:
                why = "is required" if value is None else "must not be empty"
                reason = f"{why}: {_WHY_REQUIRED[name]}" if name in _WHY_REQUIRED else why
                raise InvalidRecord(ORIGIN, None, name, reason)
            continue
        _check(spec, name, rule, value)
        out[name] = value
    return out


def _check(spec: ToolSpec, name: str, rule: dict[str, Any], value: Any) -> None:
    kind = rule["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise InvalidRecord(ORIGIN, None, name, f"must be text, not {type(value).__name__}")
        if not spec.writes and len(value) > rule.get(
            "maxLength", LINE
        ):  # add_claim's: the records' own check
            raise InvalidRecord(
                ORIGIN,
                None,
                name,
                f"is {len(value):,} characters long; the most allowed is {rule['maxLength']:,}",
            )
        if "enum" in rule and value not in rule["enum"]:
            raise InvalidRecord(
                ORIGIN, None, name, f"{shown(value)} is not one of: {', '.join(rule['enum'])}"
            )
    elif kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidRecord(
                ORIGIN, None, name, f"must be a whole number, not {type(value).__name__}"
            )
        low, high = rule["minimum"], rule["maximum"]
        if value < low or value > high:
            bounds = (
                f"{low} or more"  # a count bounded only by what a database holds
                if value < low and high == record_types.MAX_INTEGER
                else f"between {low:,} and {high:,}"
            )
            raise InvalidRecord(ORIGIN, None, name, f"must be {bounds}, not {value}")
    elif kind == "array":
        if not isinstance(value, list):
            raise InvalidRecord(ORIGIN, None, name, "must be a list")
        if len(value) > rule["maxItems"]:
            raise InvalidRecord(
                ORIGIN,
                None,
                name,
                f"has {len(value):,} items; the most allowed is {rule['maxItems']}",
            )
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise InvalidRecord(
                    ORIGIN,
                    None,
                    f"{name}[{i}]",
                    f"must be text (a figure as written), not {type(item).__name__}",
                )


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(value: Any) -> Any:
    """JSON values only (what a row holds as another type, written as text), as the CLI's --format json writes them."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))
