"""Quarto / pandoc variables (`_variables.yml`) for Markdown papers: `{{< var KEY.fig >}}`.

Quarto reads dots in a variable name as nesting, so each claim key becomes a path, and each claim
holds `fig` (its first figure), `fig1`, `fig2`, ... and its figures' names. Only paper-safe claims are
written, unless the export is a draft: then unsafe ones are written with an "[unverified]" mark.
Every name and value is a double-quoted YAML scalar (`yaml_string`); a name that would stand for two
things (a figure named like another claim's key segment) is refused rather than overwritten. A shortcode's
arguments are split at spaces, so a figure name's spaces become underscores (`{{< var KEY.Longmino_stage >}}`).
"""

from __future__ import annotations

import re
from typing import Any

from claimsdb.errors import ExportConflict
from claimsdb.escaping import yaml_string
from claimsdb.exporters.common import manifest_comments, named_figures
from claimsdb.paper_safe import NOT_REREAD, Export

UNVERIFIED = " [unverified]"


def variable_name(name: str) -> str:
    """A figure's name as one word of a `{{< var ... >}}` shortcode."""
    return re.sub(r"\s+", "_", name.strip())


def _conflict(path: list[str]) -> ExportConflict:
    return ExportConflict(
        f"the Quarto variable {'.'.join(path)} would be both a figure and a claim's key: "
        "rename the figure or the claim"
    )


def _tree(export: Export) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for row in export.rows:
        if not row.figures:
            continue
        node, path = root, []
        for part in row.key.split("."):
            path.append(part)
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise _conflict(path)
        mark = "" if row.paper_safe else UNVERIFIED
        for name, raw in named_figures(row, "fig", lambda i: f"fig{i}"):
            name = variable_name(name)
            if name in node:
                raise _conflict([*path, name])
            node[name] = raw + mark
    return root


def _yaml(node: dict[str, Any], indent: int = 0) -> list[str]:
    lines = []
    for key, value in node.items():
        name = yaml_string(key)
        if isinstance(value, dict):
            lines.append(" " * indent + f"{name}:")
            lines += _yaml(value, indent + 2)
        else:
            lines.append(" " * indent + f"{name}: {yaml_string(value)}")
    return lines


def render(export: Export) -> str:
    lines = manifest_comments(export, "# claimsdb export: ")
    if export.draft:
        lines.append(f"# DRAFT: values marked{UNVERIFIED} are {NOT_REREAD}; not for a paper")
    lines += _yaml(_tree(export))
    return "\n".join(lines) + "\n"
