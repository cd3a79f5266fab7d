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
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from claimsdb import db, queries, sources, store, views
from claimsdb.errors import (
    BadQuery,
    DatabaseProblem,
    InvalidRecord,
    ReadOnly,
    TooManyWrites,
    shown,
)
from claimsdb.escaping import http_url
from claimsdb.figures import as_quantity
from claimsdb.mcp_answers import (
    BUDGET_BYTES,
    COMPACT,
    ROOM,
    claim_form,
    compact,
    fitting,
    size,
    within,
)
from claimsdb.mcp_schema import ORIGIN, PAGE, SPECS, TOOLS, VOUCHING, ToolSpec, arguments
from claimsdb.mcp_tokens import Holder
from claimsdb.models import Claim
from claimsdb.queries import ClaimFilter
from claimsdb.trust.agents import SoftwareAgent
from claimsdb.trust.rule import page_to_reread, reread_hint

__all__ = ["TOOLS", "VOUCHING", "ClaimsTools", "ResourceInfo", "ToolSpec"]

AGENT_TAG = "agent-reported"  # the one tag an agent over MCP records
DEFAULT_MAX_WRITES = 30  # claims added a minute, by default
WINDOW_S = 60.0
RESOURCE_PAGE = (
    100  # at most the claims a resources/list page names, or a page of the unverified resource
)
UNVERIFIED_URI = "claims://unverified"
CLAIM_URI_PREFIX = "claims://claim/"
CLAIM_URI_TEMPLATE = CLAIM_URI_PREFIX + "{key}"
MIME = "application/json"
BASIS = (
    "An AI agent's report over MCP; nobody has re-read the page yet."  # when the agent gives none
)


