"""Importing data files into the store: all or nothing, idempotent, and never over a person's word.

The doors of an import: `import_files` (data files and JSON Lines, streamed), `import_data` (records
already read) and `add_claim` (one claim, `claims add` and MCP's). Each validates every record against
the database, plans (import_plan: added, updated, unchanged, conflicts, who vouches) and applies the plan
(import_write) in the caller's transaction, batch by batch (importer); a dry run is rolled back by the
caller.

A data file owns a claim's content (subject, statement, figures, its own evidence) and, until a person
records something, its tag and status. A person's tag or status is kept and the difference reported.
When the file changes the content of a claim whose verified tag rests on a person's re-read, the
change is applied, the re-read stays in the history, and the claim is reported: that re-read no longer
covers what the claim says, so it is not paper-safe until it is re-read again (history.derive).

Records come in through a channel (`Channel`), which decides what they may vouch for. An agent channel
(`claims add`, JSON Lines on standard input or in a .jsonl file, any later agent interface such as an MCP
server: pass `AGENT`) records what was reported, nothing more: tags of unverified trust only, no tag
definitions, no re-reads, no preferred value, no change to a source or a quantity, no new name for a
subject whose claims are vouched for, nor a change to a claim whose tag a person set above unverified.
A data file never changes a source, a quantity or aliases that a person set or a re-read names
(importer.kept): the difference is a conflict.
A data file read from a path (JSON or CSV) may declare secondary tags and define tags of any trust, but a
claim with a verified tag must name the person who re-read it (`reread`), and the import records that
re-read as the person's event, as `claims reread` would.
"""

from __future__ import annotations

import gc
import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from claimsdb import records
from claimsdb.errors import BadQuery
from claimsdb.importer.plan import ImportPlan
from claimsdb.importer.stream import Importer
from claimsdb.models import Claim, Tag
from claimsdb.records.stated import with_stated_figures
from claimsdb.records.types import DataFile
from claimsdb.records.validation import claim_record
from claimsdb.trust.channels import AGENT, DATA_FILE, Channel, channel_of
from claimsdb.trust.identity import TOOL_ACTOR

__all__ = ["AGENT", "DATA_FILE", "Channel", "ImportPlan", "channel_of"]

IMPORT_ACTOR = TOOL_ACTOR  # the tool, never a person (trust.identity.person_name refuses it)


def import_files(
    session: Session,
    paths: Sequence[str],
    *,
    dry_run: bool = False,
    actor: str = IMPORT_ACTOR,
    progress: Callable[[int], None] | None = None,
) -> ImportPlan:
    """Import data files in the caller's transaction, streamed: records are read, checked and written
    in batches, so a JSON Lines file of any length takes bounded memory. A bad record raises
    InvalidRecord; the caller's transaction then rolls back whatever was written (all or nothing). A
    dry run plans and writes like a real one; the caller rolls it back. `progress(n)` is told of each
    batch of n claims done."""
    names = [records.STDIN_NAME if str(p) == records.STDIN else str(p) for p in paths]
    channels = {name: channel_of(str(p)) for name, p in zip(names, paths, strict=True)}
    importer = Importer(session, names, channels, dry_run=dry_run, actor=actor, progress=progress)
    with _no_cycle_collection():
        for path in paths:
            for entry in records.entries(path):
                importer.feed(entry)
        return importer.finish()


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """An import makes millions of small objects and no reference cycles: Python's cycle collector
    would walk them all again and again (a third of the time at 100,000 claims). Reference counting
    still frees everything as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def import_data(
    session: Session,
    files: Sequence[DataFile],
    *,
    channel: Channel,
    dry_run: bool = False,
    actor: str = IMPORT_ACTOR,
    detail: dict[str, Any] | None = None,
) -> ImportPlan:
    """Import records already read and validated (`claims add`; an agent interface passes AGENT), with
    the same rules and history. `detail`: more the claims' events record (who the software agent was)."""
    recorded: list[tuple[str, tuple[Any, ...]]] = [
        (f.path, (*f.claims, *f.tags, *f.sources)) for f in files
    ]
    channels = {
        name: channel for path, recs in recorded for name in (path, *(r.file for r in recs))
    }
    importer = Importer(
        session, [f.path for f in files], channels, dry_run=dry_run, actor=actor, detail=detail
    )
    for f in files:
        kinds: tuple[tuple[str, Sequence[Any]], ...] = (
            ("tag", f.tags),
            ("source", f.sources),
            ("quantity", f.quantities),
            ("claim", f.claims),
        )
        for kind, recs in kinds:
            for i, rec in enumerate(recs):
                label = getattr(rec, "record_name", "") or repr(_key_of(rec))
                importer.feed(_Validated(kind, f.path, i, label, rec))
    return importer.finish()


