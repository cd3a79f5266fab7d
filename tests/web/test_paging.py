"""The pages of `claims serve` at any size of store: the grid, the list and the re-read queue serve one page,
read only the claims they draw, count in SQL and keep their filters in every link."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from claimsdb import selection, views
from claimsdb.cli.app import app
from claimsdb.web import pages
from tests.conftest import ENGINE, run_sql
from tests.web.conftest import (
    CROWDED,
    FILTERS,
    GENERATED,
    HOSTILE_SUBJECT,
    csrf_token,
    generated_claim,
    web_data,
)
from tests.web.markup import by_key, parse

KEYS = [
    c["key"] for c in web_data("")["claims"]
]  # the web store's claims, in the order the data file lists them
GEN_KEYS = [generated_claim(i)["key"] for i in range(GENERATED)]
DEFAULT = "the default policy (verified and secondary pass)"


def listed(html: str) -> list[str]:
    """The claims a list page draws, in order."""
    return [
        tr.attrs["id"].removeprefix("claim-")
        for tr in parse(html).find_all("tr")
        if "id" in tr.attrs
    ]


def subjects(html: str) -> list[str]:
    """The subjects a grid page draws, in order."""
    return [th.text() for th in parse(html).find_all("th") if th.attrs.get("scope") == "row"]


def summary(html: str) -> str:
    (line,) = parse(html).find_all("p", "summary")
    return " ".join(line.text().split())


def link(html: str, rel: str) -> str | None:
    """The pager's link to the first, prev, next or last page (None when the page has none)."""
    found = [
        a.attrs["href"]
        for nav in parse(html).find_all("nav", "pager")
        for a in nav.find_all("a")
        if a.attrs.get("rel") == rel
    ]
    assert len(found) <= 1
    return found[0] if found else None


def text(html: str) -> str:
    return " ".join(parse(html).text().split())


def hidden(html: str) -> dict[str, str]:
    """The hidden fields of a page's forms."""
    return {
        i.attrs["name"]: i.attrs.get("value", "")
        for i in parse(html).find_all("input")
        if i.attrs.get("type") == "hidden"
    }


@pytest.fixture
def loads(monkeypatch):
    """Every list of claim ids the server reads whole (views.load), in order."""
    calls: list[list[int]] = []
    real = views.load

    def recording(session, ids, **kwargs):
        calls.append(list(ids))
        return real(session, ids, **kwargs)

    monkeypatch.setattr(views, "load", recording)
    return calls


def ids_of(db: str, keys) -> set[int]:
    from sqlalchemy import select

    from claimsdb import db as database
    from claimsdb.models import Claim

    engine = database.open_engine(db)
    try:
        with database.session_scope(engine) as session:
            return set(session.scalars(select(Claim.id).where(Claim.key.in_(list(keys)))))
    finally:
        engine.dispose()


# -- the list --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_list_serves_one_page_at_a_time_in_import_order(serve, client):
    c = client(serve())
    shown = [listed(c.get(f"/claims?size=4&page={n}").text) for n in (1, 2, 3)]
    assert shown == [KEYS[0:4], KEYS[4:8], KEYS[8:9]]
    first, last = c.get("/claims?size=4").text, c.get("/claims?size=4&page=3").text
    assert (
        summary(first)
        == f"9 claim(s), 5 not paper-safe under {DEFAULT}: re-read queue. Showing claims 1–4."
    )
    assert summary(last).endswith("Showing claims 9–9.") and "Page 3 of 3" in text(last)
    assert (
        link(first, "first"),
        link(first, "prev"),
        link(first, "next"),
        link(first, "last"),
    ) == (None, None, "/claims?size=4&page=2", "/claims?size=4&page=3")
    assert (link(last, "first"), link(last, "prev"), link(last, "next")) == (
        "/claims?size=4",
        "/claims?size=4&page=2",
        None,
    )


