"""`claims lint`'s domain: figures in a manuscript's prose, checked against the bundled data set.

Every manuscript here is written by the test itself. The store is the bundled data imported through
the real CLI into a SQLite file in tmp_path.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from claimsdb import db
from claimsdb.errors import BadQuery
from claimsdb.lint import Finding, build_store, lint_files, lint_text, linter
from claimsdb.prose.markup import markdown
from claimsdb.prose.tex import tex
from claimsdb.trust.rule import Policy
from tests.conftest import DATA_FILES, ENGINE, reread
from tests.pages import LLAMA3_FAILURES

DEFAULT, STRICT = Policy(), Policy(strict=True)


@pytest.fixture
def bundled(claims):
    result = claims("import", *DATA_FILES)
    assert result.exit_code == 0, result.output


@pytest.fixture
def engine(bundled, store):
    return db.open_engine(store)


@pytest.fixture
def run(engine):
    """lint_text against the store as it is now (the index is rebuilt on every call)."""

    def lint_(
        text: str, kind: str = "txt", policy: Policy = DEFAULT, name: str = "paper"
    ) -> list[Finding]:
        with db.session_scope(engine) as session:
            index = build_store(session, policy)
        return lint_text(text, name=name, kind=kind, index=index)

    return lint_


def only(findings: list[Finding]) -> Finding:
    assert len(findings) == 1, [(f.raw, f.severity, f.claims) for f in findings]
    return findings[0]


# A data file's `reread` is recorded as an attestation (its page was not checked): a figure stated only
# by such claims passes, with a note saying on what.
ATTESTED = "passes on an attested re-read, not checked against the page"


def attested_only(findings: list[Finding]) -> list[tuple[str, ...]]:
    """The claims of the findings, each a note that its figure passes on a data file's re-read only; no
    other finding."""
    assert all(f.severity == "note" and f.message.startswith(ATTESTED) for f in findings), [
        (f.raw, f.severity, f.message) for f in findings
    ]
    assert all("recorded in a data file; the page was not checked" in f.message for f in findings)
    return [f.claims for f in findings]


def at(text: str, finding: Finding) -> str:
    """The original text from the finding's line:col on."""
    return text.split("\n")[finding.line - 1][finding.col - 1 :]


# --- the figures the brief names --------------------------------------------------------------------------


def test_kimi_k25_concurrent_tasks_is_an_error_naming_the_agent_reported_claim(run):
    text = "Our sandbox design follows Kimi K2.5, which keeps 100,000 concurrent tasks in flight.\n"
    f = only(run(text, "md"))
    assert (f.severity, f.claims, f.tags) == (
        "error",
        ("rl.fleet.kimi-k25-tasks",),
        ("agent-reported",),
    )
    assert f.raw == "100,000 concurrent tasks" and at(text, f).startswith(
        "100,000 concurrent tasks"
    )
    assert "agent-reported (unverified)" in f.message
    assert (
        "a person re-reads rl.fleet.kimi-k25-tasks in the page its figure comes from (it cites none"
        in f.message
    )  # it cites only the note
    assert "`claims reread rl.fleet.kimi-k25-tasks`" in f.message and "--yes" not in f.message
    assert (
        "stored as up to, written as exact" in f.message
    )  # the comparator differs; it still matches
    assert "\n" not in f.message
    assert f.to_dict()["claims"] == ["rl.fleet.kimi-k25-tasks"] and f.to_dict()["line"] == 1


@pytest.mark.parametrize("written", ["１００，０００", "١٠٠٬٠٠٠".replace("٬", ","), "𝟏𝟎𝟎,𝟎𝟎𝟎"])
def test_a_figure_in_fullwidth_or_other_digits_is_the_claim_it_prints(run, written):
    """Digits a PDF prints as "100,000" are that figure, whichever code points they are."""
    text = (
        f"Our sandbox design follows Kimi K2.5, which keeps {written} concurrent tasks in flight.\n"
    )
    f = only(run(text, "md"))
    assert (f.severity, f.claims) == ("error", ("rl.fleet.kimi-k25-tasks",))
    assert at(text, f).startswith(written)


