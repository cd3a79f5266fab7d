"""The ASGI application of `claims serve` (Starlette): routes, forms, cookies, and the one place where
errors become pages.

    GET  /                 the stage grid (subjects by stages), a page of subjects at a time, filterable
    GET  /claims           the claims as a list, a page at a time, filterable (tag, trust, stage, subject, status,
                           stale); both take ?page=N&size=K
    GET  /claims/{key}     one claim: figures, sources, located passages, verification, competing values, history
    GET  /queue            the re-read queue: one claim that is not paper-safe beside its page's located
                           passage, filterable like the list; ?quote=SENTENCE picks the quote from the
                           page's text
    POST /queue            record the re-read (provenance.reread), checked against the page's text (its
                           latest snapshot, else fetched now under the server's fetch policy), then the
                           next claim; a refusal comes back with the form and what the page says
    POST /queue/fetch      "Fetch the page now": `claims verify` of one claim (verification.run, under the
                           server's fetch policy), then the same claim with its passage
    POST /queue/prepare, /queue/sign   the same re-read signed with the reader's passkey (web.signing)
    GET  /passkey?token=T, POST /passkey/options, POST /passkey   register a passkey by invitation
    GET  /reader, POST /reader   who is recording (unless the server was started with --by)
    GET  /static/claims.css, /static/passkey.js, /static/webpass.js

Every request runs in a worker thread with its own session (db.session_scope); writes are checked by
guard.Csrf, clients and Host names by guard.Guard.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlencode, urlsplit

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from claimsdb import db, reread_page, verification
from claimsdb.errors import (
    ClaimsError,
    FieldError,
    InvalidName,
    NotFound,
    TamperedHistory,
    UnknownClaim,
)
from claimsdb.fetching.snapshots import SnapshotStore
from claimsdb.figures.quantity import FIELDS as FIGURE_FIELDS
from claimsdb.selection import Memo
from claimsdb.trust.identity import MAX_NAME, person_name
from claimsdb.trust.rule import Policy
from claimsdb.web import drawing, pages, queue_page, signing
from claimsdb.web.guard import Access, Csrf, Guard, Refused

MAX_BODY = 64 * 1024  # a re-read form is a few hundred bytes
# The forms' label of each field a domain error may name (errors.FieldError): the forms show these very words.
LABELS = {
    "reader": "Your name",
    "source": "Page re-read",
    "locator": "Locator",
    "quote": "Quote",
    "note": "Note",
    "attest": "Attestation",
    "trust": "Trust",
    "status": "Status",
}
FETCH_TIMEOUT_S = 10.0  # "Fetch the page now": a whole fetch, redirects and body included, per page
YEAR_S = 365 * 24 * 3600
SCRIPTS = ("passkey.js", "webpass.js")  # served from web/static: passkeys (signing.py)
STATUS_OF = ((UnknownClaim, 404), (NotFound, 404), (TamperedHistory, 409))


@dataclass(frozen=True)
class Settings:
    """What `claims serve` was started with."""

    db: str | None = None
    sources_dir: Path | None = None  # the snapshots' folder; None: the database's (db.files_folder)
    reader: str | None = None  # --by: every re-read is recorded as this person
    strict: bool = False
    access: Access = field(default_factory=Access)
    # What "Fetch the page now" may fetch: `claims verify`'s policy (verify.policy.FetchPolicy); None: its
    # defaults, public addresses only and local copies inside the database's folder.
    fetch_policy: Any = None
    fetch_timeout: float = FETCH_TIMEOUT_S


def reader_name(text: str | None) -> str | None:
    """The reader's name a cookie holds, checked as every name is (trust.identity.person_name); None when it
    holds none or one that is not a name."""
    try:
        return person_name(text, field="reader") if text else None
    except InvalidName:
        return None


def local_path(target: str | None, default: str = "/queue") -> str:
    """A redirect target of this server only: a path, never another host ("//evil", "https://...")."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else default


