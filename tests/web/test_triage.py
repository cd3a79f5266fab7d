"""The re-read queue's triage: claims ordered by how ready they are to confirm (their latest verification),
`claims verify --unverified` for the whole queue, and "Fetch the page now" for one claim, against pages a
real HTTP server on 127.0.0.1 serves and the real app on a real socket."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from claimsdb.fetching.targets import FetchPolicy
from claimsdb.web.app import Settings
from tests.conftest import reread
from tests.httpserver import LocalHTTPServer
from tests.web.conftest import XSS, csrf_token
from tests.web.keys import access_key
from tests.web.live import LiveServer
from tests.web.markup import parse

pytestmark = pytest.mark.slow  # Chromium

# Each claim's page, and what `claims verify` finds there. The keys run against the readiness order.
PAGES = {
    "/delta.html": "<html><body><p>Delta ran on 1,024 GPUs for a week.</p></body></html>",  # confirmed
    "/foxtrot.html": "<html><body><p>Foxtrot read 5.93T tokens in pretraining.</p></body></html>",  # rounded
    "/charlie.html": "<html><body><p>Charlie used 512 GPUs; its schedule is not given.</p></body></html>",  # partial
    "/alpha.html": "<html><body><p>Alpha's report says nothing of its cluster.</p></body></html>",  # not-found
    "/golf.html": "<html><body><p>Golf trained on 777 GPUs.</p></body></html>",  # confirmed, then changed
    "/hotel.html": "<html><body><p>Hotel was served on 96 GPUs.</p></body></html>",  # never fetched until the button
    "/india.html": "<html><body><p>India runs 8,192 GPUs &lt;script&gt;alert('page')&lt;/script&gt; all day.</p></body></html>",
    "/safe.html": "<html><body><p>Kilo used 300 GPUs.</p></body></html>",
    "/juliet.html": "<html><body><h2>4 Scale</h2><p>Juliet ran 4,000 tasks at once.</p></body></html>",  # its second page
    "/lima.html": "<html><body><p>Lima ran on 640 GPUs in its main run.</p></body></html>",  # a vague locator
}
# The queue after `claims verify --unverified` and a second check of golf: by readiness (confirmed; rounded
# or partial; located but citing a vague locator; never verified; not-found or unreachable), then by key.
ORDER = [
    "d.confirmed",
    "h.later",
    "i.hostile",
    "j.second-page",
    "c.partial",
    "f.rounded",
    "l.vague",
    "b.never",
    "a.not-found",
    "e.unreachable",
    "g.changed",
]
WITH_AN_O = {
    "b.never",
    "e.unreachable",
    "f.rounded",
    "g.changed",
    "h.later",
}  # subject=o: Bravo, Echo, Foxtrot, ...


# Each claim's page: its source key and the path it is served at (None: no URL).
PAGE_OF = {
    "alpha": "/alpha.html",
    "charlie": "/charlie.html",
    "delta": "/delta.html",
    "echo": "/gone.html",
    "foxtrot": "/foxtrot.html",
    "golf": "/golf.html",
    "hotel": "/hotel.html",
    "india": "/india.html",
    "kilo": "/safe.html",
    "juliet-blog": None,
    "juliet": "/juliet.html",
    "lima": "/lima.html",
}


def triage_data(base: str) -> dict:
    def src(key: str, path: str | None) -> dict:
        return {
            "key": key,
            "title": f"Page of {key}",
            "kind": "report",
            **({"url": f"{base}{path}"} if path else {}),
        }

    def claim(
        key: str, subject: str, statement: str, figures: list[str], source: str, **more
    ) -> dict:
        return {
            "key": key,
            "subject": subject,
            "stage": "Pretrain",
            "statement": statement,
            "tag": "agent-reported",
            "basis": "An agent's sweep.",
            "figures": figures,
            "evidence": [{"source": source, "locator": None, "quote": None}],
            **more,
        }

    return {
        "sources": [src("notes", None) | {"kind": "note"}]
        + [src(key, path) for key, path in PAGE_OF.items()],
        "claims": [
            claim("a.not-found", "Alpha", "Alpha ran on 2,222 nodes.", ["2,222 nodes"], "alpha"),
            claim(
                "b.never", "Bravo", "Bravo ran on 64 GPUs.", ["64 GPUs"], "notes"
            ),  # a note: nothing to fetch
            claim(
                "c.partial",
                "Charlie",
                "Charlie used 512 GPUs for 30 days.",
                ["512 GPUs", "30 days"],
                "charlie",
            ),
            claim("d.confirmed", "Delta", "Delta ran on 1,024 GPUs.", ["1,024 GPUs"], "delta"),
            claim("e.unreachable", "Echo", "Echo ran on 48 GPUs.", ["48 GPUs"], "echo"),
            claim("f.rounded", "Foxtrot", "Foxtrot read 5.9T tokens.", ["5.9T tokens"], "foxtrot"),
            claim("g.changed", "Golf", "Golf trained on 777 GPUs.", ["777 GPUs"], "golf"),
            claim("h.later", "Hotel", "Hotel is served on 96 GPUs.", ["96 GPUs"], "hotel"),
            claim("i.hostile", f"India {XSS}", "India runs 8,192 GPUs.", ["8,192 GPUs"], "india"),
            {
                **claim(
                    "j.second-page",
                    "Juliet",
                    "Juliet ran 4,000 tasks.",
                    ["4,000 tasks"],
                    "juliet-blog",
                ),
                "evidence": [
                    {
                        "source": "juliet-blog",
                        "locator": None,
                        "quote": None,
                    },  # no URL: nothing to fetch
                    {"source": "juliet", "locator": "§4", "quote": None},
                ],
            },
            {
                **claim("l.vague", "Lima", "Lima ran on 640 GPUs.", ["640 GPUs"], "lima"),
                "evidence": [{"source": "lima", "locator": "the report", "quote": None}],
            },
            {
                **claim("k.safe", "Kilo", "Kilo used 300 GPUs.", ["300 GPUs"], "kilo"),
                "tag": "spot-checked",
                "reread": reread("kilo", locator="§1", quote="300 GPUs"),
            },
        ],
    }


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def pages_server():
    with pytest.MonkeyPatch.context() as mp, LocalHTTPServer() as server:
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        for path, body in PAGES.items():
            server.add(path, body.encode(), content_type="text/html; charset=utf-8")
        server.add(
            "/slow.html", b"<p>Too late: 1,024 GPUs.</p>", content_type="text/html", delay_s=8
        )
        yield server


@pytest.fixture(scope="module")
def triage(tmp_path_factory, stores, pages_server) -> SimpleNamespace:
    """Two stores of the same claims: `imported` (never verified) and `verified` (after `claims verify
    --unverified`, and golf checked again once its page no longer says 777)."""
    root = tmp_path_factory.mktemp("triage")
    data = root / "triage.json"
    data.write_text(
        json.dumps(triage_data(pages_server.url("").rstrip("/")), ensure_ascii=False),
        encoding="utf-8",
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("CLAIMS_DB", raising=False)
        for folder in ("imported", "verified"):
            (root / folder).mkdir()
        imported = stores.new(root / "imported")
        code, out, err = cli("import", data, "--db", imported)
        assert code == 0, out + err
        verified = stores.copy(imported, root / "verified")
        sources = root / "sources"
        check = (
            "--db",
            verified,
            "--sources-dir",
            sources,
            "--allow-local",
            "--timeout",
            "5",
            "--format",
            "json",
        )
        code, out, err = cli("verify", "--unverified", *check)
        assert code == 1, out + err  # partial, not-found and unreachable among them
        first = {r["claim"]: r["outcome"] for r in json.loads(out)["results"]}
        pages_server.add("/golf.html", b"<p>Golf's page moved on.</p>", content_type="text/html")
        code, out, err = cli("verify", "g.changed", *check)
        assert json.loads(out)["results"][0]["outcome"] == "not-found", out
    yield SimpleNamespace(imported=imported, verified=verified, sources=sources, first=first)
    stores.drop(imported)
    stores.drop(verified)


@pytest.fixture
def start(triage, stores, tmp_path):
    """start(which="verified", **settings) -> a LiveServer over a copy of that store."""
    running = []

    def go(which: str = "verified", **settings) -> LiveServer:
        folder = tmp_path / f"{which}-{len(running)}"
        folder.mkdir()
        db = stores.copy(getattr(triage, which), folder)
        settings.setdefault("fetch_policy", FetchPolicy(allow_local=True))
        settings.setdefault("reader", "Ada")
        server = LiveServer(Settings(db=db, sources_dir=triage.sources, **settings)).__enter__()
        server.db = db
        running.append(server)
        return server

    yield go
    for server in running:
        server.__exit__(None, None, None)
        stores.drop(server.db)


def shown_key(html: str) -> str:
    return parse(html).find_all("h2")[0].text()


def walk(c, query: str = "") -> list[str]:
    """The queue's claims as "Skip" visits them, from the first until it comes round again."""
    seen, page = [], c.get(f"/queue?{query}").text
    while (key := shown_key(page)) not in seen:
        seen.append(key)
        assert f"Claim {len(seen)} of " in " ".join(parse(page).text().split())
        page = c.get(f"/queue?after={key}&{query}").text
    return seen


