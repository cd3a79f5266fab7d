"""Sources from a paper's bibliography: `claims sources import refs.bib`.

A BibTeX or BibLaTeX file is read by bibtexparser 2 (the splitter, `@string` references, braces and
quotes, co-authors and the parts of each name) and its fields decoded from LaTeX to Unicode by
pylatexenc, the decoder bibtexparser itself uses; CSL-JSON is read as Zotero exports it (a list of
items). Each entry becomes a source registered under its citation key: the key the paper's `\\cite{}`
already uses is the source's `cite_key`, and its source key is that key in lowercase.

Every entry is read and validated (records.source_record, the rules of a data file's source) before
anything is written: a bad entry stops the import, naming the file, the entry and the field. Then the
entries are matched to the registered sources (by citation key, source key, then URL) in one
transaction: new ones are added, a bibliography's own sources are updated to what the file says now,
and a source registered another way (by hand, by a data file, from a URL) is never changed silently:
a difference is a Conflict, applied only when the caller asks (`update_manual`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import select
from sqlmodel import Session

from claimsdb.errors import InvalidEntry, InvalidRecord, shown
from claimsdb.escaping import CITE_KEY_PATTERN
from claimsdb.models import Source
from claimsdb.records import (
    MAX_KEY,
    MAX_LINE,
    SourceRecord,
    duplicate_name,
    parse_json,
    source_record,
)
from claimsdb.sources import guess_kind, normalise_url

FORMATS = ("bibtex", "csl-json")
ORIGIN = "bibliography"  # source.origin of the sources an import registers (models.SOURCE_ORIGINS)
# Bounds for a file that may come from anywhere: far above a paper's bibliography (a thousand entries
# are about 1 MB), low enough that reading the worst file stays quick.
MAX_FILE_BYTES = 5_000_000
MAX_ENTRIES = 10_000
MAX_FIELD = 20_000  # characters of one field as written, before decoding
MAX_NESTING = 32  # braces within braces in one field (the decoder recurses into each group)
# The fields an import owns on a source it registered; `key` and `path` stay as they are.
OWNED = ("title", "kind", "url", "publisher", "date", "cite_key", "authors", "accessed")

# Entry types -> source kinds; a type mapped to None (a web page, a miscellany) takes its kind from
# its URL (sources.guess_kind: GitHub is code, arXiv a paper, ...).
BIBTEX_KINDS = {
    "article": "paper",
    "inproceedings": "paper",
    "conference": "paper",
    "incollection": "paper",
    "inbook": "paper",
    "phdthesis": "paper",
    "mastersthesis": "paper",
    "thesis": "paper",
    "unpublished": "paper",
    "techreport": "report",
    "report": "report",
    "manual": "docs",
    "software": "code",
    "book": "other",
    "booklet": "other",
    "proceedings": "other",
    "collection": "other",
    "dataset": "other",
}
CSL_KINDS = {
    "article-journal": "paper",
    "paper-conference": "paper",
    "article": "paper",
    "chapter": "paper",
    "thesis": "paper",
    "manuscript": "paper",
    "report": "report",
    "article-newspaper": "news",
    "article-magazine": "news",
    "broadcast": "news",
    "post-weblog": "blog",
    "software": "code",
    "book": "other",
    "dataset": "other",
    "standard": "docs",
}
# Where a source's publisher comes from, first found first: the journal, the proceedings, the institution...
BIBTEX_PUBLISHER = (
    "journal",
    "journaltitle",
    "booktitle",
    "institution",
    "school",
    "publisher",
    "organization",
)
CSL_PUBLISHER = ("container-title", "publisher", "authority")
# Every field an entry is read from (others, an abstract or a note, are left as they are).
PEOPLE = ("author", "editor")
READ = {
    "title",
    *PEOPLE,
    *BIBTEX_PUBLISHER,
    "date",
    "year",
    "month",
    "url",
    "doi",
    "howpublished",
    "urldate",
    "eprint",
    "eprinttype",
    "archiveprefix",
}
MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
# Characters that make a field LaTeX rather than plain text: only then is the decoder run.
_LATEX_SIGNS = re.compile(r"[\\{}$~%^_&]")
# An unescaped '%' would start a LaTeX comment and swallow the rest of the field: in a field it is a percent.
_BARE_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")
# The markup CSL processors read in titles (citeproc-js "rich text"): kept out of the stored text.
_CSL_MARKUP = re.compile(
    r'</?(?:i|b|sub|sup)>|<span (?:style="font-variant: ?small-caps;?"|class="nocase")>|</span>'
)
_URL_ESCAPE = re.compile(r"\\([_%&#~$])")
_WRAPPED_URL = re.compile(r"\\url\s*\{([^{}]*)\}|(https?://[^\s{}]+)")


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


@dataclass
class Conflict:
    """A registered source the entry would change, left as it is: registered another way (its origin),
    or its URL already names another source (`reason`). `fields`: field -> (registered, the file's)."""

    key: str
    entry: str
    origin: str | None
    fields: dict[str, tuple[Any, Any]]
    reason: str | None = None


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
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "unchanged": len(self.unchanged),
            "conflicts": len(self.conflicts),
            "without_url": len(self.without_url),
        }


