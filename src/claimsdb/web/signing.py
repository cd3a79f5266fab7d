"""Passkeys in the web view: registering one through an invitation link, and signing a re-read with it.

    GET  /passkey?token=T   the invitation's page (`claims people passkey NAME` printed the link)
    POST /passkey/options   the options for navigator.credentials.create, for the invited person
    POST /passkey           the authenticator's response: the passkey is registered (trust.people)
    POST /queue/prepare     a re-read from the queue's form, checked as POST /queue checks it but not
                            recorded: kept here (5 minutes, for this browser session) and answered with
                            assertion options over its message (signatures.reread_message)
    POST /queue/sign        the assertion: verified at this origin, the prepared re-read recorded with it

A passkey belongs to a domain: the page must be opened at http://localhost:PORT (or a --public-name), never
at an IP address. The JSON answers carry {"error": reason} with status 400 when refused.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from claimsdb import db, provenance, reread_page
from claimsdb.errors import BadQuery, ClaimsError
from claimsdb.trust import passkeys, people, signatures
from claimsdb.web import pages, queue_page

PENDING_S = (
    300.0  # a prepared re-read or a begun registration waits this long for the authenticator
)
MOST_PENDING = 256  # the most kept at once (the oldest are dropped first)


@dataclass
class Pending:
    """A re-read prepared for signing (or a registration begun), kept on the server for one session."""

    session: str
    expires: float
    data: dict[str, Any]


class Waiting:
    """What waits for an authenticator, by a random id; taken once, gone after PENDING_S."""

    def __init__(self) -> None:
        self.held: dict[str, Pending] = {}

    def put(self, session: str, data: dict[str, Any], key: str | None = None) -> str:
        now = time.monotonic()
        self.held = {k: p for k, p in self.held.items() if p.expires > now}
        while len(self.held) >= MOST_PENDING:
            self.held.pop(next(iter(self.held)))
        key = key or secrets.token_urlsafe(24)
        self.held[key] = Pending(session, now + PENDING_S, data)
        return key

    def take(self, session: str, key: str) -> dict[str, Any]:
        pending = self.held.pop(key, None)
        if pending is None or pending.expires < time.monotonic() or pending.session != session:
            raise BadQuery(
                "nothing waits for this signature (over 5 minutes?): send the form again"
            )
        return pending.data


def rp_id_of(request: Request) -> str:
    """The site a passkey is made for: the page's host name; BadQuery for an IP address."""
    try:
        return passkeys.check_rp_id((request.url.hostname or "").lower())
    except passkeys.PasskeyError:
        port = request.url.port
        raise BadQuery(
            "a passkey belongs to a domain, not an IP address: open this page at "
            f"http://localhost{f':{port}' if port else ''}{request.url.path}"
            f"{'?' + request.url.query if request.url.query else ''}"
        ) from None


def origin_of(request: Request) -> str:
    return f"http://{request.headers.get('host', '')}"


def refused(exc: Exception) -> JSONResponse:
    message = exc.message if isinstance(exc, ClaimsError) else str(exc)
    return JSONResponse({"error": message}, status_code=400)


def signs_with_passkey(session, reader: str | None) -> bool:
    """Whether the queue's Record signs with a passkey: the reader has one, or signatures are required."""
    reg = people.load(session)
    return reader is not None and (bool(reg.passkeys_of(reader)) or reg.required)


