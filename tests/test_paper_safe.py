"""Exports: the gate, the markers, every format and layout, the manifest, and a property test."""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimsdb import db, paper_safe, provenance, store
from claimsdb.errors import ExportConflict, UnsafeIdentifier
from claimsdb.exporters import FORMATS, GUARDING, render
from claimsdb.queries import ClaimFilter
from claimsdb.trust.rule import Policy
from tests.conftest import reread
from tests.latex import needs_tex
from tests.pages import read, reread_of


def prepare(engine, mode="gate", layout="list", strict=False, **filters):
    with db.session_scope(engine) as session:
        return paper_safe.prepare(
            session, ClaimFilter(**filters), policy=Policy(strict=strict), mode=mode, layout=layout
        )


def test_gate_refuses_when_any_selected_claim_is_unsafe(engine):
    result = prepare(engine)
    assert result.refused and list(result.rows) == []
    assert [r.key for r in result.blocked] == ["gadget.fleet"]


def test_gate_passes_a_safe_selection_and_strict_blocks_secondary(engine):
    assert not prepare(engine, subject="widget").refused
    strict = prepare(engine, subject="widget", strict=True)
    # widget.pretrain's re-read is its data file's: an attestation, which the strict policy does not count
    assert strict.refused and [r.key for r in strict.blocked] == [
        "widget.pretrain",
        "widget.context",
    ]
    with db.session_scope(engine) as session:  # a person re-reads it, checked against the page
        provenance.reread(session, "widget.pretrain", actor="ada", **reread_of("widget.pretrain"))
    strict = prepare(engine, subject="widget", strict=True)
    assert strict.refused and [r.key for r in strict.blocked] == ["widget.context"]


def test_skip_unsafe_writes_the_rest_and_draft_writes_all_marked(engine):
    skipped = prepare(engine, mode="skip-unsafe")
    assert [r.key for r in skipped.rows] == ["widget.pretrain", "widget.context"]
    assert skipped.manifest["left_out_unsafe"] == 1 and not skipped.draft
    draft = prepare(engine, mode="draft")
    assert [(r.key, r.paper_safe) for r in draft.rows] == [
        ("widget.pretrain", True),
        ("widget.context", True),
        ("gadget.fleet", False),
    ]
    assert draft.draft and draft.manifest["not_re_read"] == 1


def test_withdrawn_and_superseded_claims_are_never_exported(engine):
    with db.session_scope(engine) as session:
        provenance.withdraw(session, "gadget.fleet", actor="bo", reason="wrong")
        provenance.supersede(session, "widget.context", by="widget.pretrain", actor="bo")
    result = prepare(engine, mode="draft")
    assert [r.key for r in result.rows] == ["widget.pretrain"]
    assert result.manifest["left_out_withdrawn_or_superseded"] == 2
    assert not prepare(engine).refused  # the unsafe claim is withdrawn: nothing blocks


def test_reread_clears_the_gate(engine):
    with db.session_scope(engine) as session:
        provenance.reread(session, "gadget.fleet", actor="ada", **reread_of("gadget.fleet"))
    result = prepare(engine)
    assert not result.refused and "gadget.fleet" in [r.key for r in result.rows]


def test_manifest_names_revision_policy_counts_and_a_content_hash(engine):
    first = prepare(engine, mode="skip-unsafe").manifest
    assert first["schema_revision"] == db.HEAD_REVISION
    assert first["policy"] == "default policy (verified and secondary pass)"
    assert first["counts_by_tag"] == {"note-2026-10-04": 1, "spot-checked": 1}
    again = prepare(engine, mode="skip-unsafe").manifest
    assert again["content_sha256"] == first["content_sha256"]  # same state, same hash
    with db.session_scope(engine) as session:
        provenance.retag(session, "widget.context", "prior-note", actor="bo", reason="r")
    assert prepare(engine, mode="skip-unsafe").manifest["content_sha256"] != first["content_sha256"]