def source_key(cite_key: str) -> str:
    """The source key a citation key registers under: lowercase, '-' for what a key cannot hold."""
    key = re.sub(r"[^a-z0-9._-]+", "-", cite_key.lower()).lstrip("._-")
    return key or "source"


# --- reading ------------------------------------------------------------------------------------


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
    entries = _bibtex(text, name) if fmt == "bibtex" else _csl(text, name)
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


def _validated(fields: dict[str, Any], name: str, label: str, spelled: dict[str, str]) -> Entry:
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


def _cite_key(key: Any, name: str, label: str, spelled: str) -> str:
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


def _one_line(text: str | None) -> str | None:
    """Text on one line (BibTeX reads a line break or a no-break space as a space); None when empty."""
    if text is None:
        return None
    return " ".join(text.split()) or None


def _authors(names: list[str]) -> str | None:
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


def _kind(kinds: dict[str, str], entry_type: str, url: str | None) -> str:
    kind = kinds.get(entry_type.lower())
    return kind or (guess_kind(url) if url else "other")


# --- BibTeX -------------------------------------------------------------------------------------


def _bibtex(text: str, name: str) -> list[Entry]:
    import bibtexparser
    from bibtexparser.middlewares import NormalizeFieldKeys, SeparateCoAuthors, SplitNameParts

    _quiet_parser()
    library = bibtexparser.parse_string(text)
    _no_failure(library, name)
    if len(library.entries) > MAX_ENTRIES:
        raise InvalidEntry(
            name,
            None,
            None,
            f"holds {len(library.entries):,} entries; the most allowed is {MAX_ENTRIES:,}",
        )
    for entry in library.entries:
        names = [f.key.lower() for f in entry.fields]
        twice = next((k for k in names if names.count(k) > 1), None)
        if twice is not None:
            raise InvalidEntry(name, _bib_label(entry), twice, "given twice (in another case)")
        for f in (f for f in entry.fields if f.key.lower() in READ):
            _bounded(f.value, name, _bib_label(entry), f.key)
            if f.enclosing == "no-enclosing" and "#" in str(f.value):
                raise InvalidEntry(
                    name,
                    _bib_label(entry),
                    f.key,
                    "joins strings with '#', which is not read here: write the value out in braces",
                )
    for middleware in (NormalizeFieldKeys(), SeparateCoAuthors(), SplitNameParts()):
        library = middleware.transform(library)
    _no_failure(library, name)
    return [_from_bibtex(entry, name) for entry in library.entries]


@lru_cache(maxsize=1)
def _quiet_parser() -> None:
    """bibtexparser logs each block it cannot read; without a handler Python prints that to stderr. The
    error raised here says it once, naming the entry and the field."""
    import logging

    logging.getLogger("bibtexparser").addHandler(logging.NullHandler())


def _bib_label(entry: Any) -> str:
    line = f" (line {entry.start_line + 1})" if entry.start_line is not None else ""
    return f"{shown(entry.key)}{line}"


