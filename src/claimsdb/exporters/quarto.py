"""Quarto / pandoc variables (`_variables.yml`) for Markdown papers: `{{< var KEY.fig >}}`.

Quarto reads dots in a variable name as nesting, so each claim key becomes a path, and each claim
holds `fig` (its first figure), `fig1`, `fig2`, ... and its figures' names. Only paper-safe claims are
written, unless the export is a draft: then unsafe ones are written with an "[unverified]" mark.
"""

from __future__ import annotations

import json
from typing import Any

from claimsdb.export import NOT_REREAD, Export

UNVERIFIED = " [unverified]"


def _tree(export: Export) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for row in export.rows:
        if not row.figures:
            continue
        node = root
        for part in row.key.split("."):
            node = node.setdefault(part, {})
        mark = "" if row.paper_safe else UNVERIFIED
        node["fig"] = row.figures[0] + mark
        for i, raw in enumerate(row.figures, start=1):
            node[f"fig{i}"] = raw + mark
            name = row.figure_names[i - 1] if i - 1 < len(row.figure_names) else None
            if name:
                node[name] = raw + mark
    return root


def _yaml(node: dict[str, Any], indent: int = 0) -> list[str]:
    lines = []
    for key, value in node.items():
        name = json.dumps(key, ensure_ascii=False)  # a JSON string is a valid YAML scalar
        if isinstance(value, dict):
            lines.append(" " * indent + f"{name}:")
            lines += _yaml(value, indent + 2)
        else:
            lines.append(" " * indent + f"{name}: {json.dumps(value, ensure_ascii=False)}")
    return lines


def render(export: Export) -> str:
    lines = [f"# claimsdb export: {k}: {v}" for k, v in export.manifest.items()]
    if export.draft:
        lines.append(f"# DRAFT: values marked{UNVERIFIED} are {NOT_REREAD}; not for a paper")
    lines += _yaml(_tree(export))
    return "\n".join(lines) + "\n"
