"""What every bibliography format is read into: an entry, validated by the rules of a data file's source,
and the record building the formats share (citation keys, names, DOIs, kinds)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from claimsdb.errors import InvalidEntry, InvalidRecord, shown
from claimsdb.escaping import CITE_KEY_PATTERN
from claimsdb.records.types import MAX_KEY, MAX_LINE, SourceRecord
from claimsdb.records.validation import source_record
from claimsdb.sources import guess_kind

FORMATS = ("bibtex", "csl-json")
# Bounds for a file that may come from anywhere: far above a paper's bibliography (a thousand entries
# are about 1 MB), low enough that reading the worst file stays quick.
MAX_FILE_BYTES = 5_000_000
MAX_ENTRIES = 10_000
MAX_FIELD = 20_000  # characters of one field as written, before decoding
MAX_NESTING = 32  # braces within braces in one field (the decoder recurses into each group)


@dataclass(frozen=True)
class Entry:
    """One entry, read and validated: the source it registers, how messages name it, and which of the
    file's fields each source field came from (an error names the file's field)."""

    record: SourceRecord
    label: str
    spelled: dict[str, str]


@dataclass(frozen=True)
class Bibliography:
    file: str
    format: str
    entries: tuple[Entry, ...]


def source_key(cite_key: str) -> str:
    """The source key a citation key registers under: lowercase, '-' for what a key cannot hold."""
    key = re.sub(r"[^a-z0-9._-]+", "-", cite_key.lower()).lstrip("._-")
    return key or "source"


def source_fields(
    cite_key: str, url: str | None, title: str | None, kind: str, **rest: str | None
) -> dict[str, Any]:
    """A source's fields from an entry: keyed by its citation key, titled by its URL or its key when it
    has no title."""
    return {
        "key": source_key(cite_key),
        "cite_key": cite_key,
        "url": url,
        "title": title or url or cite_key,
        "kind": kind,
        **rest,
    }


def validated(fields: dict[str, Any], name: str, label: str, spelled: dict[str, str]) -> Entry:
    """The entry as a source record, checked by the data files' rules; an error names the file's field."""
    try:
        record = source_record(
            {k: v for k, v in fields.items() if v is not None}, file=name, label=label
        )
    except InvalidRecord as exc:
        raise InvalidEntry(
            name, label, spelled.get(exc.field or "", exc.field), exc.reason
        ) from None
    return Entry(record, label, spelled)


def cite_key_of(key: Any, name: str, label: str, spelled: str) -> str:
    if isinstance(key, str) and re.match(
        r"[a-z][a-z0-9+.-]*://", key, re.I
    ):  # Zotero's item address
        raise InvalidEntry(
            name,
            label,
            spelled,
            f"{shown(key)} is an address, not a citation key: give each item "
            "its citation-key (Zotero: export with Better BibTeX, or fill in the Citation Key field)",
        )
    if not isinstance(key, str) or not CITE_KEY_PATTERN.fullmatch(key) or len(key) > MAX_KEY:
        raise InvalidEntry(
            name,
            label,
            spelled,
            f"{shown(key)} is not a citation key: use letters, digits and "
            "_ : . + / -, starting with a letter or digit (it is written as is into LaTeX and BibTeX)",
        )
    return key


def one_line(text: str | None) -> str | None:
    """Text on one line (BibTeX reads a line break or a no-break space as a space); None when empty."""
    if text is None:
        return None
    return " ".join(text.split()) or None


def authors(names: list[str]) -> str | None:
    """Names joined as BibTeX joins them; past what a source's authors may hold, the first ones "and others"."""
    kept: list[str] = []
    room = MAX_LINE - len(" and others")
    for n in names:
        if len(" and ".join([*kept, n])) > room:
            return " and ".join([*kept, "others"])
        kept.append(n)
    return " and ".join(kept) or None


def doi_url(doi: str) -> str:
    """https://doi.org/ and the DOI, however it was written (bare, doi:..., or a doi.org address)."""
    bare = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi.strip(), flags=re.I)
    return "https://doi.org/" + quote(bare, safe="/:;()._-+")


def kind_of(kinds: dict[str, str], entry_type: str, url: str | None) -> str:
    kind = kinds.get(entry_type.lower())
    return kind or (guess_kind(url) if url else "other")