class Signing:
    """The routes above, over the site's engine, guard and session cookie (web.app.Site)."""

    def __init__(self, site: Any) -> None:
        self.site = site
        self.waiting = Waiting()

    def _session(self, request: Request) -> str:
        return request.cookies.get(self.site.session_cookie(request), "")

    async def page(self, request: Request) -> Response:
        token = request.query_params.get("token", "")
        try:
            rp_id_of(request)
            invited = await run_in_threadpool(self.site.read, people.invitation, token)
        except BadQuery as exc:
            return self.site.page(
                request, "passkey.html", 400, error=exc.message, token="", name=""
            )
        return self.site.page(
            request, "passkey.html", error=None, token=token, name=invited["name"]
        )

    async def options(self, request: Request) -> Response:
        fields = await self.site.form(request)
        token = fields.get("token", "")
        try:
            rp_id = rp_id_of(request)
            options = await run_in_threadpool(self.site.read, _registration, token, rp_id)
        except (BadQuery, passkeys.PasskeyError) as exc:
            return refused(exc)
        self.waiting.put(self._session(request), options[1], key="register:" + token)
        return JSONResponse(options[0])

    async def register(self, request: Request) -> Response:
        fields = await self.site.form(request)
        token = fields.get("token", "")
        try:
            rp_id = rp_id_of(request)
            state = self.waiting.take(self._session(request), "register:" + token)
            response = json.loads(fields.get("response", ""))
            row = await run_in_threadpool(
                _complete, self.site.engine, token, state, response, origin_of(request), rp_id
            )
        except (ClaimsError, passkeys.PasskeyError, ValueError) as exc:
            return refused(exc)
        return JSONResponse(
            {
                "message": f"A passkey is registered for {row['name']}: re-reads you record here as "
                f"{row['name']} are signed with it."
            }
        )

    async def prepare(self, request: Request) -> Response:
        fields = await self.site.form(request)
        key, reader = fields.get("key", ""), self.site.reader(request)
        try:
            if reader is None:
                raise BadQuery("say who you are first")
            rp_id = rp_id_of(request)
            entered = await self.site.entered(request, fields)
            entered.required()
            read = None
            if not entered.attesting:  # no session is held while the page is fetched
                read = await run_in_threadpool(
                    reread_page.read_page,
                    self.site.engine,
                    key,
                    entered.source.strip() or None,
                    self.site.store,
                    self.site.fetch_limits,
                )
            prepared = await run_in_threadpool(
                _prepare, self.site.engine, key, reader, entered, read
            )
            options = await run_in_threadpool(
                self.site.read, _assertion, reader, prepared.message, rp_id
            )
        except (ClaimsError, passkeys.PasskeyError) as exc:
            return refused(exc)
        data = {
            "key": key,
            "reader": reader,
            "entered": entered,
            "read": read,
            "at": prepared.event["at"],
            "message": prepared.message,
            "kept": fields,
        }
        wait = self.waiting.put(self._session(request), data)
        return JSONResponse({"id": wait, "options": options})

    async def sign(self, request: Request) -> Response:
        fields = await self.site.form(request)
        try:
            data = self.waiting.take(self._session(request), fields.get("id", ""))
            if data["reader"] != self.site.reader(request):
                raise BadQuery("the reader changed since the re-read was prepared: send it again")
            record = passkeys.assertion_record(json.loads(fields.get("assertion", "")))
            signer = signatures.Passkey(
                data["at"], data["message"], record, origin_of(request), rp_id_of(request)
            )
            await run_in_threadpool(
                self.site.read,
                queue_page.record_reread,
                data["key"],
                data["reader"],
                data["entered"],
                data["read"],
                signer,
            )
        except (ClaimsError, passkeys.PasskeyError, ValueError) as exc:
            return refused(exc)
        kept = [(k, v) for k, v in pages.Filters.from_query(data["kept"]).params() if k != "status"]
        target = pages.href("/queue", [("after", data["key"]), ("done", data["key"]), *kept])
        return JSONResponse({"redirect": target})


def _registration(session, token: str, rp_id: str) -> tuple[dict, dict]:
    name = people.invitation(session, token)["name"]
    existing = [p["credential"] for p in people.load(session).passkeys_of(name)]
    return passkeys.registration_options(name, rp_id, "claimsdb", existing)


def _complete(engine, token, state, response, origin, rp_id) -> dict[str, Any]:
    with db.session_scope(engine) as session:
        name = people.invitation(session, token)["name"]
        credential = passkeys.complete_registration(
            state, response, origin=origin, rp_id=rp_id, name=name
        )
        return people.register_passkey(session, token, credential, rp_id)


def _prepare(engine, key: str, reader: str, entered, read) -> signatures.Prepared:
    """The re-read's event as POST /queue would record it (every check made), then rolled back."""
    try:
        with db.session_scope(engine) as session:
            provenance.reread(
                session, key, actor=reader, **entered.fields(), read=read, sign=signatures.Prepare()
            )
    except signatures.Prepared as prepared:
        return prepared
    raise BadQuery(f"{key}: the re-read could not be prepared")  # reread always stops at the signer


def _assertion(session, reader: str, message: bytes, rp_id: str) -> dict:
    mine = [
        p["credential"] for p in people.load(session).passkeys_of(reader) if p["rp_id"] == rp_id
    ]
    if not mine:
        raise BadQuery(
            f"no passkey is registered for {reader} on {rp_id}: a registered person invites you with "
            f'`claims people passkey "{reader}" --sign-with KEY`'
        )
    return passkeys.assertion_options(message, rp_id, mine)
