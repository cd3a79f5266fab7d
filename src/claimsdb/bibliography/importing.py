"""Registering a bibliography's entries as sources, in the caller's transaction: new ones added, a
bibliography's own sources updated, a source registered another way never changed silently."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from claimsdb import definitions
from claimsdb.bibliography.entries import Bibliography, Entry
from claimsdb.errors import InvalidEntry
from claimsdb.importer.known import DATA_FILE_ORIGIN
from claimsdb.models import Source
from claimsdb.sources import normalize_url

ORIGIN = "bibliography"  # source.origin of the sources an import registers (models.SOURCE_ORIGINS)
ACTOR = "claims sources import"  # who defined them (claimsdb.definitions)
# The fields an import owns on a source it registered; `key` and `path` stay as they are.
OWNED = ("title", "kind", "url", "publisher", "date", "cite_key", "authors", "accessed")


@dataclass
class Conflict:
    """A registered source the entry would change, left as it is: registered another way (its origin),
    or its URL already names another source (`reason`). `fields`: field -> (registered, the file's)."""

    key: str
    entry: str
    origin: str | None
    fields: dict[str, tuple[Any, Any]]
    reason: str | None = None


_COUNTED = ("added", "updated", "unchanged", "conflicts", "without_url")


@dataclass
class ImportReport:
    file: str
    format: str
    added: list[str] = field(default_factory=list)
    updated: dict[str, list[str]] = field(default_factory=dict)  # source key -> the fields changed
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    without_url: list[str] = field(
        default_factory=list
    )  # registered, but verify has no page to fetch
    dry_run: bool = False

    def counts(self) -> dict[str, int]:
        return {name: len(getattr(self, name)) for name in _COUNTED}


def import_bibliography(
    session: Session, bib: Bibliography, *, update_manual: bool = False
) -> ImportReport:
    """Register the bibliography's entries as sources, in the caller's transaction; see the module's doc."""
    report = ImportReport(bib.file, bib.format)
    stored = list(session.scalars(select(Source)))
    # a row changed outside claims is not taken as registered (nor its change defined by this import)
    definitions.ensure_registered(session, "source", [s.key for s in stored])
    by_cite = {s.cite_key or s.key: s for s in stored}
    by_key = {s.key: s for s in stored}
    by_url = {normalize_url(s.url): s for s in stored if s.url}
    named: dict[
        int, str
    ] = {}  # the sources matched so far (by identity) -> the entry that matched them
    for entry in bib.entries:
        rec = entry.record
        url = normalize_url(rec.url) if rec.url else None
        src = by_cite.get(rec.cite_key) or by_key.get(rec.key) or (by_url.get(url) if url else None)
        if src is not None and id(src) in named:
            raise InvalidEntry(
                bib.file,
                entry.label,
                entry.spelled.get("url", "key"),
                f"names the same source ({src.key!r}) as entry {named[id(src)]}: keep one of them",
            )
        if rec.url is None:
            report.without_url.append(rec.key if src is None else src.key)
        if src is None:
            src = Source(**rec.fields(), origin=ORIGIN)
            session.add(src)
            report.added.append(rec.key)
        else:
            _update(src, entry, by_url, report, update_manual)
        named[id(src)] = entry.label
        by_cite[rec.cite_key] = by_key[src.key] = src
        if src.url:
            by_url[normalize_url(src.url)] = src
    session.flush()
    written = [*report.added, *(k for k in report.updated if k not in report.added)]
    definitions.define_sources(session, [by_key[k].model_dump() for k in written], ACTOR)
    return report


def _update(
    src: Source, entry: Entry, by_url: dict[str, Source], report: ImportReport, update_manual: bool
) -> None:
    rec = entry.record
    ours = src.origin == ORIGIN
    changes = {}
    for f in OWNED:
        old, new = getattr(src, f), getattr(rec, f)
        if f == "cite_key" and (old or src.key) == new:
            continue
        if old != new and (
            ours or (new is not None and f != "kind")
        ):  # another's fields are kept if we have none
            changes[f] = (old, new)
    if not changes:
        report.unchanged.append(src.key)
        return
    same_page = by_url.get(normalize_url(rec.url)) if "url" in changes and rec.url else None
    if same_page is not None and same_page is not src:
        report.conflicts.append(
            Conflict(
                src.key,
                entry.label,
                src.origin,
                changes,
                f"its new URL is registered already, as {same_page.key!r}",
            )
        )
        return
    if not ours and not update_manual:
        report.conflicts.append(Conflict(src.key, entry.label, src.origin, changes))
        return
    for f, (_old, new) in changes.items():
        setattr(src, f, new)
    if src.origin == DATA_FILE_ORIGIN:
        # the bibliography's fields now stand: later data-file imports keep them (a conflict, exit 1)
        # instead of setting them back; a source registered by hand or from a URL keeps its origin
        src.origin = ORIGIN
    report.updated[src.key] = list(changes)