def test_markdown_list_and_grid(engine):
    text = render(prepare(engine, mode="draft"), "markdown")
    assert text.startswith("**DRAFT**")
    assert (
        "| Widget-7 | Pretrain | Widget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens. | 3,072 H100, 21.5T tokens | [Widget technical report](https://example.org/widget) |"
        in text
    )
    assert (
        "| Gadget | Agentic RL | Gadget runs 40–60K sandboxes at once. † | 40–60K sandboxes † | Lab notes |"
        in text
    )
    assert "† not re-read" in text and "sha256 " in text
    grid = render(prepare(engine, mode="skip-unsafe", layout="grid"), "markdown")
    assert "| Subject | Pretrain | Midtrain |" in grid
    assert "| Widget-7 | 3,072 H100, 21.5T tokens | 8K → 256K |" in grid
    assert "DRAFT" not in grid and "†" not in grid


def test_latex_uses_booktabs_cite_keys_escaping_and_daggers(engine):
    text = render(prepare(engine, mode="draft"), "latex")
    for piece in (
        "\\toprule",
        "\\midrule",
        "\\bottomrule",
        "\\cite{widget2026}",
        "8K $\\rightarrow$ 256K",
        "40--60K sandboxes$^{\\dagger}$",
        "\\textbf{DRAFT}",
        "% claimsdb export: content_sha256: ",
        "\\usepackage{url}",
    ):
        assert piece in text, piece
    grid = render(prepare(engine, layout="grid", subject="widget"), "latex")
    assert "Subject & Pretrain & Midtrain \\\\" in grid and "DRAFT" not in grid


def test_a_note_is_cited_only_when_asked(engine):
    """lab-notes is the only source of widget.context and gadget.fleet: no reference, unless cite_notes."""
    for layout in ("list", "grid"):
        plain = render(prepare(engine, mode="draft", layout=layout), "latex")
        assert "\\cite{widget2026}" in plain and "lab-notes" not in plain.split("% needs", 1)[1], (
            layout
        )
        asked = render(export_with_notes(engine, layout), "latex")
        assert "\\cite{lab-notes}" in asked, layout
    assert prepare(engine, mode="draft").uncited == (2, ["widget.context", "gadget.fleet"])
    assert prepare(engine, mode="skip-unsafe").uncited == (1, ["widget.context"])
    assert export_with_notes(engine, "list").uncited == (0, [])


def export_with_notes(engine, layout):
    with db.session_scope(engine) as session:
        return paper_safe.prepare(
            session, ClaimFilter(), policy=Policy(), mode="draft", layout=layout, cite_notes=True
        )


def test_the_grid_cites_each_cell_once_per_run_of_the_same_sources_and_never_joins_with_a_full_stop(
    engine,
):
    with db.session_scope(engine) as session:
        store.add_claim(
            session,
            {
                "key": "widget.phases",
                "subject": "Widget-7",
                "stage": "Pretrain",
                "statement": "Widget-7 ran two pretraining phases.",
                "tag": "agent-reported",
                "basis": "b",
                "label": "two phases.",
            },
            source="widget-report",
            actor="bo",
        )
        store.add_claim(
            session,
            {
                "key": "widget.mix",
                "subject": "Widget-7",
                "stage": "Pretrain",
                "statement": "Widget-7 mixed code in late.",
                "tag": "agent-reported",
                "basis": "b",
                "label": "code late.",
            },
            source="lab-notes",
            actor="bo",
        )
    grid = render(prepare(engine, mode="draft", layout="grid", subject="widget"), "latex")
    row = next(line for line in grid.splitlines() if line.startswith("Widget-7 &"))
    dag = "$^{\\dagger}$"
    assert (
        f"& 3,072 H100, 21.5T tokens; two phases{dag}~\\cite{{widget2026}}; code late{dag} &" in row
    ), row
    assert ".;" not in grid and ".~\\cite" not in grid


def entries(text: str) -> dict[str, str]:
    """A .bib's entries by key: "@type{key,\n  fields\n}" -> {key: "@type ... fields"}."""
    found = re.findall(r"^@(\w+)\{([^,\n]+),\n(.*?)\n\}$", text, re.MULTILINE | re.DOTALL)
    return {key: f"@{kind}\n{body}" for kind, key, body in found}


