"""BibTeX entries for the sources the exported claims cite (the keys `\\cite{}` uses): author, title,
publisher or institution, year, URL and the date it was accessed, each when the source has it. The access
date is written twice: `urldate` for biblatex, and a `note` that plain BibTeX styles print."""

from __future__ import annotations

import re

from claimsdb.escaping import bibtex_comment, bibtex_field, bibtex_key, url
from claimsdb.export import NOT_REREAD, Export
from claimsdb.exporters.common import manifest_comments

ENTRY_TYPE = {"paper": "article", "report": "techreport"}


def render(export: Export) -> str:
    lines = manifest_comments(export, "% claimsdb export: ", bibtex_comment)
    if export.draft:
        lines.append(f"% DRAFT: the selection includes claims that are {NOT_REREAD}")
    seen: dict[str, dict] = {}
    for row in export.rows:
        for c in row.citations:
            seen.setdefault(c["cite_key"], c)
    for cite_key, c in sorted(seen.items()):
        key = bibtex_key(cite_key, f"the citation key of source {c['key']!r}")
        entry = ENTRY_TYPE.get(c["kind"], "misc")
        fields = {}
        if c.get("authors"):
            fields["author"] = f"{{{bibtex_field(c['authors'])}}}"
        fields["title"] = f"{{{bibtex_field(c['title'])}}}"
        if c.get("publisher"):
            fields["institution" if entry == "techreport" else "publisher"] = f"{{{bibtex_field(c['publisher'])}}}"
        if c.get("date"):
            year = re.match(r"\d{4}", c["date"])
            if year:
                fields["year"] = year.group(0)
        address = url(c["url"])
        if address:
            fields["howpublished"] = f"{{\\url{{{address}}}}}"
            fields["url"] = f"{{{address}}}"
        if c.get("accessed"):
            fields["urldate"] = f"{{{bibtex_field(c['accessed'])}}}"
            fields["note"] = f"{{Accessed {bibtex_field(c['accessed'])}}}"
        body = ",\n".join(f"  {k} = {v}" for k, v in fields.items())
        lines += ["", f"@{entry}{{{key},\n{body}\n}}"]
    return "\n".join(lines) + "\n"
