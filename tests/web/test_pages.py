"""`claims serve`'s pages over HTTP, against the real application on 127.0.0.1: what each page draws,
the re-read queue end to end, and hostile records."""

from __future__ import annotations

import json

import pytest

from claimsdb.web.app import local_path, reader_name
from claimsdb.web.drawing import highlight
from tests.names import REFUSED_PARAMS
from tests.web.conftest import FILTERS, HONEST, XSS, csrf_token
from tests.web.markup import by_key, parse


def test_grid_draws_each_trust_level_and_marks_the_unsafe_ones(serve, client):
    page = client(serve()).get("/")
    assert page.status_code == 200
    chips = by_key(page.text)
    (verified,) = chips["widget.pretrain"]
    assert (
        "trust-verified" in verified.classes
        and "unsafe" not in verified.classes
        and verified.marks == ()
    )
    (stale,) = chips["widget.serve"]  # verified, but the latest verification no longer finds it
    assert (
        {"trust-verified", "stale"} <= stale.classes
        and "unsafe" not in stale.classes
        and stale.marks == ("stale",)
    )
    (secondary,) = chips["widget.context"]
    assert "trust-secondary" in secondary.classes and secondary.marks == ()
    (agent,) = chips["gadget.fleet"]
    assert {"trust-unverified", "unsafe"} <= agent.classes and agent.marks == ("unverified",)
    assert agent.text.startswith("40–60K sandboxes") and agent.href == "/claims/gadget.fleet"
    (statement_only,) = chips["gadget.serve"]  # no figure: the statement is drawn with its tag
    assert "text" in statement_only.classes and statement_only.marks == ("unverified",)
    headers = [th.text() for th in parse(page.text).find_all("th")]
    assert headers[:5] == ["Subject", "Pretrain", "Midtrain", "Agentic RL", "Serve"]
    assert "Widget-7" in headers and "Gadget" in headers


@pytest.mark.slow
@pytest.mark.parametrize("query, keys", FILTERS)
def test_list_filters(serve, client, query, keys):
    page = client(serve()).get(f"/claims?{query}")
    assert page.status_code == 200
    rows = {
        tr.attrs["id"].removeprefix("claim-")
        for tr in parse(page.text).find_all("tr")
        if "id" in tr.attrs
    }
    assert rows == keys


def test_a_bad_filter_is_a_400_page(serve, client):
    page = client(serve()).get("/claims?trust=certain")
    assert page.status_code == 400 and "Trust must be one of" in page.text


@pytest.mark.parametrize(
    "field, label, value", [("trust", "Trust", "certain"), ("status", "Status", "gone")]
)
def test_a_bad_filter_gets_the_same_refusal_from_the_command_line_and_the_web(
    serve, client, claims, web_db, field, label, value
):
    """One validation (queries.ClaimFilter): the command line names the field by its flag, the web by
    its form's label, and both say the same after it."""
    page = client(serve()).get(f"/claims?{field}={value}")
    for command in ("list", "export"):
        said = claims(command, f"--{field}", value, db=web_db)
        assert said.exit_code == 2 and said.stderr.startswith(f"error: --{field} must be one of: ")
        reason = said.stderr.strip().removeprefix(f"error: --{field} ")
        assert page.status_code == 400 and f"{label} {reason}" in page.text


def test_claim_page_shows_passage_verification_competing_values_and_history(serve, client):
    page = client(serve()).get("/claims/gadget.pretrain")
    assert page.status_code == 200
    assert "No other claim states this quantity." in page.text
    tree = parse(page.text)
    (passage,) = tree.find_all("blockquote", "passage")
    assert [m.text() for m in passage.find_all("mark")] == ["2,048 H800 GPUs"]
    assert "Its pretraining used 2,048 H800 GPUs for 54 days." in passage.text()
    assert "outcome-confirmed" in page.text
    assert any(
        a.attrs.get("href", "").endswith("/gadget.html") and a.text() == "Gadget technical report"
        for a in tree.find_all("a")
    )
    history = [li.text() for li in tree.find_all("ol", "history")[0].find_all("li")]
    assert len(history) == 1 and "imported" in history[0]


def test_claim_page_lists_the_competing_values_of_its_quantity(serve, client):
    page = client(serve()).get("/claims/gadget.pretrain-days")
    assert 'days of pretraining (<span class="key-name">gadget.pretrain-length</span>)' in page.text
    competing = by_key(page.text)["gadget.pretrain-days-note"]
    assert competing[0].text.startswith("54 days")