def _no_failure(library: Any, name: str) -> None:
    """The first block bibtexparser could not read, as an error naming its entry and, if known, field."""
    from bibtexparser.model import (
        DuplicateBlockKeyBlock,
        DuplicateFieldKeyBlock,
        MiddlewareErrorBlock,
    )

    if not library.failed_blocks:
        return
    block = library.failed_blocks[0]
    line = f"(line {block.start_line + 1})" if block.start_line is not None else None
    if isinstance(block, DuplicateBlockKeyBlock):
        raise InvalidEntry(
            name, f"{shown(block.key)} {line}", "key", "a second entry with this key"
        )
    if isinstance(block, DuplicateFieldKeyBlock):
        entry = block.ignore_error_block
        raise InvalidEntry(name, _bib_label(entry), sorted(block.duplicate_keys)[0], "given twice")
    if isinstance(
        block, MiddlewareErrorBlock
    ):  # a name bibtexparser cannot split ("Too many commas")
        entry = block.ignore_error_block
        raise InvalidEntry(name, _bib_label(entry), "author", str(block.error))
    raw = block.raw or ""
    head = re.match(r"\s*@\s*(\w+)\s*[{(]\s*([^,\s]*)", raw)
    label = f"@{head.group(1)}{{{head.group(2)}}} {line}" if head else line
    reason = (getattr(block.error, "abort_reason", None) or str(block.error)).strip()
    raise InvalidEntry(
        name,
        label,
        _unclosed_field(raw),
        f"cannot be read as BibTeX: {reason} (an unclosed brace or quote?)",
    )


def _unclosed_field(raw: str) -> str | None:
    """Which field of a block that could not be read leaves a brace or a quote open, if one does."""
    starts = list(re.finditer(r"[,{(]\s*([A-Za-z][\w:.-]*)\s*=", raw))
    for here, after in zip(starts, [*starts[1:], None]):
        value = re.sub(r"\\.", "", raw[here.end() : after.start() if after else len(raw)])
        if after is None:
            value = re.sub(r"[})]\s*$", "", value)  # the entry's own end
        if value.count("{") != value.count("}") or value.count('"') % 2:
            return here.group(1).lower()
    return None


def _bounded(value: Any, name: str, label: str, spelled: str) -> None:
    """A field as written: not too long, braces not nested too deep for the decoder."""
    if not isinstance(value, str):
        return
    if (
        len(value) > MAX_FIELD and spelled.lower() not in PEOPLE
    ):  # names: only the first ones are read
        raise InvalidEntry(
            name,
            label,
            spelled,
            f"is {len(value):,} characters long; the most allowed is {MAX_FIELD:,}",
        )
    depth = 0
    for ch in re.sub(r"\\[{}]|[^{}]", "", value):
        depth += 1 if ch == "{" else -1
        if depth > MAX_NESTING:
            raise InvalidEntry(
                name, label, spelled, f"nests braces deeper than {MAX_NESTING} levels"
            )


@lru_cache(maxsize=1)
def _decoder() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category(
        "claimsdb-bibliography",
        prepend=True,
        macros=[
            MacroTextSpec("url", "%s"),
            MacroTextSpec("LaTeX", "LaTeX"),
            MacroTextSpec("TeX", "TeX"),
            MacroTextSpec("BibTeX", "BibTeX"),
        ],
    )
    return LatexNodes2Text(latex_context=context, math_mode="text")


def decode(value: str | None, name: str = "", label: str = "", spelled: str = "") -> str | None:
    """A field's LaTeX as one line of Unicode text: accents as letters, case-keeping braces gone, `\\%`
    a percent, `$\\sim$` a tilde operator; plain text is returned as it is (but on one line)."""
    if value is None:
        return None
    if _LATEX_SIGNS.search(value):
        from pylatexenc.latexwalker import LatexWalkerError

        try:
            value = _decoder().latex_to_text(_BARE_PERCENT.sub(r"\1\\%", value))
        except (LatexWalkerError, RecursionError):
            raise InvalidEntry(name, label, spelled, "cannot be read as LaTeX") from None
    return _one_line(value)


def _from_bibtex(entry: Any, name: str) -> Entry:
    label = _bib_label(entry)
    cite_key = _cite_key(entry.key, name, label, "key")
    values = {f.key: f.value for f in entry.fields}
    spelled: dict[str, str] = {}

    def first(fields: tuple[str, ...], as_: str) -> str | None:
        for f in fields:
            text = decode(values[f], name, label, f) if isinstance(values.get(f), str) else None
            if text:
                spelled[as_] = f
                return text
        return None

    url = _bib_url(values, spelled)
    people = "author" if values.get("author") else "editor"
    fields = {
        "key": source_key(cite_key),
        "cite_key": cite_key,
        "url": url,
        "title": first(("title",), "title") or url or cite_key,
        "kind": _kind(BIBTEX_KINDS, entry.entry_type, url),
        "authors": _bib_names(values.get(people), name, label, people),
        "publisher": first(BIBTEX_PUBLISHER, "publisher"),
        "date": _bib_date(values, name, label, spelled),
        "accessed": first(("urldate",), "accessed"),
    }
    spelled.update(authors=people, key="key", cite_key="key")
    return _validated(fields, name, label, spelled)


