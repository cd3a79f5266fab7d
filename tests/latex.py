"""Compile a LaTeX document for real (pdflatex, and bibtex when asked) and report what TeX did.

`-recorder` makes TeX list every file it opened, so a test can tell that an exported table did not
make TeX read /etc/passwd or write a file of its own; `-no-shell-escape` keeps \\write18 off as a
reader's TeX would. CI installs TeX (.ci/run); elsewhere, without an engine, the tests that need one skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from pypdf import PdfReader

# CI sets CLAIMS_REQUIRE_TEX=1 (.ci/run installs TeX): there a missing engine fails the tests instead.
needs_tex = pytest.mark.skipif(
    (shutil.which("pdflatex") is None or shutil.which("bibtex") is None)
    and os.environ.get("CLAIMS_REQUIRE_TEX") != "1",
    reason="no TeX engine (pdflatex, bibtex) installed on this machine",
)
PREAMBLE = "\\documentclass{article}\n\\usepackage{booktabs,longtable,array}\n\\usepackage{url}\n\\usepackage[numbers]{natbib}\n"
TEX_TREES = (
    "/usr/share/texlive",
    "/usr/share/texmf",
    "/var/lib/texmf",
    "/etc/texmf",
    "/usr/local/texlive",
)
FONT_FILE = re.compile(
    r"(^|/)(texmf-var|\.texlive[0-9]*)/|\.([0-9]+pk|tfm)$"
)  # fonts TeX makes on first use


@dataclass
class Build:
    ok: bool
    log: str  # what pdflatex (and bibtex) printed
    opened: list[str]  # files TeX read or wrote outside the TeX installation
    text: str  # the PDF's text, "" when it failed
    pages: int = 0  # the PDF's pages
    bitmap_fonts: int = (
        0  # Type 3 fonts in the PDF: glyphs TeX drew as bitmaps, which publishers refuse
    )

    @property
    def flat(self) -> str:
        """The PDF's text with every line break and run of spaces as one space (tables wrap their cells)."""
        return " ".join(self.text.split())

    def overfull(self, points: float = 1.0) -> list[str]:
        """TeX's complaints about lines wider than their box by more than `points`: what ran off the page."""
        return [
            m.group(0)
            for m in re.finditer(r"Overfull \\hbox \(([0-9.]+)pt too wide\)[^\n]*", self.log)
            if float(m.group(1)) > points
        ]


def _run(command: list[str], folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, errors="replace", timeout=120
    )


def build(
    folder: Path, body: str, *, preamble: str = PREAMBLE, bibliography: bool = False
) -> Build:
    """Compile `body` (what goes between \\begin{document} and \\end{document}) in `folder`."""
    tail = "\n\\bibliographystyle{plainnat}\n\\bibliography{claims}\n" if bibliography else "\n"
    return build_document(
        folder,
        f"{preamble}\\begin{{document}}\n{body}{tail}\\end{{document}}\n",
        bibliography=bibliography,
    )


def build_document(folder: Path, document: str, *, bibliography: bool = False) -> Build:
    """Compile a whole document as paper.tex in `folder`: pdflatex, then (with a bibliography) bibtex and
    pdflatex twice. BibTeX's own report stays in paper.blg."""
    (folder / "paper.tex").write_text(document, encoding="utf-8")
    latex = [
        "pdflatex",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-no-shell-escape",
        "-recorder",
        "paper.tex",
    ]
    runs = [_run(latex, folder)]
    if bibliography and runs[-1].returncode == 0:
        runs.append(_run(["bibtex", "paper"], folder))
        if runs[-1].returncode <= 1:  # 1: warnings only
            runs += [_run(latex, folder), _run(latex, folder)]
    ok = all(r.returncode == 0 or (r.args[0] == "bibtex" and r.returncode == 1) for r in runs)
    opened = []
    for line in (folder / "paper.fls").read_text(errors="replace").splitlines():
        kind, _, name = line.partition(" ")
        if (
            kind in ("INPUT", "OUTPUT")
            and not name.startswith(TEX_TREES)
            and not FONT_FILE.search(name)
        ):
            opened.append(name.removeprefix("./").removeprefix(str(folder) + "/"))
    text, pages, bitmaps = "", 0, 0
    if ok:
        pdf = PdfReader(folder / "paper.pdf").pages
        text, pages = " ".join(page.extract_text() for page in pdf), len(pdf)
        bitmaps = len(
            {id(font) for page in pdf for font in _fonts(page) if font.get("/Subtype") == "/Type3"}
        )
    return Build(
        ok, "\n".join(r.stdout + r.stderr for r in runs), sorted(set(opened)), text, pages, bitmaps
    )


