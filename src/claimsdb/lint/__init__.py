"""`claims lint`: find every figure in a manuscript's prose and check it against the store.

`build_store(session, policy)` reads the store once; `lint_report(text, name=..., kind=..., store=...)`
returns a `Report`: a `Finding` for each figure of the prose that is not backed by a paper-safe, current
claim, and the counts; `lint_files(session, paths, policy)` does both for files, the kind taken from the
extension.

What is prose. Each kind is rewritten into a prose copy that maps back to the original's offsets, so
`line:col` (1-based; columns count characters, a tab is one) always point into the file as written:
- tex: display math (`$$..$$`, `\\[..\\]`, equation/align/gather/multline/eqnarray/math environments,
  `\\ensuremath`), `%` comments, the preamble (before `\\begin{document}`), verbatim, listings, TikZ and
  the bibliography are skipped; so are the arguments of `\\cite...` (every citation command), `\\label`,
  `\\ref`, `\\eqref`, `\\autoref`, `\\cref`, `\\url`, the target of `\\href`, `\\claim` (a figure inserted by
  reference is judged by its key, below), `\\includegraphics`, `\\input`, lengths and colours, and
  authors/affiliations. Inline math (`$..$`, `\\(..\\)`) that is only notation around a figure reads as
  text (`$\\times$` "×", `$\\sim$` "~", `$\\approx$` "≈", `$\\eta = 4$` "η = 4", `$10^{25}$`); any other
  formula is skipped. siunitx's `\\num`, `\\qty`, `\\SI` and their ranges read as they are typeset
  ("16,384", "20 s"). Code (`\\texttt`, `\\verb`, `\\lstinline`) reads as text when it sets a key to a
  number ("max_off_policy_steps = 8") or holds no digit (a name: "posttrain.html"), and is skipped
  otherwise. Other commands keep their text (`\\textbf{16K} H100` reads "16K H100"); `~` is a space,
  `\\%` a percent sign, `--` a dash, `16\\,000` and `2{,}048` are numbers; a table cell (`&`) and a row
  (`\\\\`) end a figure, a row is one sentence, and a tabular's first row is its column headers.
- md / qmd: YAML front matter, fenced code, `$$..$$`, HTML comments, tags and their attributes,
  script/style, link and image targets, reference definitions, `[@key]` and `@key` (citations, Quarto
  cross-references), footnote marks, `{{< .. >}}` shortcodes (`{{< var KEY.fig >}}` is a figure by
  reference, judged by its key), attribute blocks, numbers of numbered headings and ordered-list markers; `$..$` (pandoc's
  rule, so "$5M" stays money) and code spans are read as in LaTeX; a table row is one sentence.
- html: comments, script, style, head, pre, code, math, svg and `<sup>` (footnote marks) are skipped;
  tags and their attributes are not prose; entities are decoded; a cell ends a figure, a row or a block
  element ends a sentence.
- txt: everything is prose.
Figures in words count too (figures.wording): a ratio "twelve to eight" or "a 16-to-44 split" (when its
clause says ratio, split or divided), "a dozen", "a pair of", and magnitudes ("hundreds of thousands"
is "several hundred thousand"); so do the store's figures written without a digit ("triple"), where
the prose writes their words. Two figures make a ratio (lint/reading.py) when written "X for every Y"
("twelve GPUs to the trainer for every eight", "one verifier for each four generators") or "X to A and
Y to B" of one thing in a clause that says split, divided, ratio or proportion ("splits its GPUs, 12 to
the learner and 8 to the actors").

No figure is dropped without trace: a figure lint does not judge is counted as skipped, with its reason
(listed with `--notes`). Every number of the prose (digits not inside a name such as "H800" or
"Qwen3-235B", and scale words) lies in a figure that is checked or skipped: one the scanner read as no
figure is read again where a scale word's hyphen hid it ("a trillion-parameter model"), or else skipped
as what it is: a citation's year ("2024a"), an ordinal ("19th"), a dotted section or version number
("3.3.4"), a code ("624b824"), a number glued to a word that is not a known unit ("32b"), a scale word
with no number ("each trillion tokens"), or a number lint cannot read. In every kind: URLs, e-mail addresses, DOIs, arXiv identifiers and metrics
such as pass@1 ("an address or identifier"), numeric citations ("[12]", "[3, 4]", "[3-5]"), month-name
dates ("5 March 2024", "March 2024"), ISO dates ("2024-03-05"), slashed dates and clock times ("9:30
am") are skipped; and so are:
- years: a bare 4-digit integer 1900-2100 with no scale and no unit (a capitalised word after it is
  not its unit: "In 2024 Llama ..."), a range of two such years, a decade ("the 2020s"); such a number
  followed by a word ("in 2020 researchers", "2000 steps") is checked against the store, but skipped
  ("most likely a year") when nothing matches;
- references: a number after Section/Sec./§, Table, Figure/Fig., Equation/Eq., Appendix, Chapter, Revision,
  Algorithm, Listing, Line, Theorem, Lemma, Page/p./pp., Part, Stage, Phase, Row, Column, Version and
  the like, also in lists ("Tables 2 and 3") and in parentheses ("Eq. (7)");
- names: a number that is part of a subject named in the store ("Llama 3", "Open Athena 535B"), a model
  size right after such a name ("Llama 3 405B", "GLM-4.5 355B-A32B"), and a number below 10 written
  right after a capitalised name in mid-sentence ("we compare Gemma 3", "Terminal-Bench 2.0");
- a setting of a key the store does not hold ("x = 2048", "batch_size = 4");
- small counts nobody measures: a whole number below 10 (a digit or a word) is checked only against
  the claims whose measure its own unit or the words around it name (below); with none it is skipped;
- figures in words ("hundreds of thousands") that no claim of a subject in scope states.

How a figure is judged. Only the claims of the subjects in scope are considered: those named in its
sentence (a table row is a sentence), its table column's header, or the heading of the section it
stands in; and, when its sentence names none, those named by the latest earlier sentence of its
paragraph that names one, unless a sentence in between (or its own) names someone the store does not
know ("xAI", "Falcon-180B", a capitalised name in mid-sentence). Full names ("Llama 3", also "Llama-3",
"llama3"; each part of "DeepSeek-V3 / R1"; a claim's aliases) win over distinctive words ("Kimi" of
"Kimi K2.5"); see lint/subjects.py for subjects made of generic words and for family names followed by
another version. Each of those claims' figures is judged by `claimsdb.figures.match` with the words
that may say what the figure counts: its column header, its sentence before it and its clause after
it, and the store's own words for the stored figure's measure (its name, the words of a setting's key,
the nouns its claim's statement puts after it). A figure with a unit or counted thing never matches a
figure stored without one whose store words name something else, unless those words or its name stand
near it ("trained on 1,000,000 GPUs" is not a "1M" context length). A bare number never matches a figure that has a unit
unless those words name it ("node occupancy ... reached 278" states 278 nodes), and a bare number
inside a stored range is not that figure. A small count (below 10), or any bare number whose subject
is only carried from an earlier sentence, needs that evidence even against a bare stored figure
("a staleness bound of 4" is Mercor's bound; "Mercor hired 4 engineers" is not); and a subject carried
over never makes a figure "another value" of it.

Severity. A figure passes when a claim that is active, paper-safe under the policy and not stale states it
(verdict "same", or one step of its stored change: "up to 128K" of "32K → 128K"); a value inside the
range of such a claim passes too, with a note ("within the stored range"). Otherwise, in this order:
"warning" when a value lies inside the range of a claim that is not paper-safe (it does not state it);
"warning" when such a claim's figure rounds to it or overlaps its range ("differs from the store");
"warning" when only stale paper-safe claims state it (spot-checked, and the latest verification found
the figure changed or gone; the strict policy blocks those, so then it is an error); "error" when only
claims that are not paper-safe state it, or only withdrawn/superseded ones; "warning" "differs from the
store" when a claim of a named subject measures the same thing with another value ("10,000 concurrent
tasks" for Kimi K2.5 when the store says 100,000; "14 instances" for WeirdML when the store has a bare
11 named "instances": the written figure says what it counts, and the stored one by its unit or the
last word of its name); "note" when nothing matches (an untracked figure).
Each message is one line naming the claim key(s), tag and trust, and for errors the page a person
re-reads to clear each one (its address and locator) and where they record it (trust.rule.reread_hint). The report counts the figures checked, passed, errors, warnings,
untracked and skipped.

Figures by reference (lint/references.py): each `\\claim{KEY}` (`\\claim[2]{KEY}`, `\\claim[NAME]{KEY}`)
of a tex file outside comments and verbatim text, and each `{{< var KEY.fig >}}` (`.fig2`, `.NAME`) of
an md or qmd file outside code and HTML comments, is checked and judged as its claim's figure: it
passes when the claim is paper-safe and current, and otherwise is what a typed figure stated only by
that claim would be (an error when it is not paper-safe or is withdrawn); a key no claim has, or a
figure the claim does not have, is an error. The TeX macros are not trusted (`\\claimsdraft`, a
redefined guard): a file is a draft only when a comment line of its own says `claims: draft`
(`% claims: draft`, `<!-- claims: draft -->`), and then a figure by reference whose claim is not
paper-safe yet is a warning instead of an error.

Modules: `claimsdb.prose` (a rewritten copy that maps back to the original; prose per format: tex,
markup), `claimsdb.figures.wording` (figures in words), and here `filter` (what is not a figure; sentences;
who else a sentence names), `subjects` (where subjects are named), `claims_read` (the claims lint reads once), `reading` (ratios
written as two figures; numbers the scanner read as no figure), `references` (figures by reference),
`tables` (column headers), `linter` (which figures; which subjects are in scope), `judgement` (what lint
says of a figure, from the verdicts), `report` (findings and counts).

Domain code: it returns findings and raises BadQuery; it never prints.
"""

from __future__ import annotations

from claimsdb.lint.claims_read import IndexedClaim, Store, build_store
from claimsdb.lint.linter import EXTENSIONS, KINDS, kind_of, lint_files, lint_report, lint_text
from claimsdb.lint.report import SEVERITIES, SKIPPED, Finding, Report

__all__ = [
    "EXTENSIONS",
    "KINDS",
    "SEVERITIES",
    "SKIPPED",
    "Finding",
    "IndexedClaim",
    "Report",
    "Store",
    "build_store",
    "kind_of",
    "lint_files",
    "lint_report",
    "lint_text",
]
