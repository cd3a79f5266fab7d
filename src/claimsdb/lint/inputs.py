"""The files a manuscript brings in: LaTeX's `\\input{FILE}`, `\\include{FILE}`, `\\subfile{FILE}` and
`\\import{DIR}{FILE}`, Quarto's `{{< include FILE >}}`, so that `claims lint paper.tex` checks the
figures of the whole paper, not only of the file named.

A LaTeX path is read from the folder of the file lint was given (as TeX reads it), with ".tex" added when
it has no extension; a Quarto path from the folder of the file that includes it. A file named twice is
read once; at most MAX_FILES in all, none larger than MAX_BYTES. A file claimsdb wrote itself (`claims export --format macros`,
which begins "% claimsdb export:") is the store's own output and is not read as prose. An input that
is not found, or that lint cannot read, is a skipped item of the file that names it, with its reason.
Domain code: no output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from claimsdb.lint.references import MD_HIDDEN, TEX_HIDDEN, blanked

__all__ = ["MAX_BYTES", "MAX_FILES", "Input", "inputs", "own_export", "resolve_input", "too_large"]

MAX_FILES = 500
MAX_BYTES = 50_000_000  # a file brought in larger than this is not read ("\\input{/var/log/big}")
EXPORT_HEADER = "% claimsdb export:"

# (Each path is trimmed after the match: a quantifier of spaces beside one that takes them too would try
# every split of a run of spaces.)
_TEX_INPUT = re.compile(
    r"\\(?:input|include|subfile|InputIfFileExists)[ \t]*\{([^{}\n]{1,500})\}"
    r"|\\(?:sub)?(?:import|inputfrom|includefrom)[ \t]*\{([^{}\n]{0,500})\}[ \t]*\{([^{}\n]{1,500})\}"
)
_MD_INCLUDE = re.compile(r"\{\{<[ \t]*include[ \t]+([^\s>]{1,500})[ \t]*>\}\}")


@dataclass(frozen=True)
class Input:
    start: int  # offset of the use in the file that names it
    raw: str  # the use as written: "\\input{sections/results}"
    target: str  # the path as written, its folder joined: "sections/results"


def _path(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return m.group(1).strip()
    folder, name = m.group(2).strip().rstrip("/"), m.group(3).strip()
    return f"{folder}/{name}" if folder else name


def inputs(text: str, kind: str) -> list[Input]:
    """The files the manuscript brings in, in order (not in comments, verbatim text or code)."""
    if kind == "tex":
        seen = blanked(text, TEX_HIDDEN)
        return [Input(m.start(), m.group(0), _path(m)) for m in _TEX_INPUT.finditer(seen)]
    if kind in ("md", "qmd"):
        seen = blanked(text, MD_HIDDEN)
        return [Input(m.start(), m.group(0), m.group(1)) for m in _MD_INCLUDE.finditer(seen)]
    return []


def resolve_input(use: Input, kind: str, root: Path, here: Path) -> Path | None:
    """The file an input names, or None if there is none: a LaTeX path from `root` (the folder of the
    file lint was given), ".tex" tried when it has no extension; a Quarto path from `here`."""
    base = root if kind == "tex" else here
    try:
        path = (base / use.target).expanduser()
        tries = (
            [path] if path.suffix or kind != "tex" else [path.with_name(path.name + ".tex"), path]
        )
        return next((p for p in tries if p.is_file()), None)
    except (
        OSError,
        ValueError,
        RuntimeError,
    ):  # a name no file can have ("a\0b", too long, "~nobody")
        return None


def too_large(path: Path) -> bool:
    try:
        return path.stat().st_size > MAX_BYTES
    except OSError:
        return False  # reading it says why


def own_export(text: str) -> bool:
    """A file claimsdb wrote (the macros of `claims export`): the store's figures, not prose."""
    return text.lstrip("\ufeff").startswith(EXPORT_HEADER)
