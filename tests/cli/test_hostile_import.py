"""Hostile input, through `claims import`: every case is exit 2 with one line naming the file, the record and
the field, and the database is byte for byte what it was. The JSON Schema refuses the same documents, except
the few rules it cannot state (its description lists them).
"""

from __future__ import annotations

import copy
import json
import time

import jsonschema
import pytest

from claimsdb.db import HEAD_REVISION
from claimsdb.records import types as record_types
from claimsdb.trust.identity import MAX_NAME
from tests.conftest import REPO, SAMPLE, run_sql, store_digest

pytestmark = pytest.mark.slow  # hundreds of hostile records, each through the real CLI

SCHEMA = json.loads((REPO / "data" / "schema" / "claims.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def claim0(**fields):
    return lambda d: d["claims"][0].update(**fields)


def figure0(spec):
    return lambda d: d["claims"][0].update(figures=["3,072 H100", spec])


def source1(**fields):
    return lambda d: d["sources"][1].update(**fields)


W, R = "'widget.pretrain'", "'widget-report'"
# id: (change to the sample, record, field, reason, whether the JSON Schema can state the rule)
CASES = {
    "no evidence": (lambda d: d["claims"][0].pop("evidence"), W, "evidence", "is required", True),
    "empty evidence": (claim0(evidence=[]), W, "evidence", "is required", True),
    "month 13": (source1(date="2026-13-45"), R, "date", "not a calendar date", True),
    "30 February": (source1(date="2026-02-30"), R, "date", "not a calendar date", True),
    "year zero": (source1(date="0000"), R, "date", "not a calendar date", True),
    "date with a time": (source1(date="2026-05-01T00:00"), R, "date", "not a date", True),
    "supersedes itself": (
        claim0(status="superseded", superseded_by="widget.pretrain"),
        W,
        "superseded_by",
        "cannot supersede itself",
        False,
    ),
    "superseded without its target": (
        claim0(status="superseded"),
        W,
        "superseded_by",
        "is required when",
        True,
    ),
    "a target while active": (
        claim0(superseded_by="widget.context"),
        W,
        "superseded_by",
        "only for a superseded",
        True,
    ),
    "-5 H100": (
        claim0(figures=["-5 H100"]),
        W,
        "figures[0]",
        "an amount of H100 cannot be negative",
        False,
    ),
    "-20 s": (
        claim0(figures=["-20 s"]),
        W,
        "figures[0]",
        "an amount of s cannot be negative",
        False,
    ),
    "negative override": (
        figure0({"raw": "5 H100", "value": -5, "counted": "H100"}),
        W,
        "figures[1]",
        "cannot be negative",
        True,
    ),
    "negative steps": (
        figure0({"raw": "4 → 8 nodes", "start": -4, "steps": [-4, 8], "unit": "nodes"}),
        W,
        "figures[1]",
        "cannot be negative",
        True,
    ),
    "name fig": (
        figure0({"raw": "21.5T tokens", "name": "fig"}),
        W,
        "figures[1].name",
        "reserved",
        True,
    ),
    "name fig1": (
        figure0({"raw": "21.5T tokens", "name": "fig1"}),
        W,
        "figures[1].name",
        "reserved",
        True,
    ),
    "name Fig 2": (
        figure0({"raw": "21.5T tokens", "name": "Fig 2"}),
        W,
        "figures[1].name",
        "reserved",
        True,
    ),
    "name 1": (
        figure0({"raw": "21.5T tokens", "name": "1"}),
        W,
        "figures[1].name",
        "reserved",
        True,
    ),
    "name that redefines the guard": (
        figure0({"raw": "21.5T tokens", "name": "x}{1}\\def\\claims@unsafe#1#2{#2}\\@namedef{y"}),
        W,
        "figures[1].name",
        "not a figure name",
        True,
    ),
    "name with a dot": (
        figure0({"raw": "21.5T tokens", "name": "a.b"}),
        W,
        "figures[1].name",
        "not a figure name",
        True,
    ),
    "one name for two figures": (
        claim0(
            figures=[{"raw": "3,072 H100", "name": "gpus"}, {"raw": "21.5T tokens", "name": "gpus"}]
        ),
        W,
        "figures[0].name",
        "names two figures",
        False,
    ),
    "cite key adding a field": (
        source1(cite_key="widget2026,\n  note = {injected}"),
        R,
        "cite_key",
        "one line",
        True,
    ),
    "cite key closing the cite": (
        source1(cite_key="x}\\input{/etc/passwd}\\cite{y"),
        R,
        "cite_key",
        "not a citation key",
        True,
    ),
    "cite key with a space": (
        source1(cite_key="widget 2026"),
        R,
        "cite_key",
        "not a citation key",
        True,
    ),
    "key of 201 characters": (
        claim0(key="a" * 201),
        "claims[0]",
        "key",
        "the most allowed is 200",
        True,
    ),
    "key of 100,000 characters": (
        claim0(key="a" * 100_000),
        "claims[0]",
        "key",
        "the most allowed is 200",
        True,
    ),
    "statement of 20,001 characters": (
        claim0(statement="x" * 20_001),
        W,
        "statement",
        "most allowed is 20,000",
        True,
    ),
    "statement of 30 MB": (
        claim0(statement="x " * 15_000_000),
        W,
        "statement",
        "most allowed is 20,000",
        True,
    ),
    "quote of 20,001 characters": (
        lambda d: d["claims"][0]["evidence"][0].update(quote="q" * 20_001),
        W,
        "evidence[0].quote",
        "most allowed is 20,000",
        True,
    ),
    "figure of 201 characters": (
        claim0(figures=["3" * 201]),
        W,
        "figures[0].raw",
        "most allowed is 200",
        True,
    ),
    "101 figures": (
        claim0(figures=[f"{n} H100" for n in range(101)]),
        W,
        "figures",
        "most allowed is 100",
        True,
    ),
    "101 evidence": (
        lambda d: d["claims"][0].update(evidence=d["claims"][0]["evidence"] * 101),
        W,
        "evidence",
        "most allowed is 100",
        True,
    ),
    "title on two lines": (source1(title="Widget\ntechnical report"), R, "title", "one line", True),
    "escape sequence": (
        claim0(statement="Widget \x1b[2J\x1b[31mcleared your terminal"),
        W,
        "statement",
        "control or bidirectional",
        True,
    ),
    "bidirectional override": (
        claim0(subject="Widget \u202e7-"),
        W,
        "subject",
        "control or bidirectional",
        True,
    ),
    "NUL": (source1(title="Widget\x00report"), R, "title", "control or bidirectional", True),
    "lone surrogate": (
        claim0(statement="Widget \ud800"),
        W,
        "statement",
        "control or bidirectional",
        False,
    ),
    "javascript URL": (source1(url="javascript:alert(1)"), R, "url", "not an http(s) URL", True),
    "URL with a space": (
        source1(url="https://example.org/a b"),
        R,
        "url",
        "not an http(s) URL",
        True,
    ),
    "verified without its re-read": (
        lambda d: d["claims"][0].pop("reread"),
        W,
        "reread",
        "is required",
        False,
    ),
    "re-read without a quote": (
        lambda d: d["claims"][0]["reread"].pop("quote"),
        W,
        "reread.quote",
        "is required",
        True,
    ),
    "re-read on 30 February": (
        lambda d: d["claims"][0]["reread"].update(at="2026-02-30"),
        W,
        "reread.at",
        "not a calendar date",
        True,
    ),
    "re-read with a time": (
        lambda d: d["claims"][0]["reread"].update(at="2026-10-02T10:00"),
        W,
        "reread.at",
        "not a date",
        True,
    ),
    "re-read with a field of its own": (
        lambda d: d["claims"][0]["reread"].update(trust="verified"),
        W,
        "reread.trust",
        "unknown field",
        True,
    ),
    "re-read by a Hangul filler": (
        lambda d: d["claims"][0]["reread"].update(by="\u3164"),
        W,
        "reread.by",
        "HANGUL FILLER",
        False,
    ),
    "re-read by a bidi override": (
        lambda d: d["claims"][0]["reread"].update(by="Ada \u202eecalovoL"),
        W,
        "reread.by",
        "U+202E",
        True,
    ),
    "re-read in a note": (
        lambda d: d["claims"][0]["reread"].update(source="lab-notes"),
        W,
        "reread.source",
        "is a note, not a primary page",
        False,
    ),
    "steps nested too deep": (
        figure0({"raw": "16:44", "steps": [[[[[[[[[[[[[1]]]]]]]]]]]]]}),
        None,
        None,
        "nested deeper than 16",
        True,
    ),
}


def run_case(claims, write_json, store, doc_text: str):
    """Import the sample, then `doc_text` next to a good file: exit 2, one line, nothing written."""
    sample = copy.deepcopy(SAMPLE)
    good = write_json(sample, "good.json")
    assert claims("import", good).exit_code == 0
    before = store_digest(store)
    bad = good.parent / "bad.json"
    bad.write_text(doc_text, encoding="utf-8", errors="surrogatepass")
    result = claims(
        "import",
        write_json({"claims": [{**sample["claims"][2], "key": "gadget.second"}]}, "other.json"),
        bad,
    )
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1 and len(result.stderr) < 600
    assert store_digest(store) == before
    return result.stderr


@pytest.mark.engine_free  # refused by validation before any write; rollbacks on PostgreSQL: tests/test_store.py
@pytest.mark.parametrize("case", CASES)
def test_a_hostile_record_is_refused_naming_file_record_and_field(
    claims, write_json, sample, store, case
):
    change, record, field, reason, _ = CASES[case]
    change(sample)
    stderr = run_case(claims, write_json, store, json.dumps(sample))
    where = (
        "bad.json"
        + (f", record {record}" if record else "")
        + (f", field {field!r}" if field else "")
        + ": "
    )
    assert where in stderr and reason in stderr, stderr


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][4] and c != "statement of 30 MB"])
def test_the_schema_refuses_what_the_importer_refuses(sample, case):
    assert VALIDATOR.is_valid(sample)
    CASES[case][0](sample)
    assert not VALIDATOR.is_valid(sample), case


