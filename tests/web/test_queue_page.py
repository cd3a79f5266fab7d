"""The re-read queue records a re-read on the page's own words (issue 32): the form starts from the
page's text, never from the agent's; what is sent is checked against the page as `claims reread` checks
it, and refused, with what the page says, when the page does not hold it. Over HTTP, against the real
application on 127.0.0.1 and the web store's snapshots (its pages served on 127.0.0.1 when it was
verified)."""

from __future__ import annotations

import pytest

from tests.web.conftest import HONEST, csrf_token
from tests.web.markup import parse

WRONG = "gadget.gpus-wrong"  # a claim the page contradicts: it says 2,048 H800 GPUs


@pytest.fixture
def add(claims, web_db):
    """`claims add` on this test's database: add(KEY, STATEMENT, SOURCE, *more options)."""

    def run(key: str, statement: str, source: str, *more: str) -> None:
        done = claims(
            "add", "--key", key, "--subject", "Gadget", "--statement", statement,
            "--source", source, *more, db=web_db,
        )  # fmt: skip
        assert done.exit_code == 0, done.output

    return run


def post(c, key: str, **fields: str | list[str]):
    page = c.get(f"/queue?key={key}").text
    sent = {"csrf": csrf_token(page), "key": key, **fields}
    return c.post("/queue", data=sent, headers={"origin": str(c.base_url)})


def form_of(html: str) -> dict[str, str]:
    """The re-read form's fields as the page fills them in (text inputs and the quote)."""
    (form,) = [f for f in parse(html).find_all("form") if "reread" in f.classes]
    fields = {
        i.attrs["name"]: i.attrs.get("value", "")
        for i in form.find_all("input")
        if i.attrs.get("type") in ("text", "hidden")
    }
    fields["quote"] = form.find_all("textarea")[0].text()
    return fields


def alert(html: str) -> str:
    (shown,) = [p.text() for p in parse(html).find_all("p") if p.attrs.get("role") == "alert"]
    return shown


def test_an_honest_reread_is_still_one_form(serve, client, history):
    c = client(serve(reader="Ada"))
    shown = form_of(c.get("/queue?key=gadget.pretrain").text)
    assert {k: shown[k] for k in ("source", "locator", "quote")} == {
        k: HONEST[k] for k in ("source", "locator", "quote")
    }
    # sent as shown: one Enter
    answer = c.post("/queue", data=shown, headers={"origin": str(c.base_url)})
    assert answer.status_code == 303, answer.text
    last = history("gadget.pretrain")["events"][-1]
    assert last["kind"] == "reread" and last["detail"]["quote"] == HONEST["quote"]
    assert last["detail"]["checked"]["outcome"] == "confirmed"


def test_the_queue_does_not_prefill_the_agents_words(serve, client, add):
    agents = "Gadget trained on its 2,048 H800 GPUs for two months."  # not on the page
    add("gadget.agent-words", "Gadget ran on 2,048 H800 GPUs.", "gadget-report",
        "--figure", "2,048 H800", "--quote", agents, "--locator", "§7")  # fmt: skip
    add("gadget.unread", "Gadget ran on 4 nodes.", "http://127.0.0.1:9/unread.html",
        "--figure", "4 nodes", "--quote", "Gadget ran on 4 nodes.", "--locator", "§3")  # fmt: skip
    c = client(serve(reader="Ada"))
    cited = form_of(c.get("/queue?key=gadget.agent-words").text)
    assert cited["quote"] != agents and cited["quote"] == HONEST["quote"]  # the page's sentence
    assert cited["locator"] == ""  # "§7": no such section on the page
    html = c.get("/queue?key=gadget.unread").text
    unread = form_of(html)
    assert (unread["locator"], unread["quote"]) == ("", "")  # no snapshot: nothing to fill from
    assert "No snapshot of 127-0-0-1" in parse(html).text()


