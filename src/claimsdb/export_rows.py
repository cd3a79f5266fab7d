"""The rows an export writes (`ExportRow`) and the running tally of them (`Rows`): what the manifest
counts, the digest of their canonical form, and the rows themselves, spooled to disk past
MEMORY_ROWS so a million-claim export never holds them all.

A whole-store export may read its second half on another core (halves.py): the worker gathers its
rows into a `Rows` of its own that writes every row and its canonical text to files (`Rows.spooled`),
and the command's `Rows.adopt` takes them in after its own, in order, as if it had read them itself.
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from claimsdb import canonical
from claimsdb.trust.rule import RereadPage

NAMED_NOTES_ONLY = 5  # the claims that cite only notes an export names (all are counted)
_CHUNK = 1 << 20  # bytes read at a time from an adopted half's files


@dataclass
class ExportRow:
    key: str
    subject: str
    stage: str | None
    statement: str
    figures: list[str]  # as written
    citations: list[
        dict[str, Any]
    ]  # sources to cite: key, cite_key, title, url, kind, publisher, date, authors, accessed
    tag: str
    trust: str | None
    paper_safe: bool
    reread_page: RereadPage | None = None  # the page a person should re-read to clear it
    stale: bool = False  # verified, but the latest verification no longer finds it as recorded
    outdated: str | None = None  # verified, but changed since the re-read: why
    figure_names: list[str | None] = field(default_factory=list)  # the figures' optional names
    quantity: str | None = None  # the quantity it states, when several claims compete on it
    label: str | None = None  # the short phrase a grid cell shows instead of the figures
    reread_check: str | None = None  # how its re-read met the page (views.ClaimView.reread_check)
    attested: str | None = (
        None  # its re-read is an attestation: the reason the page was not checked
    )
    unsigned: str | None = None  # why its re-read does not vouch, once signatures are required
    signed_by: str | None = None  # the fingerprint of the key that signed the re-read it stands on
    observation: bool = False  # about no one system: listed, never a row of a grid (grids)

    def canonical(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "subject": self.subject,
            "stage": self.stage,
            "statement": self.statement,
            "label": self.label,
            "figures": self.figures,
            "citations": [c["cite_key"] for c in self.citations],
            "tag": self.tag,
            "trust": self.trust,
            "paper_safe": self.paper_safe,
        }


NAMED_ATTESTED = 1000  # attested rows a manifest names, with their reasons (all are counted)


# json.dumps(row, sort_keys=True, ensure_ascii=False), its encoder built once (canonical.encoder)
_ROW_TEXT = canonical.encoder(sort_keys=True, separators=(", ", ": "))


class Rows:
    """The rows an export writes, in order, with what the manifest counts of them, gathered as they are
    added. Past MEMORY_ROWS they are kept on disk (pickled), so an export of a million claims never holds
    them all; iterate it as often as a renderer needs, `len()` counts them.

    `Rows(folder)` is a worker's (halves.py): every row goes to `folder`'s rows file and its canonical
    text to its texts file, for the command's `adopt` to take in after its own rows."""

    MEMORY_ROWS = 10_000
    TALLY = (
        "_count",
        "counts_by_tag",
        "not_re_read",
        "stale",
        "notes_only",
        "notes_only_count",
        "attested",
        "attested_count",
        "unchecked",
        "signed_by",
    )

    def __init__(self, folder: Path | None = None) -> None:
        self._memory: list[ExportRow] = []
        self._file: Any = None
        self._texts: BinaryIO | None = None
        self._adopted: list[Path] = []  # a worker's rows files, read after this command's own
        self._kept: list[Any] = []  # and what removes their folders once these rows are let go
        if folder is not None:
            self._file = open(folder / "rows", "wb")  # noqa: SIM115 (closed by `close`)
            self._texts = open(folder / "texts", "wb")  # noqa: SIM115
        self._count = 0
        self.counts_by_tag: dict[str, int] = {}
        self.not_re_read = 0
        self.stale: list[
            ExportRow
        ] = []  # written rows the latest verification no longer finds: few
        self.notes_only: list[str] = []  # the first few written claims whose only sources are notes
        self.notes_only_count = 0
        # written rows whose re-read is an attestation (key, reason), and how many rest on a re-read
        # recorded before re-reads were checked against the page
        self.attested: list[dict[str, str]] = []  # the first NAMED_ATTESTED
        self.attested_count = 0
        self.unchecked = 0
        # the keys whose signed re-reads vouch for written rows: fingerprint -> how many rows
        self.signed_by: dict[str, int] = {}
        self._canonical = hashlib.sha256()

    def append(self, row: ExportRow) -> None:
        # The digest of json.dumps([r.canonical() for r in rows], sort_keys=True), built a row at a time.
        text = ((", " if self._count else "[") + _ROW_TEXT(row.canonical())).encode("utf-8")
        if self._texts is not None:
            self._texts.write(text[1:] if not self._count else text)
        else:
            self._canonical.update(text)
        self._count += 1
        self.counts_by_tag[row.tag] = self.counts_by_tag.get(row.tag, 0) + 1
        self.not_re_read += not row.paper_safe
        if row.stale:
            self.stale.append(row)
        if row.attested is not None:
            self.attested_count += 1
            if len(self.attested) < NAMED_ATTESTED:
                self.attested.append({"key": row.key, "reason": row.attested})
        self.unchecked += row.reread_check == "unchecked"
        if row.signed_by is not None:
            self.signed_by[row.signed_by] = self.signed_by.get(row.signed_by, 0) + 1
        if row.citations and not references(row):
            self.notes_only_count += 1
            if len(self.notes_only) < NAMED_NOTES_ONLY:
                self.notes_only.append(row.key)
        if self._file is None and len(self._memory) < self.MEMORY_ROWS:
            self._memory.append(row)
            return
        if self._file is None:
            self._file = tempfile.TemporaryFile()
        pickle.dump(row, self._file, pickle.HIGHEST_PROTOCOL)

    def tally(self) -> dict[str, Any]:
        """What the manifest counts of these rows (a worker's, for `adopt`); closes a worker's files."""
        for f in (self._file, self._texts):
            if f is not None:
                f.close()
        return {name: getattr(self, name) for name in self.TALLY}

    def adopt(self, folder: Path, tally: dict[str, Any], *, keep: Any = None) -> None:
        """Take in the rows a worker wrote to `folder` (`Rows(folder)`, then its `tally()`), after every row
        of this one, as if they had been appended here one by one. `keep`: what removes the folder once
        let go (these rows hold it for as long as they are read)."""
        if not tally["_count"]:
            return
        self._kept.append(keep)
        self._canonical.update(b", " if self._count else b"[")
        with open(folder / "texts", "rb") as texts:
            while chunk := texts.read(_CHUNK):
                self._canonical.update(chunk)
        self._adopted.append(folder / "rows")
        self._count += tally["_count"]
        self.not_re_read += tally["not_re_read"]
        self.notes_only_count += tally["notes_only_count"]
        self.attested_count += tally["attested_count"]
        self.unchecked += tally["unchecked"]
        self.stale += tally["stale"]
        self.notes_only = (self.notes_only + tally["notes_only"])[:NAMED_NOTES_ONLY]
        self.attested = (self.attested + tally["attested"])[:NAMED_ATTESTED]
        for mine, theirs in (
            (self.counts_by_tag, tally["counts_by_tag"]),
            (self.signed_by, tally["signed_by"]),
        ):
            for k, n in theirs.items():
                mine[k] = mine.get(k, 0) + n

    @property
    def content_sha256(self) -> str:
        done = self._canonical.copy()
        done.update(b"]" if self._count else b"[]")
        return done.hexdigest()

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[ExportRow]:
        yield from self._memory
        if self._file is not None:
            self._file.flush()
            self._file.seek(0)
            yield from _unpickled(self._file)
        for path in self._adopted:
            with open(path, "rb") as f:
                yield from _unpickled(f)


def _unpickled(f: BinaryIO) -> Iterator[ExportRow]:
    while True:
        try:
            yield pickle.load(f)
        except EOFError:
            return


def references(row: ExportRow, *, cite_notes: bool = False) -> list[dict[str, Any]]:
    """The citations a paper's bibliography holds for a row (`\\cite{}` and the .bib): its published
    sources. A note is the team's own, not a reference: it is cited only when the user asks (--cite-notes)."""
    return [c for c in row.citations if cite_notes or c["kind"] != "note"]
