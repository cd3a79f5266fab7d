"""Sources from the command line: register a page, show one, and turn a URL into a registered source.

`claims sources add` and a URL given to `claims reread --source` or `claims add --source` end here.
Every field goes through the same validation as a data file's source (record_validation.source_record).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import func, select
from sqlmodel import Session, col

from claimsdb import definitions
from claimsdb.errors import BadQuery, InvalidField, InvalidRecord
from claimsdb.escaping import http_url, http_url_problem, without_user
from claimsdb.models import Claim, Event, Evidence, Snapshot, Source
from claimsdb.records.types import SourceRecord
from claimsdb.records.validation import source_record
from claimsdb.trust.channels import label_of

MAX_DERIVED_KEY = 60
COMMAND_LINE = "command line"
# A URL's host or path says what kind of page it is often enough to be a useful default.
KIND_HINTS = (
    (
        re.compile(r"(^|\.)arxiv\.org$|(^|\.)openreview\.net$|(^|\.)aclanthology\.org$"),
        None,
        "paper",
    ),
    (re.compile(r"(^|\.)github\.com$|(^|\.)gitlab\.com$"), re.compile(r"readme", re.I), "readme"),
    (re.compile(r"(^|\.)github\.com$|(^|\.)gitlab\.com$"), None, "code"),
    (re.compile(r"(^|\.)readthedocs\.io$|^docs\."), None, "docs"),
    (re.compile(r"(^|\.)medium\.com$|^blog\.|(^|\.)substack\.com$"), None, "blog"),
    (re.compile(r""), re.compile(r"/blog/", re.I), "blog"),
)


def normalize_url(url: str) -> str:
    """The form two spellings of one page share: lowercase scheme and host, no fragment, no trailing '/'."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def guess_kind(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    for host_pattern, path_pattern, kind in KIND_HINTS:
        if host_pattern.search(host) and (path_pattern is None or path_pattern.search(parts.path)):
            return kind
    return "other"


def derive_key(url: str, taken: set[str]) -> str:
    """A source key from a URL: host (without www.) and path, lowercase, '-' between words; unique."""
    parts = urlsplit(url)
    host = (parts.hostname or "source").removeprefix("www.")
    words = re.sub(r"[^a-z0-9]+", "-", f"{host} {parts.path}".lower()).strip("-")
    words = re.sub(r"-(html?|md|mdx|pdf)$", "", words)
    base = words[:MAX_DERIVED_KEY].rstrip("-") or "source"
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    return key


def get_source(session: Session, key: str) -> Source:
    src = session.scalars(select(Source).where(Source.key == key)).first()
    if src is None:
        raise BadQuery(f"unknown source {key!r} (see `claims sources`)")
    definitions.ensure_registered(session, "source", [key])  # never one changed outside claims
    return src


def find_by_url(session: Session, url: str) -> Source | None:
    wanted = normalize_url(url)
    for src in session.scalars(select(Source).where(Source.url.is_not(None))):
        if normalize_url(src.url) == wanted:
            definitions.ensure_registered(session, "source", [src.key])
            return src
    return None


def add_source(session: Session, fields: dict[str, Any]) -> Source:
    """Register one source from command-line fields; refuses a key or a URL that is already registered."""
    if fields.get("path"):
        path = Path(fields["path"]).expanduser()
        if not path.is_file():
            raise InvalidField("path", f"{fields['path']}: no such file")
        fields = {**fields, "path": str(path.resolve())}
    try:
        record = source_record(
            {k: v for k, v in fields.items() if v is not None}, file=COMMAND_LINE
        )
    except InvalidRecord as exc:
        raise BadQuery(f"{exc.field or 'source'}: {exc.reason}") from None
    if record.url is None and record.path is None and record.kind != "note":
        raise BadQuery("a source needs a URL or a path (only a note may have neither)")
    if session.scalars(select(Source.id).where(Source.key == record.key)).first() is not None:
        raise BadQuery(
            f"a source with key {record.key!r} exists: `claims sources show {record.key}`"
        )
    if record.url is not None:
        same = find_by_url(session, record.url)
        if same is not None:
            raise BadQuery(f"{record.url} is registered already, as {same.key!r}")
    return _insert(session, record, "by-hand")