@dataclass(frozen=True)
class ResourceInfo:
    """A resource as the server lists it."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str = MIME


RESOURCE_FIELDS = dict.fromkeys(("size", "icons", "annotations", "meta", "_meta", "mimeType"))
UNVERIFIED = ResourceInfo(
    UNVERIFIED_URI,
    "unverified",
    "Claims nobody has re-read",
    "The active claims of unverified trust, in brief and a page at a time (`next` names the next page's "
    "URI): what a person still has to re-read before a paper may use them.",
)


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

    def tools(self, holder: Holder | None = None) -> list[ToolSpec]:
        """The tools this server lists (to the holder of this token, over HTTP): without add_claim when
        read-only."""
        read_only = self.read_only or (holder is not None and holder.read_only)
        return [t for t in TOOLS if not (t.writes and read_only)]

    def open(self) -> bool:
        """Open the database if there is one, refusing one at another schema revision (DatabaseProblem);
        False when there is none yet."""
        if db.current_revision(db.make_engine(db.resolve_url(self.db))) is None:
            return False
        self._engine = db.open_engine(self.db, create=False)
        return True

    # --- calls --------------------------------------------------------------------------------

    def call(
        self,
        name: str,
        given: Any,
        *,
        client: tuple[object, object] = (None, None),
        holder: Holder | None = None,
    ) -> dict[str, Any]:
        """Run one tool: its result as JSON-ready values, or a ClaimsError (nothing written). `client`: the
        MCP client's name and version as it gave them; `holder`: whom the bearer token stands for (over
        HTTP: its agent is the one recorded, and a read-only token writes nothing)."""
        spec = SPECS.get(name)
        if spec is None:
            raise BadQuery(
                f"no tool {shown(name)} (tools: {', '.join(t.name for t in self.tools())})"
            )
        if spec.writes and spec not in self.tools(holder):
            if self.read_only or holder is None:
                raise ReadOnly(name)
            raise ReadOnly(name, f"the token of agent {holder.agent!r} is read-only")
        args = arguments(spec, given)
        with self._lock:
            if spec.writes:
                agent = holder.agent if holder is not None else self.agent
                return within(_plain(self._add_claim(args, client, agent)))
            with self._session() as session:
                answer = _plain(getattr(self, "_" + name)(session, **args))
        return within(answer, args.get("key") if name == "show" else None)

    def _trace(
        self,
        session: Session,
        figure: str,
        limit: int = PAGE,
        offset: int = 0,
        detail: str = COMPACT,
    ) -> dict[str, Any]:
        traced = queries.trace(session, figure, limit=offset + limit)
        form = claim_form(detail)

        def row(match: dict[str, Any]) -> dict[str, Any]:
            brief = {**match, "claim": form(match["claim"])}
            return brief if detail != COMPACT else {**brief, "figure": match["figure"]["raw"]}

        rows = [row(m) for m in traced.pop("matches")[offset:]]
        nearest = [row(m) for m in traced.pop("nearest")]
        n = fitting(rows, room=BUDGET_BYTES - ROOM - size(nearest) - size(traced))
        following = offset + n if offset + n < traced["total"] else None
        return {
            **traced,
            "offset": offset,
            "next_offset": following,
            "detail": detail,
            "matches": rows[:n],
            "nearest": nearest,
        }

    def _show(self, session: Session, key: str) -> dict[str, Any]:
        return queries.show(session, key)

    def _search(
        self,
        session: Session,
        limit: int = PAGE,
        offset: int = 0,
        text: str | None = None,
        detail: str = COMPACT,
        **filters: str,
    ) -> dict[str, Any]:
        chosen = ClaimFilter(search=text, **filters).apply(select(Claim.id))
        total = session.scalar(select(func.count()).select_from(chosen.subquery()))
        ids = list(session.scalars(chosen.order_by(Claim.key).offset(offset).limit(limit)))
        return _page(views.load(session, ids), total, offset, limit, detail)

    def _values(self, session: Session, quantity: str | None = None) -> dict[str, Any]:
        return {"quantities": queries.values(session, quantity)}

    def _sources(self, session: Session, key: str | None = None) -> dict[str, Any]:
        return (
            {"source": sources.show(session, key)}
            if key is not None
            else {"sources": queries.list_sources(session)}
        )

    def _add_claim(
        self, args: dict[str, Any], client: tuple[object, object], agent: str | None
    ) -> dict[str, Any]:
        reporter = SoftwareAgent.named(*client, name=agent, person=self.person)
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
            meant_as_key = http_url(source) is None and "://" not in source
            if meant_as_key and sources.get_source(session, source).kind == "note":
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
            "claim": compact(view.to_json()),
            "duplicates": sum(e["relation"] == queries.DUPLICATE for e in existing),
            "contradictions": sum(e["relation"] == queries.CONTRADICTION for e in existing),
            "existing": [{**e, "claim": compact(e["claim"])} for e in existing[:PAGE]],
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
        """The resources, a page at a time within the budget: the unverified list first, then one per
        claim in key order. Returns the page and the offset of the next one (None on the last)."""
        with self._lock, self._session() as session:
            rows = session.execute(
                select(Claim.key, Claim.subject, Claim.statement, Claim.tag)
                .order_by(Claim.key)
                .offset(offset)
                .limit(RESOURCE_PAGE + 1)
            ).all()
        first = [] if offset else [UNVERIFIED]
        claims = [
            ResourceInfo(
                CLAIM_URI_PREFIX + key, key, _short(f"{subject}: {statement}"), f"tag {tag}"
            )
            for key, subject, statement, tag in rows[:RESOURCE_PAGE]
        ]
        # each as the protocol lists it: with the optional fields it writes as null (size, icons, ...)
        n = fitting(
            [{**asdict(r), **RESOURCE_FIELDS} for r in claims],
            room=BUDGET_BYTES - ROOM - size(first and asdict(UNVERIFIED)),
        )
        more = n < len(claims) or len(rows) > RESOURCE_PAGE
        return first + claims[:n], offset + n if more else None

    def read(self, uri: str) -> dict[str, Any]:
        """A resource's contents, as JSON-ready values within the budget."""
        with self._lock, self._session() as session:
            if uri == UNVERIFIED_URI or uri.startswith(UNVERIFIED_URI + "?offset="):
                offset = _offset_in(uri)
                ids = views.select_ids(session, ClaimFilter(trust="unverified", status="active"))
                chosen = ids[offset : offset + RESOURCE_PAGE]
                page = _page(views.load(session, chosen), len(ids), offset, RESOURCE_PAGE, COMPACT)
                following = page.pop("next_offset")
                page["next"] = None if following is None else f"{UNVERIFIED_URI}?offset={following}"
                return _plain(page)
            if uri.startswith(CLAIM_URI_PREFIX):
                key = uri.removeprefix(CLAIM_URI_PREFIX)
                return within(_plain(queries.show(session, key)), key)
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


def _offset_in(uri: str) -> int:
    """The offset a paged resource's URI names (0 when it names none)."""
    _, _, offset = uri.partition("?offset=")
    if not offset:
        return 0
    if not (offset.isascii() and offset.isdigit() and len(offset) <= 9):
        raise BadQuery(f"no resource {shown(uri)}: the offset is a whole number of claims")
    return int(offset)


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(value: Any) -> Any:
    """JSON values only (what a row holds as another type, written as text), as the CLI's --format json writes them."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _page(claims: Any, total: int, offset: int, limit: int, detail: str) -> dict[str, Any]:
    """A page of claims (ClaimViews, in order) in the form `detail` names, as many as fit the budget."""
    form = claim_form(detail)
    rows = [form(v.to_json()) for v in claims]
    n = fitting(rows)
    return {
        "total": total,
        "offset": offset,
        "limit": limit,
        "next_offset": offset + n if offset + n < total else None,
        "detail": detail,
        "claims": rows[:n],
    }