def test_bibtex_has_an_entry_for_each_cited_reference(engine):
    text = render(prepare(engine, mode="skip-unsafe"), "bibtex")
    widget = entries(text)["widget2026"]
    assert widget.startswith("@techreport\n")  # a report with its publisher and year
    for field in (
        "author = {{Widget Lab}}",
        "title = {{Widget technical report}}",
        "year = 2026",
        "institution = {Widget Lab}",
        "note = {\\url{https://example.org/widget}}",
        "url = {https://example.org/widget}",
    ):
        assert field in widget, (field, widget)
    assert list(entries(text)) == [
        "widget2026"
    ]  # lab-notes, widget.context's only source, is a note
    assert "21.5T" not in text
    assert list(entries(render(export_with_notes(engine, "list"), "bibtex"))) == [
        "lab-notes",
        "widget2026",
    ]


@pytest.mark.parametrize(
    "source, kind, fields, absent",
    [
        (
            {"kind": "report", "title": "LongCat technical report"},
            "misc",
            ["key = {LongCat technical report}", "title = {{LongCat technical report}}"],
            ["author", "year"],
        ),
        (
            {
                "kind": "blog",
                "title": "Production LLM pipelines",
                "publisher": "Ai2",
                "url": "https://example.org/b",
                "accessed": "2026-11-30",
            },
            "misc",
            [
                "key = {Production LLM pipelines}",
                "organization = {Ai2}",
                "title = {{Production LLM pipelines}}",
                "howpublished = {Ai2, \\url{https://example.org/b}}",
                "note = {Accessed 2026-11-30}",
            ],
            ["author", "publisher"],
        ),
        (
            {
                "kind": "paper",
                "title": "\\LaTeX{} at ~50B",
                "authors": "Ada Lovelace",
                "date": "2026-05-01",
            },
            "misc",
            [
                "author = {Ada Lovelace}",
                "title = {{{}\\textbackslash{}LaTeX\\textbraceleft{}\\textbraceright{} at $\\sim$50B}}",
                "year = 2026",
            ],
            ["key", "journal"],
        ),
        (
            {
                "kind": "report",
                "title": "R",
                "authors": "Ada Lovelace",
                "publisher": "Lab",
                "date": "2025",
            },
            "techreport",
            ["author = {Ada Lovelace}", "institution = {Lab}", "year = 2025"],
            ["key", "organization"],
        ),
    ],
)
def test_bibtex_entries_keep_their_titles_case_and_name_someone_to_sort_by(
    source, kind, fields, absent
):
    from claimsdb.exporters.bibtex import _bibtex_entry

    entry, written = _bibtex_entry({"url": None, **source})
    assert entry == kind
    text = "\n".join(f"{k} = {v}" for k, v in written.items())
    for field in fields:
        assert field in text, (field, text)
    assert not [name for name in absent if name in written], text


def test_biblatex_writes_online_entries_with_dates_and_no_url_command(engine):
    text = render(prepare(engine, mode="skip-unsafe"), "biblatex")
    widget = entries(text)["widget2026"]
    assert widget.startswith("@online\n")
    for field in (
        "organization = {Widget Lab}",
        "title = {{Widget technical report}}",
        "date = {2026-05}",
        "url = {https://example.org/widget}",
    ):
        assert field in widget, (field, widget)
    assert (
        "\\url" not in text
        and "key = " not in text
        and "howpublished" not in text
        and "publisher" not in text
    )


def test_csv_and_json_carry_a_paper_safe_column(engine):
    text = render(prepare(engine, mode="draft"), "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["key"], r["paper_safe"], r["marker"]) for r in rows] == [
        ("widget.pretrain", "true", ""),
        ("widget.context", "true", ""),
        ("gadget.fleet", "false", "not re-read"),
    ]
    doc = json.loads(render(prepare(engine, mode="draft"), "json"))
    assert doc["draft"] is True and doc["manifest"]["mode"] == "draft"
    assert [(r["key"], r["paper_safe"], r["marker"]) for r in doc["rows"]][-1] == (
        "gadget.fleet",
        False,
        "not re-read",
    )
    grid = json.loads(render(prepare(engine, mode="draft", layout="grid"), "json"))
    (life_cycle,) = grid["grids"]
    gadget = next(s for s in life_cycle["subjects"] if s["subject"] == "Gadget")
    assert gadget["cells"]["Agentic RL"][0]["marker"] == "not re-read"


