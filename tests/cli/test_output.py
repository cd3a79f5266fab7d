"""cli/output.py: one record emitted in each format."""

from __future__ import annotations

import json

import pytest

from claimsdb.cli.output import emit_record

RECORD = {"database": "team.db", "before": None, "after": "0012"}


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("json", json.dumps(RECORD, ensure_ascii=False, indent=2)),
        ("csv", "database,before,after\nteam.db,,0012"),
        ("table", "team.db: schema revision none → 0012"),
    ],
)
def test_a_record_is_the_json_object_one_csv_row_or_the_line_saying_it(capsys, fmt, expected):
    emit_record(fmt, RECORD, "team.db: schema revision none → 0012")
    assert capsys.readouterr().out.replace("\r\n", "\n").strip() == expected