def with_number(sample, literal: str) -> str:
    """The sample as JSON text, its first claim's second figure overridden with a number written as `literal`."""
    sample["claims"][0]["figures"] = ["3,072 H100", {"raw": "21.5T tokens", "value": 12345}]
    return json.dumps(sample).replace("12345", literal)


@pytest.mark.parametrize(
    "text, reason",
    [
        (lambda s: "[" * 5000 + "]" * 5000, "bad.json: nested deeper than 16 levels"),
        (
            lambda s: '{"claims": ' + "[" * 17 + "]" * 17 + "}",
            "bad.json: nested deeper than 16 levels",
        ),
        (
            lambda s: '{"sources": [], "claims": [{"key": "a", "key": "b"}]}',
            "record 'b', field 'key': given twice",
        ),
        (
            lambda s: with_number(s, "1" + "0" * 400),
            f"record {W}, field 'figures[1].value': must be a finite number (this one is too large)",
        ),
        (
            lambda s: with_number(s, "1" + "0" * 5000),
            "bad.json: not valid JSON: a number has more digits than can be read",
        ),
        (
            lambda s: with_number(s, "NaN"),
            "bad.json: not valid JSON: NaN is not a number JSON allows",
        ),
        (
            lambda s: with_number(s, "1e400"),
            f"record {W}, field 'figures[1].value': must be a finite number",
        ),
    ],
)
def test_hostile_json_text_is_refused_without_a_crash(
    claims, write_json, sample, store, text, reason
):
    assert reason in run_case(claims, write_json, store, text(sample))