def history_of(db: str, key: str) -> list[dict]:
    code, out, err = cli("history", key, "--db", db, "--format", "json")
    assert code == 0, err
    return json.loads(out)["events"]


def verifications_of(db: str, key: str) -> list[dict]:
    code, out, err = cli("show", key, "--db", db, "--format", "json")
    assert code == 0, err
    return json.loads(out)["verifications"]


def test_verify_unverified_found_each_kind_of_page(triage):
    assert triage.first == {
        "a.not-found": "not-found",
        "c.partial": "partial",
        "d.confirmed": "confirmed",
        "e.unreachable": "unreachable",
        "f.rounded": "rounded",
        "g.changed": "confirmed",
        "h.later": "confirmed",
        "i.hostile": "confirmed",
        "j.second-page": "confirmed",
        "l.vague": "confirmed",
    }  # b.never cites a note; k.safe waits not


def test_located_claims_come_first_with_their_passages(start, client):
    c = client(start())
    assert walk(c) == ORDER  # golf: its latest verification counts, not its first
    first = parse(c.get("/queue").text)
    assert [m.text() for m in first.find_all("mark")] == [
        "1,024 GPUs"
    ]  # the passage, the figure highlighted
    assert (
        first.find_all("textarea")[0].text() == "Delta ran on 1,024 GPUs for a week."
    )  # the quote prefilled
    assert walk(c, "subject=o") == [k for k in ORDER if k in WITH_AN_O]  # a filter keeps the order


