"""reread, retag, withdraw, supersede and history through the CLI, and two writers at once."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.conftest import DATA_FILES, sqlite_only
from tests.pages import (
    LLAMA3_FAILURES,
    OPEN_ATHENA_TOKENS,
    WIDGET_CONTEXT,
    WIDGET_PRETRAIN,
)


@pytest.mark.slow
@pytest.mark.usefixtures("loaded")
def test_reread_prints_tag_before_and_after(claims, page):
    result = claims("reread", "widget.context", "--by", "Ada", *WIDGET_CONTEXT.flags(page), "--yes")
    assert result.exit_code == 0, result.output
    assert (
        "widget.context: note-2026-10-04 → spot-checked" in result.stdout
        and "by Ada" in result.stdout
    )


@pytest.mark.usefixtures("loaded")
def test_reread_errors_are_one_line_exit_2(claims):
    result = claims("reread", "gadget.fleet", "--yes")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("error: --source is needed: a re-read names the page")
    where = ("--locator", "p. 2", "--quote", "40–60K sandboxes", "--yes")
    note = claims("reread", "gadget.fleet", "--source", "lab-notes", *where)
    assert note.exit_code == 2 and note.stderr.strip() == (
        "error: 'lab-notes' is a note, not a primary page: a re-read checks the page the figure "
        "comes from"
    )
    assert (
        claims("reread", "nope.key", "--source", "widget-report", *where).stderr.strip()
        == "error: no claim with key 'nope.key'"
    )


@pytest.mark.usefixtures("loaded")
def test_retag_withdraw_supersede_and_history(claims):
    assert (
        claims(
            "retag", "widget.pretrain", "prior-note", "--reason", "March note", "--by", "Bo"
        ).exit_code
        == 0
    )
    assert (
        claims("retag", "widget.pretrain", "agent-reported").exit_code == 2
    )  # --reason is required
    bidi = claims(
        "retag", "widget.pretrain", "agent-reported", "--reason", "a\u202eb", "--by", "Bo"
    )
    assert bidi.exit_code == 2 and bidi.stderr.startswith("error: --reason holds '\\u202e'"), (
        bidi.output
    )
    raised = claims("retag", "gadget.fleet", "spot-checked", "--reason", "looked", "--by", "Bo")
    assert raised.exit_code == 2 and raised.stderr.startswith(
        "error: retag cannot raise gadget.fleet"
    )
    assert raised.stderr.endswith(
        "only a re-read raises trust; a person re-reads gadget.fleet in the page its figure comes "
        "from (it cites none yet: name the page you read) and records it with the page's own "
        "words, in the browser's re-read queue (`claims serve`, then /queue?key=gadget.fleet) or "
        "at a terminal (`claims reread gadget.fleet`, naming the page, the place and the quote)\n"
    )
    assert claims(
        "withdraw", "widget.pretrain", "--reason", "wrong system", "--by", "Bo"
    ).stdout.strip() == ("widget.pretrain: active → withdrawn")
    assert (
        claims(
            "supersede",
            "widget.context",
            "--with",
            "widget.pretrain",
            "--by",
            "Cy",
            "--reason",
            "merged into the pretrain claim",
        ).exit_code
        == 0
    )
    data = json.loads(claims("history", "widget.pretrain", "--format", "json").stdout)
    assert [(e["kind"], e["actor"]) for e in data["events"]] == [
        ("imported", "import"),
        ("reread", "Grace Hopper"),
        ("retagged", "Bo"),
        ("status", "Bo"),
    ]
    assert data["events"][2]["detail"] == {"reason": "March note"}
    table = claims("history", "widget.pretrain").stdout
    assert "spot-checked → prior-note" in table and "reason: wrong system" in table
    shown = json.loads(claims("show", "widget.context", "--format", "json").stdout)
    assert (shown["status"], shown["superseded_by"]) == ("superseded", "widget.pretrain")
    superseded = json.loads(claims("history", "widget.context", "--format", "json").stdout)[
        "events"
    ][-1]
    assert (superseded["actor"], superseded["detail"]["reason"]) == (
        "Cy",
        "merged into the pretrain claim",
    )


@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["--with", "widget.pretrain", "--by", "Cy"],
            "Missing option '--reason'",
        ),  # every status change says why
        (["--with", "widget.pretrain", "--reason", " "], "say why"),  # and says something
        (
            ["--by", "widget.pretrain", "--reason", "x"],
            "Missing option '--with'",
        ),  # --by is the person, never the claim
        (
            ["--actor", "Cy", "--with", "widget.pretrain", "--reason", "x"],
            "No such option: --actor",
        ),
    ],
)
@pytest.mark.slow
def test_supersede_takes_the_replacing_claim_with_with_and_requires_a_reason(claims, args, says):
    result = claims("supersede", "widget.context", *args)
    assert result.exit_code == 2 and says in result.stderr, result.output
    assert (
        json.loads(claims("show", "widget.context", "--format", "json").stdout)["status"]
        == "active"
    )


@pytest.mark.slow
@sqlite_only(
    "holds SQLite's write lock with the sqlite3 module; PostgreSQL's writers: tests/test_concurrency.py"
)
def test_two_rereads_at_the_same_time_both_land(db_path, claims, page):
    assert claims("import", *DATA_FILES).exit_code == 0
    keys = {
        "pipelines.obs.llama3-failures": LLAMA3_FAILURES.flags(page),
        "pipelines.marin.open-athena.tokens": OPEN_ATHENA_TOKENS.flags(page),
    }
    cmd = [sys.executable, "-c", "from claimsdb.cli.app import main; main()"]
    # A third writer holds the write lock while both start, so they really contend for it.
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    procs = [
        subprocess.Popen(
            cmd + ["reread", key, *flags, "--yes", "--by", f"reader{i}", "--db", str(db_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, (key, flags) in enumerate(keys.items())
    ]
    time.sleep(3)
    holder.execute("COMMIT")
    holder.close()
    outcomes = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    for out, err, code in outcomes:
        assert code == 0 and "locked" not in err, (out, err)
    for key in keys:
        assert json.loads(claims("show", key, "--format", "json").stdout)["tag"] == "spot-checked"


@pytest.mark.usefixtures("loaded")
def test_reread_without_a_terminal_never_asks_and_names_the_flag(claims, page):
    result = claims(
        "reread", "widget.context", *WIDGET_CONTEXT.flags(page), "--by", "Ada", input="y\n"
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        "error: claims reread shows the passage and asks before it records, and there "
        "is no terminal to ask on: pass --yes"
    )
    assert (
        json.loads(claims("show", "widget.context", "--format", "json").stdout)["tag"]
        == "note-2026-10-04"
    )


@pytest.mark.usefixtures("loaded", "terminal")
def test_reread_asks_for_confirmation_on_a_terminal_unless_yes(claims, page):
    flags = WIDGET_CONTEXT.flags(page)
    declined = claims("reread", "widget.context", *flags, "--by", "Ada", input="n\n")
    assert declined.exit_code == 1 and "nothing recorded" in declined.stderr
    # before asking: what the page says there, and where it was read
    copy = flags[flags.index("--copy") + 1]
    assert f"the quote is on the page (the local copy {copy})" in declined.stderr
    assert "“4 Context The context window of Widget-7 grew from 8K to 256K tokens.”" in (
        declined.stderr
    )
    assert (
        json.loads(claims("show", "widget.context", "--format", "json").stdout)["tag"]
        == "note-2026-10-04"
    )
    accepted = claims("reread", "widget.context", *flags, "--by", "Ada", input="y\n")
    assert accepted.exit_code == 0 and "→ spot-checked" in accepted.stdout


@pytest.mark.slow
@pytest.mark.usefixtures("loaded")
@pytest.mark.parametrize("flag", ["--quote", "--locator", "--note"])
def test_reread_refuses_control_characters_in_what_a_person_types(claims, page, flag):
    flags = list(WIDGET_PRETRAIN.flags(page))  # as given, they record: the page holds the quote
    if flag in flags:
        flags[flags.index(flag) + 1] = "ok\x1b[2Jcleared"
    else:
        flags += [flag, "ok\x1b[2Jcleared"]
    result = claims("reread", "widget.pretrain", *flags, "--yes")
    assert result.exit_code == 2 and "control or bidirectional-override character" in result.stderr
    assert result.stderr.startswith(
        f"error: {flag} holds "
    )  # the domain's field, named by its flag
    assert [
        e["kind"]
        for e in json.loads(claims("history", "widget.pretrain", "--format", "json").stdout)[
            "events"
        ]
    ] == ["imported", "reread"]  # the data file's re-read, and nothing more