def test_unknown_claim_is_a_404_page(serve, client):
    page = client(serve()).get("/claims/no.such.claim")
    assert page.status_code == 404 and "no claim with key" in page.text
    assert "Did you mean" not in page.text  # no key is close


def test_a_mistyped_claims_404_links_to_the_closest_keys(serve, client):
    page = client(serve()).get("/claims/gadget.pretrian")
    tree = parse(page.text)
    assert page.status_code == 404 and "no claim with key 'gadget.pretrian'" in tree.text()
    (offered,) = tree.find_all("nav")[1:]  # the page's own navigation comes first
    links = [(a.attrs["href"], a.text()) for a in offered.find_all("a")]
    assert links == [("/claims/gadget.pretrain", "gadget.pretrain")]
    assert offered.text().split() == ["Did", "you", "mean", "gadget.pretrain?"]


def test_queue_walks_the_blocked_claims_with_the_pages_own_words(serve, client):
    c = client(serve(reader="Ada"))
    first = parse(c.get("/queue").text)
    assert "Claim 1 of 5 not paper-safe" in first.text()
    page = parse(c.get("/queue?key=gadget.pretrain").text)
    fields = {i.attrs["name"]: i.attrs.get("value", "") for i in page.find_all("input")}
    assert (
        fields["source"] == "gadget-report"
        and fields["locator"] == "§2"  # cited, and a heading of the page: "2 Pretraining"
        and fields["key"] == "gadget.pretrain"
    )
    assert page.find_all("textarea")[0].text() == HONEST["quote"]  # the sentence of the page's text
    (said,) = [lb.text() for lb in page.find_all("label") if lb.attrs.get("for") == "quote"]
    assert ": filled from the page's text (snapshot of " in said
    assert "attesting" in fields  # offered, never ticked before the person ticks it
    assert not [i for i in page.find_all("input") if "checked" in i.attrs]
    skip = [a for a in page.find_all("a") if a.text() == "Skip"]
    assert skip[0].attrs["href"] == "/queue?after=gadget.pretrain"
    after = parse(
        c.get("/queue?after=gadget.pretrain").text
    )  # confirmed ones first, then reworded, ...
    assert after.find_all("h2")[0].text() == "evil.gpus"


