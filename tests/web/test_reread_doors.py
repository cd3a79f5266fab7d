"""One re-read, two doors: the queue's form and `claims reread` record the same events."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from tests.web.conftest import csrf_token
from tests.web.markup import parse

SENT = {
    "key": "gadget.pretrain",
    "source": "gadget-report",
    "locator": "§2.1",
    "quote": "Its pretraining used 2,048 H800 GPUs",
    "note": "table and text agree",
}


def _events(db: str) -> list[dict]:
    """The claim's history, each event without its time and its hash (the chain covers the time)."""
    result = CliRunner().invoke(app, ["history", SENT["key"], "--db", db, "--format", "json"])
    assert result.exit_code == 0, result.output
    return [
        {k: v for k, v in e.items() if k not in ("at", "sha256")}
        for e in json.loads(result.stdout)["events"]
    ]


def _through_the_queue(c) -> None:
    token = csrf_token(c.get("/reader").text)
    told = {"origin": str(c.base_url)}
    c.post("/reader", data={"csrf": token, "name": "Ada Lovelace", "next": "/queue"}, headers=told)
    answer = c.post("/queue", data={"csrf": token, **SENT}, headers=told)
    assert answer.status_code == 303, answer.text


@pytest.mark.parametrize("asked", [False, True], ids=["--yes", "asked on a terminal"])
def test_the_queue_and_claims_reread_record_the_same_events(
    serve, client, web_db, web_template, stores, tmp_path, monkeypatch, asked
):
    (tmp_path / "cli").mkdir()
    other = stores.copy(web_template.db, tmp_path / "cli")
    try:
        _through_the_queue(client(serve()))
        if asked:
            monkeypatch.setattr("claimsdb.cli.output.stdin_is_terminal", lambda: True)
        argv = ["reread", SENT["key"], "--by", "Ada Lovelace", "--db", other]
        argv += ["--sources-dir", str(web_template.sources)]  # the snapshots the server reads
        for flag in ("source", "locator", "quote", "note"):
            argv += [f"--{flag}", SENT[flag]]
        result = CliRunner().invoke(
            app, argv + ([] if asked else ["--yes"]), input="y\n" if asked else None
        )
        assert result.exit_code == 0, result.output
        by_web, by_cli = _events(web_db), _events(other)
        assert by_web[-1]["kind"] == "reread" and len(by_web) == len(by_cli)
        assert by_web == by_cli
    finally:
        stores.drop(other)


def test_the_queue_form_shows_what_recording_it_changes(serve, client):
    c = client(serve(reader="Ada"))
    page = c.get("/queue?key=gadget.pretrain").text
    changes = parse(page).find_all("p", "changes")
    assert len(changes) == 1, page
    said = changes[0].text()
    assert said == (
        "Recording this form: tag agent-reported → spot-checked; gadget-report becomes evidence of "
        "the claim; vouches for 2,048 H800."  # the quote prefilled from the passage is a new one
    )
