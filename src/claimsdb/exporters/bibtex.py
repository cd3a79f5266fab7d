"""Bibliography entries for the sources the exported claims cite (the keys `\\cite{}` uses), in two
dialects of the .bib file:

- `render` (`--format bibtex`), for BibTeX and its classic styles (plain, unsrt, alpha, plainnat): author,
  title, who published it and where, year, the access date. A report with a publisher and a year is a
  @techreport (its publisher the institution, and the author when it names none, braced as one name); any
  other source is a @misc, which requires no field, so no style warns about a missing one (a paper is no
  @article: a source records no journal). A @misc without authors carries `key` (what plain sorts and
  labels it by) and `organization`, so no style says "need author or key". The address is written as
  `\\url{...}` where plain prints it (the paper loads `\\usepackage{url}`) and as `url`.
- `render_biblatex` (`--format biblatex`), for biblatex and biber: @online for a web page (`url`,
  `urldate`), @report or @misc otherwise, dates as written (`date = {2026-05}`), no `\\url` in any field.

Titles keep their case in both: the whole title is braced twice, so no style lowercases "LongCat" or
"LLM". A note is a reference only when the export was asked to cite notes (`export.references`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from claimsdb.escaping import bibtex_comment, bibtex_field, bibtex_key, url
from claimsdb.exporters.common import manifest_comments
from claimsdb.paper_safe import NOT_REREAD, Export, references

Fields = dict[str, str]


def _cited(export: Export) -> list[tuple[str, dict[str, Any]]]:
    """(entry key, source) for every reference the exported rows cite, in key order."""
    seen: dict[str, dict[str, Any]] = {}
    for row in export.rows:
        for c in references(row, cite_notes=export.cite_notes):
            seen.setdefault(c["cite_key"], c)
    return [
        (bibtex_key(k, f"the citation key of source {c['key']!r}"), c)
        for k, c in sorted(seen.items())
    ]


def _braced(text: str) -> str:
    return "{" + bibtex_field(text) + "}"


def _title(text: str) -> str:
    """A title braced twice, so that a style's case change leaves it as written. A group that starts with
    a backslash is a BibTeX "special character", whose letters it does change: an empty group goes first."""
    inner = bibtex_field(text)
    return "{{" + ("{}" if inner.startswith("\\") else "") + inner + "}}"


def _year(source: dict[str, Any]) -> str | None:
    found = re.match(r"\d{4}", source.get("date") or "")
    return found.group(0) if found else None


def _report(source: dict[str, Any]) -> bool:
    """A report with what a report entry requires: who published it and when."""
    return (
        source["kind"] == "report" and bool(source.get("publisher")) and _year(source) is not None
    )


def _bibtex_names(source: dict[str, Any], report: bool) -> Fields:
    """Who: the authors; else a report's institution as its author (braced: one name); else a `key`, what
    plain sorts and labels by: the title, which it prints first. The publisher is the organization."""
    if source.get("authors"):
        return {"author": _braced(source["authors"])}
    if report:
        return {"author": "{" + _braced(source["publisher"]) + "}"}
    fields = {"key": _braced(source["title"])}
    if source.get("publisher"):
        fields["organization"] = _braced(source["publisher"])
    return fields


def _bibtex_entry(source: dict[str, Any]) -> tuple[str, Fields]:
    """Plain prints a @misc's howpublished and a @techreport's institution, and the note of both: who
    published it and where go there. `url` and `urldate` are for the styles that know them."""
    year, address, report = _year(source), url(source["url"]), _report(source)
    fields = {**_bibtex_names(source, report), "title": _title(source["title"])}
    link = [f"\\url{{{address}}}"] if address else []
    note = []
    if report:
        fields["institution"] = _braced(source["publisher"])
        note += link
    else:
        published = [bibtex_field(source["publisher"])] if source.get("publisher") else []
        if published or link:
            fields["howpublished"] = "{" + ", ".join(published + link) + "}"
    if year:
        fields["year"] = year
    if address:
        fields["url"] = f"{{{address}}}"
    if source.get("accessed"):
        fields["urldate"] = _braced(source["accessed"])
        note.append(f"Accessed {bibtex_field(source['accessed'])}")
    if note:
        fields["note"] = "{" + ". ".join(note) + "}"
    return ("techreport" if report else "misc"), fields


def _biblatex_entry(source: dict[str, Any]) -> tuple[str, Fields]:
    address = url(source["url"])
    entry = "online" if address else "report" if _report(source) else "misc"
    # biblatex sorts and labels an entry without authors by its organization or title: no `key`. Its
    # @online and @misc have no publisher field; who published them is their organization.
    fields = {"author": _braced(source["authors"])} if source.get("authors") else {}
    fields["title"] = _title(source["title"])
    if source.get("publisher"):
        fields["institution" if entry == "report" else "organization"] = _braced(
            source["publisher"]
        )
    if entry == "report":
        fields["type"] = "{techreport}"
    if source.get("date"):
        fields["date"] = _braced(source["date"])
    if address:
        fields["url"] = f"{{{address}}}"
    if source.get("accessed"):
        fields["urldate"] = _braced(source["accessed"])
    return entry, fields


def _render(export: Export, entry: Callable[[dict[str, Any]], tuple[str, Fields]]) -> str:
    lines = manifest_comments(export, "% claimsdb export: ", bibtex_comment)
    if entry is _bibtex_entry:
        lines.append(
            bibtex_comment("% needs \\usepackage{url} in the paper: howpublished = {\\url{...}}")
        )
    if export.draft:
        lines.append(f"% DRAFT: the selection includes claims that are {NOT_REREAD}")
    for key, source in _cited(export):
        kind, fields = entry(source)
        body = ",\n".join(f"  {k} = {v}" for k, v in fields.items())
        lines += ["", f"@{kind}{{{key},\n{body}\n}}"]
    return "\n".join(lines) + "\n"


def render(export: Export) -> str:
    """The .bib for BibTeX."""
    return _render(export, _bibtex_entry)


def render_biblatex(export: Export) -> str:
    """The .bib for biblatex and biber."""
    return _render(export, _biblatex_entry)