# --- the property: no flag or format lets an unsafe figure out unmarked -------------------------

TAG_TRUST = {
    "spot-checked": "verified",
    "note-2026-09-21": "secondary",
    "prior-note": "secondary",
    "agent-reported": "unverified",
}
claim_strategy = st.fixed_dictionaries(
    {
        "tag": st.sampled_from(sorted(TAG_TRUST)),
        "status": st.sampled_from(["active", "active", "active", "withdrawn", "superseded"]),
        "subject": st.sampled_from(["Alpha", "Beta", "Gamma"]),
        "stage": st.sampled_from(["Pretrain", "Serve", "weight sync", None]),
        "has_figure": st.booleans(),
        # a verified claim's re-read: the data file's (an attestation) or a person's, checked on the page
        "reread": st.sampled_from(["data file", "on the page"]),
    }
)


def unsafe_under(policy: Policy, record: dict) -> bool:
    """What the policy blocks: a trust it does not pass; under the strict policy, also a re-read that
    is an attestation (a data file's)."""
    trust = TAG_TRUST[record["tag"]]
    attested = trust == "verified" and record["reread"] == "data file"
    return not policy.passes(trust) or (policy.strict and attested)


MARK = {"markdown": "†", "latex": "\\dag", "quarto": "[unverified]"}
SEPARATORS = {
    "markdown": re.compile(r"\||; |\n"),
    "latex": re.compile(r"&|\\\\|; |\n"),
    "quarto": re.compile(r"\n"),
}
FIGURE_ONLY = ("macros", "quarto")  # formats that carry figures, not statements


@pytest.fixture(scope="module")
def template_db(tmp_path_factory, stores):
    path = stores.new(tmp_path_factory.mktemp("template"))
    db.upgrade(db.resolve_url(path))
    yield path
    stores.drop(path)


def build_database(
    stores, template: str, workdir: Path, claims: list[dict]
) -> tuple[str, list[dict]]:
    path = stores.copy(template, workdir)
    records = []
    for i, c in enumerate(claims):
        token = f"{10_007 + 13 * i:,} H100"
        record = {
            "key": f"c{i}",
            "subject": c["subject"],
            "stage": c["stage"],
            "statement": f"Claim {i} states {token}."
            if c["has_figure"]
            else f"Claim {i} has words only, token{i}z.",
            "tag": c["tag"],
            "basis": "generated",
            "status": c["status"],
            "figures": [token] if c["has_figure"] else [],
            "evidence": [{"source": "src", "locator": None, "quote": None}],
        }
        if c["status"] == "superseded":
            record["superseded_by"] = "replacement"
        records.append(
            {**record, "reread": c["reread"], "token": token if c["has_figure"] else f"token{i}z"}
        )
    replacement = {
        "key": "replacement",
        "subject": "Other",
        "statement": "A claim that replaces others.",
        "tag": "spot-checked",
        "basis": "generated",
        "status": "withdrawn",
        "evidence": [{"source": "src"}],
        "reread": reread("src"),
    }
    doc = {
        "sources": [{"key": "src", "title": "A source", "kind": "report", "cite_key": "src2026"}],
        "claims": [file_record(r) for r in records] + [replacement],
    }
    data = workdir / "data.json"
    data.write_text(json.dumps(doc), encoding="utf-8")
    engine = db.open_engine(path)
    with db.session_scope(engine) as session:
        store.import_files(session, [str(data)])
    for r in records:  # a person's re-reads, each checked against the page
        if re_read_on_page(r):
            with db.session_scope(engine) as session:
                provenance.reread(
                    session,
                    r["key"],
                    actor="Ada",
                    source="src",
                    locator="§1",
                    quote=r["statement"],
                    read=read("## 1 Claims", r["statement"], page="src"),
                )
    engine.dispose()
    return path, records


def re_read_on_page(record: dict) -> bool:
    return TAG_TRUST[record["tag"]] == "verified" and record["reread"] == "on the page"