def test_every_link_keeps_the_filters_and_the_size(serve, client):
    c = client(serve())
    first = c.get("/claims?subject=gadget&trust=unverified&size=2").text
    assert listed(first) == ["gadget.fleet", "gadget.pretrain"]
    assert summary(first).startswith(f"4 claim(s), 4 not paper-safe under {DEFAULT}")
    following = link(first, "next")
    assert following == "/claims?subject=gadget&trust=unverified&size=2&page=2"
    assert listed(c.get(following).text) == ["gadget.pretrain-days", "gadget.serve"]
    queue = [a.attrs["href"] for a in parse(first).find_all("a") if a.text() == "re-read queue"]
    assert queue == ["/queue?subject=gadget&trust=unverified"]
    assert hidden(first) == {"size": "2"}  # a new filter starts again at page 1, at the same size
    other = c.get("/claims?status=any&stale=1&size=1&tag=spot-checked").text
    assert link(other, "next") is None and listed(other) == ["widget.serve"]
    crowd = c.get("/?stage=pretrain&status=any&size=1").text
    assert link(crowd, "next") == "/?stage=pretrain&status=any&size=1&page=2"


@pytest.mark.parametrize("path", ["/", "/claims"])
@pytest.mark.parametrize(
    "query, message",
    [
        ("page=0", "page must be a whole number from 1 up, not '0'"),
        ("page=-2", "page must be a whole number from 1 up"),
        ("page=two", "page must be a whole number from 1 up, not 'two'"),
        ("page=1.5", "page must be a whole number from 1 up"),
        (
            "page=%EF%BC%92",
            "page must be a whole number from 1 up",
        ),  # a full-width digit: a digit, not an ASCII one
        ("page=12345678901", "page must be a whole number from 1 up"),
        ("size=0", "size must be a whole number from 1 to"),
        ("size=100000", "size must be a whole number from 1 to"),
        ("size=ten&page=2", "size must be a whole number from 1 to"),
    ],
)
@pytest.mark.slow
def test_a_bad_page_or_size_is_a_400_that_says_why(serve, client, path, query, message):
    page = client(serve()).get(f"{path}?{query}")
    assert page.status_code == 400 and message in text(page.text)
    assert "Traceback" not in page.text


def test_the_sizes_have_a_cap(serve, client):
    c = client(serve())
    assert c.get(f"/claims?size={pages.LIST_MOST}").status_code == 200
    assert c.get(f"/claims?size={pages.LIST_MOST + 1}").status_code == 400
    assert c.get(f"/?size={pages.GRID_MOST}").status_code == 200
    too_many = c.get(f"/?size={pages.GRID_MOST + 1}")
    assert (
        too_many.status_code == 400
        and f"size must be a whole number from 1 to {pages.GRID_MOST}" in too_many.text
    )


def test_a_page_past_the_last_says_so_and_links_back(serve, client):
    page = client(serve()).get("/claims?size=4&page=7&trust=unverified")
    assert page.status_code == 404 and listed(page.text) == []
    assert "There is no page 7: the last is page 2." in text(page.text)
    assert link(page.text, "prev") == "/claims?trust=unverified&size=4&page=2"
    assert link(page.text, "first") == "/claims?trust=unverified&size=4"


def test_an_empty_selection_is_one_empty_page(serve, client):
    page = client(serve()).get("/claims?subject=nobody")
    assert (
        page.status_code == 200 and listed(page.text) == [] and summary(page.text) == "0 claim(s)."
    )


def test_the_list_reads_only_the_claims_of_its_page(serve, client, generated_db, loads):
    c = client(serve(db=generated_db))
    page = c.get("/claims?page=2").text
    assert listed(page) == GEN_KEYS[50:100]
    assert (
        summary(page)
        == f"130 claim(s), 65 not paper-safe under {DEFAULT}: re-read queue. Showing claims 51–100."
    )
    assert "Page 2 of 3" in text(page)
    assert [len(ids) for ids in loads if ids] == [50]  # the page's claims, nothing else, read whole
    assert listed(c.get("/claims?page=3").text) == GEN_KEYS[100:]
    assert listed(c.get("/claims?size=7&page=3").text) == GEN_KEYS[14:21]


# -- the grid --------------------------------------------------------------------------------------