def test_the_queue_shows_the_page_that_located_the_claim(start, client):
    page = parse(client(start()).get("/queue?key=j.second-page").text)
    assert [m.text() for m in page.find_all("mark")] == [
        "4,000 tasks"
    ]  # not its first page, which has no URL
    fields = {i.attrs["name"]: i.attrs.get("value", "") for i in page.find_all("input")}
    assert fields["source"] == "juliet" and fields["locator"] == "§4"  # its heading "4 Scale"


def test_before_any_verification_the_queue_runs_in_key_order(start, client):
    c = client(start("imported"))
    assert walk(c) == sorted(ORDER)


def test_a_claim_named_or_skipped_keeps_its_place(start, client):
    c = client(start())
    page = c.get("/queue?key=b.never").text
    assert shown_key(page) == "b.never" and "Claim 8 of 11" in " ".join(parse(page).text().split())
    assert shown_key(c.get("/queue?after=b.never").text) == "a.not-found"
    assert shown_key(c.get("/queue?after=g.changed").text) == "d.confirmed"  # round again
    assert (
        shown_key(c.get("/queue?after=k.safe").text) == "a.not-found"
    )  # paper-safe, never verified: placed so too


def _fetch(c, key: str, **extra):
    page = c.get(f"/queue?key={key}").text
    return c.post(
        "/queue/fetch",
        data={"csrf": csrf_token(page), "key": key, **extra},
        headers={"origin": str(c.base_url)},
    )


def test_fetch_the_page_now_runs_verify_for_the_claim_and_shows_its_passage(start, client):
    server = start("imported")
    c = client(server)
    before = parse(c.get("/queue?key=h.later").text)
    assert before.find_all("mark") == [] and "No snapshot of hotel yet" in before.text()
    answer = _fetch(c, "h.later", subject="o")
    assert (
        answer.status_code == 303
        and answer.headers["location"] == "/queue?key=h.later&fetched=h.later&subject=o"
    )
    after = parse(c.get(answer.headers["location"]).text)
    assert after.find_all("h2")[0].text() == "h.later"
    assert [m.text() for m in after.find_all("mark")] == ["96 GPUs"]
    assert after.find_all("textarea")[0].text() == "Hotel was served on 96 GPUs."
    assert "Fetched hotel" in after.text() and "confirmed" in after.text()
    assert [v["outcome"] for v in verifications_of(server.db, "h.later")] == ["confirmed"]
    assert [e["kind"] for e in history_of(server.db, "h.later")] == ["imported"]  # no tag changes
    assert shown_key(c.get("/queue").text) == "h.later"  # now located: first in the queue