def test_json_with_a_byte_order_mark_is_read(claims, write_json, sample, tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(sample).encode("utf-8"))
    result = claims("import", path)
    assert result.exit_code == 0, result.output


# --- CSV --------------------------------------------------------------------------------------------------

CSV_HEADER = "key,subject,statement,tag,basis,figures,source,locator,quote\r\n"


def csv_file(tmp_path, body: str, *, bom: bool = False):
    path = tmp_path / "flat.csv"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + (CSV_HEADER + body).encode("utf-8"))
    return path


@pytest.mark.usefixtures("loaded")
def test_csv_keeps_a_quoted_line_break_and_reads_a_byte_order_mark(claims, tmp_path):
    body = 'probe.a,Probe,"Line one\r\nline two, with a comma and ""quotes""",prior-note,why,"4 nodes | 2,048 GPUs",lab-notes,,\r\n'
    result = claims("import", csv_file(tmp_path, body, bom=True))
    assert result.exit_code == 0, result.output
    shown = json.loads(claims("show", "probe.a", "--format", "json").stdout)
    assert shown["statement"] == 'Line one\nline two, with a comma and "quotes"'
    assert [f["raw"] for f in shown["figures"]] == ["4 nodes", "2,048 GPUs"]


@pytest.mark.parametrize(
    "body, where, reason",
    [
        (
            '"probe.a\nb",Probe,Says,prior-note,why,,lab-notes,,\n',
            "record 'probe.a\\nb', field 'key'",
            "must be one line",
        ),
        (
            "probe.a,Probe,Says,prior-note,why,,,,\n",
            "record 'probe.a', field 'source'",
            "is required",
        ),
        (
            'probe.a,Probe,"' + "x" * 131_073 + '",prior-note,why,,lab-notes,,\n',
            "record line 2",
            "a cell is longer than 20,000 characters",
        ),
        (
            'probe.a,Probe,"' + "x" * 20_001 + '",prior-note,why,,lab-notes,,\n',
            "record line 2",
            "a cell is longer than 20,000 characters",
        ),
        (
            "probe.a,Probe,Says\x00,prior-note,why,,lab-notes,,\n",
            "record 'probe.a', field 'statement'",
            "holds '\\x00'",
        ),
        (
            'probe.a,Probe,"unterminated,prior-note,why,,lab-notes,,\n',
            "record line 2",
            "not valid CSV: unexpected end",
        ),
        (
            'probe.a,Probe,"quoted"trailing,prior-note,why,,lab-notes,,\n',
            "record line 2",
            "not valid CSV",
        ),
    ],
)
@pytest.mark.usefixtures("loaded")
def test_hostile_csv_is_refused_naming_the_row(claims, tmp_path, store, body, where, reason):
    before = store_digest(store)
    result = claims("import", csv_file(tmp_path, body))
    assert result.exit_code == 2, result.output
    assert f"flat.csv, {where}" in result.stderr and reason in result.stderr, result.stderr
    assert store_digest(store) == before