def test_a_figure_kept_in_a_macro_of_the_preamble_is_judged_where_it_prints(run):
    text = (
        "\\documentclass{article}\n\\newcommand{\\kimitasks}{100,000}\n\\begin{document}\n"
        "Our sandbox design follows Kimi K2.5, which keeps \\kimitasks{} concurrent tasks in flight.\n"
        "\\end{document}\n"
    )
    f = only(run(text, "tex"))
    assert (f.severity, f.claims, f.raw) == (
        "error",
        ("rl.fleet.kimi-k25-tasks",),
        "100,000 concurrent tasks",
    )
    assert (f.line, at(text, f)[:11]) == (4, "\\kimitasks{")


def test_a_bidirectional_control_character_is_an_error_where_it_stands(run):
    """Between U+202E and U+202C, "000,001" prints as "100,000": lint reads what is stored, so the text
    cannot pass while it holds one."""
    text = "Kimi K2.5 keeps \u202e000,001\u202c concurrent tasks in flight.\n"
    findings = run(text, "md")
    assert [(f.severity, f.raw, f.col) for f in findings] == [
        ("error", "U+202E", 17),
        ("error", "U+202C", 25),
    ]
    assert "bidirectional" in findings[0].message


def test_a_finding_as_json_holds_every_field_in_order():
    f = Finding("a.md", 3, 7, "54 days", "error", "why", ("k1", "k2"), ("t1", "t2"), "same")
    assert f.to_dict() == {
        "file": "a.md",
        "line": 3,
        "col": 7,
        "raw": "54 days",
        "severity": "error",
        "message": "why",
        "claims": ["k1", "k2"],
        "tags": ["t1", "t2"],
        "verdict": "same",
    }
    assert list(f.to_dict()) == [field.name for field in dataclasses.fields(Finding)]  # in order


def test_466_interruptions_about_llama3_is_an_error_until_a_person_rereads_it(run, claims, page):
    text = "\\section{Reliability}\nOver its 54-day run, Llama~3 405B logged 466 interruptions.\n"
    errors = run(text, "tex")
    assert [(f.raw, f.severity, f.claims) for f in errors] == [
        ("54-day run", "error", ("pipelines.obs.llama3-failures",)),
        ("466 interruptions", "error", ("pipelines.obs.llama3-failures",)),
    ]
    assert (
        "a person re-reads pipelines.obs.llama3-failures in llama3-report <https://"
        in errors[1].message
    )
    reread = claims(
        "reread",
        "pipelines.obs.llama3-failures",
        *LLAMA3_FAILURES.flags(page),
        *("--by", "Ada", "--yes"),
    )
    assert reread.exit_code == 0, reread.output
    assert run(text, "tex") == []
    assert (
        run(text, "tex", policy=STRICT) == []
    )  # checked against the page: the strict policy counts it


def test_16k_h100_and_16000_h100_gpus_match_the_same_claim(run):
    text = "Llama 3 had 16K H100. Put differently, Llama 3 had 16,000 H100 GPUs.\n"
    assert run(text) == []  # a secondary tag passes the default policy
    strict = run(text, policy=STRICT)  # and not the strict one, which shows what matched
    assert [(f.raw, f.claims, f.tags) for f in strict] == [
        ("16K H100", ("pipelines.llama3.pretrain",), ("note-2026-09-21",)),
        ("16,000 H100 GPUs", ("pipelines.llama3.pretrain",), ("note-2026-09-21",)),
    ]
    assert all(
        f.severity == "error" and "not paper-safe under the strict policy" in f.message
        for f in strict
    )


@pytest.mark.slow
def test_units_and_counted_things_must_agree_when_both_sides_have_them(run):
    text = (
        "DeepSeek-V3 had 16,000 A100 GPUs. Llama 3 saw 466 restarts. DeepSeek-V3 ran 2,048 H800. "
        "Of those, Llama 3 logged 466.\n"
    )
    found = [(f.raw, f.severity, f.claims) for f in run(text, policy=STRICT)]
    assert found == [
        ("16,000 A100 GPUs", "note", ()),  # another accelerator
        ("466 restarts", "note", ()),  # another unit
        ("2,048 H800", "error", ("pipelines.deepseek-v3.pretrain",)),  # not the 2,048 B300
        ("466", "note", ()),  # a bare number never matches a figure that has a unit
    ]


