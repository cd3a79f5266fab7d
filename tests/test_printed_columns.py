"""Every column a reader prints is covered (issue 35): an SQL edit of any of them, made with the
append-only triggers dropped (as anyone who can write the file may), is caught by `claims export`,
`claims list`, `claims lint` and `claims db check`, on both engines. The faster read paths of issue 35
must keep this: each edit below is one a reader prints, so a reader that stopped checking it would
print a figure nobody re-read."""

from __future__ import annotations

import pytest

from tests.conftest import run_sql

# (what is edited, the SQL run with the triggers off, the claim it touches)
EDITS = [
    ("claim.subject", "UPDATE claim SET subject = 'Widget-7' WHERE key = 'gadget.fleet'"),
    (
        "claim.statement",
        "UPDATE claim SET statement = 'Widget-7 was pretrained on 4,096 H100 GPUs for 21.5T tokens.' "
        "WHERE key = 'widget.pretrain'",
    ),
    ("claim.stage", "UPDATE claim SET stage = 'Serve' WHERE key = 'widget.pretrain'"),
    ("claim.label", "UPDATE claim SET label = '9,999 H100' WHERE key = 'widget.pretrain'"),
    ("claim.tag", "UPDATE claim SET tag = 'spot-checked' WHERE key = 'gadget.fleet'"),
    ("claim.section", "UPDATE claim SET section = '§9' WHERE key = 'widget.pretrain'"),
    ("claim.basis", "UPDATE claim SET basis = 'Re-read twice.' WHERE key = 'gadget.fleet'"),
    ("claim.aliases", "UPDATE claim SET aliases = '[\"Gizmo\"]' WHERE key = 'gadget.fleet'"),
    ("claim.observation", "UPDATE claim SET observation = TRUE WHERE key = 'widget.pretrain'"),
    ("figure.raw", "UPDATE figure SET raw = '4,096 H100' WHERE raw = '3,072 H100'"),
    ("figure.value", "UPDATE figure SET value = 4096 WHERE raw = '3,072 H100'"),
    ("figure.unit", "UPDATE figure SET unit = 'TPUs' WHERE raw = '3,072 H100'"),
    ("evidence.locator", "UPDATE evidence SET locator = '§9' WHERE locator = '§3.1'"),
    ("evidence.quote", "UPDATE evidence SET quote = '4,096 H100 GPUs' WHERE locator = '§3.1'"),
    (
        "evidence.source",
        "UPDATE evidence SET source_id = (SELECT id FROM source WHERE key = 'widget-report') "
        "WHERE claim_id = (SELECT id FROM claim WHERE key = 'gadget.fleet')",
    ),
    ("source.title", "UPDATE source SET title = 'A forged report' WHERE key = 'widget-report'"),
    ("source.url", "UPDATE source SET url = 'https://evil.example/' WHERE key = 'widget-report'"),
    ("source.cite_key", "UPDATE source SET cite_key = 'forged2026' WHERE key = 'widget-report'"),
    ("tag.trust", "UPDATE tag SET trust = 'verified' WHERE name = 'agent-reported'"),
]

PAPER = "Widget-7 was pretrained on 3,072 H100 GPUs. Gadget runs 40–60K sandboxes at once.\n"


@pytest.mark.slow
@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("sql", [e[1] for e in EDITS], ids=[e[0] for e in EDITS])
def test_an_edit_of_a_printed_column_is_caught_by_every_whole_store_reader(
    claims, store, tmp_path, sql
):
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    readers = (
        ["export", "--skip-unsafe"],
        ["export", "--skip-unsafe", "--format", "latex"],
        ["list", "--format", "json"],
        ["list", "--format", "csv"],
        ["lint", str(paper)],
    )
    for args in readers:  # the untouched store passes each of them
        assert claims(*args).exit_code in (0, 1), args
    assert claims("db", "check").exit_code == 0
    run_sql(store, sql, without_triggers=True)
    for args in readers:
        result = claims(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("error: "), (args, result.stderr)
        assert "claims db check" in result.stderr, (args, result.stderr)
    check = claims("db", "check")
    assert check.exit_code == 1, check.output