class Site:
    """The routes' shared state: the engine, the policy, the snapshot store, the CSRF secret."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.engine = db.open_engine(
            settings.db
        )  # a database at another revision fails here, at start
        self.policy = Policy(strict=settings.strict)
        self.store = SnapshotStore(
            settings.sources_dir or db.files_folder(db.resolve_url(settings.db))
        )
        self.csrf = Csrf()
        self.memo = (
            Memo()
        )  # what only a new event changes (outdated claims, stages), kept between requests
        with db.session_scope(self.engine) as session:  # at start, not on the first visitor's page
            self.memo.facts(session)
        drawing.compile_templates()
        # --by: checked once, at start (InvalidName reaches the command line, which names the flag)
        self.fixed_reader = (
            person_name(settings.reader, field="reader") if settings.reader is not None else None
        )
        self.fetch_limits = self._fetch_limits()
        self.signing = signing.Signing(self)

    def _fetch_limits(self):
        from claimsdb.fetching.fetch import FetchLimits
        from claimsdb.fetching.targets import FetchPolicy

        policy = self.settings.fetch_policy
        if policy is None:
            database = db.sqlite_file(db.resolve_url(self.settings.db))
            policy = FetchPolicy(local_root=database.parent if database is not None else None)
        return FetchLimits(timeout_s=self.settings.fetch_timeout, policy=policy)

    # -- requests ------------------------------------------------------------------------------------

    # One of each cookie per server: a browser sends the cookies of 127.0.0.1 to every port, so another
    # `claims serve` (another store) would otherwise take this one's session or record under its reader.
    # The reader's cookie of earlier releases ("claims_reader", shared by every port) is not read.
    def session_cookie(self, request: Request) -> str:
        return f"claims_session_{request.url.port or 0}"

    def reader_cookie(self, request: Request) -> str:
        return f"claims_reader_{request.url.port or 0}"

    def reader(self, request: Request) -> str | None:
        if self.fixed_reader is not None:
            return self.fixed_reader
        return reader_name(unquote(request.cookies.get(self.reader_cookie(request), "")))

    def read(self, fn, *args, **kwargs):
        """Run a pages.* function in one session (worker thread: the database is not async)."""
        with db.session_scope(self.engine) as session:
            return fn(session, *args, **kwargs)

    async def form(self, request: Request) -> dict[str, str]:
        """The posted form, after the same-origin check and the token check."""
        form = await request.form(max_files=0, max_fields=32)
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        host, server = request.headers.get("host"), request.scope.get("server")
        port = server[1] if server else None

        def origin_allowed(origin: str) -> bool:
            return self.settings.access.origin_allowed(origin, host, port)

        self.csrf.check(
            method="POST",
            origin_allowed=origin_allowed,
            headers=request.headers,
            session=request.cookies.get(self.session_cookie(request)),
            token=fields.get("csrf"),
        )
        return fields

    def page(
        self, request: Request, template: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        cookie = self.session_cookie(request)
        session = request.cookies.get(cookie)
        fresh = not self.csrf.valid_session(session)
        if fresh:
            session = self.csrf.new_session()
        html = drawing.render(
            template,
            csrf=self.csrf.token(session),
            reader=self.reader(request),
            reader_fixed=self.settings.reader is not None,
            policy=self.policy.describe(),
            max_name=MAX_NAME,
            labels=LABELS,
            **context,
        )
        response = HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})
        if fresh:
            response.set_cookie(cookie, session, httponly=True, samesite="strict")
        return response

    def error(
        self,
        request: Request,
        status: int,
        message: str,
        heading: str | None = None,
        suggestions: tuple[str, ...] = (),
    ) -> HTMLResponse:
        """An error page; `suggestions`: claim keys to offer as links ("Did you mean")."""
        return self.page(
            request,
            "error.html",
            status,
            code=status,
            heading=heading or f"Error {status}",
            message=message,
            retry=None,
            suggestions=[(k, claim_path(k)) for k in suggestions],
        )

    # -- routes --------------------------------------------------------------------------------------

    async def overview(self, request: Request, layout: str) -> Response:
        params = request.query_params
        filters = pages.Filters.from_query(params)
        path = request.url.path
        if layout == "grid":
            paging = pages.Paging.from_query(params, default=pages.GRID_SIZE, most=pages.GRID_MOST)
            data = await run_in_threadpool(
                self.read, pages.grid_page, self.memo, filters, paging, self.policy, path
            )
        else:
            paging = pages.Paging.from_query(params, default=pages.LIST_SIZE, most=pages.LIST_MOST)
            data = await run_in_threadpool(
                self.read, pages.claims_page, self.memo, filters, paging, self.policy, path
            )
        heading = "Stage grid" if layout == "grid" else "Claims"
        status = 404 if data["pager"].past_the_end else 200
        return self.page(
            request,
            "overview.html",
            status,
            layout=layout,
            heading=heading,
            action=path,
            href=claim_href,
            queue=pages.href("/queue", queue_params(filters)),
            **data,
        )

    async def grid(self, request: Request) -> Response:
        return await self.overview(request, "grid")

    async def claims(self, request: Request) -> Response:
        return await self.overview(request, "list")

    async def claim(self, request: Request) -> Response:
        data = await run_in_threadpool(
            self.read, pages.claim_page, request.path_params["key"], self.policy, self.store
        )
        return self.page(request, "claim.html", read_as=read_as, **data)

    async def queue_item(self, filters: pages.Filters, **which: Any) -> dict[str, Any]:
        """The queue page's claim (by key, after a key, or the first waiting) and its counts."""
        return await run_in_threadpool(
            self.read,
            queue_page.queue_item,
            self.memo,
            self.policy,
            self.store,
            filters=filters,
            **which,
        )

    async def queue(self, request: Request) -> Response:
        params = request.query_params
        filters = pages.Filters.from_query(params)
        data = await self.queue_item(
            filters, key=params.get("key"), after=params.get("after"), picked=params.get("quote")
        )
        done = (
            await run_in_threadpool(self.read, queue_page.recorded, params["done"])
            if params.get("done")
            else None
        )
        fetched = (
            await run_in_threadpool(self.read, queue_page.last_check, params["fetched"])
            if params.get("fetched")
            else None
        )
        return self.page(
            request,
            "queue.html",
            passkey=await self.passkey_signs(request),
            done=done,
            error=None,
            fetched=fetched,
            **queue_links(filters),
            **data,
        )

    async def fetch(self, request: Request) -> Response:
        """`claims verify KEY` from the queue: the same run (verification.run) under the server's fetch policy;
        it records verifications only, never a tag. Then the same claim, with what the fetch found."""
        fields = await self.form(request)
        key = fields.get("key", "")
        kept = queue_params(pages.Filters.from_query(fields))
        await run_in_threadpool(verification.run, self.engine, [key], self.store, self.fetch_limits)
        return RedirectResponse(
            pages.href("/queue", [("key", key), ("fetched", key), *kept]), status_code=303
        )

    async def entered(self, request: Request, fields: dict[str, str]) -> queue_page.Entered:
        """The re-read form's fields as the person sent them."""
        return queue_page.Entered(
            **{k: fields.get(k, "") for k in ("source", "locator", "quote", "note", "attest")},
            correct=tuple(
                v for v in (await request.form()).getlist("correct") if isinstance(v, str)
            ),
            attesting=bool(fields.get("attesting")),
        )  # request.form() again: the form read once (cached), its repeated field as a list

    async def passkey_signs(self, request: Request) -> bool:
        return await run_in_threadpool(self.read, signing.signs_with_passkey, self.reader(request))

    async def record(self, request: Request) -> Response:
        fields = await self.form(request)
        key = fields.get("key", "")
        filters = pages.Filters.from_query(fields)  # the queue's filters ride along in the form
        kept = queue_params(filters)
        reader = self.reader(request)
        if reader is None:
            return RedirectResponse(
                "/reader?" + urlencode({"next": pages.href("/queue", [("key", key), *kept])}),
                status_code=303,
            )
        entered = await self.entered(request, fields)
        try:
            entered.required()
            read = None
            if not entered.attesting:  # no session is held while the page is fetched
                read = await run_in_threadpool(
                    reread_page.read_page,
                    self.engine,
                    key,
                    entered.source.strip() or None,
                    self.store,
                    self.fetch_limits,
                )
            await run_in_threadpool(self.read, queue_page.record_reread, key, reader, entered, read)
        except ClaimsError as exc:
            if status_for(exc) == 404:
                raise
            data = await self.queue_item(filters, key=key, entered=entered)
            return self.page(
                request,
                "queue.html",
                400,
                passkey=await self.passkey_signs(request),
                done=None,
                error=told(exc),
                fetched=None,
                **queue_links(filters),
                **data,
            )
        return RedirectResponse(
            pages.href("/queue", [("after", key), ("done", key), *kept]), status_code=303
        )

    async def who(self, request: Request) -> Response:
        return self.page(
            request, "reader.html", error=None, next=local_path(request.query_params.get("next"))
        )

    async def set_reader(self, request: Request) -> Response:
        fields = await self.form(request)
        target = local_path(fields.get("next"))
        if self.settings.reader is not None:
            return RedirectResponse(target, status_code=303)
        try:
            name = person_name(fields.get("name", ""), field="reader")
        except InvalidName as exc:
            return self.page(request, "reader.html", 400, error=told(exc), next=target)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            self.reader_cookie(request),
            quote(name),
            max_age=YEAR_S,
            httponly=True,
            samesite="strict",
        )
        return response

    async def script(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in SCRIPTS:
            raise HTTPException(404, "no such script")
        return Response(
            (drawing.HERE / "static" / name).read_text(encoding="utf-8"),
            media_type="text/javascript",
            headers={"cache-control": "no-cache"},
        )

    async def stylesheet(self, request: Request) -> Response:
        return Response(
            drawing.stylesheet(), media_type="text/css", headers={"cache-control": "no-cache"}
        )

    # -- errors: the one mapping point -------------------------------------------------------------

    async def on_claims_error(self, request: Request, exc: ClaimsError) -> Response:
        suggestions = exc.suggestions if isinstance(exc, UnknownClaim) else ()
        return self.error(request, status_for(exc), told(exc), suggestions=suggestions)

    async def on_refused(self, request: Request, exc: Refused) -> Response:
        return self.error(request, exc.status, exc.message, heading="Refused")

    async def on_http(self, request: Request, exc: HTTPException) -> Response:
        return self.error(request, exc.status_code, exc.detail or "")

    async def on_database(self, request: Request, exc: SQLAlchemyError) -> Response:
        return self.error(request, 500, f"database: {getattr(exc, 'orig', None) or exc}")


def told(exc: ClaimsError) -> str:
    """An error's message as a page says it: a field a person typed is named by its form's label."""
    if isinstance(exc, FieldError) and exc.origin is None and exc.field in LABELS:
        return exc.named(LABELS[exc.field])
    return exc.message


def status_for(exc: ClaimsError) -> int:
    return next((status for kind, status in STATUS_OF if isinstance(exc, kind)), 400)


def claim_path(key: str) -> str:
    return "/claims/" + quote(key)


def claim_href(item: drawing.Drawn) -> str:
    return claim_path(item.key)


def queue_params(filters: pages.Filters) -> list[tuple[str, str]]:
    """The filters the queue keeps in its links and its form (it shows active claims only)."""
    return [(name, value) for name, value in filters.params() if name != "status"]


def queue_links(filters: pages.Filters) -> dict[str, Any]:
    """What queue.html needs to keep the filters: the pairs for its hidden fields, and a link maker."""
    kept = queue_params(filters)
    return {"kept": kept, "queue_href": lambda *pairs: pages.href("/queue", [*pairs, *kept])}


def read_as(figure: dict[str, Any]) -> str:
    """A stored figure's parsed fields, briefly: what the parser read in it."""
    parts = []
    for name in FIGURE_FIELDS[FIGURE_FIELDS.index("comparator") :]:
        value = figure.get(name)
        if value in (None, [], "=") or (name in ("start", "end") and figure.get("steps")):
            continue
        if isinstance(value, float):
            value = f"{value:,.6g}"
        elif isinstance(value, list):
            value = " → ".join(f"{v:,.6g}" for v in value)
        parts.append(f"{name} {value}")
    return ", ".join(parts) or "text (no value)"


def create_app(settings: Settings) -> Starlette:
    site = Site(settings)
    routes = [
        Route("/", site.grid, methods=["GET"]),
        Route("/claims", site.claims, methods=["GET"]),
        Route("/claims/{key}", site.claim, methods=["GET"]),
        Route("/queue", site.queue, methods=["GET"]),
        Route("/queue", site.record, methods=["POST"]),
        Route("/queue/fetch", site.fetch, methods=["POST"]),
        Route("/queue/prepare", site.signing.prepare, methods=["POST"]),
        Route("/queue/sign", site.signing.sign, methods=["POST"]),
        Route("/passkey", site.signing.page, methods=["GET"]),
        Route("/passkey", site.signing.register, methods=["POST"]),
        Route("/passkey/options", site.signing.options, methods=["POST"]),
        Route("/reader", site.who, methods=["GET"]),
        Route("/reader", site.set_reader, methods=["POST"]),
        Route("/static/claims.css", site.stylesheet, methods=["GET"]),
        Route("/static/{name}", site.script, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, access=settings.access)],
        exception_handlers={
            ClaimsError: site.on_claims_error,
            Refused: site.on_refused,
            HTTPException: site.on_http,
            SQLAlchemyError: site.on_database,
        },
        max_body_size=MAX_BODY,
    )
    app.state.site = site
    return app