def test_the_grid_serves_subjects_page_by_page(serve, client):
    c = client(serve())
    shown = [c.get(f"/?size=1&page={n}").text for n in (1, 2, 3)]
    assert [subjects(p) for p in shown] == [["Widget-7"], ["Gadget"], [HOSTILE_SUBJECT]]
    assert set(by_key(shown[0])) == {"widget.pretrain", "widget.serve", "widget.context"}
    assert set(by_key(shown[1])) == {
        "gadget.fleet",
        "gadget.pretrain",
        "gadget.pretrain-days",
        "gadget.pretrain-days-note",
        "gadget.serve",
    }
    assert summary(shown[0]) == (
        f"3 subject(s) holding 9 claim(s), 5 not paper-safe under {DEFAULT}: re-read queue. "
        "Showing subjects 1–1."
    )
    columns = [
        [th.text() for th in parse(p).find_all("th") if th.attrs.get("scope") == "col"]
        for p in shown[:2]
    ]
    assert columns == [
        ["Subject", "Pretrain", "Midtrain", "Serve"],
        ["Subject", "Pretrain", "Agentic RL", "Serve"],
    ]
    assert link(shown[0], "next") == "/?size=1&page=2" and link(shown[2], "next") is None


def test_a_grid_page_holds_the_subjects_the_filters_select(serve, client):
    c = client(serve())
    first = c.get("/?trust=secondary&size=1").text
    assert subjects(first) == ["Widget-7"] and set(by_key(first)) == {"widget.context"}
    second = c.get(link(first, "next")).text
    assert subjects(second) == ["Gadget"] and set(by_key(second)) == {"gadget.pretrain-days-note"}
    assert link(second, "next") is None and summary(second).startswith(
        "2 subject(s) holding 2 claim(s)."
    )


def test_the_grid_reads_only_its_subjects_and_draws_a_crowded_cell_in_part(
    serve, client, generated_db, loads
):
    c = client(serve(db=generated_db))
    first = c.get("/").text
    names = [f"Orchard {n:02d}" for n in range(30)]
    assert subjects(first) == names[:25] and "Page 1 of 2" in text(first)
    assert summary(first).startswith("30 subject(s) holding 130 claim(s), 65 not paper-safe")
    crowded = [k for k, chips in by_key(first).items() if chips[0].href and k in GEN_KEYS[:CROWDED]]
    assert crowded == GEN_KEYS[: pages.GRID_CELL]  # the cell's first claims, in import order
    (more,) = parse(first).find_all("a", "more")
    assert more.text() == f"+{CROWDED - pages.GRID_CELL} more"
    on_first = {
        generated_claim(i)["key"]
        for i in range(GENERATED)
        if generated_claim(i)["subject"] in names[:25]
    }
    read = {i for ids in loads for i in ids}
    assert read == ids_of(generated_db, on_first - set(GEN_KEYS[pages.GRID_CELL : CROWDED]))
    assert more.attrs["href"] == "/claims?subject=Orchard+00&stage=Pretrain"
    assert listed(c.get(more.attrs["href"]).text) == GEN_KEYS[:CROWDED]
    second = c.get(link(first, "next")).text
    assert subjects(second) == names[25:] and not parse(second).find_all("a", "more")


# -- each filter, on every page -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("query, keys", FILTERS)
def test_grid_filters(serve, client, query, keys):
    page = client(serve()).get(f"/?{query}")
    assert page.status_code == 200 and set(by_key(page.text)) == keys


@pytest.mark.slow
@pytest.mark.parametrize("query, keys", FILTERS)
def test_list_filters_at_one_claim_a_page(serve, client, query, keys):
    c = client(serve())
    seen, at = [], f"/claims?{query}&size=1"
    while at:
        page = c.get(at).text
        seen += listed(page)
        at = link(page, "next")
    assert set(seen) == keys and len(seen) == len(keys)


@pytest.mark.parametrize(
    "strict, query, first, total",
    [
        (False, "subject=evil", "evil.gpus", 1),
        (
            False,
            "stage=pretrain",
            "gadget.pretrain",
            3,
        ),  # confirmed, before evil.gpus (reworded) and one never verified
        (False, "tag=agent-reported&subject=gadget", "gadget.fleet", 4),
        (False, "trust=unverified&stage=serve", "gadget.serve", 1),
        # gadget.pretrain-days-note (54 days) is contradicted by an agent's 45 days: after widget.context
        (True, "trust=secondary", "widget.context", 2),
        (True, "stale=1", "widget.serve", 1),
    ],
)
def test_queue_filters(serve, client, strict, query, first, total):
    page = client(serve(reader="Ada", strict=strict)).get(f"/queue?{query}")
    policy = "the strict policy (verified pass)" if strict else DEFAULT
    assert (
        f"Claim 1 of {total} not paper-safe under {policy}, among the claims the filters select."
        in text(page.text)
    )
    assert parse(page.text).find_all("h2")[0].text() == first