def _bib_url(values: dict[str, Any], spelled: dict[str, str]) -> str | None:
    """The entry's page: its url, else its DOI, else a URL in howpublished, else its arXiv eprint."""

    def plain(raw: str) -> str:
        found = _WRAPPED_URL.search(raw)
        inner = next(g for g in found.groups() if g) if found else raw
        return _URL_ESCAPE.sub(r"\1", inner).strip().strip("{}").strip()

    for f, make in (
        ("url", plain),
        ("doi", lambda raw: doi_url(_URL_ESCAPE.sub(r"\1", raw).strip("{} "))),
    ):
        if isinstance(values.get(f), str) and values[f].strip():
            spelled["url"] = f
            return make(values[f])
    published = values.get("howpublished")
    if isinstance(published, str) and _WRAPPED_URL.search(published):
        spelled["url"] = "howpublished"
        return plain(published)
    archive = (
        str(values.get("eprinttype") or values.get("archiveprefix") or "").strip("{} ").lower()
    )
    eprint = values.get("eprint")
    if archive == "arxiv" and isinstance(eprint, str) and eprint.strip():
        spelled["url"] = "eprint"
        return "https://arxiv.org/abs/" + quote(eprint.strip("{} "), safe="/.")
    return None


def _bib_names(people: Any, name: str, label: str, spelled: str) -> str | None:
    """Each person as BibTeX reads them back ("von Last, Jr, First"), a group in braces as one name."""
    if not people:
        return None
    names: list[str] = []
    for person in people:
        last = decode(" ".join([*person.von, *person.last]), name, label, spelled) or ""
        first = decode(" ".join(person.first), name, label, spelled)
        jr = decode(" ".join(person.jr), name, label, spelled)
        names.append(", ".join(p for p in (last, jr, first) if p))
        if (
            len(names) * 2 > MAX_LINE
        ):  # more than the joined names could hold: _authors cuts them anyway
            break
    return _authors([n for n in names if n])


def _bib_date(values: dict[str, Any], name: str, label: str, spelled: dict[str, str]) -> str | None:
    """BibLaTeX's date (the start of a range), else year and month (a name, an abbreviation or a number)."""
    date = (
        decode(values["date"], name, label, "date") if isinstance(values.get("date"), str) else None
    )
    if date:
        spelled["date"] = "date"
        return date.split("/")[0].strip()
    year = (
        decode(values["year"], name, label, "year") if isinstance(values.get("year"), str) else None
    )
    if not year:
        return None
    if not re.fullmatch(r"\d{4}", year):
        raise InvalidEntry(name, label, "year", f"{shown(year)} is not a year: use four digits")
    spelled["date"] = "year"
    month = str(values.get("month") or "").strip("{} .").lower()
    number = MONTHS.get(month) or (
        int(month) if month.isdigit() and 1 <= int(month) <= 12 else None
    )
    if number is not None:
        spelled["date"] = "month"
        return f"{year}-{number:02d}"
    return year


# --- CSL-JSON -----------------------------------------------------------------------------------


def _csl(text: str, name: str) -> list[Entry]:
    items = parse_json(text, name)
    if not isinstance(items, list):
        raise InvalidEntry(name, None, None, "CSL-JSON is a list of items (as Zotero exports it)")
    if len(items) > MAX_ENTRIES:
        raise InvalidEntry(
            name, None, None, f"holds {len(items):,} items; the most allowed is {MAX_ENTRIES:,}"
        )
    entries, seen = [], {}
    for number, item in enumerate(items, start=1):
        entry = _from_csl(item, number, name)
        if entry.record.cite_key in seen:
            raise InvalidEntry(
                name,
                entry.label,
                entry.spelled["cite_key"],
                f"a second item with this key (the first is item {seen[entry.record.cite_key]})",
            )
        seen[entry.record.cite_key] = number
        entries.append(entry)
    return entries