def test_a_vague_locator_is_flagged_and_never_prefilled(serve, client, add):
    add("gadget.vague", "Gadget ran on 2,048 H800 GPUs.", "gadget-report",
        "--figure", "2,048 H800", "--locator", "the report")  # fmt: skip
    c = client(serve(reader="Ada"))
    html = c.get("/queue?key=gadget.vague").text
    (flag,) = [d.text() for d in parse(html).find_all("dd", "vague")]
    assert flag.startswith("Not ready: the claim's locator “the report” names no section")
    assert form_of(html)["locator"] == ""
    assert "the report" not in [
        i.attrs.get("value") for i in parse(html).find_all("input")
    ]  # the agent's words are shown as the claim's, never put in the person's field


def test_a_wrong_figure_cannot_be_recorded_without_the_correction(serve, client, add, history):
    add(WRONG, "Gadget was pretrained on 4,096 H800 GPUs.", "gadget-report",
        "--figure", "4,096 H800")  # fmt: skip
    c = client(serve(reader="Ada"))
    html = c.get(f"/queue?key={WRONG}").text
    tree = parse(html)
    said = " ".join(p.text() for p in tree.find_all("p", "said"))
    assert "The page says 2,048 H800 GPUs where the claim says 4,096 H800." in said
    (box,) = [i for i in tree.find_all("input") if i.attrs.get("name") == "correct"]
    assert box.attrs["value"] == "2,048 H800 GPUs" and "checked" not in box.attrs
    shown = form_of(html)
    assert shown["quote"] == HONEST["quote"]  # the page's sentence, holding the page's value
    refused = c.post("/queue", data={**shown, "locator": "§2"}, headers={"origin": str(c.base_url)})
    assert refused.status_code == 400
    assert "the page says 2,048 H800 GPUs where the claim says 4,096 H800" in alert(refused.text)
    assert [e["kind"] for e in history(WRONG)["events"]] == ["imported"]
    corrected = c.post(
        "/queue",
        data={**shown, "locator": "§2", "correct": "2,048 H800 GPUs"},
        headers={"origin": str(c.base_url)},
    )
    assert corrected.status_code == 303, corrected.text
    last = history(WRONG)["events"][-1]
    assert last["kind"] == "reread" and [c[0] for c in last["detail"]["corrected"]] == [
        "4,096 H800"
    ]
    statement = parse(c.get(f"/claims/{WRONG}").text).find_all("p", "statement-big")[0].text()
    assert statement == "Gadget was pretrained on 2,048 H800 GPUs."  # the page's value, in place


def test_a_ticked_correction_stays_ticked_when_the_form_comes_back(serve, client, add):
    add(WRONG, "Gadget was pretrained on 4,096 H800 GPUs.", "gadget-report",
        "--figure", "4,096 H800")  # fmt: skip
    c = client(serve(reader="Ada"))
    answer = post(c, WRONG, source="gadget-report", locator="", quote=HONEST["quote"],
                  correct="2,048 H800 GPUs")  # fmt: skip
    assert answer.status_code == 400 and alert(answer.text).startswith("Locator is needed")
    (box,) = [i for i in parse(answer.text).find_all("input") if i.attrs.get("name") == "correct"]
    assert "checked" in box.attrs


def test_a_quote_not_on_the_page_is_refused_with_what_the_page_says(serve, client, history):
    c = client(serve(reader="Ada"))
    answer = post(c, "gadget.pretrain", source="gadget-report", locator="§2",
                  quote="Gadget was pretrained on 2,048 H800 GPUs over two months.")  # fmt: skip
    assert answer.status_code == 400
    said = alert(answer.text)
    assert "nothing recorded" in said and "the quote is not on the page" in said
    assert "the page says there: “" in said  # its nearest passage
    assert [e["kind"] for e in history("gadget.pretrain")["events"]] == ["imported"]
    verdict = " ".join(d.text() for d in parse(answer.text).find_all("div", "verdict"))
    assert "the quote is not on the page" in verdict and "The page's nearest passage" in verdict