def _say_who(c, name="Ada Lovelace"):
    token = csrf_token(c.get("/reader").text)
    answer = c.post(
        "/reader",
        data={"csrf": token, "name": name, "next": "/queue"},
        headers={"origin": str(c.base_url)},
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/queue"
    return token


def test_a_reread_through_the_queue_lands_in_the_history(serve, client, history):
    c = client(serve())
    token = _say_who(c)
    sent = {
        "csrf": token,
        "key": "gadget.pretrain",
        "source": "gadget-report",
        "locator": "§2.1",
        "quote": "Its pretraining used 2,048 H800 GPUs",
        "note": "",
    }
    answer = c.post("/queue", data=sent, headers={"origin": str(c.base_url)})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/queue?after=gadget.pretrain&done=gadget.pretrain"
    last = history("gadget.pretrain")["events"][-1]
    assert (last["kind"], last["actor"], last["tag_after"]) == (
        "reread",
        "Ada Lovelace",
        "spot-checked",
    )
    assert (
        last["detail"]["locator"] == "§2.1"
        and last["detail"]["quote"] == "Its pretraining used 2,048 H800 GPUs"
    )
    assert last["detail"]["source"] == "gadget-report"
    checked = last["detail"]["checked"]  # checked against the page's latest snapshot
    assert (checked["how"], checked["outcome"]) == ("snapshot", "confirmed") and checked["sha256"]
    after = c.get(answer.headers["location"]).text
    assert "re-read by Ada Lovelace" in after and "Claim 1 of 4" not in after
    assert "gadget.pretrain" not in {k for k in by_key(c.get("/queue").text)}


def test_the_queue_applies_the_rules_of_claims_reread(serve, client, history):
    c = client(serve())
    token = _say_who(c)
    before = history("gadget.fleet")["events"]
    note = c.post(
        "/queue",
        data={
            "csrf": token,
            "key": "gadget.fleet",
            "source": "lab-notes",
            "locator": "p. 3",
            "quote": "40–60K sandboxes",
            "note": "",
        },
        headers={"origin": str(c.base_url)},
    )
    assert note.status_code == 400 and "is a note, not a primary page" in note.text
    assert history("gadget.fleet")["events"] == before
    fields = {i.attrs["name"]: i.attrs.get("value", "") for i in parse(note.text).find_all("input")}
    assert fields["source"] == "lab-notes"  # what the person typed comes back to be corrected
    assert fields["locator"] == "p. 3"
    no_page = c.post(
        "/queue",
        data={"csrf": token, "key": "gadget.serve", "source": "", "locator": "§5", "quote": "x"},
        headers={"origin": str(c.base_url)},
    )
    assert no_page.status_code == 400 and "Page re-read is needed" in no_page.text


def test_a_page_named_by_its_url_is_read_and_registered(serve, client, history):
    """A claim citing no primary page: the person names the page by its URL; it is fetched now (under
    the server's fetch policy), the quote checked on it, and the page registered as a source."""
    from claimsdb.fetching.targets import FetchPolicy
    from tests.httpserver import LocalHTTPServer

    with LocalHTTPServer() as pages:
        pages.add(
            "/gadget/serving",
            b"<h2>5.4 Serving</h2><p>Gadget's serving stage uses a prefill unit of 4 nodes.</p>",
            content_type="text/html; charset=utf-8",
        )
        c = client(serve(fetch_policy=FetchPolicy(allow_local=True)))
        token = _say_who(c)
        by_url = c.post(
            "/queue",
            data={
                "csrf": token,
                "key": "gadget.serve",
                "source": pages.url("/gadget/serving"),
                "locator": "§5.4",
                "quote": "Gadget's serving stage uses a prefill unit of 4 nodes.",
            },
            headers={"origin": str(c.base_url)},
        )
    assert by_url.status_code == 303, by_url.text
    last = history("gadget.serve")["events"][-1]
    assert last["kind"] == "reread" and last["detail"]["checked"]["how"] == "fetched"
    assert last["detail"]["source"].startswith("127-0-0-1")  # registered from its URL


@pytest.mark.parametrize(
    "field, sent",
    [
        ("locator", {"locator": "§2\x1b[2J"}),
        ("quote", {"quote": "a\u202eb"}),
        ("note", {"note": "\x07"}),
        ("source", {"source": "https://exa mple.org/x"}),
        (
            "source",
            {"source": "   ", "key": "gadget.serve"},
        ),  # cites no primary page: the page must be named
        ("attest", {"attesting": "1", "attest": "paywalled\x07"}),
        ("attest", {"attesting": "1", "attest": "  "}),  # ticked: the reason is needed
    ],
)
def test_a_refused_field_is_named_by_its_label_never_by_a_flag(serve, client, history, field, sent):
    c = client(serve())
    token = _say_who(c)
    form = {
        "csrf": token,
        "key": "gadget.pretrain",
        "source": "gadget-report",
        "locator": "§2",
        "quote": "Its pretraining used 2,048 H800 GPUs",
        "note": "",
        **sent,
    }
    before = history(form["key"])["events"]
    answer = c.post("/queue", data=form, headers={"origin": str(c.base_url)})
    assert answer.status_code == 400 and history(form["key"])["events"] == before
    page = parse(answer.text)
    (label,) = (
        lb.children[0].strip() for lb in page.find_all("label") if lb.attrs.get("for") == field
    )  # before its hint
    (shown,) = (p.text() for p in page.find_all("p", cls="error"))
    assert shown.startswith(f"{label} ") and "--" not in shown, (
        shown
    )  # "Locator holds ...": the form's own word


def test_no_reread_is_recorded_without_a_name(serve, client, history):
    c = client(serve())
    token = csrf_token(c.get("/reader").text)
    answer = c.post(
        "/queue",
        data={"csrf": token, "key": "gadget.pretrain", "source": "gadget-report"},
        headers={"origin": str(c.base_url)},
    )
    assert answer.status_code == 303 and answer.headers["location"].startswith("/reader?")
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]
    assert (
        "Say who you are" in c.get("/queue").text
    )  # the form is not offered before a name is given


@pytest.mark.slow
@pytest.mark.engine_free  # the name is refused before any write
@pytest.mark.parametrize("name, reason", REFUSED_PARAMS)
def test_a_name_must_be_a_name(serve, client, history, name, reason):
    """The form refuses what `--by` refuses (one rule, trust.identity.person_name), saying why under its own label."""
    c = client(serve())
    token = csrf_token(c.get("/reader").text)
    answer = c.post(
        "/reader",
        data={"csrf": token, "name": name, "next": "/queue"},
        headers={"origin": str(c.base_url)},
    )
    assert answer.status_code == 400 and "claims_reader" not in answer.headers.get("set-cookie", "")
    (shown,) = (p.text() for p in parse(answer.text).find_all("p", cls="error"))
    assert shown.startswith("Your name ") and reason in shown
    recorded = c.post(
        "/queue",
        data={"csrf": token, "key": "gadget.pretrain", "source": "gadget-report"},
        headers={"origin": str(c.base_url)},
    )
    assert recorded.status_code == 303 and recorded.headers["location"].startswith("/reader?")
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]