def render_pages(folder: Path, keep: Path | None = None, prefix: str = "page") -> list[float]:
    """Draw each page of folder/paper.pdf (pdftoppm, from poppler-utils: .ci/run installs it) and return,
    per page, the share of its pixels that are ink (darker than mid-grey). With `keep`, also write each page
    as `keep/{prefix}-N.png` for a person to look at."""
    if shutil.which("pdftoppm") is None:
        if os.environ.get("CLAIMS_REQUIRE_TEX") == "1":
            pytest.fail("pdftoppm (poppler-utils) is not installed: .ci/run installs it")
        pytest.skip("pdftoppm (poppler-utils) is not installed: the pages are not drawn")
    _run(["pdftoppm", "-r", "40", "-gray", "paper.pdf", "drawn"], folder)
    inked = []
    for page in sorted(folder.glob("drawn-*.pgm"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
        data = page.read_bytes()
        header = re.match(
            rb"P5\s+(\d+)\s+(\d+)\s+255\s", data
        )  # binary PGM: one whitespace, then the bytes
        assert header, page
        size = int(header[1]) * int(header[2])
        inked.append(sum(1 for b in data[header.end() : header.end() + size] if b < 128) / size)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        _run(
            ["pdftoppm", "-r", "60", "-png", str(folder / "paper.pdf"), str(keep / prefix)], folder
        )
    return inked


def _fonts(page) -> list:
    resources = page.get("/Resources")
    fonts = resources.get_object().get("/Font") if resources is not None else None
    return (
        [fonts.get_object()[name].get_object() for name in fonts.get_object()]
        if fonts is not None
        else []
    )


# The documented LaTeX snippet: the ```latex block right after this comment in the docs (docs/guide/latex.md).
SNIPPET_MARKER = "<!-- claimsdb:latex-preamble -->"
REPO = Path(__file__).resolve().parent.parent
NOT_DOCS = {".venv", ".git", "node_modules", "site", ".pytest_cache"}


def documented_snippet() -> tuple[Path, str]:
    """(the Markdown file, the LaTeX) of the one block the docs mark as the paper's preamble."""
    from markdown_it import MarkdownIt

    found = []
    for path in _markdown_files():
        tokens = MarkdownIt().parse(path.read_text(encoding="utf-8"))
        for marker, block in zip(tokens, tokens[1:]):
            if marker.type == "html_block" and marker.content.strip() == SNIPPET_MARKER:
                assert block.type == "fence" and block.info.strip() == "latex", (
                    f"{path}: no ```latex block after the marker"
                )
                found.append((path, block.content))
    assert len(found) == 1, (
        f"expected one {SNIPPET_MARKER} block in the docs, found {[str(p) for p, _ in found]}"
    )
    return found[0]


def _markdown_files() -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in NOT_DOCS]
        found += [Path(folder) / f for f in files if f.endswith(".md")]
    return sorted(found)


def assert_contained(result: Build, own_files: set[str]) -> None:
    """TeX compiled, and read and wrote only the document's own files."""
    assert result.ok, result.log[-3000:]
    stray = [
        name for name in result.opened if name not in own_files and not name.startswith("paper.")
    ]
    assert stray == [], stray
