"""BibTeX entries for the sources the exported claims cite (the keys `\\cite{}` uses)."""

from __future__ import annotations

import re

from claimsdb.export import NOT_REREAD, Export

ENTRY_TYPE = {"paper": "article", "report": "techreport"}


def _field(text: str) -> str:
    return text.replace("\\", "\\textbackslash{}").replace("{", "\\{").replace("}", "\\}")


def render(export: Export) -> str:
    m = export.manifest
    lines = [f"% claimsdb export: {k}: {v}" for k, v in m.items()]
    if export.draft:
        lines.append(f"% DRAFT: the selection includes claims that are {NOT_REREAD}")
    seen: dict[str, dict] = {}
    for row in export.rows:
        for c in row.citations:
            seen.setdefault(c["cite_key"], c)
    for cite_key, c in sorted(seen.items()):
        entry = ENTRY_TYPE.get(c["kind"], "misc")
        fields = {"title": f"{{{_field(c['title'])}}}"}
        if c.get("publisher"):
            fields["institution" if entry == "techreport" else "publisher"] = f"{{{_field(c['publisher'])}}}"
        if c.get("date"):
            year = re.match(r"\d{4}", c["date"])
            if year:
                fields["year"] = year.group(0)
        if c["url"]:
            fields["howpublished"] = f"{{\\url{{{c['url']}}}}}"
            fields["url"] = f"{{{c['url']}}}"
        body = ",\n".join(f"  {k} = {v}" for k, v in fields.items())
        lines += ["", f"@{entry}{{{cite_key},\n{body}\n}}"]
    return "\n".join(lines) + "\n"