def test_ranges_transitions_and_ratios_match_their_own_kind(run):
    # Under the strict policy the secondary claims show as errors, so every match is visible.
    text = (
        "DeepSeek-V4 saw 32–33T tokens, not 32–34T tokens. DeepSeek-V4's 32.5T tokens fall inside the "
        "range. DeepSeek-V3's context went 32K → 128K. INTELLECT-3 split 16:44, never 44:16.\n"
    )
    found = [(f.raw, f.severity, f.claims, f.verdict) for f in run(text, policy=STRICT)]
    assert [f[:3] for f in found] == [
        (
            "32–33T tokens",
            "error",
            ("pipelines.deepseek-v4.pretrain",),
        ),  # a range with the same ends
        (
            "32–34T tokens",
            "error",
            ("pipelines.deepseek-v4.pretrain",),
        ),  # an overlapping range: contained
        # a number inside a stored range does not state it: a warning while the claim is not paper-safe
        ("32.5T tokens", "warning", ("pipelines.deepseek-v4.pretrain",)),
        ("32K → 128K", "error", ("pipelines.deepseek-v3.midtrain",)),  # a transition
        ("16:44", "error", ("rl.placement.intellect3",)),  # a ratio, in order
        ("44:16", "note", ()),
    ]


def test_an_untracked_figure_is_a_note(run):
    f = only(run("For the ablations we used 7,777 GPUs.\n", "tex"))
    assert (f.severity, f.raw, f.claims, f.tags) == ("note", "7,777 GPUs", (), ())
    assert "untracked" in f.message and "\\claim{KEY}" in f.message


# --- what is not a figure ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, text",
    [
        (
            "txt",
            "In 2024 the DeepSeek team shipped it; in 2019-2023 and around 2020 nothing; the 2020s changed.\n",
        ),
        ("txt", "In 2024 Llama 3 shipped; in 2020 researchers disagreed.\n"),
        ("txt", "It appeared on March 15, 2024, on 5 June 2023, in May 2022 and on 2024-03-05.\n"),
        (
            "tex",
            "Training is stable: $x = 2048$, $16 \\cdot 2048 = 32768$, $$y = 7777$$,\n"
            "\\(z = 4096\\) and \\[w = 12\\].\n",
        ),
        (
            "tex",
            "We follow\n\\begin{align}\n  a &= 2048 \\\\\n  b &= 7777\n\\end{align}\nclosely.\n",
        ),
        (
            "md",
            "Training is stable: $x = 2048$, $16 \\cdot 2048 = 32768$ and $$y = 7777$$ for every step.\n",
        ),
        ("txt", "Prior sweeps [12] and [3, 4] and [13-15] agree.\n"),
        (
            "tex",
            "Prior sweeps~\\cite{llama3,kimi2025} and \\citep[p.~33]{survey:2048} and \\citet{b:7777} agree.\n",
        ),
        (
            "md",
            "Prior sweeps [@llama3; see @kimi2025, with 7777 runs] and [12] agree, see @fig-12 and [^1].\n\n"
            "[^1]: Noted.\n",
        ),
        (
            "txt",
            "See Section 3.2, Sec. 4, §3.5, Table 5, Fig. 2, Figure 3, Eq. 7, Eq. (8), Appendix 2, Chapter 3.\n",
        ),
        ("txt", "Tables 12 and 13 and Sections 5.1, 5.2 and 5.3 hold the rest.\n"),
        (
            "tex",
            "See Section~\\ref{sec:12}, Table~\\ref{tab:7777} and \\eqref{eq:2048}.\\label{sec:77}\n",
        ),
        (
            "txt",
            "The logs are at https://example.org/runs/2048/16000/7777.html and www.example.org/12345.\n",
        ),
        (
            "tex",
            "Logs: \\url{example.org/runs/7777} and \\href{example.org/runs/12345}{the logs}.\n",
        ),
        (
            "md",
            'Logs: [the runs](https://example.org/7777 "run 12345") and <https://example.org/31337>.\n',
        ),
        ("html", '<p>Logs: <a href="https://example.org/7777" data-n="12345">the runs</a>.</p>\n'),
        ("tex", "% We used 7,777 GPUs here, 2048 of them busy.\nA quiet paragraph.\n"),
        (
            "md",
            "---\ntitle: Scaling to 7777 GPUs\nbudget: 12345\n---\nUse `--max-seqs 7777` here.\n\n"
            "```python\nbatch = 12345\n```\n\n## 12.3 Results\n\n11. First point.\n12. Second point.\n",
        ),
        (
            "html",
            "<html><head><title>7777</title><style>p{margin:12345px}</style></head><body>"
            "<script>var n = 31337;</script><p>Nothing here.</p></body></html>\n",
        ),
        ("txt", "Mercor keeps 4 in flight and 3 of them finish; two stages, one model.\n"),
    ],
)
@pytest.mark.slow
@pytest.mark.engine_free  # what the figure reader ignores; the store it looks in plays no part
def test_things_that_are_not_figures_produce_nothing(run, kind, text):
    # Under the strict policy every leak shows: an untracked number is a note, a tracked one an error.
    assert run(text, kind, STRICT) == []