# Who registered a source, as its definition records it (sources.add_source, sources.resolve).
_ACTORS = {"by-hand": "claims sources add", "url": "claims (an address registered as a source)"}


def _insert(session: Session, record: SourceRecord, origin: str) -> Source:
    src = Source(**record.fields(), origin=origin)
    session.add(src)
    session.flush()
    definitions.define_sources(session, [record.fields()], _ACTORS[origin])
    return src


def resolve(session: Session, key_or_url: str) -> tuple[Source, bool]:
    """A source named by its key, or by a URL: a URL not registered yet is registered on the spot
    (key derived from it, title the URL itself, kind guessed). Returns (source, whether it is new)."""
    if http_url(key_or_url) is None:
        if (
            "://" in key_or_url
        ):  # meant as an address (no source key holds "://"): say what is wrong with it
            raise InvalidField(
                "source", f"{without_user(key_or_url)}: {http_url_problem(key_or_url)}"
            )
        return get_source(session, key_or_url.strip()), False
    url = key_or_url.strip()
    found = find_by_url(session, url)
    if found is not None:
        return found, False
    taken = set(session.scalars(select(Source.key)))
    fields = {"key": derive_key(url, taken), "title": url, "kind": guess_kind(url), "url": url}
    try:
        record = source_record(fields, file=COMMAND_LINE)
    except InvalidRecord as exc:
        raise InvalidField("source", f"{url}: {exc.reason}") from None
    return _insert(session, record, "url"), True


def _import_origins(session: Session, keys: list[str]) -> dict[str, str | None]:
    """Where each claim's content last came from: the origin of its latest import event."""
    from claimsdb.history import IMPORT_KINDS

    found: dict[str, str | None] = {}
    for i in range(0, len(keys), 500):
        latest = (
            select(func.max(col(Event.id)))
            .join(Claim, col(Claim.id) == col(Event.claim_id))
            .where(col(Claim.key).in_(keys[i : i + 500]), col(Event.kind).in_(IMPORT_KINDS))
            .group_by(col(Event.claim_id))
        )
        rows = session.execute(
            select(col(Claim.key), col(Event.origin))
            .join(Event, col(Event.claim_id) == col(Claim.id))
            .where(col(Event.id).in_(latest))
        )
        found.update({key: origin for key, origin in rows})
    return found


def show(session: Session, key: str) -> dict[str, Any]:
    """One source: its fields, the claims citing it, and its snapshots (newest first)."""
    src = get_source(session, key)
    citing = session.execute(
        select(Claim.key, Claim.tag, Evidence.locator, Evidence.quote, Evidence.event_id)
        .join(Evidence, Evidence.claim_id == Claim.id)
        .where(Evidence.source_id == src.id)
        .order_by(Claim.key)
    ).all()
    snapshots = session.scalars(
        select(Snapshot).where(Snapshot.source_id == src.id).order_by(Snapshot.id.desc()).limit(5)
    ).all()
    origins = _import_origins(session, [c.key for c in citing if c.event_id is None])
    count = session.execute(
        select(func.count()).select_from(Snapshot).where(Snapshot.source_id == src.id)
    ).scalar()
    return {
        **{k: getattr(src, k) for k in SourceRecord.model_fields},
        "origin": src.origin,
        "claims": [
            {
                "key": c.key,
                "tag": c.tag,
                "locator": c.locator,
                "quote": c.quote,
                "added_by": "re-read" if c.event_id is not None else label_of(origins.get(c.key)),
            }
            for c in citing
        ],
        "snapshots": count,
        "latest_snapshots": [
            {
                "fetched_at": s.fetched_at,
                "outcome": s.outcome,
                "status": s.status,
                "sha256": s.content_sha256,
            }
            for s in snapshots
        ],
    }
