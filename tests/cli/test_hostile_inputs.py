"""Bad input is exit 2, always: every command, fed hostile values (sizes, control characters, line breaks,
huge integers, TeX commands, special files), succeeds or refuses with exit 2 and a message, never exit 70
(a bug) and never a traceback; on a refusal the database is byte for byte what it was.

First the cases a probe found (issue 34, "Why" 6), each replayed; then properties that Hypothesis drives
with generated values: a few examples each in the quick suite, many more under `slow`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SAMPLE, store_digest

PAGE_TEXT = "## 3.1 Compute\n\nWidget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens.\n"


def unhandled(result, before: str | None, store: str) -> str | None:
    """Why the run was not success, a finding or a refusal that changed nothing (None: it was)."""
    if result.exit_code not in (0, 1, 2):
        return f"exit {result.exit_code}: {result.output}"
    if "internal error" in result.output or "Traceback" in result.output:
        return f"a bug reached the user: {result.output}"
    if (
        result.exit_code == 2 and "error: " not in result.output.lower()
    ):  # ours, or click's usage error
        return f"exit 2 without an error line: {result.output}"
    if result.exit_code == 2 and store_digest(store) != before:
        return f"refused, but the store changed: {result.output}"
    return None


@pytest.fixture
def sample(claims, write_json, tmp_path):
    """SAMPLE imported, the widget report registered and a copy of its page: what a re-read needs."""
    assert claims("import", write_json(SAMPLE)).exit_code == 0
    page = tmp_path / "widget.md"
    page.write_text(PAGE_TEXT, encoding="utf-8")
    return page


def reread(claims, page: Path, **fields):
    given = {"source": "widget-report", "locator": "§3.1", "quote": "3,072 H100 GPUs"} | fields
    flags = [x for k, v in given.items() for x in (f"--{k}", v)]
    return claims("reread", "widget.pretrain", *flags, "--copy", page, "--by", "Ada", "--yes")


# --- the cases of the probe -------------------------------------------------------------------------


REREAD_LIMITS = [
    (
        "locator",
        "§" + "3" * 100_000,
        "--locator is 100,001 characters long; the most allowed is 2,000",
    ),
    ("locator", "§3.1\nTable 5", "--locator must be one line"),
    ("quote", "3,072 H100 GPUs" + " x" * 20_000, "--quote is 40,015 characters long"),
    ("note", "n" * 20_001, "--note is 20,001 characters long"),
]


def test_a_reread_keeps_to_the_limits_of_a_data_files_reread(claims, sample, store):
    before = store_digest(store)
    for field, value, says in REREAD_LIMITS:
        result = reread(claims, sample, **{field: value})
        assert result.exit_code == 2, result.output
        assert says in result.output
    assert store_digest(store) == before
    assert reread(claims, sample).exit_code == 0  # the same re-read within the limits is recorded


def test_a_bibtex_title_with_tex_commands_imports_or_is_refused_naming_the_field(
    claims, tmp_path, store
):
    bib = tmp_path / "refs.bib"
    for title in ("\\href{a}", "{\\input}", "{\\sqrt}", "\\sqrt", "\\input", "\\verb"):
        bib.write_text(
            f"@article{{k1,\n  title={{{title}}},\n  year={{2020}}\n}}\n", encoding="utf-8"
        )
        before = store_digest(store)
        result = claims("sources", "import", bib)
        assert unhandled(result, before, store) is None
        if result.exit_code == 2:
            assert "refs.bib, entry 'k1' (line 1), field 'title': cannot be read as LaTeX" in (
                result.output
            )
    bib.write_text(
        "@article{k2,\n  title={A \\href{https://x.org}{linked} title},\n}\n", encoding="utf-8"
    )
    assert claims("sources", "import", bib).exit_code == 0
    shown = json.loads(claims("sources", "show", "k2", "--format", "json").stdout)
    assert shown["title"].startswith("A linked")


def test_an_anchor_with_a_number_no_database_holds_is_refused(claims, sample, tmp_path, store):
    path = tmp_path / "claims.anchor"
    assert claims("db", "anchor", "-o", path).exit_code == 0
    doc = json.loads(path.read_text(encoding="utf-8"))
    before = store_digest(store)
    for field, value in (("event_id", 10**30), ("length", 2**63), ("people_length", -1)):
        path.write_text(json.dumps(doc | {field: value}), encoding="utf-8")
        for command in (("db", "check"), ("export", "--skip-unsafe"), ("lint", sample)):
            result = claims(*command, "--anchor", path)
            assert result.exit_code == 2, result.output
            assert f"claims.anchor: {field}: not a" in result.output
            assert "whole number (at most 9,223,372,036,854,775,807)" in result.output
    assert store_digest(store) == before


def test_an_anchor_that_is_a_device_or_a_fifo_is_not_read(claims, sample, tmp_path, monkeypatch):
    fifo = tmp_path / "anchor.fifo"
    os.mkfifo(fifo)
    for path, what in (("/dev/zero", "a character device"), (fifo, "a FIFO (named pipe)")):
        result = claims("db", "check", "--anchor", path)
        assert result.exit_code == 2, result.output
        assert f"{path}: not an anchor file: it is {what}" in result.output
    # lint reads ./claims.anchor by itself: what it cannot read there is an error, never passed over
    monkeypatch.chdir(tmp_path)
    for make, says in (
        (lambda: os.symlink("gone.anchor", "claims.anchor"), "No such file or directory"),
        (lambda: os.mkdir("claims.anchor"), "it is a folder"),
        (lambda: os.mkfifo("claims.anchor"), "it is a FIFO (named pipe)"),
    ):
        make()
        result = claims("lint", sample)
        assert result.exit_code == 2, result.output
        assert "claims.anchor: " in result.output and says in result.output
        os.rmdir("claims.anchor") if os.path.isdir("claims.anchor") else os.unlink("claims.anchor")


def test_mcp_offsets_and_cursors_beyond_what_a_database_holds_are_refused(
    store, claims, write_json
):
    from claimsdb.errors import InvalidRecord
    from claimsdb.mcp_tools import ClaimsTools

    assert claims("import", write_json(SAMPLE)).exit_code == 0
    tools = ClaimsTools(store, agent="sweep-7", person="Ada Lovelace")
    with pytest.raises(
        InvalidRecord, match="field 'offset': must be between 0 and 9,223,372,036,854,775,807"
    ):
        tools.call("search", {"offset": 10**20})
    assert tools.call("search", {"offset": 2**63 - 1})["claims"] == []
    from claimsdb.mcp_server import _offset

    assert not _offset("9" * 40) and not _offset(str(2**63)) and _offset(str(2**63 - 1))


# --- properties: generated hostile values -------------------------------------------------------------

TEX = [
    "\\href{a}{b}",
    "{\\input}",
    "{\\sqrt}",
    "\\input{/etc/passwd}",
    "\\def\\x{\\x}\\x",
    "\\verb|x",
    "\\begin{document}",
    "$\\frac{1}$",
    "{{{{",
    "}}",
    "\\",
    "%",
    "\\csname relax\\endcsname",
]
NUMBERS = [str(10**20), str(2**63), str(-(2**63) - 1), "1e999", "-0", "9" * 5000]
LONG = st.builds(
    lambda piece, n: piece * n,
    st.sampled_from(["x", "9", "9,", "\n", " ", "\u202e", "\x1b[2J", "\t", "\\sqrt"]),
    st.sampled_from([2_001, 20_001, 100_000]),
)
HOSTILE = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec="utf-8", categories=["Cc", "Cf", "Zl", "Zp", "Zs"]), max_size=8),
    st.sampled_from(TEX + NUMBERS + ["\udcff", "\x00", "§3.1\n§4"]),
    LONG,
)
QUICK = settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
MANY = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _reread_field(claims, sample, store, data):
    field = data.draw(st.sampled_from(["source", "locator", "quote", "note", "attest"]))
    value = data.draw(HOSTILE)
    before = store_digest(store)
    return reread(claims, sample, **{field: value}), before


def _person_commands(claims, sample, store, data):
    value = data.draw(HOSTILE)
    command = data.draw(
        st.sampled_from(
            [
                ("retag", "gadget.fleet", "note-2026-10-04", "--reason", value, "--by", "Ada"),
                ("withdraw", "gadget.fleet", "--reason", value, "--by", "Ada"),
                ("retag", "gadget.fleet", value, "--reason", "why", "--by", "Ada"),
                ("sources", "add", "k", "--url", value, "--title", "T"),
                ("sources", "add", "k", "--url", "https://example.org/k", "--title", value),
                (
                    "add",
                    "--subject",
                    value,
                    "--statement",
                    "S runs 8 GPUs.",
                    "--source",
                    "lab-notes",
                ),
                (
                    "add",
                    "--subject",
                    "S",
                    "--statement",
                    "S runs 8 GPUs.",
                    "--figure",
                    value,
                    "--source",
                    "lab-notes",
                ),
                (
                    "reread",
                    value,
                    "--source",
                    "widget-report",
                    "--locator",
                    "§3.1",
                    "--quote",
                    "x",
                    "--yes",
                ),
            ]
        )
    )
    before = store_digest(store)
    return claims(*command), before


def _read_commands(claims, sample, store, data):
    value = data.draw(HOSTILE)
    command = data.draw(
        st.sampled_from(
            [
                ("trace", value),
                ("show", value),
                ("history", value),
                ("list", "--subject", value),
                ("list", "--stage", value),
                ("values", value),
                ("sources", "show", value),
                ("export", "--skip-unsafe", "--subject", value),
                ("trace", value, "--limit", "1"),
            ]
        )
    )
    before = store_digest(store)
    return claims(*command), before


def _files(claims, sample, store, data, tmp_path):
    """A manuscript, a bibliography, a data file or an anchor holding a hostile value."""
    value = data.draw(HOSTILE)
    kind = data.draw(st.sampled_from(["md", "tex", "bib", "json", "anchor"]))
    path = tmp_path / f"hostile.{kind}"
    text = {
        "md": f"# Widget-7\n\nWidget-7 ran {value} on 3,072 H100 GPUs.\n",
        "tex": f"\\section{{Widget-7}}\nWidget-7 ran {value} on 3,072 H100 GPUs.\n",
        "bib": f"@article{{k1,\n  title={{{value}}},\n  author={{{value}}},\n  year={{2020}}\n}}\n",
        "json": json.dumps({"claims": [SAMPLE["claims"][2] | {"statement": value}]}),
        "anchor": json.dumps(
            {
                "format": "claimsdb-anchor/1",
                "head": "0" * 64,
                "length": 1,
                "event_id": value,
                "at": value,
            }
        ),
    }[kind]
    try:
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        path.write_bytes(text.encode("utf-8", "replace"))
    command = {
        "md": ("lint", path),
        "tex": ("lint", path),
        "bib": ("sources", "import", path),
        "json": ("import", path),
        "anchor": ("db", "check", "--anchor", path),
    }[kind]
    before = store_digest(store)
    return claims(*command), before


PROPERTIES = {"reread": _reread_field, "person": _person_commands, "read": _read_commands}


@pytest.mark.parametrize("prop", PROPERTIES)
@QUICK
@given(data=st.data())
def test_commands_refuse_hostile_values_with_exit_2(claims, sample, store, prop, data):
    assert unhandled(*PROPERTIES[prop](claims, sample, store, data), store) is None


@QUICK
@given(data=st.data())
def test_files_with_hostile_values_are_read_or_refused(claims, sample, store, tmp_path, data):
    assert unhandled(*_files(claims, sample, store, data, tmp_path), store) is None


@pytest.mark.slow
@pytest.mark.parametrize("prop", PROPERTIES)
@MANY
@given(data=st.data())
def test_many_hostile_values(claims, sample, store, prop, data):
    assert unhandled(*PROPERTIES[prop](claims, sample, store, data), store) is None


@pytest.mark.slow
@MANY
@given(data=st.data())
def test_many_hostile_files(claims, sample, store, tmp_path, data):
    assert unhandled(*_files(claims, sample, store, data, tmp_path), store) is None