def test_claim_references_never_reach_the_prose():
    prose = tex("Kimi keeps \\claim[12]{rl.fleet.kimi-k25-tasks} tasks.").text
    assert "kimi-k25" not in prose and "12" not in prose
    prose = markdown("Kimi keeps {{< var rl.fleet.kimi-k25-tasks.fig >}} tasks.").text
    assert "kimi-k25" not in prose


def test_small_bare_integers_match_nothing_but_small_figures_with_units_do(run):
    # Mercor's stored "4" is agent-reported: a bare 4 in a sentence about Mercor would be an error.
    assert run("Mercor allows 4 in flight.\n") == []
    f = only(run("DeepSeek-V3 serves from 4 nodes.\n", policy=STRICT))
    assert f.claims == ("pipelines.deepseek-v3.serve",)


# --- positions -----------------------------------------------------------------------------------------


def test_line_and_col_point_into_the_original_file_through_markup(run):
    tex = (
        "\\documentclass{article}\n\\begin{document}\n% 7,777 GPUs in a comment\n"
        "\tAs $a=1$ shows, \\textbf{Kimi~K2.5} keeps \\emph{100{,}000} concurrent tasks.\n"
        "We used 7,777~GPUs.\n\\end{document}\n"
    )
    kimi, gpus = run(tex, "tex")
    assert (kimi.line, kimi.col, kimi.raw) == (4, 49, "100,000 concurrent tasks")
    assert at(tex, kimi).startswith("100{,}000}")
    assert (gpus.line, gpus.col, gpus.raw) == (5, 9, "7,777 GPUs") and at(tex, gpus).startswith(
        "7,777~GPUs"
    )

    md = "---\ntitle: x\n---\n\n# 2 Methods\n\n| Model | Environments |\n|---|---|\n| *LongCat* | **32K** |\n"
    f = only(run(md, "md"))
    assert (f.line, f.col, f.raw, f.claims) == (9, 17, "32K", ("rl.fleet.longcat-environments",))

    html = '<html><body>\n<p class="x">Llama&#8209;3 had <b>466</b>&nbsp;interruptions.</p>\n</body></html>\n'
    f = only(run(html, "html"))
    assert (f.line, f.col, f.claims) == (2, 35, ("pipelines.obs.llama3-failures",))
    assert at(html, f).startswith("466</b>")


# --- each kind from files ------------------------------------------------------------------------------