def test_fetch_says_why_a_page_could_not_be_read(start, client, pages_server):
    server = start("imported")
    c = client(server)
    gone = parse(c.get(_fetch(c, "e.unreachable").headers["location"]).text)
    assert "Could not fetch echo" in gone.text() and "404" in gone.text()
    note = parse(c.get(_fetch(c, "b.never").headers["location"]).text)
    assert "Nothing was fetched: the claim cites no primary page" in note.text()
    assert verifications_of(server.db, "b.never") == []


def test_fetch_follows_the_servers_fetch_policy(start, client):
    server = start("imported", fetch_policy=None)  # as `claims serve` without --allow-local
    c = client(server)
    page = parse(c.get(_fetch(c, "d.confirmed").headers["location"]).text)
    assert "Could not fetch delta" in page.text() and "loopback address: refused" in page.text()
    assert page.find_all("mark") == []
    assert [v["outcome"] for v in verifications_of(server.db, "d.confirmed")] == ["unreachable"]


def test_an_unreachable_fetch_never_costs_a_claim_its_place(start, client):
    """Confirmed, then a fetch that fails (the server's policy refuses the loopback page): the queue's
    order keeps the confirmed result, as `claims show` keeps it."""
    server = start("verified", fetch_policy=None)
    c = client(server)
    page = parse(c.get(_fetch(c, "d.confirmed").headers["location"]).text)
    assert "Could not fetch delta" in page.text()
    outcomes = [v["outcome"] for v in verifications_of(server.db, "d.confirmed")]
    assert outcomes == ["confirmed"]  # the conclusive result; the failed fetch is its last attempt
    assert walk(c) == ORDER  # still first
    first = parse(c.get("/queue").text)
    assert shown_key(c.get("/queue").text) == "d.confirmed"
    assert [m.text() for m in first.find_all("mark")] == ["1,024 GPUs"]  # its page, as last read


def test_a_vague_locator_is_flagged_and_waits_after_the_located_claims(start, client):
    c = client(start())
    assert ORDER.index("l.vague") > ORDER.index("f.rounded")  # confirmed, yet not ready
    page = parse(c.get("/queue?key=l.vague").text)
    (flag,) = [d.text() for d in page.find_all("dd", "vague")]
    assert "the claim's locator “the report” names no section" in flag
    fields = {i.attrs["name"]: i.attrs.get("value", "") for i in page.find_all("input")}
    assert fields["locator"] == ""  # never offered as the person's
    assert page.find_all("textarea")[0].text() == "Lima ran on 640 GPUs in its main run."


def test_fetch_is_bounded_in_time(start, client, pages_server):
    server = start("imported", fetch_timeout=1.0)
    code, out, err = cli(
        "add",
        "--key",
        "l.slow",
        "--subject",
        "Lima",
        "--statement",
        "Lima ran on 1,024 GPUs.",
        "--figure",
        "1,024 GPUs",
        "--source",
        pages_server.url("/slow.html"),
        "--db",
        server.db,
    )
    assert code == 0, out + err
    c = client(server)
    started = time.monotonic()
    answer = _fetch(c, "l.slow")  # the page answers after 8 s
    assert answer.status_code == 303 and time.monotonic() - started < 5
    page = parse(c.get(answer.headers["location"]).text)
    assert page.find_all("h2")[0].text() == "l.slow" and "Could not fetch" in page.text()
    assert [v["outcome"] for v in verifications_of(server.db, "l.slow")] == ["unreachable"]


@pytest.mark.parametrize("how", ["no token", "other origin", "cross-site"])
def test_fetch_is_guarded_like_every_write(start, client, how):
    server = start("imported")
    c = client(server)
    token = csrf_token(c.get("/queue?key=d.confirmed").text)
    data, headers = {"csrf": token, "key": "d.confirmed"}, {"origin": str(c.base_url)}
    if how == "no token":
        data.pop("csrf")
    elif how == "other origin":
        headers = {"origin": "http://127.0.0.1:1"}
    else:
        headers["sec-fetch-site"] = "cross-site"
    answer = c.post("/queue/fetch", data=data, headers=headers)
    assert answer.status_code == 403
    assert verifications_of(server.db, "d.confirmed") == []


def test_fetch_of_an_unknown_claim_is_a_404(start, client):
    c = client(start("imported"))
    token = csrf_token(c.get("/queue").text)
    answer = c.post(
        "/queue/fetch", data={"csrf": token, "key": "no.such"}, headers={"origin": str(c.base_url)}
    )
    assert answer.status_code == 404