def test_csv_without_a_source_column_is_refused(claims, tmp_path):
    path = tmp_path / "flat.csv"
    path.write_text(
        "key,subject,statement,tag,basis\nprobe.a,Probe,Says,prior-note,why\n", encoding="utf-8"
    )
    result = claims("import", path)
    assert result.exit_code == 2 and "field 'source': required column missing" in result.stderr


# --- the database -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["db", "upgrade"], ["list"], ["import", "good.json"]])
def test_a_database_written_by_a_newer_claimsdb_is_refused(
    claims, write_json, sample, store, command
):
    good = write_json(sample, "good.json")
    assert claims("import", good).exit_code == 0
    run_sql(store, "UPDATE alembic_version SET version_num = '0042'")
    before = store_digest(store)
    result = claims(*[str(good) if a.endswith(".json") else a for a in command])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: this database was written by a newer claimsdb (revision 0042); this claimsdb "
        f"knows revisions up to {HEAD_REVISION}: install the newer claimsdb to use it\n"
    )
    assert store_digest(store) == before


# --- the longest values the limits allow stay quick in every output command -------------------------------


def longest_allowed() -> dict:
    m = record_types
    source = {
        "key": "s" * m.MAX_KEY,
        "title": "T" * m.MAX_LINE,
        "kind": "report",
        "publisher": "P" * m.MAX_LINE,
        "url": "https://example.org/" + "u" * (m.MAX_LINE - 20),
        "cite_key": "c" * m.MAX_KEY,
        "date": "2026-05-01",
    }
    statements = ["x" * m.MAX_TEXT, ("word " * m.MAX_TEXT)[: m.MAX_TEXT], "字" * m.MAX_TEXT]
    return {
        "sources": [source],
        "claims": [
            {
                "key": f"k{i}." + "k" * (m.MAX_KEY - 3),
                "subject": "S" * m.MAX_LINE,
                "stage": "G" * m.MAX_LINE,
                "statement": statement,
                "tag": "spot-checked",
                "basis": "B" * m.MAX_LINE,
                "section": "§" * m.MAX_LINE,
                "status_reason": "R" * m.MAX_TEXT,
                "figures": [
                    {"raw": f"{n:,} H100", "name": f"n{n} " + "y" * (m.MAX_FIGURE - 5)}
                    for n in range(1, m.MAX_ITEMS + 1)
                ],
                "evidence": [
                    {
                        "source": source["key"],
                        "locator": "L" * m.MAX_LINE,
                        "quote": "Q" * m.MAX_TEXT,
                    }
                ]
                * m.MAX_ITEMS,
                "reread": {
                    "by": "N" * MAX_NAME,
                    "at": "2026-05-02",
                    "source": source["key"],
                    "locator": "L" * m.MAX_LINE,
                    "quote": "Q" * m.MAX_TEXT,
                },
            }
            for i, statement in enumerate(statements)
        ],
    }


