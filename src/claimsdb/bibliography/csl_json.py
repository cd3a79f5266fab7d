"""CSL-JSON files, as Zotero exports them: a list of items."""

from __future__ import annotations

import re
from typing import Any

from claimsdb.bibliography import entries
from claimsdb.errors import InvalidEntry, shown
from claimsdb.records import duplicate_name, parse_json
from claimsdb.records.types import MAX_LINE

# Entry types -> source kinds; a type mapped to None (a web page, a miscellany) takes its kind from
# its URL (sources.guess_kind: GitHub is code, arXiv a paper, ...).
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
CSL_PUBLISHER = ("container-title", "publisher", "authority")
# The markup CSL processors read in titles (citeproc-js "rich text"): kept out of the stored text.
_CSL_MARKUP = re.compile(
    r'</?(?:i|b|sub|sup)>|<span (?:style="font-variant: ?small-caps;?"|class="nocase")>|</span>'
)


def csl_entries(text: str, name: str) -> list[entries.Entry]:
    items = parse_json(text, name)
    if not isinstance(items, list):
        raise InvalidEntry(name, None, None, "CSL-JSON is a list of items (as Zotero exports it)")
    if len(items) > entries.MAX_ENTRIES:
        raise InvalidEntry(
            name,
            None,
            None,
            f"holds {len(items):,} items; the most allowed is {entries.MAX_ENTRIES:,}",
        )
    found: list[entries.Entry] = []
    seen: dict[str, int] = {}
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
        found.append(entry)
    return found


def _from_csl(item: Any, number: int, name: str) -> entries.Entry:
    where = f"item {number}"
    if not isinstance(item, dict):
        raise InvalidEntry(name, where, None, "an item must be an object")
    if duplicate_name(item):
        raise InvalidEntry(name, where, duplicate_name(item), "given twice in one item")
    key_field = "citation-key" if item.get("citation-key") is not None else "id"
    cite_key = entries.cite_key_of(item.get(key_field), name, where, key_field)
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
        return entries.one_line(_CSL_MARKUP.sub("", str(value)))

    url = text("URL", "url")
    if url is None and text("DOI"):
        url, spelled["url"] = entries.doi_url(text("DOI") or ""), "DOI"
    people = "author" if item.get("author") else "editor"
    spelled["authors"] = people
    fields = entries.source_fields(
        cite_key,
        url,
        text("title"),
        entries.kind_of(CSL_KINDS, str(item.get("type") or ""), url),
        authors=_csl_names(item.get(people), name, label, people),
        publisher=next((t for f in CSL_PUBLISHER if (t := text(f, "publisher"))), None),
        date=_csl_date(item.get("issued"), name, label, "issued"),
        accessed=_csl_date(item.get("accessed"), name, label, "accessed"),
    )
    spelled["date"] = "issued"
    return entries.validated(fields, name, label, spelled)


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
        get = lambda part, parts=parts: entries.one_line(str(parts.get(part) or "")) or ""  # noqa: E731
        if get("literal"):
            names.append(get("literal"))
            continue
        last = " ".join(p for p in (get("non-dropping-particle"), get("family")) if p)
        first = " ".join(p for p in (get("given"), get("dropping-particle")) if p)
        names.append(", ".join(p for p in (last, get("suffix"), first) if p))
    return entries.authors([n for n in names if n])


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
