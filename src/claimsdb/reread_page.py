"""The page a re-read is checked against, read before anything is recorded: the latest snapshot of the
page (from `claims verify` or the queue's fetch button), else the page fetched now under verify's fetch
policy (its snapshot kept, as verify keeps it), or a local copy the person names (HTML, Markdown, PDF or
text: a page behind a login, a printed report scanned to PDF).

No database lock is held while a page is fetched: `read_page` reads the store, fetches with no session
open, then keeps the snapshot in a short write of its own. What it returns, a `PageRead`, is what the
re-read event records as the page it was checked against (`checked`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlmodel import Session

from claimsdb import sources
from claimsdb.errors import BadQuery, InvalidField
from claimsdb.escaping import http_url
from claimsdb.fetching.snapshots import SnapshotStore
from claimsdb.models import Source
from claimsdb.views import ClaimView


@dataclass(frozen=True)
class PageRead:
    """The text of the page a re-read names, and where it was read: `how` is "snapshot" (the latest
    one), "fetched" (now) or "copy" (a local copy the person named); `text` is None when the page
    could not be had, and `error` says why."""

    page: str  # the page as named: a source key, or a URL not registered yet
    how: str
    text: str | None
    sha256: str | None = None
    at: str | None = None  # when the snapshot was fetched
    where: str | None = None  # the URL or the copy's path
    error: str | None = None

    def checked(self, outcome: str) -> dict[str, Any]:
        """What the re-read event records of the page it was checked against."""
        return {
            "how": self.how,
            "sha256": self.sha256,
            "at": self.at,
            "where": self.where,
            "outcome": outcome,
        }

    def describe(self) -> str:
        if self.how == "copy":
            return f"the local copy {self.where}"
        if self.how == "fetched":
            return f"{self.page} fetched now ({str(self.at)[:19]}Z)"
        return f"the latest snapshot of {self.page} ({str(self.at)[:19]}Z)"


def read_snapshot(session: Session, source: Source, store: SnapshotStore) -> PageRead | None:
    """The latest snapshot of a source with its text, or None when there is none (or its body is gone)."""
    from claimsdb.verification import _text, latest_snapshot

    assert source.id is not None  # a stored source
    snap = latest_snapshot(session, source.id)
    if snap is None or snap.content_sha256 is None or not store.has(snap.content_sha256):
        return None
    text, error = _text(store, snap.content_sha256, snap.content_type, snap.url or source.key)
    return PageRead(
        source.key, "snapshot", text, snap.content_sha256, str(snap.fetched_at), snap.url, error
    )


def read_page(
    engine: Any,
    key: str,
    page: str | None,
    store: SnapshotStore,
    limits: Any = None,
    *,
    copy: Path | None = None,
) -> PageRead:
    """The page a re-read of `key` names (`page`: a source key or a URL; None: the claim's primary page),
    read for the check: the local copy named, else the latest snapshot, else fetched now (`limits`: verify's
    fetch limits and policy). Refuses (BadQuery) a claim or page that cannot be named; a page that cannot
    be had is returned with `text` None and the reason."""
    from claimsdb import db
    from claimsdb.queries import claim_views, get_claim

    with db.session_scope(engine) as session:
        claim = get_claim(session, key)
        view = claim_views(session, [claim], events=0)[0]
        src, named = named_page(session, view, page)
        if copy is None and src is not None:
            kept = read_snapshot(session, src, store)
            if kept is not None:
                return kept
        target = (src.key, src.url, src.path) if src is not None else (named, named, None)
    if copy is not None:
        return _read_copy(target[0], copy, store, limits)
    return _fetch(engine, src.id if src is not None else None, target, store, limits)


def _read_copy(page: str, copy: Path, store: SnapshotStore, limits: Any) -> PageRead:
    """A local copy the person names: read under the fetch rules (a regular file, no /proc or /dev),
    from its own folder, and kept in the snapshot folder by its hash."""
    from claimsdb.fetching.fetch import FetchLimits, FetchRequest, fetch_all
    from claimsdb.fetching.targets import FetchPolicy

    path = copy.expanduser()
    if not path.is_file():
        raise BadQuery(f"--copy {copy}: no such file")
    path = path.resolve()
    base = limits or FetchLimits()
    mine = FetchLimits(
        timeout_s=base.timeout_s,
        max_bytes=base.max_bytes,
        policy=FetchPolicy(local_root=path.parent),
    )
    result = fetch_all([FetchRequest(source=page, path=str(path))], mine)[0]
    return _kept(page, "copy", result, store, str(path))


def _fetch(
    engine: Any,
    source_id: int | None,
    target: tuple[str, str | None, str | None],
    store: SnapshotStore,
    limits: Any,
) -> PageRead:
    """Fetch the page now (no session open) and keep its snapshot, as `claims verify` would."""
    from claimsdb import db
    from claimsdb.fetching.fetch import FetchLimits, FetchRequest, fetch_all
    from claimsdb.verification import snapshot_row

    page, url, path = target
    if url is None and path is None:
        return PageRead(page, "fetched", None, error="the page has no URL and no local copy")
    result = fetch_all([FetchRequest(source=page, url=url, path=path)], limits or FetchLimits())[0]
    read = _kept(page, "fetched", result, store, result.url or url or path)
    if source_id is not None and result.outcome == "fetched":
        with db.session_scope(engine) as session:
            session.add(
                snapshot_row(
                    source_id,
                    result,
                    read.sha256,
                    len(result.content or b""),
                    result.content_type,
                    etag=result.etag,
                )
            )
    return read


def _kept(page: str, how: str, result: Any, store: SnapshotStore, where: str | None) -> PageRead:
    """A fetch's body kept in the snapshot folder, with its text (or why there is none)."""
    from claimsdb.verification import _text

    if result.outcome != "fetched" or result.content is None:
        return PageRead(page, how, None, where=where, error=result.error or "nothing fetched")
    sha = store.put(result.content)
    text, error = _text(store, sha, result.content_type, where or page)
    return PageRead(page, how, text, sha, result.fetched_at, where, error)


def refuse_note(kind: str, name: str) -> None:
    """A note is not a page: a re-read checks the page the figure comes from."""
    if kind == "note":
        raise BadQuery(
            f"{name!r} is a note, not a primary page: a re-read checks the page the figure comes from"
        )


def named_page(session: Session, view: ClaimView, source: str | None) -> tuple[Source | None, str]:
    """The page a re-read is recorded against, resolved once: the one named (a key, or a URL: None
    when no source has it yet, registered only when the re-read is recorded), else the claim's
    primary page. Returns (source or None, the name given)."""
    if source is None:
        if view.primary_source is None:
            raise InvalidField(
                "source",
                f"is needed: {view.key} cites no primary page (name the page you re-read: "
                "its URL, or a key from `claims sources add`)",
            )
        return sources.get_source(session, view.primary_source), view.primary_source
    if http_url(source) is not None:
        found = sources.find_by_url(session, source)
        if found is None:
            refuse_note(sources.guess_kind(source.strip()), source.strip())
            return None, source.strip()
    else:
        found, _ = sources.resolve(session, source)  # a key, or an address refused as not one
    refuse_note(found.kind, found.key)
    return found, source
