"""Reading data files: every problem names the file, the record and the field."""

from __future__ import annotations

import json
import time

import pytest

from claimsdb.errors import InvalidRecord
from claimsdb.records import load
from claimsdb.records import reading as records
from claimsdb.records import types as record_types
from tests.conftest import REPO


def test_json_file_loads_with_parsed_figures(write_json, sample):
    data = load(write_json(sample))
    assert [c.key for c in data.claims] == ["widget.pretrain", "widget.context", "gadget.fleet"]
    gpus, tokens = data.claims[0].figures
    assert (gpus.quantity.value, gpus.quantity.counted, gpus.quantity.unit) == (
        3072,
        "H100",
        "GPUs",
    )
    assert (tokens.quantity.value, tokens.quantity.unit) == (21.5e12, "tokens")
    assert data.claims[1].figures[0].quantity.kind == "transition"
    assert data.claims[2].figures[0].quantity.low == 40_000
    assert data.claims[0].evidence[0].locator == "§3.1"


def test_explicit_fields_override_the_parser(write_json, sample):
    sample["claims"][0]["figures"] = [{"raw": "21.5T", "name": "tokens seen", "unit": "tokens"}]
    fig = load(write_json(sample)).claims[0].figures[0]
    assert (fig.name, fig.quantity.value, fig.quantity.unit) == ("tokens seen", 21.5e12, "tokens")


def test_aliases_are_kept_in_their_order_one_per_line(write_json, sample):
    sample["claims"][0]["aliases"] = [" Widget ", "W-7"]
    assert load(write_json(sample)).claims[0].aliases == "Widget\nW-7"
    assert load(write_json({**sample, "claims": sample["claims"][1:]})).claims[0].aliases is None


def test_a_label_is_kept_as_one_trimmed_line_and_is_optional(write_json, sample):
    sample["claims"][0]["label"] = "  3,072 H100, 21.5T "
    data = load(write_json(sample))
    assert [c.label for c in data.claims] == ["3,072 H100, 21.5T", None, None]
    assert data.claims[0].record_name == "'widget.pretrain'"


def test_an_observation_flag_is_a_boolean_and_false_by_default(write_json, sample):
    sample["claims"][2]["observation"] = True
    assert [c.observation for c in load(write_json(sample)).claims] == [False, False, True]
    sample["claims"][2]["observation"] = "yes"
    with pytest.raises(InvalidRecord) as raised:
        load(write_json(sample))
    assert raised.value.field == "observation" and "true or false" in str(raised.value)


def test_override_lets_an_unparseable_figure_in_only_with_an_explicit_kind(write_json, sample):
    sample["claims"][0]["figures"] = [{"raw": "a dozen-ish", "kind": "text"}]
    assert load(write_json(sample)).claims[0].figures[0].quantity.value is None


@pytest.mark.parametrize(
    "mutate, record, field, reason",
    [
        (lambda d: d["claims"][1].pop("tag"), "'widget.context'", "tag", "required"),
        (lambda d: d["claims"][0].update(statement=""), "'widget.pretrain'", "statement", "empty"),
        (lambda d: d["claims"][0].update(key="Bad Key"), "'Bad Key'", "key", "not a key"),
        (
            lambda d: d["claims"][0].update(status="deleted"),
            "'widget.pretrain'",
            "status",
            "not one of",
        ),
        (
            lambda d: d["claims"][0].update(tga="spot-checked"),
            "'widget.pretrain'",
            "tga",
            "unknown field",
        ),
        (
            lambda d: d["claims"][2].update(figures=["sandboxes galore"]),
            "'gadget.fleet'",
            "figures[0]",
            "cannot parse",
        ),
        (
            lambda d: d["claims"][2].update(figures=[{"raw": "3", "value": "three"}]),
            "'gadget.fleet'",
            "figures[0].value",
            "number",
        ),
        (
            lambda d: d["claims"][2].update(figures=[{"raw": "5–9", "low": 10}]),
            "'gadget.fleet'",
            "figures[0]",
            "above high",
        ),
        (
            lambda d: d["claims"][0]["evidence"][0].pop("source"),
            "'widget.pretrain'",
            "evidence[0].source",
            "source key",
        ),
        (lambda d: d["sources"][1].update(url="ftp://x"), "'widget-report'", "url", "http"),
        (lambda d: d["sources"][0].update(kind="tweet"), "'lab-notes'", "kind", "not one of"),
        (
            lambda d: d["tags"][0].update(trust="trusted"),
            "'note-2026-10-04'",
            "trust",
            "not one of",
        ),
        (lambda d: d["claims"].append("just text"), "claims[3]", None, "must be an object"),
        (
            lambda d: d["claims"][0].update(aliases="Widget"),
            "'widget.pretrain'",
            "aliases",
            "list of names",
        ),
        (
            lambda d: d["claims"][0].update(aliases=["W7", "w7"]),
            "'widget.pretrain'",
            "aliases[1]",
            "given twice",
        ),
        (
            lambda d: d["claims"][0].update(aliases=["7-7"]),
            "'widget.pretrain'",
            "aliases[0]",
            "no letter",
        ),
        (
            lambda d: d["claims"][0].update(aliases=["two\nlines"]),
            "'widget.pretrain'",
            "aliases[0]",
            "one line",
        ),
        (lambda d: d["claims"][0].update(aliases=[""]), "'widget.pretrain'", "aliases[0]", "empty"),
        (
            lambda d: d["claims"][0].update(aliases=[f"W{i}" for i in range(21)]),
            "'widget.pretrain'",
            "aliases",
            "most allowed is 20",
        ),
        (
            lambda d: d["claims"][0].update(label="x" * 101),
            "'widget.pretrain'",
            "label",
            "most allowed is 100",
        ),
        (
            lambda d: d["claims"][0].update(label="two\nlines"),
            "'widget.pretrain'",
            "label",
            "one line",
        ),
        (
            lambda d: d["claims"][0].update(label=["a"]),
            "'widget.pretrain'",
            "label",
            "must be text",
        ),
        (
            lambda d: d["claims"][1].update(label=d["claims"][1]["statement"]),
            "'widget.context'",
            "label",
            "as long as the statement",
        ),
    ],
)
def test_bad_records_name_file_record_and_field(write_json, sample, mutate, record, field, reason):
    mutate(sample)
    path = write_json(sample)
    with pytest.raises(InvalidRecord) as info:
        load(path)
    err = info.value
    assert (err.file, err.record, err.field) == (str(path), record, field)
    assert reason in err.reason
    assert str(path) in err.message and "\n" not in err.message


