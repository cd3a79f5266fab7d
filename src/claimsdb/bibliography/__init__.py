"""Sources from a paper's bibliography: `claims sources import refs.bib`.

A BibTeX or BibLaTeX file is read by bibtexparser 2 (the splitter, `@string` references, braces and
quotes, co-authors and the parts of each name) and its fields decoded from LaTeX to Unicode by
pylatexenc, the decoder bibtexparser itself uses; CSL-JSON is read as Zotero exports it (a list of
items). Each entry becomes a source registered under its citation key: the key the paper's `\\cite{}`
already uses is the source's `cite_key`, and its source key is that key in lowercase.

Every entry is read and validated (record_validation.source_record, the rules of a data file's source) before
anything is written: a bad entry stops the import, naming the file, the entry and the field. Then the
entries are matched to the registered sources (by citation key, source key, then URL) in one
transaction: new ones are added, a bibliography's own sources are updated to what the file says now,
and a source registered another way (by hand, by a data file, from a URL) is never changed silently:
a difference is a Conflict, applied only when the caller asks (`update_manual`).

Modules: `entries` (an entry and the record building the formats share), `bibtex`, `csl_json`,
`importing` (matching entries to registered sources); here, `read`.
"""

from __future__ import annotations

from pathlib import Path

from claimsdb.bibliography.bibtex import bibtex_entries
from claimsdb.bibliography.csl_json import csl_entries
from claimsdb.bibliography.entries import FORMATS, MAX_FILE_BYTES, Bibliography, Entry
from claimsdb.bibliography.importing import ORIGIN, Conflict, ImportReport, import_bibliography
from claimsdb.errors import InvalidEntry, shown

__all__ = [
    "FORMATS",
    "ORIGIN",
    "Bibliography",
    "Conflict",
    "Entry",
    "ImportReport",
    "import_bibliography",
    "read",
]


def read(path: str | Path, fmt: str | None = None) -> Bibliography:
    """A bibliography file, every entry validated. `fmt`: one of FORMATS, else told by the extension
    (.bib, .json) or, failing that, by the first character (`[` for CSL-JSON)."""
    name = str(path)
    text = _text_of(Path(path), name)
    fmt = fmt or _format_of(name, text)
    if fmt not in FORMATS:
        raise InvalidEntry(
            name,
            None,
            None,
            f"{shown(fmt)} is not a bibliography format: use {' or '.join(FORMATS)}",
        )
    entries = bibtex_entries(text, name) if fmt == "bibtex" else csl_entries(text, name)
    if not entries:
        raise InvalidEntry(
            name, None, None, "holds no entries" + (" (is it BibTeX?)" if fmt == "bibtex" else "")
        )
    return Bibliography(name, fmt, tuple(entries))


def _text_of(path: Path, name: str) -> str:
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InvalidEntry(name, None, None, "not a file")
        if size > MAX_FILE_BYTES:
            raise InvalidEntry(
                name,
                None,
                None,
                f"is {size:,} bytes; a bibliography may have at most {MAX_FILE_BYTES:,}",
            )
        return path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    except FileNotFoundError:
        raise InvalidEntry(name, None, None, "no such file") from None
    except UnicodeDecodeError as exc:
        raise InvalidEntry(
            name, None, None, f"not UTF-8 text (byte {exc.start:,}): save it as UTF-8"
        ) from None
    except OSError as exc:
        raise InvalidEntry(name, None, None, f"cannot be read: {exc.strerror}") from None


def _format_of(name: str, text: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in (".bib", ".bibtex", ".biblatex"):
        return "bibtex"
    if suffix in (".json", ".csljson"):
        return "csl-json"
    return "csl-json" if text.lstrip().startswith("[") else "bibtex"
