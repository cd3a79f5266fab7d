"""A re-read is made on the page's own words (issue 32), end to end through the CLI on the engine under
test: `claims reread KEY --source PAGE --locator WHERE --quote TEXT` checks the quote, and the claim's
figures in or around it, against the page (its latest snapshot, the page fetched now, or a local copy
named with --copy) before anything is recorded. A page that states another value takes a correction
(--correct), a page that cannot be checked here an attestation (--attest), which the strict policy does
not count; whatever is refused leaves the store as it was."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.conftest import show_json, store_digest
from tests.httpserver import LocalHTTPServer
from tests.pages import WIDGET_CONTEXT, WIDGET_PRETRAIN, Reread

pytestmark = pytest.mark.usefixtures(
    "loaded"
)  # SAMPLE: widget.pretrain, widget.context, gadget.fleet

# widget.pretrain (3,072 H100, 21.5T tokens) in a widget report that says 2,048 H100 GPUs
OTHER_VALUE = Reread(
    "widget-report",
    "§3.1",
    "pretrained on 2,048 H100 GPUs for 21.5T tokens",
    ("## 3.1 Compute", "Widget-7 was pretrained on 2,048 H100 GPUs for 21.5T tokens."),
)
ATTESTED = "the report is behind a login"


def events(claims, key: str) -> list[dict]:
    result = claims("history", key, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["events"]


def refused(claims, store, key: str, *args: str) -> str:
    """A re-read that must be refused: exit 2, one line on stderr, nothing recorded (the claim's history
    and the whole store as they were). Returns the message."""
    before, history = store_digest(store), events(claims, key)
    result = claims("reread", key, *args, "--by", "Ada", "--yes")
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert events(claims, key) == history and store_digest(store) == before
    return result.stderr.strip()


def exported(claims, *flags: str) -> tuple[int, list[str], dict | None, str]:
    """`claims export --format json` with flags: its exit code, the keys it wrote, its manifest (None
    when blocked: nothing written), its stderr."""
    result = claims("export", "--format", "json", *flags)
    doc = json.loads(result.stdout) if result.stdout else {"rows": [], "manifest": None}
    return result.exit_code, [r["key"] for r in doc["rows"]], doc["manifest"], result.stderr


# --- what a re-read must name ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "drop, blank, missing",
    [
        (("--locator",), (), "locator"),
        (("--quote",), (), "quote"),
        (("--locator", "--quote"), (), "locator, quote"),
        ((), ("--quote",), "quote"),  # a blank quote names nothing either
        (("--source",), (), "source"),
    ],
)
def test_a_reread_without_its_source_locator_or_quote_is_refused_naming_them(
    claims, store, page, drop, blank, missing
):
    given = {
        "--source": WIDGET_CONTEXT.source,
        "--locator": WIDGET_CONTEXT.locator,
        "--quote": WIDGET_CONTEXT.quote,
        "--copy": str(page(*WIDGET_CONTEXT.paragraphs)),  # the page holds the quote
    }
    for flag in drop:
        del given[flag]
    for flag in blank:
        given[flag] = "  "
    said = refused(claims, store, "widget.context", *[x for kv in given.items() for x in kv])
    first = missing.split(", ")[0]
    assert said == (
        f"error: --{first} is needed: a re-read names the page, the place in it and the page's own "
        f"words (missing: {missing}); nothing was recorded"
    )
    assert show_json(claims, "widget.context")["tag"] == "note-2026-10-04"


@pytest.mark.parametrize("locator", ["the report", "p.", "Intro"])
def test_a_vague_locator_is_refused_and_a_heading_of_the_page_is_a_place(
    claims, store, page, locator
):
    copy = page(*WIDGET_CONTEXT.paragraphs)
    said = refused(
        claims,
        store,
        "widget.context",
        *("--source", "widget-report", "--locator", locator),
        *("--quote", WIDGET_CONTEXT.quote, "--copy", copy),
    )
    assert said == (
        f"error: widget.context: nothing recorded: the locator {locator!r} names no section, table, "
        "figure, page or heading of the page: say where in the page a reader finds the quote"
    )
    heading = claims(  # "## 4 Context" is a heading of the page: a reader can turn to it
        *("reread", "widget.context", "--source", "widget-report", "--locator", "Context"),
        *("--quote", WIDGET_CONTEXT.quote, "--copy", copy, "--by", "Ada", "--yes"),
    )
    assert heading.exit_code == 0, heading.output
    assert events(claims, "widget.context")[-1]["detail"]["locator"] == "Context"


# --- the page the quote is checked against -------------------------------------------------------------


def test_a_page_that_cannot_be_had_is_refused_and_an_invented_url_is_not_registered(claims, store):
    where = ("--locator", "§3.1", "--quote", "pretrained on 3,072 H100 GPUs")
    invented = "https://reports.invalid/widget-7"  # .invalid never resolves (RFC 2606)
    said = refused(claims, store, "widget.pretrain", "--source", invented, *where)
    assert said.startswith(
        "error: widget.pretrain: nothing recorded: the page cannot be had (no snapshot, and the "
        "fetch failed: "
    )
    assert said.endswith("name a local copy of it, or attest with the reason it cannot be checked")
    sources = json.loads(claims("sources", "--format", "json").stdout)
    assert invented not in {s["url"] for s in sources}
    assert [e["kind"] for e in events(claims, "widget.pretrain")] == ["imported", "reread"]


def test_a_quote_not_on_the_page_is_refused_showing_what_the_page_says_there(claims, store, page):
    copy = page(*WIDGET_CONTEXT.paragraphs)
    said = refused(
        claims,
        store,
        "widget.context",
        *("--source", "widget-report", "--locator", "§4"),
        *("--quote", "the context window was doubled", "--copy", copy),
    )
    assert said == (
        f"error: widget.context: nothing recorded: checked against the local copy {copy}: the quote "
        "is not on the page; the page says there: “The context window of Widget-7 grew from 8K to "
        "256K tokens.”"
    )


def test_a_page_with_another_value_is_refused_then_corrected_in_the_same_act(claims, store, page):
    flags = OTHER_VALUE.flags(page)
    said = refused(claims, store, "widget.pretrain", *flags)
    assert "the page says 2,048 H100 GPUs where the claim says 3,072 H100" in said
    assert "if the page is right, correct the claim: '2,048 H100 GPUs'" in said
    # a correction the page does not make is refused too
    wrong = refused(claims, store, "widget.pretrain", *flags, "--correct", "1,024 H100")
    assert "'1,024 H100' is not what the page says in place of a claim figure" in wrong
    assert "the page says 2,048 H100 GPUs (where the claim says 3,072 H100)" in wrong

    result = claims(
        "reread", "widget.pretrain", *flags, "--correct", "2,048 H100", "--by", "Ada", "--yes"
    )
    assert result.exit_code == 0, result.output
    view = show_json(claims, "widget.pretrain")
    assert view["statement"] == "Widget-7 was pretrained on 2,048 H100 GPUs for 21.5T tokens."
    assert [f["raw"] for f in view["figures"]] == ["2,048 H100", "21.5T tokens"]
    assert view["figures"][0]["value"] == 2048 and view["figures"][0]["counted"] == "H100"
    assert (view["tag"], view["reread_check"], view["attested"]) == (
        "spot-checked",
        "checked",
        None,
    )
    assert not view["reread_outdated"] and not view["integrity"]
    detail = events(claims, "widget.pretrain")[-1]["detail"]
    assert detail["corrected"] == [["3,072 H100", "2,048 H100"]]
    assert detail["checked"]["outcome"] == "confirmed"
    check = claims("db", "check")
    assert check.exit_code == 0, check.output
    found = json.loads(claims("trace", "2,048 H100", "--format", "json").stdout)
    assert [m["claim"]["key"] for m in found["matches"]] == ["widget.pretrain"]
    assert json.loads(claims("trace", "3,072 H100", "--format", "json").stdout)["matches"] == []
    code, rows, _, _ = exported(claims, "--strict", "--search", "2,048 H100")
    assert (code, rows) == (0, ["widget.pretrain"])


def test_an_import_keeps_a_persons_correction_and_reports_the_files_value(
    claims, page, loaded, write_json
):
    """The data file still says 3,072 H100 after a person corrected the claim to its page's 2,048: the
    import keeps the person's statement and figures (reported as conflicts), so the re-read still
    vouches, whether the file changed elsewhere or not at all."""
    flags = OTHER_VALUE.flags(page)
    result = claims(
        "reread", "widget.pretrain", *flags, "--correct", "2,048 H100", "--by", "Ada", "--yes"
    )
    assert result.exit_code == 0, result.output
    loaded["claims"][0]["basis"] = "Re-read the report's compute section, again."
    changed = claims("import", write_json(loaded))
    assert changed.exit_code == 0, changed.output
    assert "conflict widget.pretrain: kept figures ['2,048 H100', '21.5T tokens']" in changed.stdout
    assert "kept statement 'Widget-7 was pretrained on 2,048 H100 GPUs" in changed.stdout
    same = claims("import", write_json(loaded))  # the same file again: nothing to apply
    assert same.exit_code == 0 and "0 updated" in same.stdout, same.output
    view = show_json(claims, "widget.pretrain")
    assert [f["raw"] for f in view["figures"]] == ["2,048 H100", "21.5T tokens"]
    assert view["statement"] == "Widget-7 was pretrained on 2,048 H100 GPUs for 21.5T tokens."
    assert not view["reread_outdated"] and not view["integrity"]
    assert view["basis"] == "Re-read the report's compute section, again."
    assert claims("db", "check").exit_code == 0
    code, rows, _, _ = exported(claims, "--strict", "--search", "2,048 H100")
    assert (code, rows) == (0, ["widget.pretrain"])


# --- an attestation, and an honest re-read ---------------------------------------------------------------


def test_an_attestation_is_recorded_shown_as_one_and_blocked_by_the_strict_export(
    claims, store, page
):
    where = ("--source", "widget-report", "--locator", "§4", "--quote", WIDGET_CONTEXT.quote)
    with_copy = refused(
        claims, store, "widget.context", *where, "--attest", ATTESTED, "--copy", page("x")
    )
    assert "--attest records that the page could not be checked: give no --copy" in with_copy
    corrected = refused(
        claims, store, "widget.context", *where, "--attest", ATTESTED, "--correct", "8K → 128K"
    )
    assert "--attest cannot go with a correction" in corrected

    result = claims(
        "reread", "widget.context", *where, "--attest", ATTESTED, "--by", "Ada", "--yes"
    )
    assert result.exit_code == 0, result.output
    detail = events(claims, "widget.context")[-1]["detail"]
    assert detail["attested"] == ATTESTED and "checked" not in detail
    view = show_json(claims, "widget.context")
    assert (view["tag"], view["reread_check"], view["attested"]) == (
        "spot-checked",
        "attested",
        ATTESTED,
    )
    shown = claims("show", "widget.context").stdout
    assert f"(attested, not checked against the page: {ATTESTED})" in shown
    # the default policy counts it, and the manifest names it with its reason
    code, rows, manifest, _ = exported(claims, "--subject", "Widget-7")
    assert code == 0 and "widget.context" in rows
    assert {"key": "widget.context", "reason": ATTESTED} in manifest["attested"]
    assert manifest["attested_rereads"] == 2  # and widget.pretrain's, recorded by its data file
    # the strict policy does not
    code, _, _, stderr = exported(claims, "--strict", "--subject", "Widget-7")
    assert code == 1 and "widget.context" in stderr
    code, rows, manifest, stderr = exported(
        claims, "--strict", "--subject", "Widget-7", "--skip-unsafe"
    )
    assert code == 0 and rows == [] and "widget.context" in stderr
    assert manifest["left_out_unsafe"] == 2


def test_an_honest_reread_is_one_command_and_makes_the_claim_exportable(claims, page):
    # widget.pretrain's re-read was recorded by its data file: an attestation, blocked under strict
    assert show_json(claims, "widget.pretrain")["reread_check"] == "attested"
    code, _, _, stderr = exported(claims, "--strict", "--search", "3,072 H100")
    assert code == 1 and "widget.pretrain" in stderr

    flags = WIDGET_PRETRAIN.flags(page)
    result = claims("reread", "widget.pretrain", *flags, "--by", "Ada", "--yes")
    assert result.exit_code == 0, result.output
    copy = flags[flags.index("--copy") + 1]
    checked = events(claims, "widget.pretrain")[-1]["detail"]["checked"]
    assert (checked["how"], checked["where"], checked["outcome"]) == ("copy", copy, "confirmed")
    assert checked["sha256"] == hashlib.sha256(open(copy, "rb").read()).hexdigest()
    view = show_json(claims, "widget.pretrain")
    assert (view["reread_check"], view["attested"]) == ("checked", None)
    on = events(claims, "widget.pretrain")[-1]["at"][:10]
    assert view["tag_reason"] == (
        f"re-read by Ada on {on} in widget-report, §3.1: “{WIDGET_PRETRAIN.quote}”"
    )  # no "(attested, ...)": the page was read
    code, rows, manifest, stderr = exported(claims, "--strict", "--search", "3,072 H100")
    assert (code, rows) == (0, ["widget.pretrain"]), stderr
    assert (manifest["attested_rereads"], manifest["rereads_not_checked_on_page"]) == (0, 0)


def test_a_page_on_127_0_0_1_is_fetched_at_reread_time_and_kept_as_a_snapshot(
    claims, store, tmp_path, monkeypatch
):
    monkeypatch.delenv("CLAIMS_VERIFY_ALLOW_LOCAL", raising=False)
    snapshots = ("--sources-dir", str(tmp_path / "snap"))
    body = "<h2>3.1 Compute</h2><p>Widget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens.</p>"
    with LocalHTTPServer() as server:
        url = server.add("/widget.html", body.encode())
        added = claims("sources", "add", "widget-page", "--url", url, "--kind", "report")
        assert added.exit_code == 0, added.output
        where = ("--source", "widget-page", "--locator", "§3.1", "--quote", WIDGET_PRETRAIN.quote)
        # loopback is not fetched unless allowed (verify's rules)
        said = refused(claims, store, "widget.pretrain", *where, *snapshots)
        assert "the page cannot be had (no snapshot, and the fetch failed: " in said
        assert server.count("/widget.html") == 0

        result = claims(
            "reread", "widget.pretrain", *where, *snapshots, "--allow-local", "--by", "Ada", "--yes"
        )
        assert result.exit_code == 0, result.output
        assert server.count("/widget.html") == 1
        checked = events(claims, "widget.pretrain")[-1]["detail"]["checked"]
        assert (checked["how"], checked["where"], checked["outcome"]) == (
            "fetched",
            url,
            "confirmed",
        )
        assert checked["sha256"] == hashlib.sha256(body.encode()).hexdigest()
        # kept: verify reads it offline, and the next re-read reads it instead of fetching again
        verified = claims(
            *("verify", "widget.pretrain", "--source", "widget-page", "--offline", *snapshots),
            *("--format", "json"),
        )
        assert verified.exit_code == 0, verified.output
        (outcome,) = json.loads(verified.stdout)["results"]
        assert outcome["outcome"] == "confirmed"
        again = claims(
            "reread", "widget.pretrain", *where, *snapshots, "--allow-local", "--by", "Bo", "--yes"
        )
        assert again.exit_code == 0, again.output
        assert server.count("/widget.html") == 1
    latest = events(claims, "widget.pretrain")[-1]["detail"]["checked"]
    assert (latest["how"], latest["sha256"]) == ("snapshot", checked["sha256"])
    assert show_json(claims, "widget.pretrain")["reread_check"] == "checked"


def test_verify_checks_a_corrected_claim_by_the_quote_of_its_correction(
    claims, tmp_path, write_json, monkeypatch
):
    """The agent cited the page with its own (wrong) words; a person corrected the claim on that page.
    `claims verify` then checks the page's words the correction linked, not the agent's: confirmed,
    and the strict export writes the claim."""
    monkeypatch.delenv("CLAIMS_VERIFY_ALLOW_LOCAL", raising=False)
    snapshots = ("--sources-dir", str(tmp_path / "snap"), "--allow-local")
    body = "<h2>2 Compute</h2><p>Orchard-9 was pretrained on 2,048 H800 GPUs in all.</p>"
    with LocalHTTPServer() as server:
        url = server.add("/orchard.html", body.encode())
        doc = {
            "sources": [{"key": "orchard", "title": "Orchard", "kind": "report", "url": url}],
            "claims": [
                {
                    "key": "orchard.gpus",
                    "subject": "Orchard-9",
                    "statement": "Orchard-9 was pretrained on 4,096 H800 GPUs.",
                    "tag": "agent-reported",
                    "basis": "an agent's sweep",
                    "figures": ["4,096 H800"],
                    "evidence": [
                        {"source": "orchard", "locator": "§2", "quote": "4,096 H800 GPUs"}
                    ],
                }
            ],
        }
        assert claims("import", write_json(doc, "orchard.json")).exit_code == 0
        where = ("--source", "orchard", "--locator", "§2", "--quote", "pretrained on 2,048 H800")
        fixed = claims(
            *("reread", "orchard.gpus", *where, *snapshots, "--correct", "2,048 H800"),
            *("--by", "Ada", "--yes"),
        )
        assert fixed.exit_code == 0, fixed.output
        verified = claims("verify", "orchard.gpus", *snapshots, "--format", "json")
        assert verified.exit_code == 0, verified.output
        (result,) = json.loads(verified.stdout)["results"]
        assert result["outcome"] == "confirmed"
    code, rows, _, _ = exported(claims, "--strict", "--search", "2,048 H800")
    assert (code, rows) == (0, ["orchard.gpus"])


def test_at_a_terminal_the_hints_reread_command_asks_for_what_it_leaves_out(
    claims, store, page, terminal
):
    """Every hint names `claims reread KEY` as the terminal door: run as printed, at a terminal, it asks
    for the page (the one the claim cites, by default), the place and the quote, shows the check, asks
    to record, and records a re-read checked against the page."""
    copy = str(page(*WIDGET_PRETRAIN.paragraphs))
    answers = f"\n{WIDGET_PRETRAIN.locator}\n{WIDGET_PRETRAIN.quote}\ny\n"  # Enter: the cited page
    result = claims("reread", "widget.pretrain", "--by", "Ada", "--copy", copy, input=answers)
    assert result.exit_code == 0, result.output
    assert "The page you re-read (a source key or its URL) [widget-report]" in result.stderr
    last = events(claims, "widget.pretrain")[-1]
    assert (last["kind"], last["actor"]) == ("reread", "Ada")
    assert last["detail"]["quote"] == WIDGET_PRETRAIN.quote
    assert last["detail"]["checked"]["outcome"] == "confirmed"
    assert show_json(claims, "widget.pretrain")["reread_check"] == "checked"