@dataclass(frozen=True)
class _Validated:
    """An entry whose record is already validated (it has no stored digest to skip by)."""

    kind: str
    file: str
    index: int
    label: str
    rec: Any

    @property
    def key(self) -> str | None:
        return _key_of(self.rec)

    def record(self) -> Any:
        return self.rec

    def digest(self) -> str | None:
        return None


def _key_of(rec: Any) -> str:
    return str(getattr(rec, "key", None) or getattr(rec, "name", ""))


ADD_ORIGIN = "claims add"
MCP_ORIGIN = "claims mcp"  # mcp_tools.ORIGIN: the door whose refusals name its tools


def add_claim(
    session: Session,
    fields: dict[str, Any],
    *,
    source: str,
    actor: str,
    origin: str = ADD_ORIGIN,
    detail: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Record one claim from the command line (an agent's or a script's), or from another agent door
    (`origin`: "claims mcp"), with the same validation and history as an import. It is an agent channel
    (AGENT): the tag must be of unverified trust, since a figure rises above that only when a person
    re-reads it. The source is a key or a URL (registered on the spot). Its figures are the statement's
    (records.stated): read from it when none are given, refused when it does not state one. `detail`:
    more the claim's event records (the software agent that reported it)."""
    from claimsdb import sources as registry

    tag = session.get(Tag, fields["tag"])
    if tag is None:
        known = ", ".join(sorted(session.scalars(select(col(Tag.name)))))
        raise BadQuery(f"unknown tag {fields['tag']!r} (known: {known})")
    src, registered = registry.resolve(session, source)
    key = fields.get("key") or derive_claim_key(fields["subject"], fields["statement"])
    record = {
        **{k: v for k, v in fields.items() if v not in (None, [], "")},
        "key": key,
        "evidence": [
            {"source": src.key, "locator": fields.get("locator"), "quote": fields.get("quote")}
        ],
    }
    record.pop("locator", None)
    record.pop("quote", None)
    rec = with_stated_figures(claim_record(record, file=origin, label=repr(key)))
    if session.scalars(select(col(Claim.id)).where(col(Claim.key) == key)).first() is not None:
        raise _stored_already(key, derived=not fields.get("key"), origin=origin)
    import_data(
        session, [DataFile(origin, (), (), (rec,))], channel=AGENT, actor=actor, detail=detail
    )
    return {
        "key": key,
        "tag": rec.tag,
        "source": src.key,
        "source_registered": registered,
        "figures": [f.quantity.raw for f in rec.figures],
        # none given: the figures are the statement's, as read (records.stated)
        "figures_read": bool(rec.figures) and not fields.get("figures"),
    }


def _stored_already(key: str, *, derived: bool, origin: str) -> BadQuery:
    """The refusal of a claim added under a key the store holds, in words for the door it came through
    (the command line, MCP): none of them has a data file, and adding never changes a stored claim."""
    read = (
        f'call show with {{"key": "{key}"}}' if origin == MCP_ORIGIN else f"run `claims show {key}`"
    )
    if derived:  # the key comes from the subject and the statement: the same claim was added before
        return BadQuery(
            f"the store holds this claim already, as {key!r} (the same subject and statement): nothing "
            f"was added; {read} for its tag and sources, and state a different figure in a "
            "statement of its own"
        )
    return BadQuery(
        f"a claim with key {key!r} exists, and adding never changes a stored claim: nothing was added; "
        f"{read} for it, and give this claim another key, or none to have one derived from its "
        "subject and statement"
    )


def derive_claim_key(subject: str, statement: str) -> str:
    """A stable key for a claim added without one: the subject's words and a hash of the statement."""
    words = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")[:40].rstrip("-") or "claim"
    return f"{words}.{hashlib.sha256(statement.encode('utf-8')).hexdigest()[:8]}"