def test_lint_files_takes_the_kind_from_the_extension(engine, tmp_path):
    sentence = "We used 7,777 GPUs while Kimi K2.5 keeps 100,000 concurrent tasks."
    files = {
        "paper.tex": f"\\begin{{document}}\n{sentence.replace('7,777 GPUs', '7,777~GPUs')}\n\\end{{document}}\n",
        "paper.md": f"# Intro\n\n{sentence}\n",
        "paper.qmd": f"---\ntitle: t\n---\n\n{sentence}\n",
        "paper.html": f"<html><body><p>{sentence}</p></body></html>\n",
        "paper.txt": f"{sentence}\r\n",  # Windows line ends count as one
    }
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
        paths.append(str(tmp_path / name))
    with db.session_scope(engine) as session:
        findings = lint_files(session, paths, DEFAULT).findings
    expected_lines = {
        "paper.tex": 2,
        "paper.md": 3,
        "paper.qmd": 5,
        "paper.html": 1,
        "paper.txt": 1,
    }
    for path in paths:
        mine = [f for f in findings if f.file == path]
        assert [(f.raw, f.severity) for f in mine] == [
            ("7,777 GPUs", "note"),
            ("100,000 concurrent tasks", "error"),
        ]
        assert {f.line for f in mine} == {expected_lines[Path(path).name]}
    assert [f.col for f in findings if f.file.endswith(".txt")] == [9, 42]


def test_lint_files_names_the_file_it_cannot_lint(engine, tmp_path):
    (tmp_path / "paper.docx").write_text("x")
    (tmp_path / "latin1.md").write_bytes("caf\xe9 7,777 GPUs".encode("latin-1"))
    with db.session_scope(engine) as session:
        with pytest.raises(BadQuery, match=r"paper\.docx.*cannot lint"):
            lint_files(session, [str(tmp_path / "paper.docx")], DEFAULT)
        with pytest.raises(BadQuery, match=r"missing\.tex: cannot read"):
            lint_files(session, [str(tmp_path / "missing.tex")], DEFAULT)
        with pytest.raises(BadQuery, match=r"latin1\.md: cannot read: not UTF-8"):
            lint_files(session, [str(tmp_path / "latin1.md")], DEFAULT)
    with pytest.raises(BadQuery, match="unknown manuscript kind"):
        lint_text("x", name="x", kind="docx", index=None)  # type: ignore[arg-type]


# --- subjects ------------------------------------------------------------------------------------------


def test_a_number_matching_claims_of_several_subjects_keeps_the_one_named_in_the_sentence(run):
    # 32K is LongCat's 32,000 environments (agent-reported), Llama 4's 32K GPUs and the start of
    # DeepSeek-V3's 32K -> 128K (both secondary).
    text = "LongCat scales its pool to 32K environments. Llama 4 also reached 32K GPUs during pretraining.\n"
    f = only(run(text))
    assert (f.raw, f.severity, f.claims) == (
        "32K environments",
        "error",
        ("rl.fleet.longcat-environments",),
    )
    assert f.col == 28


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["Llama 4", "Llama-4", "llama4", "LLaMA 4 Maverick", "Llama\u20114"]
)
def test_a_subject_is_recognised_however_it_is_written(run, claims, name):
    retag = claims(
        "retag", "pipelines.llama4.pretrain", "agent-reported", "--reason", "test", "--by", "Ada"
    )
    assert retag.exit_code == 0, retag.output
    f = only(run(f"By then {name} had reached 32K GPUs at peak.\n"))
    assert f.claims == ("pipelines.llama4.pretrain",)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Kimi K2", "Kimi-K2", "kimi k2", "KIMI\u2011K2"])