def _from_csl(item: Any, number: int, name: str) -> Entry:
    where = f"item {number}"
    if not isinstance(item, dict):
        raise InvalidEntry(name, where, None, "an item must be an object")
    if duplicate_name(item):
        raise InvalidEntry(name, where, duplicate_name(item), "given twice in one item")
    key_field = "citation-key" if item.get("citation-key") is not None else "id"
    cite_key = _cite_key(item.get(key_field), name, where, key_field)
    label = f"{shown(cite_key)} ({where})"
    spelled = {"key": key_field, "cite_key": key_field, "title": "title", "accessed": "accessed"}

    def text(f: str, as_: str | None = None) -> str | None:
        value = item.get(f)
        if value is None or value == "":
            return None
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise InvalidEntry(name, label, f, f"must be text, not {type(value).__name__}")
        if as_:
            spelled[as_] = f
        return _one_line(_CSL_MARKUP.sub("", str(value)))

    url = text("URL", "url")
    if url is None and text("DOI"):
        url, spelled["url"] = doi_url(text("DOI") or ""), "DOI"
    people = "author" if item.get("author") else "editor"
    spelled["authors"] = people
    fields = {
        "key": source_key(cite_key),
        "cite_key": cite_key,
        "url": url,
        "title": text("title") or url or cite_key,
        "kind": _kind(CSL_KINDS, str(item.get("type") or ""), url),
        "authors": _csl_names(item.get(people), name, label, people),
        "publisher": next((t for f in CSL_PUBLISHER if (t := text(f, "publisher"))), None),
        "date": _csl_date(item.get("issued"), name, label, "issued"),
        "accessed": _csl_date(item.get("accessed"), name, label, "accessed"),
    }
    spelled["date"] = "issued"
    return _validated(fields, name, label, spelled)


def _csl_names(people: Any, name: str, label: str, spelled: str) -> str | None:
    if people is None:
        return None
    if not isinstance(people, list):
        raise InvalidEntry(name, label, spelled, "must be a list of names")
    names = []
    for i, person in enumerate(people[: MAX_LINE // 2]):
        parts = person if isinstance(person, dict) else None
        if parts is None or any(not isinstance(v, (str, int)) for v in parts.values()):
            raise InvalidEntry(
                name,
                label,
                f"{spelled}[{i}]",
                "a name must be an object of text parts (family, given, literal)",
            )
        get = lambda part, parts=parts: _one_line(str(parts.get(part) or "")) or ""  # noqa: E731
        if get("literal"):
            names.append(get("literal"))
            continue
        last = " ".join(p for p in (get("non-dropping-particle"), get("family")) if p)
        first = " ".join(p for p in (get("given"), get("dropping-particle")) if p)
        names.append(", ".join(p for p in (last, get("suffix"), first) if p))
    return _authors([n for n in names if n])


def _csl_date(value: Any, name: str, label: str, spelled: str) -> str | None:
    """A CSL date: its first date-parts (year, month, day), else a raw date that starts as YYYY-MM-DD."""
    if value is None:
        return None
    parts = value.get("date-parts") if isinstance(value, dict) else None
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        numbers = [str(p).strip() for p in parts[0][:3]]
        if all(n.isdigit() for n in numbers):
            year, *rest = numbers
            return "-".join([year.zfill(4), *(n.zfill(2) for n in rest)])
    raw = value.get("raw") if isinstance(value, dict) else None
    found = re.match(r"\d{4}(?:-\d{2}(?:-\d{2})?)?", raw.strip()) if isinstance(raw, str) else None
    if found:
        return found.group(0)
    raise InvalidEntry(
        name, label, spelled, f"{shown(value)} is not a date: give date-parts [[year, month, day]]"
    )


# --- importing ----------------------------------------------------------------------------------


def import_bibliography(
    session: Session, bib: Bibliography, *, update_manual: bool = False
) -> ImportReport:
    """Register the bibliography's entries as sources, in the caller's transaction; see the module's doc."""
    report = ImportReport(bib.file, bib.format)
    stored = list(session.scalars(select(Source)))
    by_cite = {s.cite_key or s.key: s for s in stored}
    by_key = {s.key: s for s in stored}
    by_url = {normalise_url(s.url): s for s in stored if s.url}
    named: dict[
        int, str
    ] = {}  # the sources matched so far (by identity) -> the entry that matched them
    for entry in bib.entries:
        rec = entry.record
        url = normalise_url(rec.url) if rec.url else None
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
            by_url[normalise_url(src.url)] = src
    session.flush()
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
    same_page = by_url.get(normalise_url(rec.url)) if "url" in changes and rec.url else None
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
    for f, (
        _old,
        new,
    ) in changes.items():  # a source registered another way keeps its origin: it is not ours
        setattr(src, f, new)
    report.updated[src.key] = list(changes)