COMMANDS = [
    ["list"],
    ["list", "--format", "json"],
    ["list", "--format", "csv"],
    ["show", "k0." + "k" * 197],
    ["trace", "50"],
    ["sources"],
    ["export"],
    ["export", "--grid"],
    ["export", "--format", "latex"],
    ["export", "--format", "latex", "--grid"],
    ["export", "--format", "csv"],
    ["export", "--format", "json"],
    ["export", "--format", "bibtex"],
    ["export", "--format", "macros"],
    ["export", "--format", "quarto"],
]


def test_every_output_command_stays_quick_on_the_longest_allowed_values(claims, write_json):
    assert VALIDATOR.is_valid(longest_allowed())
    result = claims("import", write_json(longest_allowed(), "longest.json"))
    assert result.exit_code == 0, result.output
    for command in COMMANDS:
        start = time.perf_counter()
        result = claims(*command)
        elapsed = time.perf_counter() - start
        assert result.exit_code == 0, (command, result.output[-500:])
        assert elapsed < 5, (command, elapsed)


# --- the other ways in: claims add, sources add, JSON Lines on standard input --------------------------------

ADD = [
    "add",
    "--subject",
    "Gadget",
    "--statement",
    "Gadget runs 40–60K sandboxes.",
    "--source",
    "lab-notes",
]


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "args, message",
    [
        ([*ADD, "--figure", "-5 H100"], "an amount of H100 cannot be negative"),
        ([*ADD, "--statement", "x" * 20_001], "the most allowed is 20,000"),
        ([*ADD, "--subject", "Gadget\x1b[2J"], "control or bidirectional-override character"),
        ([*ADD, "--locator", "p. 1\n\\input{/etc/passwd}"], "must be one line"),
        (
            [
                "sources",
                "add",
                "evil",
                "--url",
                "https://example.org/e",
                "--cite-key",
                "x}\\input{/etc/passwd}\\cite{y",
            ],
            "is not a citation key",
        ),
        (
            ["sources", "add", "evil", "--url", "https://example.org/e", "--date", "2026-13-45"],
            "is not a calendar date",
        ),
        (
            [
                "sources",
                "add",
                "evil",
                "--url",
                "https://example.org/e",
                "--accessed",
                "2026-02-30",
            ],
            "not a calendar date",
        ),
        (["sources", "add", "evil", "--url", "javascript:alert(1)"], "is not an http(s) URL"),
    ],
)
def test_commands_that_record_one_claim_or_source_apply_the_same_rules(
    claims, store, args, message
):
    before = store_digest(store)
    result = claims(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert store_digest(store) == before


LINE = {
    "key": "probe.line",
    "subject": "Probe",
    "statement": "Probe uses 8 GPUs.",
    "tag": "agent-reported",
    "basis": "an agent",
    "evidence": [{"source": "lab-notes"}],
}


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "lines, message",
    [
        (["[" * 5000 + "]" * 5000], "<stdin>, record line 1: nested deeper than 16 levels"),
        (
            ['{"key": "probe.a", "key": "probe.b"}'],
            "<stdin>, record 'probe.b' (line 1), field 'key': given twice",
        ),
        (
            [json.dumps({**LINE, "figures": ["-5 H100"]})],
            "record 'probe.line' (line 1), field 'figures[0]'",
        ),
        (
            [json.dumps({**LINE, "key": "k" * 100_000})],
            "record line 1, field 'key': is 100,000 characters long",
        ),
        (
            [json.dumps(LINE), json.dumps({**LINE, "key": "probe.two", "evidence": []})],
            "record 'probe.two' (line 2), field 'evidence': is required",
        ),
    ],
)
def test_json_lines_on_standard_input_are_held_to_the_same_rules(claims, store, lines, message):
    before = store_digest(store)
    result = claims("import", "-", input="\n".join(lines) + "\n")
    assert result.exit_code == 2, result.output
    assert message in result.stderr, result.stderr
    assert store_digest(store) == before


@pytest.mark.usefixtures("loaded")
def test_a_json_line_keeps_a_line_separator_inside_a_string(claims):
    line = json.dumps(
        {**LINE, "statement": "Probe uses 8 GPUs.\u2028(second line)"}, ensure_ascii=False
    )
    result = claims("import", "-", input="\ufeff" + line + "\n")
    assert result.exit_code == 0, result.output
    assert json.loads(claims("show", "probe.line", "--format", "json").stdout)[
        "statement"
    ].endswith("\u2028(second line)")