def test_the_full_name_beats_a_shorter_subject_inside_it(run, claims, name):
    # The bundled data names one system per subject ("Kimi" is an alias of Kimi K2 / K3): the shorter
    # subject is added here, a claim about "Kimi" stating the figure Kimi K2 / K3's data claim states.
    added = claims(
        "add",
        "--subject",
        "Kimi",
        "--statement",
        "Kimi was trained on 15.5T tokens.",
        "--figure",
        "15.5T tokens",
        "--source",
        "https://example.org/kimi",
        "--quote",
        "15.5T tokens",
        "--by",
        "sweep-agent",
    )
    assert added.exit_code == 0, added.output
    retag = claims(
        "retag", "pipelines.kimi-k2-k3.data", "agent-reported", "--reason", "test", "--by", "Ada"
    )
    assert retag.exit_code == 0, retag.output
    f = only(run(f"Here {name} was trained on 15.5T tokens.\n"))
    assert f.claims == ("pipelines.kimi-k2-k3.data",)
    shorter = only(run("Here Kimi was trained on 15.5T tokens.\n"))
    # "Kimi" alone names both subjects; the full name only the one it spells out
    assert len(shorter.claims) == 2 and "pipelines.kimi-k2-k3.data" in shorter.claims


def test_a_distinctive_word_of_the_subject_is_enough(run, claims):
    retag = claims(
        "retag",
        "pipelines.deepseek-v4.midtrain",
        "agent-reported",
        "--reason",
        "test",
        "--by",
        "Ada",
    )
    assert retag.exit_code == 0, retag.output
    f = only(
        run("DeepSeek's long-context stage went to a 1M context.\n")
    )  # 1M is also Kimi's and Nemotron's
    assert f.claims == ("pipelines.deepseek-v4.midtrain",)
    # no subject named: the figure is nobody's, so it is an untracked note
    assert [f.severity for f in run("The long-context stage went to a 1M context.\n")] == ["note"]


# --- status and staleness ------------------------------------------------------------------------------


@pytest.mark.slow
def test_withdrawn_claims_never_make_a_figure_safe(run, claims):
    assert run("Llama 3 trained on 16K H100.\n") == []
    withdrawn = claims(
        "withdraw", "pipelines.llama3.pretrain", "--reason", "miscounted", "--by", "Ada"
    )
    assert withdrawn.exit_code == 0, withdrawn.output
    f = only(run("Llama 3 trained on 16K H100.\n"))
    assert (f.severity, f.claims) == ("error", ("pipelines.llama3.pretrain",))
    assert "withdrawn: miscounted" in f.message


@pytest.mark.slow
def test_a_stale_claim_warns_and_the_strict_policy_blocks_it(run, claims, write_json, tmp_path):
    page = tmp_path / "orchard.html"  # the local copy the import checks the re-read against
    page.write_text("<p>We trained Orchard-9 on 4,096 GPUs.</p>", encoding="utf-8")
    doc = {
        "sources": [
            {"key": "orchard-page", "title": "Orchard", "kind": "report", "path": str(page)}
        ],
        "claims": [
            {
                "key": "orchard.gpus",
                "subject": "Orchard-9",
                "statement": "Orchard-9 trained on 4,096 GPUs.",
                "tag": "spot-checked",
                "basis": "test",
                "figures": ["4,096 GPUs"],
                "evidence": [
                    {"source": "orchard-page", "quote": "We trained Orchard-9 on 4,096 GPUs."}
                ],
                "reread": reread("orchard-page", quote="We trained Orchard-9 on 4,096 GPUs."),
            }
        ],
    }
    assert claims("import", write_json(doc, "orchard.json")).exit_code == 0
    text = "Orchard-9 trained on 4,096 GPUs.\n"
    if ENGINE == "sqlite":  # passes: the data file's re-read was checked against the local copy
        assert run(text) == []
    else:  # a server database has no folder to read local copies in: an attestation
        assert attested_only(run(text)) == [("orchard.gpus",)]
    page.write_text(
        "<p>We trained Orchard-9 on 3,000 GPUs.</p>", encoding="utf-8"
    )  # then it changed
    verified = claims(
        "verify", "orchard.gpus", "--sources-dir", tmp_path / "snapshots", "--local-root", tmp_path
    )
    assert verified.exit_code == 1, verified.output  # figure-changed
    f = only(run(text))
    assert (f.severity, f.claims, f.tags) == ("warning", ("orchard.gpus",), ("spot-checked",))
    assert (
        "stale" in f.message
        and "figure-changed" in f.message
        and "claims verify orchard.gpus" in f.message
    )
    strict = only(run(text, policy=STRICT))
    assert (strict.severity, strict.claims) == ("error", ("orchard.gpus",))


