"""`claims verify` through the CLI against a real HTTP server on 127.0.0.1 serving pages the tests write."""

from __future__ import annotations

import json
import os

import pytest

from claimsdb.db import files_folder, resolve_url
from tests.conftest import reread
from tests.fetching.pdfgen import make_pdf
from tests.httpserver import LocalHTTPServer

PAGE = (
    "<html><head><title>Orchard report</title><style>p {{color: red}}</style></head><body>"
    "<h1>Training</h1><p>We trained Orchard-9 on {gpus} GPUs for roughly three months.</p>"
    "<p>The corpus held {tokens} tokens after filtering.</p><script>var x = 16000;</script></body></html>"
)
QUOTE = "We trained Orchard-9 on 4,096 GPUs for roughly three months."


@pytest.fixture
def server(monkeypatch):
    """A test server on 127.0.0.1: verify may fetch from it because the environment allows local addresses."""
    monkeypatch.setenv("CLAIMS_VERIFY_ALLOW_LOCAL", "1")
    with LocalHTTPServer() as s:
        yield s


def source(key, url):
    return {"key": key, "title": f"Page {key}", "kind": "report", "url": url}


def claim(key, source_key, figures, quote=QUOTE, tag="agent-reported"):
    record = {
        "key": key,
        "subject": "Orchard-9",
        "stage": "Pretrain",
        "statement": "Orchard-9 trained on 4,096 GPUs.",
        "tag": tag,
        "basis": "test",
        "figures": figures,
        "evidence": [{"source": source_key, "locator": "§2", "quote": quote}],
    }
    if tag == "spot-checked":
        record["reread"] = reread(source_key, locator="§2", quote=quote or "4,096 GPUs")
    return record


@pytest.fixture
def verify(claims, tmp_path):
    sources_dir = tmp_path / "snapshots-root"

    def run(*args, offline=False):
        argv = ["verify", *args, "--sources-dir", sources_dir, "--timeout", "1", "--format", "json"]
        if offline:
            argv.append("--offline")
        result = claims(*argv)
        assert result.exit_code in (0, 1), result.output
        return result.exit_code, json.loads(result.stdout)

    run.sources_dir = sources_dir
    return run


def by_claim(report):
    return {r["claim"]: r for r in report["results"]}


@pytest.mark.slow
def test_each_kind_of_page_gives_its_outcome(server, claims, write_json, verify):
    html = PAGE.format(gpus="4,096", tokens="9.5T")
    server.add("/ok.html", html.encode())
    server.add(
        "/ok.md",
        f"# Training\n\n{QUOTE}\n\n| corpus | 9.5T tokens |\n".encode(),
        content_type="text/markdown",
    )
    server.add("/ok.pdf", make_pdf(["Training", QUOTE]), content_type="application/pdf")
    server.add("/changed.html", PAGE.format(gpus="4,000", tokens="9.5T").encode())
    server.add(
        "/reworded.html",
        b"<p>We trained the Orchard-9 model on 4096 GPUs for about three months.</p>",
    )
    server.add("/gone.html", b"<p>We now describe something else entirely.</p>")
    server.add("/404", b"missing", status=404)
    server.add("/500", b"broken", status=500)
    server.add("/slow", html.encode(), delay_s=3)
    server.redirect("/loop-a", "/loop-b")
    server.redirect("/loop-b", "/loop-a")
    server.add("/big", b"x" * 1_000_000, stream=True, repeat=256)  # 256 MB if read to the end
    server.add(
        "/latin1",
        PAGE.format(gpus="4,096", tokens="9.5T")
        .replace("roughly", "roughly\u00a0")
        .encode("cp1252"),
        content_type="text/html; charset=windows-1252",
    )
    cases = {
        "ok-html": ("/ok.html", "confirmed"),
        "ok-md": ("/ok.md", "confirmed"),
        "ok-pdf": ("/ok.pdf", "confirmed"),
        "changed": ("/changed.html", "figure-changed"),
        "reworded": ("/reworded.html", "reworded"),
        "gone": ("/gone.html", "not-found"),
        "http-404": ("/404", "unreachable"),
        "http-500": ("/500", "unreachable"),
        "slow": ("/slow", "unreachable"),
        "loop": ("/loop-a", "unreachable"),
        "big": ("/big", "unreachable"),
        "latin1": ("/latin1", "confirmed"),
    }
    doc = {
        "sources": [source(k, server.url(path)) for k, (path, _) in cases.items()],
        "claims": [claim(f"c.{k}", k, ["4,096 GPUs"]) for k in cases],
    }
    assert claims("import", write_json(doc)).exit_code == 0
    code, report = verify("--all", "--max-bytes", "1000000")
    outcomes = {k.removeprefix("c."): r["outcome"] for k, r in by_claim(report).items()}
    assert outcomes == {k: outcome for k, (_, outcome) in cases.items()}
    assert code == 1
    results = by_claim(report)
    assert results["c.changed"]["changes"] == [["4,096 GPUs", "4,000 GPUs"]]
    assert (
        "HTTP 404" in results["c.http-404"]["error"]
        and "HTTP 500" in results["c.http-500"]["error"]
    )
    assert "redirect" in results["c.loop"]["error"] and "larger" in results["c.big"]["error"]
    assert server.sent("/big") < 64_000_000  # the oversized body was not read to the end
    assert "16000" not in (results["c.ok-html"]["passage"] or "")  # script text is not visible text