def test_the_queue_keeps_its_filters_through_skip_and_reread(serve, client):
    c = client(serve(reader="Ada"))
    page = c.get("/queue?stage=pretrain").text
    (skip,) = [a.attrs["href"] for a in parse(page).find_all("a") if a.text() == "Skip"]
    assert skip == "/queue?after=gadget.pretrain&stage=pretrain"
    second = c.get(skip).text
    assert parse(second).find_all("h2")[0].text() == "evil.gpus" and "Claim 2 of 3" in text(second)
    sent = hidden(second)
    assert sent["stage"] == "pretrain" and sent["key"] == "evil.gpus"
    answer = c.post(
        "/queue",
        data={**sent, "source": "evil-page", "locator": "§1", "quote": "7,777 GPUs"},
        headers={"origin": str(c.base_url)},
    )
    assert answer.status_code == 303
    assert answer.headers["location"] == "/queue?after=evil.gpus&done=evil.gpus&stage=pretrain"
    third = c.get(answer.headers["location"]).text
    assert parse(third).find_all("h2")[
        0
    ].text() == "gadget.pretrain-days" and "Claim 2 of 2" in text(third)


def test_nothing_to_reread_among_the_filtered_claims(serve, client):
    page = client(serve()).get("/queue?trust=secondary")
    assert (
        f"Nothing to re-read: every active claim is paper-safe under {DEFAULT}, among the claims the filters "
        "select."
    ) in text(page.text)


def test_asking_a_name_keeps_the_queue_filters(serve, client):
    c = client(serve())
    page = c.get("/queue?subject=gadget&key=gadget.pretrain").text
    (form,) = [
        f for f in parse(page).find_all("form") if f.attrs.get("action") == "/reader"
    ]  # inline, no detour
    assert {i.attrs["name"]: i.attrs.get("value") for i in form.find_all("input")}[
        "next"
    ] == "/queue?key=gadget.pretrain&subject=gadget"
    token = csrf_token(c.get("/reader").text)
    answer = c.post(
        "/queue",
        data={"csrf": token, "key": "gadget.pretrain", "subject": "gadget"},
        headers={"origin": str(c.base_url)},
    )
    assert answer.status_code == 303
    assert next_of(answer.headers["location"]) == "/queue?key=gadget.pretrain&subject=gadget"


def next_of(url: str) -> str:
    assert url.startswith("/reader?")
    (target,) = parse_qs(urlsplit(url).query)["next"]
    return target


# -- the queue: found in batches, across their boundaries ----------------------------------------


def test_the_queue_walks_past_a_batch_of_claims_it_cannot_offer(
    serve, client, generated_db, loads, monkeypatch
):
    """Claims that disagree with their history are passed over, batch after batch, and the walk wraps round."""
    monkeypatch.setattr(selection, "QUEUE_BATCHES", (4, 8))
    waiting = GEN_KEYS[0::2]  # the agent-reported claims, in key order
    tampered = waiting[1:11]
    run_sql(
        generated_db,
        (
            f"UPDATE claim SET basis = 'edited' WHERE key IN ({', '.join('?' * len(tampered))})",
            tampered,
        ),
    )
    c = client(serve(db=generated_db, reader="Ada"))
    first = c.get("/queue").text
    assert parse(first).find_all("h2")[0].text() == waiting[
        0
    ] and "Claim 1 of 65 not paper-safe" in text(first)
    loads.clear()
    after = c.get(f"/queue?after={waiting[0]}").text
    assert parse(after).find_all("h2")[0].text() == waiting[11]
    assert "Claim 12 of 65 not paper-safe" in text(after)
    assert "Passed over 10 on the way that disagree with their history" in text(after)
    assert sum(len(ids) for ids in loads) <= 4 + 8 + 8 + 1  # batches up to the claim, not the store
    named = c.get(
        f"/queue?key={tampered[3]}"
    ).text  # a tampered claim cannot be offered: the first instead
    assert parse(named).find_all("h2")[0].text() == waiting[0]
    wrapped = c.get(f"/queue?after={waiting[-1]}").text
    assert parse(wrapped).find_all("h2")[0].text() == waiting[0] and "Claim 1 of 65" in text(
        wrapped
    )
    last = c.get(f"/queue?after={waiting[-2]}").text
    assert parse(last).find_all("h2")[0].text() == waiting[-1] and "Claim 65 of 65" in text(last)