# --- the matcher's verdicts are data ---------------------------------------------------------------------


def orchard(claims, write_json, tag: str) -> None:
    """Two claims of the tests' own subject: an upper bound ("< 30 s") and a change ("4K → 128K tokens"),
    under `tag` (spot-checked ones carry a person's re-read)."""
    quotes = {
        "orchard.restart": "Orchard-9 restarts a failed node in under 30 s.",
        "orchard.context": "Orchard-9's context grew from 4K to 128K tokens.",
    }
    figures = {"orchard.restart": "< 30 s", "orchard.context": "4K → 128K tokens"}
    doc = {
        "sources": [
            {
                "key": "orchard-page",
                "title": "Orchard",
                "kind": "report",
                "url": "https://example.org/o",
            }
        ],
        "claims": [
            {
                "key": key,
                "subject": "Orchard-9",
                "statement": quote,
                "tag": tag,
                "basis": "test",
                "figures": [figures[key]],
                "evidence": [{"source": "orchard-page", "quote": quote}],
                **(
                    {"reread": reread("orchard-page", quote=quote)} if tag == "spot-checked" else {}
                ),
            }
            for key, quote in quotes.items()
        ],
    }
    result = claims("import", write_json(doc, "orchard.json"))
    assert result.exit_code == 0, result.output


def test_a_bound_written_as_a_value_is_the_same_figure_and_the_message_says_how_it_is_stored(
    run, claims, write_json
):
    orchard(claims, write_json, "agent-reported")
    bound = only(run("Orchard-9 restarts a failed node in 30 s.\n"))
    assert (bound.severity, bound.claims) == ("error", ("orchard.restart",))
    assert "stored as below, written as exact" in bound.message
    same = only(
        run("Orchard-9 restarts a failed node in under 30 s.\n")
    )  # the same comparator: nothing to say
    assert (same.severity, same.claims) == (
        "error",
        ("orchard.restart",),
    ) and "stored as" not in same.message
    orchard(
        claims, write_json, "spot-checked"
    )  # re-read: both pass, the bound and the step of the change (on the data file's re-read)
    assert attested_only(
        run("Orchard-9 restarts a failed node in 30 s. Its context reached 128K tokens.\n")
    ) == [("orchard.restart",), ("orchard.context",)]


def test_lint_decides_on_the_verdicts_flags_never_on_their_words(
    run, claims, write_json, monkeypatch
):
    """The reasons reworded, lint says and decides the same; the flags dropped, it does not."""
    orchard(claims, write_json, "agent-reported")
    text = "Orchard-9 restarts a failed node in 30 s.\n"
    real = linter.match

    def reworded(*args, **kwargs):
        v = real(*args, **kwargs)
        return dataclasses.replace(
            v, reason=v.reason.replace("stored as", "kept as").replace("step", "stage")
        )

    monkeypatch.setattr(linter, "match", reworded)
    assert "(kept as below, written as exact)" in only(run(text)).message
    monkeypatch.setattr(
        linter,
        "match",
        lambda *a, **k: dataclasses.replace(reworded(*a, **k), comparators_differ=False),
    )
    assert "kept as" not in only(run(text)).message


def test_a_step_of_a_safe_change_passes_by_its_flag(run, claims, write_json, monkeypatch):
    orchard(claims, write_json, "spot-checked")
    text = "Orchard-9's context reached 128K tokens.\n"
    assert attested_only(run(text)) == [("orchard.context",)]  # passes (on the data file's re-read)
    real = linter.match
    monkeypatch.setattr(
        linter, "match", lambda *a, **k: dataclasses.replace(real(*a, **k), step=False)
    )
    without = only(run(text))  # without the flag it is only "contained": it does not pass
    assert (without.claims, without.severity) == (("orchard.context",), "warning")


