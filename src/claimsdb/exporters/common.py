"""What several exporters share: manifest comment lines and the names a claim's figures are known by."""

from __future__ import annotations

from collections.abc import Callable

from claimsdb.errors import ExportConflict
from claimsdb.escaping import comment
from claimsdb.paper_safe import Export, ExportRow


def manifest_comments(
    export: Export, prefix: str, escape: Callable[[str], str] = comment
) -> list[str]:
    """The manifest as comment lines, each kept on its line whatever the values hold."""
    return [prefix + escape(f"{k}: {v}") for k, v in export.manifest.items()]


def named_figures(
    row: ExportRow, first: str, position: Callable[[int], str]
) -> list[tuple[str, str]]:
    """(name, figure as written) for every name a paper may use: the first figure, each position, each
    figure's own name. Two figures under one name would silently print the wrong one: refused."""
    names = [(first, row.figures[0])]
    for i, raw in enumerate(row.figures, start=1):
        names.append((position(i), raw))
        own = row.figure_names[i - 1] if i - 1 < len(row.figure_names) else None
        if own:
            names.append((own, raw))
    seen: set[str] = set()
    for name, _ in names:
        if name in seen:
            raise ExportConflict(
                f"claim {row.key}: two of its figures would both be exported as {name!r}; "
                "rename the figure (names must differ from each other and from fig, fig1, 1, 2, ...)"
            )
        seen.add(name)
    return names