def file_record(record: dict) -> dict:
    """A generated claim as its data file holds it: a verified one with the data file's re-read, or
    imported unverified when a person re-reads it on the page afterwards."""
    out = {k: v for k, v in record.items() if k not in ("token", "reread")}
    if re_read_on_page(record):
        out["tag"] = "agent-reported"
    elif TAG_TRUST[record["tag"]] == "verified":
        out["reread"] = reread("src")
    return out


def by_key_only(fmt: str, layout: str, record: dict) -> bool:
    """A claim with no figure (nor label) that a CSV grid carries by its key alone: its cell says
    "(no figure)" and the statement is left to the list layout."""
    return fmt == "csv" and layout == "grid" and not record["figures"]


def assert_marked(text: str, fmt: str, layout: str, record: dict) -> None:
    token = record["token"]
    if by_key_only(fmt, layout, record):
        rows = [row for row in csv.reader(io.StringIO(text)) if record["key"] in row[4].split()]
        assert rows and all(
            record["key"] in row[5].split() and "(no figure) †" in row[3] for row in rows
        ), rows
        assert token not in text
        return
    assert token in text, f"{token} missing from a draft {fmt} {layout}"
    if fmt in MARK:
        for m in re.finditer(re.escape(token), text):
            rest = text[m.end() :]
            cut = SEPARATORS[fmt].search(rest)
            segment = rest[: cut.start()] if cut else rest
            assert MARK[fmt] in segment, (
                f"{token} unmarked in {fmt} {layout}: {text[m.start() : m.start() + 80]!r}"
            )
    elif fmt == "macros":
        for line in text.splitlines():
            if token in line and not line.startswith("%"):
                assert f"\\claims@unsafe{{{record['key']}}}{{" in line, line
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        for row in rows[1:]:
            if any(token in cell for cell in row) and layout == "list":
                assert row[-2:] == ["false", "not re-read"], row
            elif (
                token in row[3] and layout == "grid"
            ):  # the cell: grid, subject, column, cell, keys, not_re_read
                assert record["key"] in row[-1].split(), row
                parts = [part for part in row[3].split("; ") if token in part]
                assert parts and all(part.endswith("†") for part in parts), row
    elif fmt == "json":
        doc = json.loads(text)
        items = (
            doc["rows"]
            if layout == "list"
            else [
                item
                for g in doc["grids"]
                for s in g["subjects"]
                for cell in s["cells"].values()
                for item in cell
            ]
        )
        hits = [i for i in items if i["key"] == record["key"]]
        assert hits and all(i["paper_safe"] is False and i["marker"] == "not re-read" for i in hits)
    elif fmt == "html":
        from tests.web.markup import holders, marked

        assert all(marked(node) for node in holders(text, token)), (
            f"{token} unmarked in html {layout}"
        )


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(claims=st.lists(claim_strategy, min_size=1, max_size=7))
def test_no_format_layout_or_flag_lets_an_unsafe_figure_out_unmarked(template_db, stores, claims):
    with tempfile.TemporaryDirectory() as tmp:
        path, records = build_database(stores, template_db, Path(tmp), claims)
        engine = db.open_engine(path)
        for strict in (False, True):
            policy = Policy(strict=strict)
            active = [r for r in records if r["status"] == "active"]
            unsafe = [r for r in active if unsafe_under(policy, r)]
            gone = [r for r in records if r["status"] != "active"]
            for mode in paper_safe.MODES:
                for layout in paper_safe.LAYOUTS:
                    result = prepare_at(engine, policy, mode, layout)
                    assert result.refused == (mode == "gate" and bool(unsafe))
                    if result.refused:
                        assert list(result.rows) == []
                        continue
                    for fmt in FORMATS:
                        if mode == "guarded" and fmt not in GUARDING:
                            with pytest.raises(ValueError):
                                render(result, fmt)
                            continue
                        text = render(result, fmt)
                        for r in gone:
                            assert r["token"] not in text
                        if fmt in ("bibtex", "biblatex"):
                            assert all(r["token"] not in text for r in records)
                            continue
                        carried = [r for r in records if fmt not in FIGURE_ONLY or r["figures"]]
                        for r in unsafe:
                            if mode in ("draft", "guarded") and r in carried:
                                assert_marked(text, fmt, layout, r)
                            else:
                                assert r["token"] not in text
                        for r in active:
                            if r not in unsafe and r in carried and not by_key_only(fmt, layout, r):
                                assert r["token"] in text  # the check above is not vacuous
        engine.dispose()
        stores.drop(path)