# --- speed ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_fifty_page_manuscript_costs_linear_work(run, engine, monkeypatch):
    """The work (judgements asked of the matcher) grows with the manuscript, not faster; the time of the
    160 KB DeepSeek-V3 report is printed by tests/benchmarks/bench_lint.py."""
    paragraph = (
        "Section 3.2 compares Llama 3, trained on 16K H100 GPUs for 54 days, with Kimi K2.5 and its "
        "sandbox fleet of 100,000 concurrent tasks [12]. In 2024 we reproduced a run on {n} GPUs over "
        "{h} hours at about {p}% utilisation (see https://example.org/run/{n}) on March 5, 2024. "
    )
    hours, shares = [13, 17, 19, 23, 29, 31, 37], [33, 37, 61, 67, 73]  # no claim states these

    def manuscript(pages: int) -> str:
        return "\n\n".join(
            paragraph.format(n=3001 + 2 * i, h=hours[i % 7], p=shares[i % 5])
            for i in range(pages * 12)
        )

    with db.session_scope(engine) as session:
        index = build_store(session, DEFAULT)
    calls = 0
    real_match = linter.match

    def counting(*args, **kwargs):
        nonlocal calls
        calls += 1
        return real_match(*args, **kwargs)

    monkeypatch.setattr(linter, "match", counting)
    text = manuscript(50)
    assert len(text) > 150_000  # fifty pages of about 3,000 characters
    findings = lint_text(text, name="big", kind="md", index=index)
    errors = [f for f in findings if f.severity == "error"]
    assert [f.raw for f in errors] == ["54 days", "100,000 concurrent tasks"] * 600
    assert sum(f.severity == "note" for f in findings) == 600 * 3
    work_50 = calls
    calls = 0
    lint_text(manuscript(100), name="bigger", kind="md", index=index)
    assert calls <= 2 * work_50 * 1.05, (work_50, calls)  # twice the pages, at most twice the work


def test_a_stored_bare_number_matches_a_unit_only_when_its_subject_is_named(run):
    # WeirdML's family count is stored as a bare "11" (agent-reported).
    assert only(run("The job ran for 11 hours on spare nodes.\n")).severity == "note"
    named = only(run("WeirdML counts 11 tasks in its family.\n"))
    assert (named.severity, named.claims) == ("error", ("rl.bench.weirdml",))


@pytest.mark.slow
def test_revision_and_release_numbers_are_references_not_figures(run):
    assert run("Revision 2.1 of the page and release 3.5 of the code changed nothing.\n") == []


def test_a_fraction_and_a_power_reach_the_claim_whichever_way_they_are_written(
    run, claims, write_json
):
    """A stored "1/4" (a slash alone reads as a ratio) is the "1/4 of its nodes" of prose (0.25 there),
    and "2^22 tokens" is 4,194,304 tokens: an unverified claim's figure is an error in either spelling,
    never an untracked note."""
    quotes = {
        "orchard.idle": ("Orchard-9 keeps 1/4 of its nodes idle.", "1/4"),
        "orchard.batch": ("Orchard-9 trains on batches of 2^22 tokens.", "2^22 tokens"),
    }
    doc = {
        "sources": [{"key": "orchard-page", "title": "Orchard", "kind": "report"}],
        "claims": [
            {
                "key": key,
                "subject": "Orchard-9",
                "statement": quote,
                "tag": "agent-reported",
                "basis": "test",
                "figures": [figure],
                "evidence": [{"source": "orchard-page", "quote": quote}],
            }
            for key, (quote, figure) in quotes.items()
        ],
    }
    result = claims("import", write_json(doc, "orchard.json"))
    assert result.exit_code == 0, result.output
    for text, key in [
        ("Orchard-9 keeps 1/4 of its nodes idle.\n", "orchard.idle"),
        ("Orchard-9 keeps a 1/4 share of its nodes idle.\n", "orchard.idle"),
        ("Orchard-9 trains on batches of 4,194,304 tokens.\n", "orchard.batch"),
        ("Orchard-9 trains on batches of 2^22 tokens.\n", "orchard.batch"),
    ]:
        finding = only(run(text))
        assert (finding.severity, finding.claims) == ("error", (key,)), text
