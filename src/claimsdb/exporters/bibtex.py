"""Bibliography entries for the sources the exported claims cite (the keys `\\cite{}` uses), in two
dialects of the .bib file:

- `render` (`--format bibtex`), for BibTeX and its classic styles (plain, unsrt, alpha, plainnat): author,
  title, who published it and where, year, the access date. A report with a publisher and a year is a
  @techreport (its publisher the institution, and the author when it names none, braced as one name); any
  other source is a @misc, which requires no field, so no style warns about a missing one (a paper is no
  @article: a source records no journal). A @misc without authors carries `key` (what plain sorts and
  labels it by) and `organization`, so no style says "need author or key". The address is written as
  `\\url{...}` where plain prints it (the paper loads `\\usepackage{url}`) and as `url`. An arXiv address
  (arxiv.org/abs/ID or /pdf/ID) also gives `eprint` and `archivePrefix`, as arXiv's own entries have.
- `render_biblatex` (`--format biblatex`), for biblatex and biber: @online for a web page (`url`,
  `urldate`), @report or @misc otherwise, dates as written (`date = {2026-05}`), no `\\url` in any field;
  an arXiv address gives `eprint` and `eprinttype`.

`lacking` and `lacks` name what a style needs and an entry lacks (author or organisation, year, URL or
identifier, a report's institution); the CLI prints them (`claims export`, `claims sources check`).

Titles keep their case in both: the whole title is braced twice, so no style lowercases "LongCat" or
"LLM". A note is a reference only when the export was asked to cite notes (`export.references`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from claimsdb.escaping import bibtex_comment, bibtex_field, bibtex_key, url
from claimsdb.export_rows import references
from claimsdb.exporters.common import manifest_comments
from claimsdb.paper_safe import NOT_REREAD, Export

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


ARXIV = re.compile(r"https?://arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?/?$")


def arxiv_id(address: str | None) -> str | None:
    """The arXiv identifier of an arxiv.org/abs or /pdf address (2412.19437), else None."""
    found = ARXIV.match(address or "")
    return found.group(1) if found else None


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
    if arxiv := arxiv_id(source["url"]):
        fields["eprint"], fields["archivePrefix"] = f"{{{arxiv}}}", "{arXiv}"
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
    if arxiv := arxiv_id(source["url"]):
        fields["eprint"], fields["eprinttype"] = f"{{{arxiv}}}", "{arxiv}"
    if source.get("accessed"):
        fields["urldate"] = _braced(source["accessed"])
    return entry, fields


# The url package breaks an address after "/" and "." but not after "-": a long hyphenated path ("a-397b-rl-
# training-guide-with-skyrl") runs past the margin. The .bbl, where BibTeX writes this preamble before the
# entries, lets it break after "-" too (url's [hyphens] option, for the references only).
URL_BREAKS = (
    '@preamble{"\\ifx\\UrlBreaks\\undefined\\else'
    '\\expandafter\\def\\expandafter\\UrlBreaks\\expandafter{\\UrlBreaks\\do\\-}\\fi"}'
)


def _render(export: Export, entry: Callable[[dict[str, Any]], tuple[str, Fields]]) -> str:
    lines = manifest_comments(export, "% claimsdb export: ", bibtex_comment)
    if entry is _bibtex_entry:
        lines.append(
            bibtex_comment("% needs \\usepackage{url} in the paper: howpublished = {\\url{...}}")
        )
        lines.append(URL_BREAKS)
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


# --- what an entry lacks ---------------------------------------------------------------------------

# What each lack is called, and why a style needs it. BibTeX's standard styles require a @techreport's
# author, title, institution and year (plain writes "empty institution" otherwise); a @misc requires no
# field, but plain and plainnat sort and label it by author and year, and a reader finds it by its address.
LACKS = {
    "author": "no author or organisation",
    "year": "no year",
    "url": "no URL or identifier",
    "institution": "no institution (publisher)",
}
LACKS_NAMED = {"author": "author (or organisation)", "year": "year"}
STYLES = {"bibtex": "plain and plainnat", "biblatex": "biblatex's standard styles"}


@dataclass(frozen=True)
class Lacking:
    """What one bibliography entry lacks: `lacks` holds keys of LACKS, in that order."""

    key: str  # the source's key
    cite_key: str  # the entry's key
    entry: str  # the entry type written (techreport, misc, online, report)
    lacks: tuple[str, ...]
    dialect: str = "bibtex"

    def message(self) -> str:
        """One line: the entry, what it lacks, and which styles need it."""
        who = [LACKS_NAMED[n] for n in ("author", "year") if n in self.lacks]
        why = [f"{STYLES[self.dialect]} sort and label by {' and '.join(who)}"] if who else []
        if "url" in self.lacks:
            why.append("a reader finds it by its URL or identifier")
        if "institution" in self.lacks:
            report = "@techreport" if self.dialect == "bibtex" else "@report"
            why.append(f"a report is a {report} only with its institution and year")
        return (
            f"warning: bibliography entry {self.cite_key} ({self.key}, @{self.entry}) has "
            f"{', '.join(LACKS[name] for name in self.lacks)}: {'; '.join(why)}"
        )


def lacks(source: dict[str, Any]) -> tuple[str, ...]:
    """What a style needs and the source's entry lacks (keys of LACKS): who wrote or published it, when,
    where to find it, and for a report the institution a @techreport requires."""
    missing = []
    if not source.get("authors") and not source.get("publisher"):
        missing.append("author")
    if _year(source) is None:
        missing.append("year")
    if not url(source.get("url")):
        missing.append("url")
    if source["kind"] == "report" and not source.get("publisher"):
        missing.append("institution")
    return tuple(missing)


def lacking_sources(sources: Iterable[dict[str, Any]], dialect: str = "bibtex") -> list[Lacking]:
    """Each source that lacks something, in the order given (a source's cite key defaults to its key)."""
    entry = _bibtex_entry if dialect == "bibtex" else _biblatex_entry
    found = []
    for source in sources:
        source = {"url": None, **source}
        kind = entry(source)[0]
        # biblatex writes any source with an address as @online, which takes no institution
        missing = tuple(n for n in lacks(source) if n != "institution" or kind != "online")
        if missing:
            cite_key = source.get("cite_key") or source["key"]
            found.append(Lacking(source["key"], cite_key, kind, missing, dialect))
    return found


def lacking(export: Export, dialect: str = "bibtex") -> list[Lacking]:
    """What each entry of the export's bibliography lacks, in entry order."""
    return lacking_sources((source for _key, source in _cited(export)), dialect)