def test_a_sentence_of_the_page_is_picked_as_the_quote(serve, client):
    c = client(serve(reader="Ada"))
    page = parse(c.get("/queue?key=gadget.fleet").text)
    picks = {a.text(): a.attrs["href"] for a in page.find_all("a", "pick")}
    sentence = "Gadget's agentic RL runs 40–60K sandboxes at once on preemptible CPUs."
    assert sentence in picks and HONEST["quote"] in picks  # every sentence of the passage
    picked = parse(c.get(picks[sentence]).text)
    assert picked.find_all("textarea")[0].text() == sentence
    (current,) = [a.text() for a in picked.find_all("a", "pick") if "aria-current" in a.attrs]
    assert current == sentence
    (label,) = [lb.text() for lb in picked.find_all("label") if lb.attrs.get("for") == "quote"]
    assert "picked from the page's text" in label
    forged = parse(c.get("/queue?key=gadget.fleet&quote=Gadget+runs+a+million+sandboxes.").text)
    assert forged.find_all("textarea")[0].text() != "Gadget runs a million sandboxes."


def test_the_statement_shows_for_a_claim_without_figures(serve, client):
    c = client(serve(reader="Ada"))
    statement = "Gadget's serving stage is described in its report."
    for path in ("/queue?key=gadget.serve", "/claims/gadget.serve"):
        (shown,) = [p.text() for p in parse(c.get(path).text).find_all("p", "statement-big")]
        assert shown == statement, path


def test_an_attestation_records_a_page_that_cannot_be_checked(serve, client, add, history):
    add("gadget.paywalled", "Gadget ran on 4 nodes.", "http://127.0.0.1:9/paywalled.html",
        "--figure", "4 nodes")  # fmt: skip
    c = client(serve(reader="Ada"))  # the server's fetch policy refuses a loopback address
    page = form_of(c.get("/queue?key=gadget.paywalled").text)["source"]
    fields = {"source": page, "locator": "p. 12", "quote": "4 nodes"}
    refused = post(c, "gadget.paywalled", **fields)
    assert refused.status_code == 400 and "the page cannot be had" in alert(refused.text)
    assert [e["kind"] for e in history("gadget.paywalled")["events"]] == ["imported"]
    reason = "a scanned print copy; read on paper"
    unticked = post(c, "gadget.paywalled", **fields, attest=reason)  # a reason, the box unticked
    assert unticked.status_code == 400
    attested = post(c, "gadget.paywalled", **fields, attesting="1", attest=reason)
    assert attested.status_code == 303, attested.text
    detail = history("gadget.paywalled")["events"][-1]["detail"]
    assert detail["attested"] == reason and "checked" not in detail


def test_the_refusal_is_the_domains(serve, client, claims, web_db, web_template):
    """The browser refuses what `claims reread` refuses, for the same reason."""
    quote = "Gadget was pretrained on 2,048 H800 GPUs over two months."
    c = client(serve(reader="Ada"))
    said = alert(post(c, "gadget.pretrain", source="gadget-report", locator="§2", quote=quote).text)
    cli = claims("reread", "gadget.pretrain", "--by", "Ada", "--source", "gadget-report",
                 "--locator", "§2", "--quote", quote, "--yes",
                 "--sources-dir", str(web_template.sources), db=web_db)  # fmt: skip
    assert cli.exit_code == 2
    assert " ".join(said.split()) == " ".join(cli.stderr.removeprefix("error: ").split())


def test_a_claim_the_page_does_not_hold_shows_the_pages_nearest_passage(serve, client, add):
    add("gadget.tpus", "Gadget's pretraining ran on 9,999 TPUs.", "gadget-report",
        "--figure", "9,999 TPUs")  # fmt: skip
    c = client(serve(reader="Ada"))
    html = c.get("/queue?key=gadget.tpus").text
    tree = parse(html)
    said = " ".join(p.text() for p in tree.find_all("p", "said"))
    assert "The snapshot does not hold the claim; the page's nearest passage: “" in said
    assert form_of(html)["quote"] == ""  # nothing of the page is offered as holding the claim
    assert tree.find_all("a", "pick")  # its sentences around the nearest passage, to pick from
