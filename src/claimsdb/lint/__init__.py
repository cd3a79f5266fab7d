"""`claims lint`: find every figure in a manuscript's prose and check it against the store.

`build_store(session, policy)` reads the store once; `lint_report(text, name=..., kind=..., store=...)`
returns a `Report`: a `Finding` for each figure of the prose that is not backed by a paper-safe, current
claim, and the counts; `lint_files(session, paths, policy)` does both for files, the kind taken from the
extension.

What is prose. Each kind is rewritten into a prose copy that maps back to the original's offsets, so
`line:col` (1-based; columns count characters, a tab is one) always point into the file as written:
- tex: math (`$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]`, equation/align/gather/multline/eqnarray/math
  environments, `\\ensuremath`), `%` comments, the preamble (before `\\begin{document}`), verbatim,
  listings, TikZ and the bibliography are skipped; so are the arguments of `\\cite...` (every citation
  command), `\\label`, `\\ref`, `\\eqref`, `\\autoref`, `\\cref`, `\\url`, the target of `\\href`,
  `\\claim` (a figure inserted by reference is safe by construction), siunitx's `\\num`, `\\qty`, `\\SI` are read as figures, `\\includegraphics`, `\\input`,
  lengths and colours, code (`\\texttt`, `\\verb`, `\\lstinline`) and authors/affiliations. Other commands
  keep their text (`\\textbf{16K} H100` reads "16K H100"); `~` is a space, `\\%` a percent sign,
  `--` a dash, `16\\,000` and `2{,}048` are numbers; a table cell (`&`) and a row (`\\\\`) end a figure,
  and a row is one sentence.
- md / qmd: YAML front matter, fenced code, code spans, `$..$` (pandoc's rule, so "$5M" stays money),
  `$$..$$`, HTML comments, tags and their attributes, script/style, link and image targets, reference
  definitions, `[@key]` and `@key` (citations, Quarto cross-references), footnote marks, `{{< .. >}}`
  shortcodes (`{{< var KEY.fig >}}` is a figure by reference), attribute blocks, numbers of numbered
  headings and ordered-list markers; a table row is one sentence.
- html: comments, script, style, head, pre, code, math, svg and `<sup>` (footnote marks) are skipped;
  tags and their attributes are not prose; entities are decoded; a cell ends a figure, a row or a block
  element ends a sentence.
- txt: everything is prose.
In every kind: URLs, e-mail addresses, DOIs and arXiv identifiers, numeric citations ("[12]", "[3, 4]",
"[3-5]"), month-name dates ("5 March 2024", "March 2024"), ISO dates ("2024-03-05"), slashed dates and
clock times ("9:30 am") give no figure; neither do:
- years: a bare 4-digit integer 1900-2100 with no scale and no unit (a capitalised word after it is
  not its unit: "In 2024 Llama ..."), a range of two such years, a decade ("the 2020s"); such a number
  followed by a word ("in 2020 researchers", "2000 steps") is checked against the store, but gives no
  note when nothing matches;
- references: a number after Section/Sec./§, Table, Figure/Fig., Equation/Eq., Appendix, Chapter, Revision,
  Algorithm, Listing, Line, Theorem, Lemma, Page/p./pp., Part, Stage, Phase, Row, Column, Version and
  the like, also in lists ("Tables 2 and 3") and in parentheses ("Eq. (7)");
- names: a number that is part of a subject named in the store ("Llama 3", "Open Athena 535B"), a model
  size right after such a name ("Llama 3 405B", "GLM-4.5 355B-A32B"), and a number below 10 written
  right after a capitalised name in mid-sentence ("we compare Gemma 3");
- small bare integers: an integer below 10 with no unit ("4", "3 of them") is too ambiguous to check
  against the store and gives nothing at all, not even a note.
Vague figures ("hundreds of GPUs") have no number to check and give nothing.

How a figure is judged. Only the claims of the subjects named around the figure are considered: in its
sentence (a table row is a sentence), its table column's header, or the heading of the section it stands
in; full names ("Llama 3", also "Llama-3", "llama3"; each part of "DeepSeek-V3 / R1") win over
distinctive words ("Kimi" of "Kimi K2.5"). Matching is case-insensitive and ignores hyphens and the space
between a name and its number. Each of those claims' figures is judged by `claimsdb.figures.match`
with the figure's sentence (before the number) and column header as the words that may say what it
counts, so a bare number never matches a figure that has a unit unless those words name it ("node
occupancy ... reached 278" states 278 nodes), and a bare number inside a stored range is not that figure.

Severity. A figure passes when a claim that is active, paper-safe under the policy and not stale states it
(verdict "same", or one step of its stored change: "up to 128K" of "32K → 128K"). Otherwise, in this order: "warning" when such a claim's figure rounds to it or holds it
in its range ("differs from the store"); "warning" when only stale paper-safe claims state it (spot-checked,
and the latest verification found the figure changed or gone; the strict policy blocks those, so then it
is an error); "error" when only claims that are not paper-safe state it, or only withdrawn/superseded
ones; "warning" "differs from the store" when a claim of the named subject measures the same thing with
another value ("10,000 concurrent tasks" for Kimi K2.5 when the store says 100,000); "note" when nothing
matches (an untracked figure). Each message is one line naming the claim key(s), tag and trust, and for
errors the `claims reread` command that would clear each one. The report also counts the figures that
were checked and those that passed.

Modules: `claimsdb.prose` (a rewritten copy that maps back to the original; prose per format: tex,
markup), and here `filter` (what is not a figure; sentences), `subjects` (where subjects are named), `linter`.

Domain code: it returns findings and raises BadQuery; it never prints.
"""

from __future__ import annotations

from claimsdb.lint.linter import (
    EXTENSIONS, KINDS, SEVERITIES, Finding, IndexedClaim, Report, Store, build_store, kind_of, lint_files,
    lint_report, lint_text,
)

__all__ = ["EXTENSIONS", "KINDS", "SEVERITIES", "Finding", "IndexedClaim", "Report", "Store", "build_store",
           "kind_of", "lint_files", "lint_report", "lint_text"]