@pytest.mark.slow
@pytest.mark.parametrize("cookie", ["%E3%85%A4", "Ada%E2%80%AELovelace", "%E2%A0%80", "%20%20"])
def test_a_name_in_a_cookie_is_checked_again(serve, client, history, cookie):
    """A cookie set by hand (or by an older version) with a name that is no name records nothing: the
    browser is asked again."""
    server = serve()
    c = client(server)
    token = csrf_token(c.get("/reader").text)
    sent = {"csrf": token, **HONEST}
    c.cookies.set(reader_cookie(server), cookie, domain="127.0.0.1")
    answer = c.post("/queue", data=sent, headers={"origin": server.url})
    assert answer.status_code == 303 and answer.headers["location"].startswith("/reader?")
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]
    c.cookies.set(reader_cookie(server), "Ada%20Lovelace", domain="127.0.0.1")
    assert c.post("/queue", data=sent, headers={"origin": server.url}).status_code == 303
    assert history("gadget.pretrain")["events"][-1]["actor"] == "Ada Lovelace"


def reader_cookie(server) -> str:
    return f"claims_reader_{server.url.rsplit(':', 1)[1]}"


def test_the_readers_name_is_this_servers_only(serve, client, history):
    """Cookies do not keep to a port: another `claims serve` on 127.0.0.1 (another store) is sent the
    cookies this one set. The name given here is kept under this server's port, so the other one asks
    for a name and records nothing under this one's."""
    here, there = serve(), serve()
    c = client(here)
    token = csrf_token(c.get("/reader").text)
    named = c.post(
        "/reader",
        data={"csrf": token, "name": "Ada Lovelace", "next": "/queue"},
        headers={"origin": here.url},
    )
    assert named.status_code == 303
    assert "recording as <strong>Ada Lovelace</strong>" in c.get("/queue?key=gadget.fleet").text
    other = client(there)
    other.cookies = c.cookies  # one browser: its cookies for 127.0.0.1, whatever the port
    assert reader_cookie(here) in {cookie.name for cookie in other.cookies.jar}
    page = other.get("/queue?key=gadget.fleet").text
    assert "Ada Lovelace" not in page and "Say who you are" in page
    sent = {"csrf": csrf_token(other.get("/reader").text), **HONEST}
    answer = other.post("/queue", data=sent, headers={"origin": there.url})
    assert answer.status_code == 303 and answer.headers["location"].startswith("/reader?")
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]


def test_a_name_given_at_start_is_used_and_cannot_be_changed_in_the_browser(serve, client, history):
    c = client(serve(reader="Grace Hopper"))
    page = c.get("/queue?key=gadget.fleet").text
    assert (
        "recording as <strong>Grace Hopper</strong>" in page
        and "Record re-read as Grace Hopper" in page
    )
    token = csrf_token(page)
    c.post(
        "/reader",
        data={"csrf": token, "name": "Mallory", "next": "/queue"},
        headers={"origin": str(c.base_url)},
    )
    c.post(
        "/queue",
        data={
            "csrf": token,
            "key": "gadget.fleet",
            "source": "gadget-report",
            "locator": "§1",
            "quote": "40–60K sandboxes",
        },
        headers={"origin": str(c.base_url)},
    )
    assert history("gadget.fleet")["events"][-1]["actor"] == "Grace Hopper"


def test_strict_puts_secondary_claims_in_the_queue(serve, client):
    c = client(serve(strict=True))
    # the secondary claims, and widget.pretrain: its data file's re-read is an attestation
    assert "Claim 1 of 9 not paper-safe under the strict policy" in c.get("/queue").text
    chips = by_key(c.get("/").text)
    assert chips["widget.context"][0].marks == ("not re-read",)
    assert chips["widget.serve"][0].marks == ("not re-read", "stale")