def prepare_at(engine, policy, mode, layout):
    with db.session_scope(engine) as session:
        return paper_safe.prepare(session, ClaimFilter(), policy=policy, mode=mode, layout=layout)


# --- figures by reference: LaTeX macros and Quarto variables -------------------------------------


def test_macros_define_every_figure_and_guard_the_unsafe_ones(engine):
    text = render(prepare(engine, mode="guarded"), "macros")
    assert "\\@namedef{claims@fig@widget.pretrain@}{3,072 H100}" in text
    assert "\\@namedef{claims@fig@widget.pretrain@2}{21.5T tokens}" in text
    assert "\\@namedef{claims@fig@widget.context@1}{8K $\\rightarrow$ 256K}" in text
    assert (
        "\\@namedef{claims@fig@gadget.fleet@}{\\claims@unsafe{gadget.fleet}{40--60K sandboxes}}"
        in text
    )
    assert "\\PackageError{claims}{unknown claim or figure" in text
    with pytest.raises(ValueError, match="does not guard"):
        render(prepare(engine, mode="guarded"), "markdown")


@pytest.mark.parametrize(
    "fmt, names, message",
    [
        (
            "macros",
            [None, "}{x}\\def\\claims@unsafe#1#2{#2}\\@namedef{y"],
            "cannot be written into LaTeX",
        ),
        ("macros", [None, "1"], "would both be exported as '1'"),
        ("macros", ["gpus", "gpus"], "would both be exported as 'gpus'"),
        ("quarto", [None, "fig"], "would both be exported as 'fig'"),
        ("quarto", [None, "fig1"], "would both be exported as 'fig1'"),
    ],
)
@pytest.mark.slow
def test_figure_names_that_cannot_be_written_stop_the_export(engine, fmt, names, message):
    result = prepare(engine, mode="guarded" if fmt == "macros" else "draft")
    (row,) = [r for r in result.rows if r.key == "widget.pretrain"]
    row.figure_names = names  # as a row written past the importer's check would read
    with pytest.raises((UnsafeIdentifier, ExportConflict), match=re.escape(message)):
        render(result, fmt)


def test_quarto_variables_only_carry_unsafe_figures_in_drafts(engine):
    final = render(prepare(engine, mode="skip-unsafe"), "quarto")
    assert '"widget":\n  "pretrain":\n    "fig": "3,072 H100"' in final
    assert "gadget" not in final and "unverified" not in final
    draft = render(prepare(engine, mode="draft"), "quarto")
    assert '"fig": "40–60K sandboxes [unverified]"' in draft and "# DRAFT" in draft


PAPER = r"""\documentclass{{article}}
\input{{claims.tex}}
{draft}
\begin{{document}}
Widget-7 trained on {use}.
\end{{document}}
"""


@needs_tex
@pytest.mark.parametrize(
    "use, draft, compiles, message",
    [
        (r"\claim{widget.pretrain}", "", True, None),
        (r"\claim[2]{widget.pretrain}", "", True, None),
        (r"\claim{gadget.fleet}", "", False, "claim gadget.fleet is not paper-safe"),
        (r"\claim{gadget.fleet}", r"\claimsdraft", True, None),
        (r"\claim{no.such.claim}", r"\claimsdraft", False, "unknown claim or figure"),
        (r"\claim[7]{widget.pretrain}", "", False, "unknown claim or figure"),
    ],
)
@pytest.mark.slow
def test_macros_compile_with_a_tex_engine(engine, tmp_path, use, draft, compiles, message):
    import subprocess

    (tmp_path / "claims.tex").write_text(
        render(prepare(engine, mode="guarded"), "macros"), encoding="utf-8"
    )
    (tmp_path / "paper.tex").write_text(PAPER.format(draft=draft, use=use), encoding="utf-8")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        errors="replace",
    )
    assert (run.returncode == 0) == compiles, run.stdout[-2000:]
    if message:
        assert message in run.stdout
