"""BibTeX and BibLaTeX files: read by bibtexparser 2 (the splitter, `@string` references, braces and
quotes, co-authors and the parts of each name), each field decoded from LaTeX to Unicode by pylatexenc,
the decoder bibtexparser itself uses."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from claimsdb.bibliography.entries import (
    MAX_ENTRIES,
    MAX_FIELD,
    MAX_NESTING,
    Entry,
    authors,
    cite_key_of,
    doi_url,
    kind_of,
    one_line,
    source_fields,
    validated,
)
from claimsdb.errors import InvalidEntry, shown
from claimsdb.records.types import MAX_LINE

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
_URL_ESCAPE = re.compile(r"\\([_%&#~$])")
_WRAPPED_URL = re.compile(r"\\url\s*\{([^{}]*)\}|(https?://[^\s{}]+)")


def bibtex_entries(text: str, name: str) -> list[Entry]:
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
    """bibtexparser logs each block it cannot read, and pylatexenc each macro it cannot decode; without a
    handler Python prints that to stderr. The error raised here says it once, naming the entry and the
    field."""
    import logging

    for logger in ("bibtexparser", "pylatexenc"):
        logging.getLogger(logger).addHandler(logging.NullHandler())


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


@lru_cache(maxsize=1)
def _parsing() -> Any:
    """How pylatexenc's parser reads the macros the decoder writes out: its own default lacks \\href,
    which its decoder still reads two arguments of."""
    from pylatexenc.latexwalker import get_default_latex_context_db
    from pylatexenc.macrospec import std_macro

    context = get_default_latex_context_db()
    context.add_context_category(
        "claimsdb-bibliography", prepend=True, macros=[std_macro("href", False, 2)]
    )
    return context


def decode(value: str | None, name: str = "", label: str = "", spelled: str = "") -> str | None:
    """A field's LaTeX as one line of Unicode text: accents as letters, case-keeping braces gone, `\\%`
    a percent, `$\\sim$` a tilde operator; plain text is returned as it is (but on one line)."""
    if value is None:
        return None
    if _LATEX_SIGNS.search(value):
        from pylatexenc.latexwalker import LatexWalkerError

        try:
            value = _decoder().latex_to_text(
                _BARE_PERCENT.sub(r"\1\\%", value), latex_context=_parsing()
            )
        except (LatexWalkerError, RecursionError):
            raise InvalidEntry(name, label, spelled, "cannot be read as LaTeX") from None
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            # pylatexenc's text of a macro indexes its arguments without checking that they were given
            # ("\\sqrt", "\\input" or "\\href{a}" at the field's end): the field is not LaTeX it can read
            raise InvalidEntry(
                name, label, spelled, "cannot be read as LaTeX (a macro without its arguments?)"
            ) from None
    return one_line(value or "")


def _from_bibtex(entry: Any, name: str) -> Entry:
    label = _bib_label(entry)
    cite_key = cite_key_of(entry.key, name, label, "key")
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
    fields = source_fields(
        cite_key,
        url,
        first(("title",), "title"),
        kind_of(BIBTEX_KINDS, entry.entry_type, url),
        authors=_bib_names(values.get(people), name, label, people),
        publisher=first(BIBTEX_PUBLISHER, "publisher"),
        date=_bib_date(values, name, label, spelled),
        accessed=first(("urldate",), "accessed"),
    )
    spelled.update(authors=people, key="key", cite_key="key")
    return validated(fields, name, label, spelled)


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
        ):  # more than the joined names could hold: authors() cuts them anyway
            break
    return authors([n for n in names if n])


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