@pytest.mark.parametrize(
    "path", ["/", "/claims", "/claims/evil.gpus", "/queue?key=evil.gpus", "/claims?subject=evil"]
)
def test_hostile_records_are_escaped_everywhere(serve, client, path):
    page = client(serve(reader="Ada")).get(path)
    assert page.status_code == 200
    for raw in (
        XSS,
        "<script>alert(3)",
        "<img src=x",
        '" onmouseover="alert(1)',
        "<b>",
        "alert('page')</script>",
    ):
        assert raw not in page.text, (path, raw)
    tree = parse(page.text)
    assert not tree.find_all("script") and not tree.find_all("img")
    assert not [n for n in tree.walk() if any(a.startswith("on") for a in n.attrs)]
    assert "&lt;script&gt;alert(&#39;xss&#39;)&lt;/script&gt;" in page.text


def test_the_stylesheet_is_served(serve, client):
    css = client(serve()).get("/static/claims.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "dashed" in css.text


@pytest.mark.parametrize(
    "target, kept",
    [
        ("/queue?key=a.b", "/queue?key=a.b"),
        ("//evil.example/", "/queue"),
        ("https://evil.example/", "/queue"),
        ("/\\evil.example", "/queue"),
        ("queue", "/queue"),
        (None, "/queue"),
    ],
)
def test_redirects_stay_on_this_server(target, kept):
    assert local_path(target) == kept


def test_names_are_trimmed_and_checked():
    assert reader_name("  Ada   Lovelace ") == "Ada Lovelace"
    assert (
        reader_name("Ada\u202eLovelace") is None
        and reader_name("") is None
        and reader_name("\u3164") is None
    )


def test_highlight_marks_the_claims_numbers_as_the_parser_reads_them():
    figures = [
        {
            "raw": "14.8T tokens",
            "name": None,
            "kind": "value",
            "comparator": "=",
            "value": 14.8e12,
            "low": None,
            "high": None,
            "start": None,
            "end": None,
            "steps": [],
            "active": None,
            "unit": "tokens",
            "counted": None,
        }
    ]
    pieces = highlight("Pretrained on 14.8 trillion tokens, not 14.9T; 2,048 GPUs.", figures)
    assert [text for text, marked in pieces if marked] == ["14.8 trillion tokens"]
    assert (
        "".join(text for text, _ in pieces)
        == "Pretrained on 14.8 trillion tokens, not 14.9T; 2,048 GPUs."
    )


def test_a_page_without_an_address_is_not_said_to_be_fetched_by_verify():
    """The claim page's hint for a page with no snapshot: `claims verify` fetches only what has an
    address; a source without one is re-read from the copy the person has."""
    from claimsdb.web.drawing import environment
    from claimsdb.web.pages import Passage

    passage = environment().from_string('{% import "_passage.html" as show %}{{ show.passage(p) }}')
    addressed = passage.render(p=Passage("x.y", "report", "https://example.org/r"))
    assert "<code>claims verify x.y</code> fetches one" in addressed
    bare = passage.render(p=Passage("x.y", "report", None))
    assert "fetches one" not in bare and "report has no address" in bare
    assert "<code>claims reread x.y --copy FILE</code>" in bare


def test_the_browser_marks_left_out_exactly_the_competing_values_an_export_leaves_out(
    claims, store
):
    """Two values of one quantity in the bundled data: one another value is preferred over, then a
    deprecated one, is marked "left out" where the browser draws it, and is what the export drops."""
    from claimsdb import db, queries
    from claimsdb.trust.rule import Policy
    from claimsdb.web.drawing import LEFT_OUT, Drawn
    from tests.conftest import DATA_FILES

    first, second = "pipelines.kimi-k2-k3.post-train", "rl.weight-sync.kimi-checkpoint-engine"
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0

    def marked() -> set[str]:
        engine = db.make_engine(db.resolve_url(store))
        try:
            with db.session_scope(engine) as session:
                ids = [queries.get_claim(session, k) for k in (first, second)]
                drawn = [Drawn.from_view(v, Policy()) for v in queries.claim_views(session, ids)]
        finally:
            engine.dispose()
        return {d.key for d in drawn if LEFT_OUT in d.marks}

    def exported() -> set[str]:
        rows = json.loads(claims("export", "--skip-unsafe", "--format", "json").stdout)["rows"]
        return {r["key"] for r in rows} & {first, second}

    assert marked() == set() and exported() == {first, second}
    assert claims("prefer", second, "--reason", "the README, re-read").exit_code == 0
    assert marked() == {first} and exported() == {second}  # another value is preferred
    assert claims("deprecate", second, "--reason", "measured otherwise since").exit_code == 0
    assert marked() == {second} and exported() == {first}  # deprecated