def test_malformed_json_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"claims": [', encoding="utf-8")
    with pytest.raises(InvalidRecord, match="broken.json: not valid JSON"):
        load(path)


def test_missing_file_and_unknown_type(tmp_path):
    with pytest.raises(InvalidRecord, match="no such file"):
        load(tmp_path / "nope.json")
    other = tmp_path / "claims.yaml"
    other.write_text("a: 1", encoding="utf-8")
    with pytest.raises(InvalidRecord, match="unknown file type"):
        load(other)


def test_csv_rows_become_claims_with_one_evidence(tmp_path):
    path = tmp_path / "flat.csv"
    path.write_text(
        "key,subject,stage,statement,tag,basis,figures,source,locator,quote\n"
        'a.one,Thing,Serve,"Thing serves on 4 nodes, 2,048 GPUs in all.",prior-note,Old note,"4 nodes | 2,048 GPUs",lab-notes,p. 1,\n',
        encoding="utf-8",
    )
    (claim,) = load(path).claims
    assert [f.quantity.value for f in claim.figures] == [4, 2048]
    assert claim.evidence[0].source == "lab-notes" and claim.evidence[0].quote is None


def test_csv_bad_row_names_its_line(tmp_path):
    path = tmp_path / "flat.csv"
    path.write_text(
        "key,subject,statement,tag,basis,source\n,Thing,Says,prior-note,why,lab-notes\n",
        encoding="utf-8",
    )
    with pytest.raises(InvalidRecord) as info:
        load(path)
    assert (info.value.record, info.value.field) == ("row 2", "key")


def test_the_schema_states_the_importers_limits():
    schema = json.loads(
        (REPO / "data" / "schema" / "claims.schema.json").read_text(encoding="utf-8")
    )
    defs, claim = schema["$defs"], schema["$defs"]["claim"]["properties"]
    assert defs["key"]["maxLength"] == defs["citeKey"]["maxLength"] == record_types.MAX_KEY
    assert defs["oneLine"]["maxLength"] == record_types.MAX_LINE
    assert (
        defs["text"]["maxLength"]
        == defs["tag"]["properties"]["description"]["maxLength"]
        == record_types.MAX_TEXT
    )
    assert defs["short"]["maxLength"] == defs["figureName"]["maxLength"] == record_types.MAX_FIGURE
    steps = defs["figure"]["oneOf"][1]["properties"]["steps"]
    assert (
        claim["figures"]["maxItems"]
        == claim["evidence"]["maxItems"]
        == steps["maxItems"]
        == record_types.MAX_ITEMS
    )
    assert claim["aliases"]["maxItems"] == record_types.MAX_ALIASES
    assert claim["label"]["anyOf"][0]["maxLength"] == record_types.MAX_LABEL
    assert str(record_types.MAX_DEPTH) in schema["description"]


def test_nesting_is_counted_in_linear_time_even_in_hostile_text(tmp_path):
    path = tmp_path / "quotes.json"
    path.write_text(
        '"a\\' * 20_000, encoding="utf-8"
    )  # every quote escaped: one string that never ends
    start = time.perf_counter()
    with pytest.raises(InvalidRecord, match="not valid JSON"):
        load(path)
    assert time.perf_counter() - start < 1


def test_no_printable_character_is_one_text_fields_refuse():
    """Text that str.isprintable() passes skips the forbidden-character and line-break checks: that holds
    only while every forbidden character and every line break is unprintable."""
    import sys

    from claimsdb.escaping import FORBIDDEN_CHARS

    printable = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isprintable())
    assert FORBIDDEN_CHARS.search(printable) is None
    assert "\n" not in printable and "\r" not in printable
    assert (
        len(printable) > 100_000
    )  # the check above ran over the printable characters, not none of them


def test_nesting_is_counted_outside_strings_on_both_ways_of_finding_them():
    """_depth finds strings by a plain quote-to-quote pattern when no quote is escaped, by the full
    pattern otherwise; both leave brackets inside strings out, and leave the same brackets wherever
    the plain one is used."""
    import random

    deep = "[" * 20
    assert records._depth('{"a": "' + deep + '"}') == 1
    assert records._depth('{"a": "\\"' + deep + '"}') == 1  # an escaped quote: the full pattern
    assert records._depth('{"a": "' + deep) == 1  # an unterminated string runs to the end
    assert records._depth('{"a": ' + deep + "]" * 20 + "}") > record_types.MAX_DEPTH
    rng = random.Random(12)
    tried = 0
    for _ in range(5000):
        text = "".join(rng.choice('[]{}"a\\ ') for _ in range(rng.randrange(1, 40)))
        if '\\"' in text:
            continue
        tried += 1
        brackets = (
            records._NOT_BRACKET.sub
        )  # (the pattern leaves a lone backslash at the very end; no bracket)
        assert brackets("", records._PLAIN_STRING.sub("", text)) == brackets(
            "", records._JSON_STRING.sub("", text)
        ), text
    assert tried > 1000