def test_tags_never_change_and_exit_0_when_all_good(server, claims, write_json, verify):
    server.add("/ok.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/ok.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    code, report = verify("c.one")
    assert code == 0 and report["counts"] == {"confirmed": 1}
    assert json.loads(claims("show", "c.one", "--format", "json").stdout)["tag"] == "agent-reported"


def test_second_fetch_is_a_304_and_the_snapshot_is_kept(server, claims, write_json, verify):
    server.add("/ok.html", PAGE.format(gpus="4,096", tokens="9.5T").encode(), etag='"v1"')
    doc = {
        "sources": [source("s", server.url("/ok.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    _, first = verify("--all")
    sha = first["fetches"][0]["snapshot"]
    assert first["fetches"][0]["outcome"] == "fetched"
    assert (verify.sources_dir / "snapshots" / sha[:2] / sha).is_file()
    code, second = verify("--all")
    assert (
        second["fetches"][0]["outcome"] == "not-modified"
        and second["fetches"][0]["snapshot"] == sha
    )
    assert code == 0 and by_claim(second)["c.one"]["outcome"] == "confirmed"
    assert server.requests[-1].headers.get("if-none-match") == '"v1"'


def test_unreachable_never_erases_an_earlier_result_and_offline_uses_snapshots(
    server, claims, write_json, verify
):
    server.add("/page.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    verify("--all")
    server.add("/page.html", b"down", status=500)
    code, report = verify("--all")
    assert code == 1 and by_claim(report)["c.one"]["outcome"] == "unreachable"
    shown = json.loads(claims("show", "c.one", "--format", "json").stdout)["verifications"][0]
    assert shown["outcome"] == "confirmed" and shown["last_attempt"]["outcome"] == "unreachable"
    assert "verified: confirmed in s" in claims("show", "c.one").stdout
    count = len(server.requests)
    code, offline = verify("--all", offline=True)
    assert code == 0 and by_claim(offline)["c.one"]["outcome"] == "confirmed"
    assert len(server.requests) == count  # offline fetched nothing


def test_offline_without_snapshots_is_unreachable(server, claims, write_json, verify):
    doc = {
        "sources": [source("s", server.url("/never"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    code, report = verify("--all", offline=True)
    assert code == 1 and "no snapshot" in by_claim(report)["c.one"]["error"]


def test_a_stale_spot_checked_claim_warns_by_default_and_is_blocked_by_strict(
    server, claims, write_json, verify
):
    server.add("/page.html", PAGE.format(gpus="3,000", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"], tag="spot-checked")],
    }
    claims("import", write_json(doc))
    code, report = verify("c.one")
    assert code == 1 and by_claim(report)["c.one"]["outcome"] == "figure-changed"
    assert "STALE" in claims("show", "c.one").stdout and "STALE" in claims("trace", "4096").stdout
    default = claims("export")
    assert default.exit_code == 0 and "Orchard-9" in default.stdout
    assert "warning: 1 exported claim(s) are stale" in default.stderr
    strict = claims("export", "--strict")
    assert strict.exit_code == 1 and "STALE" in strict.stderr


@pytest.mark.usefixtures("terminal")
def test_reread_shows_the_located_passage_from_the_latest_snapshot(
    server, claims, write_json, verify
):
    server.add("/page.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    verify("c.one")
    result = claims(
        *("reread", "c.one", "--source", "s", "--locator", "Training", "--quote", QUOTE),
        *("--by", "Ada", "--sources-dir", verify.sources_dir),
        input="y\n",
    )
    assert result.exit_code == 0, result.output
    assert "the quote is on the page (the latest snapshot of s (" in result.stderr
    assert f"Training {QUOTE} The corpus held" in result.stderr  # the passage the quote stands in
    assert server.count("/page.html") == 1  # verify's fetch; the re-read read its snapshot
    checked = json.loads(claims("history", "c.one", "--format", "json").stdout)["events"][-1]
    assert (checked["detail"]["checked"]["how"], checked["detail"]["checked"]["outcome"]) == (
        "snapshot",
        "confirmed",
    )


def test_verify_needs_a_selection_and_skips_claims_without_a_page(
    claims, write_json, sample, verify
):
    claims("import", write_json(sample))
    result = claims("verify")
    assert (
        result.exit_code == 2
        and "name claim keys, a --source, --unverified, --all or --rereads" in result.stderr
    )
    code, report = verify("gadget.fleet")
    assert code == 0 and report["results"] == []
    assert report["skipped"] == [
        {"claim": "gadget.fleet", "reason": "cites no primary page with a URL or a local copy"}
    ]


def test_a_local_copy_is_read_from_disk(claims, write_json, verify, tmp_path, store):
    page = tmp_path / "copy.md"
    page.write_text(f"Notes\n\n{QUOTE}\n", encoding="utf-8")
    doc = {
        "sources": [{"key": "s", "title": "Local copy", "kind": "report", "path": str(page)}],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    # beside a SQLite file its folder is the default root; a server's database has none: name one
    code, report = verify("c.one", *(["--local-root", str(tmp_path)] if "://" in store else []))
    assert code == 0 and by_claim(report)["c.one"]["outcome"] == "confirmed"
    assert os.path.exists(verify.sources_dir)


def test_the_table_shows_old_and_new_figures(server, claims, write_json, verify):
    server.add("/page.html", PAGE.format(gpus="3,000", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    result = claims("verify", "c.one", "--sources-dir", verify.sources_dir)
    assert result.exit_code == 1
    assert "figure-changed" in result.stdout and "4,096 GPUs → 3,000 GPUs" in result.stdout
    assert "summary: 1 figure-changed" in result.stdout


@pytest.mark.slow
def test_without_a_quote_each_figure_is_found_on_its_own(server, claims, write_json, verify):
    page = (
        "<h1>Orchard-9</h1><p>The prefill unit of Orchard-9 spans 4 nodes with 32 GPUs.</p>"
        + "<p>Unrelated operational notes follow here.</p>" * 40
        + "<p>Its decode unit spans 40 nodes with 320 GPUs, and the corpus held 5.93 trillion tokens.</p>"
    )
    server.add("/page.html", page.encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [
            claim(
                "c.all",
                "s",
                [
                    {"raw": "4 nodes", "name": "prefill unit"},
                    {"raw": "40 nodes", "name": "decode unit"},
                ],
                quote=None,
            ),
            claim("c.rounded", "s", ["5.9T tokens"], quote=None),
            claim("c.partial", "s", ["4 nodes", "12 racks"], quote=None),
            claim("c.empty", "s", [], quote=None),
        ],
    }
    assert claims("import", write_json(doc)).exit_code == 0
    code, report = verify("--all")
    results = by_claim(report)
    assert {k: r["outcome"] for k, r in results.items()} == {
        "c.all": "confirmed",
        "c.rounded": "rounded",
        "c.partial": "partial",
        "c.empty": "nothing-to-check",
    }
    assert code == 1  # partial fails the check; rounded and nothing-to-check do not
    assert [(f["figure"], f["status"], f["found"]) for f in results["c.all"]["figures"]] == [
        ("4 nodes", "found", "4 nodes"),
        ("40 nodes", "found", "40 nodes"),
    ]
    assert "decode unit spans 40 nodes" in results["c.all"]["figures"][1]["passage"]
    assert results["c.partial"]["missing"] == ["12 racks"]
    table = claims(
        "verify", "c.rounded", "c.empty", "--sources-dir", verify.sources_dir, "--offline"
    )
    assert table.exit_code == 0 and "5.9T tokens found as 5.93 trillion tokens" in table.stdout


@pytest.mark.slow
def test_a_table_cell_takes_what_it_counts_from_its_column_header(
    server, claims, write_json, verify
):
    # "5.93 Trillion" under "Training Tokens", in Orchard-9's row: a rounding of 5.9T tokens, in Markdown and
    # HTML; the same cell under a header that says nothing of tokens is not the claim's figure.
    markdown = (
        "# Orchard models\n\n| Size | Training Tokens | Layers |\n|---|---|---|\n"
        "| Orchard-9 7B | 5.93 Trillion | 32 |\n| Orchard-9 32B | 5.50 Trillion | 64 |\n"
    )
    html = (
        "<table><tr><th>Size</th><th>Training Tokens</th></tr>"
        "<tr><td>Orchard-9 7B</td><td>5.93 Trillion</td></tr></table>"
    )
    other = "| Size | Budget |\n|---|---|\n| Orchard-9 7B | 5.93 Trillion |\n"
    server.add("/models.md", markdown.encode(), content_type="text/markdown")
    server.add("/models.html", html.encode())
    server.add("/other.md", other.encode(), content_type="text/markdown")
    doc = {
        "sources": [
            source("md", server.url("/models.md")),
            source("html", server.url("/models.html")),
            source("other", server.url("/other.md")),
        ],
        "claims": [
            claim(f"c.{k}", k, ["5.9T tokens"], quote=None) for k in ("md", "html", "other")
        ],
    }
    assert claims("import", write_json(doc)).exit_code == 0
    code, report = verify("--all")
    results = by_claim(report)
    assert {k: r["outcome"] for k, r in results.items()} == {
        "c.md": "rounded",
        "c.html": "rounded",
        "c.other": "not-found",
    }
    assert [(f["status"], f["found"]) for f in results["c.md"]["figures"]] == [
        ("rounded", "5.93 Trillion")
    ]


@pytest.mark.slow
def test_partial_makes_a_spot_checked_claim_stale_and_rounded_does_not(
    server, claims, write_json, verify
):
    said = "Orchard-9 used 4,096 GPUs in 12 racks on 5.93 trillion tokens."
    server.add("/page.html", f"<h2>2 Training</h2><p>{said}</p>".encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [
            claim("c.rounded", "s", ["4,096 GPUs", "5.9T tokens"], quote=None),
            claim("c.partial", "s", ["4,096 GPUs", "12 racks"], quote=None),
        ],
    }
    claims("import", write_json(doc))
    verify("--all")
    for key in ("c.rounded", "c.partial"):  # each re-read on the page's words, in its snapshot
        where = ("--source", "s", "--locator", "§2", "--quote", said)
        reread = claims("reread", key, *where, "--sources-dir", verify.sources_dir, "--yes")
        assert reread.exit_code == 0, reread.output
    # the page changes: the racks are gone
    server.add("/page.html", b"<p>Orchard-9 used 4,096 GPUs on 5.93 trillion tokens.</p>")
    code, report = verify("--all")
    assert code == 1 and {k: r["outcome"] for k, r in by_claim(report).items()} == {
        "c.rounded": "rounded",
        "c.partial": "partial",
    }
    assert (
        "STALE" in claims("show", "c.partial").stdout
        and "STALE" not in claims("show", "c.rounded").stdout
    )
    strict = claims("export", "--strict")
    assert (
        strict.exit_code == 1 and "c.partial" in strict.stderr and "c.rounded" not in strict.stderr
    )


# --- state beside the database ---------------------------------------------------------------------------


@pytest.mark.slow
def test_snapshots_go_beside_the_database_wherever_the_command_runs(
    server, claims, write_json, tmp_path, store, monkeypatch
):
    monkeypatch.delenv("CLAIMS_SOURCES", raising=False)
    server.add("/page.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # a repository, a home folder: nothing is left here
    fetched = claims("verify", "c.one")
    assert fetched.exit_code == 0, fetched.output
    folder = (
        files_folder(resolve_url(store)) / "snapshots"
    )  # the SQLite file's folder; for a server, the data folder
    assert folder.parent == (tmp_path if "://" not in store else tmp_path / "xdg" / "claimsdb")
    assert f"snapshots kept in {folder}" in fetched.stderr
    assert any(folder.rglob("*")) and list(elsewhere.iterdir()) == []
    monkeypatch.chdir(tmp_path.parent)
    offline = claims("verify", "c.one", "--offline", "--format", "json")
    assert offline.exit_code == 0 and json.loads(offline.stdout)["snapshots"] == str(folder)
    assert f"snapshots read from {folder}" in offline.stderr


def test_sources_dir_and_claims_sources_override_the_folder_and_messages_name_it(
    server, claims, write_json, tmp_path, monkeypatch
):
    server.add("/page.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/page.html"))],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    monkeypatch.setenv("CLAIMS_SOURCES", str(tmp_path / "shared"))
    assert (
        f"snapshots kept in {tmp_path / 'shared' / 'snapshots'}" in claims("verify", "c.one").stderr
    )
    empty = tmp_path / "empty"
    result = claims("verify", "c.one", "--offline", "--sources-dir", empty)
    assert f"snapshots read from {empty / 'snapshots'}" in result.stderr


def test_a_server_database_keeps_its_snapshots_in_the_users_data_folder(tmp_path, monkeypatch):
    from claimsdb.cli.options import snapshots_root

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert (
        snapshots_root(None, "postgresql://u@db.example.org/review")
        == tmp_path / "xdg" / "claimsdb"
    )
    assert snapshots_root(None, str(tmp_path / "paper" / "claims.db")) == tmp_path / "paper"
    assert snapshots_root(tmp_path / "mine", "postgresql://u@h/x") == tmp_path / "mine"


@pytest.mark.slow
def test_unverified_checks_every_claim_the_queue_holds_and_nothing_else(
    server, claims, write_json, verify
):
    server.add("/ok.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    server.add("/other.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    doc = {
        "tags": [{"name": "later-note", "trust": "secondary", "description": "A note."}],
        "sources": [source("s", server.url("/ok.html")), source("t", server.url("/other.html"))],
        "claims": [
            claim("c.agent", "s", ["4,096 GPUs"]),
            claim("c.agent-two", "t", ["4,096 GPUs"]),
            claim("c.checked", "s", ["4,096 GPUs"], tag="spot-checked"),
            claim("c.secondary", "t", ["4,096 GPUs"], tag="later-note"),
        ],
    }
    claims("import", write_json(doc))
    code, report = verify("--unverified")
    assert code == 0 and {r["claim"] for r in report["results"]} == {
        "c.agent",
        "c.agent-two",
    }  # the default queue
    # the strict queue: secondary claims too, and c.checked, whose data file's re-read is an
    # attestation (the page was not checked), which the strict policy does not count
    code, strict = verify("--unverified", "--strict")
    assert code == 0 and {r["claim"] for r in strict["results"]} == {
        "c.agent",
        "c.agent-two",
        "c.checked",
        "c.secondary",
    }
    code, one_source = verify("--unverified", "--source", "t")
    assert {r["claim"] for r in one_source["results"]} == {"c.agent-two"}
    for key in ("c.agent", "c.agent-two", "c.secondary"):  # a verification never changes a tag
        shown = json.loads(claims("show", key, "--format", "json").stdout)
        assert [e["kind"] for e in shown["events"]] == ["imported"]
    re_read = claims(
        "reread",
        "c.agent",
        "--source",
        "s",
        "--locator",
        "§2",
        "--quote",
        QUOTE,
        "--yes",
        "--by",
        "Ada",
    )
    assert re_read.exit_code == 0, re_read.output
    _, after = verify("--unverified")  # re-read: paper-safe, out of the queue
    assert {r["claim"] for r in after["results"]} == {"c.agent-two"}


def test_unverified_exits_1_on_what_does_not_confirm(server, claims, write_json, verify):
    server.add("/ok.html", PAGE.format(gpus="4,096", tokens="9.5T").encode())
    doc = {
        "sources": [source("s", server.url("/ok.html")), source("gone", server.url("/gone.html"))],
        "claims": [claim("c.ok", "s", ["4,096 GPUs"]), claim("c.gone", "gone", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    code, report = verify("--unverified")
    assert code == 1 and report["counts"] == {"confirmed": 1, "unreachable": 1}


@pytest.mark.parametrize(
    "args, message",
    [
        (["c.one", "--unverified"], "--unverified selects the claims itself"),
        (["--all", "--unverified"], "--unverified selects the claims itself"),
        (["--all", "--strict"], "use it with --unverified"),
    ],
)
@pytest.mark.slow
def test_unverified_with_another_selection_is_refused_and_changes_nothing(
    claims, write_json, store, args, message
):
    from tests.conftest import store_digest

    doc = {
        "sources": [source("s", "http://127.0.0.1:9/ok.html")],
        "claims": [claim("c.one", "s", ["4,096 GPUs"])],
    }
    claims("import", write_json(doc))
    before = store_digest(store)
    result = claims("verify", *args)
    assert result.exit_code == 2 and message in result.stderr
    assert store_digest(store) == before