def test_a_queue_of_claims_that_disagree_with_their_history_offers_none(serve, client, web_db):
    blocked = [
        "gadget.fleet",
        "gadget.pretrain",
        "gadget.pretrain-days",
        "gadget.serve",
        "evil.gpus",
    ]
    run_sql(
        web_db,
        (
            f"UPDATE claim SET basis = 'edited' WHERE key IN ({', '.join('?' * len(blocked))})",
            blocked,
        ),
    )
    page = client(serve(reader="Ada")).get("/queue").text
    assert not parse(page).find_all("form", "reread")
    assert (
        f"Nothing to re-read here: the 5 active claim(s) not paper-safe under {DEFAULT} disagree with their "
        "history, and a re-read is refused on them: run claims db check."
    ) in text(page)


# -- counts and the stale filter follow the store as it changes -----------------------------------


def changed_data(web_template, folder: Path) -> Path:
    """The web store's data file again, with two re-read claims' statements changed: the file names the
    same re-reads, which do not cover the new content."""
    original = web_template.sources.parent / "web.json"
    doc = json.loads(original.read_text(encoding="utf-8"))
    for claim in doc["claims"]:
        if claim["key"] == "widget.pretrain":
            claim["statement"] = "Widget-7 was pretrained on 3,072 H100 GPUs, the report now says."
    changed = folder / "web-changed.json"
    changed.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return changed


def test_counts_and_stale_follow_a_change_made_while_the_server_runs(
    serve, client, web_db, web_template, tmp_path
):
    c = client(serve())
    assert listed(c.get("/claims?stale=1").text) == ["widget.serve"]
    assert summary(c.get("/claims").text).startswith("9 claim(s), 5 not paper-safe")
    done = CliRunner().invoke(
        app, ["import", str(changed_data(web_template, tmp_path)), "--db", str(web_db)]
    )
    assert done.exit_code in (0, 1), done.output
    assert listed(c.get("/claims?stale=1").text) == ["widget.pretrain", "widget.serve"]
    assert summary(c.get("/claims").text).startswith("9 claim(s), 6 not paper-safe")
    assert by_key(c.get("/claims?stale=1").text)["widget.pretrain"][0].marks == ("not re-read",)
    queue = c.get("/queue?key=widget.pretrain").text
    assert parse(queue).find_all("h2")[
        0
    ].text() == "widget.pretrain" and "of 6 not paper-safe" in text(queue)


def test_an_observation_is_listed_but_is_no_row_of_the_grid(
    serve, client, claims, store, sample, tmp_path
):
    """A claim about no one system (`observation`) is in the list and in no grid row: the grid's rows
    and their count are the systems only, as in the grid exports (paper_safe.grids)."""
    remark = {**copy.deepcopy(sample["claims"][2]), "key": "tasks.no-midtrain-task"}
    remark.update(subject="audited benchmark tasks", stage="Midtrain", observation=True)
    remark["statement"] = "No audited benchmark task targets midtraining."
    remark["figures"] = []
    sample["claims"].append(remark)
    path = tmp_path / "observed.json"
    path.write_text(json.dumps(sample), encoding="utf-8")
    # a store of its own: a new SQLite file, or the test's fresh PostgreSQL database
    fresh = tmp_path / "observed.db" if ENGINE == "sqlite" else store
    imported = claims("import", path, db=fresh)
    assert imported.exit_code == 0, imported.output
    c = client(serve(db=fresh))
    grid = c.get("/").text
    assert subjects(grid) == ["Widget-7", "Gadget"] and "No audited benchmark task" not in grid
    assert summary(grid).startswith("2 subject(s) holding 3 claim(s), 1 not paper-safe")
    assert "No audited benchmark task targets midtraining." in c.get("/claims").text