def test_a_fetched_hostile_page_stays_escaped(start, client):
    server = start("imported")
    c = client(server)
    html = c.get(_fetch(c, "i.hostile").headers["location"]).text
    assert "<script>" not in html and "&lt;script&gt;alert(&#39;page&#39;)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(&#39;xss&#39;)&lt;/script&gt;" in html  # the subject too


def test_the_name_form_is_inline_and_keeps_the_place(start, client):
    server = start("verified", reader=None)
    c = client(server)
    page = parse(c.get("/queue?key=c.partial").text)
    (form,) = [f for f in page.find_all("form") if f.attrs.get("action") == "/reader"]
    fields = {i.attrs["name"]: i.attrs.get("value", "") for i in form.find_all("input")}
    assert fields["next"] == "/queue?key=c.partial" and "name" in fields
    answer = c.post(
        "/reader",
        data={"csrf": fields["csrf"], "name": "Ada Lovelace", "next": fields["next"]},
        headers={"origin": str(c.base_url)},
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/queue?key=c.partial"
    assert "Record re-read as Ada Lovelace" in c.get(answer.headers["location"]).text


def test_the_keys_are_declared_and_explained(start, client):
    page = parse(client(start()).get("/queue").text)
    keys = {e.attrs["accesskey"]: e.text() for e in page.find_all() if "accesskey" in e.attrs}
    assert keys == {
        "r": "Record re-read as Ada",
        "s": "Skip",
        "n": "Next claim",
        "p": "Fetch the page now",
    }
    assert "Alt+R record" in " ".join(page.text().split())


def test_serve_takes_the_fetch_policy_of_verify():
    code, out, _ = cli("serve", "--help")
    assert code == 0 and "--allow-local" in out and "--local-root" in out


# -- in a real browser (Chromium through Playwright): the keyboard, the fetch button ----------------------


def expect(target):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


def test_the_queue_is_cleared_from_the_keyboard(start, page):
    server = start(reader=None)
    page.goto(server.url + "/queue")
    expect(page.locator("#name")).to_be_focused()  # the name, asked inline
    page.keyboard.type("Ada Lovelace")
    page.keyboard.press("Enter")
    expect(page.locator("h2 a.key-name")).to_have_text("d.confirmed")  # located claims first
    expect(page.locator("blockquote.passage mark")).to_have_text(["1,024 GPUs"])
    expect(page.locator("#locator")).to_be_focused()  # the one field a person types
    page.keyboard.type("§1")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator("#note")).to_be_focused()
    page.keyboard.type(
        "read snapshot; no surprises"
    )  # r, s, n and p typed into a field are only text
    expect(page).to_have_url(server.url + "/queue?key=d.confirmed")
    expect(page.locator("#note")).to_have_value("read snapshot; no surprises")
    assert history_of(server.db, "d.confirmed")[-1]["kind"] == "imported"
    access_key(page, "r")  # record
    expect(page.locator(".flash")).to_contain_text("Recorded: d.confirmed")
    expect(page.locator("h2 a.key-name")).to_have_text("h.later")
    last = history_of(server.db, "d.confirmed")[-1]
    assert (last["kind"], last["actor"], last["detail"]["locator"]) == (
        "reread",
        "Ada Lovelace",
        "§1",
    )
    assert last["detail"]["quote"] == "Delta ran on 1,024 GPUs for a week."
    access_key(page, "s")  # skip
    expect(page.locator("h2 a.key-name")).to_have_text("i.hostile")
    access_key(page, "n")  # next
    expect(page.locator("h2 a.key-name")).to_have_text("j.second-page")
    assert [e["kind"] for e in history_of(server.db, "h.later")] == [
        "imported"
    ]  # skipped: nothing recorded


def test_fetch_the_page_now_in_the_browser(start, page, screenshots):
    server = start("imported")
    page.goto(server.url + "/queue?key=h.later")
    expect(page.locator("blockquote.passage")).to_have_count(0)
    page.get_by_role("button", name="Fetch the page now").click()
    expect(page.locator(".fetched")).to_contain_text("Fetched hotel")
    expect(page.locator("blockquote.passage mark")).to_have_text(["96 GPUs"])
    assert page.locator("#quote").input_value() == "Hotel was served on 96 GPUs."
    page.goto(server.url + "/queue?key=d.confirmed")
    access_key(page, "p")  # the same, from the keyboard
    expect(page.locator("blockquote.passage mark")).to_have_text(["1,024 GPUs"])
    page.screenshot(path=screenshots / "serve-queue-fetched.png", full_page=True)
    assert [e["kind"] for e in history_of(server.db, "h.later")] == [
        "imported"
    ]  # verifications only
