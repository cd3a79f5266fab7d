"""The re-read queue's page: one claim, the page it cites as its latest snapshot reads, and the form that
records a re-read of it under every rule of `claims reread` (provenance.reread). No HTTP here.

The form never offers an agent's words as the person's. The locator and the quote start empty unless the
latest snapshot of the page holds them:
- the quote may be filled from the snapshot's own text (the sentence of the located passage holding the
  claim's figure, or the page's figure in its place), never from the quote the claim cites;
- the locator the claim cites is filled only when it names a place (locating.reread.vague_locator) and
  the snapshot's text holds it (`locator_on_page`);
- each sentence of the passage is a link that shows the queue again with that sentence as the quote (the
  pages run no script), so a quote is picked from the page's text rather than typed.
The card shows the page's verdict on the quote as filled in (locating.reread.check_page, the check a
re-read must pass): the page's value where it says another (with a box that corrects the claim to it),
the page's nearest passage where the quote is not on it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlmodel import Session

from claimsdb import disputes, provenance, queries, verification
from claimsdb.errors import ClaimsError, InvalidField
from claimsdb.escaping import http_url
from claimsdb.fetching.snapshots import SnapshotStore
from claimsdb.locating.page import normalize
from claimsdb.locating.reread import (
    PageCheck,
    check_page,
    locator_on_page,
    nearest_passage,
    nearest_sentence,
    vague_locator,
)
from claimsdb.models import Claim, Evidence, Source, Verification
from claimsdb.reread_page import PageRead, read_snapshot
from claimsdb.selection import UNREACHABLE, Memo, Queue
from claimsdb.sources import get_source
from claimsdb.trust.rule import EXPORTABLE_STATUS, Policy
from claimsdb.views import ClaimView
from claimsdb.web.drawing import Drawn, highlight
from claimsdb.web.pages import Filters, choices

# A sentence ends at . ! or ? before a space ("14.8T" has no space after its point), but for a few
# abbreviations ("et al.", "e.g.", "Fig. 3"), or at a line's end.
_ABBREVIATIONS = ("al", "e.g", "i.e", "etc", "cf", "vs", "Fig", "Eq", "Sec", "No", "pp", "approx")
_SENTENCE_END = re.compile(
    "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS) + r"(?<=[.!?])\s+|\n\s*"
)
NEAR_CHARS = 300  # the page's text shown on each side of the nearest sentence, within its paragraph
QUOTE_CHARS = 600  # the longest run of the passage's sentences filled in as the quote


@dataclass(frozen=True)
class Entered:
    """The re-read form's fields: prefilled, or as the person sent them back."""

    source: str = ""
    locator: str = ""
    quote: str = ""
    note: str = ""
    correct: tuple[str, ...] = ()  # the page's values the person corrects the claim's figures to
    attesting: bool = False  # "I read the page but it cannot be checked here"
    attest: str = ""  # why (recorded only when `attesting`)

    def fields(self) -> dict[str, Any]:
        """The fields as a re-read takes them (an empty page or note: none given)."""
        return {
            "source": self.source.strip() or None,
            "locator": self.locator,
            "quote": self.quote,
            "note": self.note.strip() or None,
            "correct": tuple(c for c in self.correct if c.strip()),
            "attest": (self.attest.strip() or None) if self.attesting else None,
        }

    def required(self) -> None:
        """Refuse, before any page is read, a form a re-read cannot take (InvalidField names the field)."""
        provenance.required_fields(self.source, self.locator, self.quote)
        if self.attesting and not self.attest.strip():
            raise InvalidField(
                "attest",
                "is needed: say why the page cannot be checked here (nothing was recorded)",
            )


@dataclass(frozen=True)
class Sentence:
    """One sentence of the passage shown: its words as the page writes them (the quote it makes when
    picked), with the claim's figures marked."""

    text: str
    segments: list[tuple[str, bool]]
    picked: bool = False


@dataclass(frozen=True)
class Page:
    """The page the card shows, as its latest snapshot reads: where the claim stands in it (`outcome`),
    its passage as sentences to pick a quote from (`nearest`: the page's nearest passage, the claim not
    being found there), and the quote as filled in, checked (`check`)."""

    source: str
    url: str | None
    read: PageRead | None  # None: no snapshot yet
    outcome: str | None = None
    sentences: tuple[Sentence, ...] = ()
    nearest: str | None = None  # not found: the page's words nearest the claim's
    changes: tuple[tuple[str, str], ...] = ()  # where the page states another value than the claim
    cited_locator: str | None = None
    vague: bool = False  # the locator the claim cites names no place in the page
    cited_quote_absent: bool = False  # the claim's quote is not on the page (its figures are)
    check: PageCheck | None = None
    quote_from: str | None = None  # "page" (filled from its text) or "picked"; None: not filled

    @property
    def text(self) -> str | None:
        return self.read.text if self.read is not None else None

    @property
    def taken(self) -> str:
        """When the snapshot shown was taken: "2026-05-04 10:00:00Z"."""
        at = self.read.at if self.read is not None and self.read.at else ""
        return f"{at[:19].replace('T', ' ')}Z" if at else ""


def sentences(passage: str) -> list[str]:
    """The passage's sentences, each with its spaces collapsed (what a quote of it is)."""
    return [s for s in (" ".join(p.split()) for p in _SENTENCE_END.split(passage)) if s]


def _filled(page: Page, cited_quote: str | None, statement: str) -> str:
    """The quote the located passage offers, in the page's own words: its sentences from the first to
    the last holding one of the claim's figures (one sentence, the one holding most, when they stand
    too far apart); else the sentence holding the page's figure in place of the claim's; else (a claim
    without figures) the sentence nearest the claim's words."""
    shown = page.sentences
    marked = [i for i, s in enumerate(shown) if any(is_fig for _t, is_fig in s.segments)]
    if marked:
        run = " ".join(s.text for s in shown[marked[0] : marked[-1] + 1])
        if len(run) <= QUOTE_CHARS:
            return run
        return max((shown[i] for i in marked), key=lambda s: sum(f for _t, f in s.segments)).text
    for _claim, on_page in page.changes:
        found = next((s.text for s in shown if normalize(on_page) in normalize(s.text)), None)
        if found is not None:
            return found
    passage = "\n".join(s.text for s in shown)
    span = nearest_sentence(passage, cited_quote or statement)
    return passage[span[0] : span[1]] if span is not None else ""


def _near(text: str, claim: Claim, cited_quote: str | None) -> tuple[str | None, str | None]:
    """The page's nearest passage to the claim (its words, and the text around them to pick from)."""
    wanted = cited_quote or claim.statement
    span = nearest_sentence(text, wanted)
    if span is None:
        return None, None
    start, end = span
    begin = text.rfind("\n\n", max(0, start - NEAR_CHARS), start)
    stop = text.find("\n\n", end, end + NEAR_CHARS)
    around = text[
        begin + 2 if begin >= 0 else max(0, start - NEAR_CHARS) : stop if stop >= 0 else end
    ]
    return nearest_passage(text, wanted), around


def page_of(
    session: Session,
    claim: Claim,
    view: ClaimView,
    source: Source,
    store: SnapshotStore,
) -> Page:
    """The page as its latest snapshot reads: where the claim stands in it, its passage as sentences."""
    cited = next((s for s in view.sources if s["key"] == source.key), None) or {}
    base = Page(source.key, http_url(source.url), None, cited_locator=cited.get("locator"))
    read = read_snapshot(session, source, store)
    if read is None:
        return replace(base, vague=bool(base.cited_locator) and vague_locator(base.cited_locator))
    base = replace(
        base,
        read=read,
        url=http_url(read.where) or base.url,
        vague=bool(base.cited_locator) and vague_locator(base.cited_locator, read.text),
    )
    if read.text is None:
        return base
    found = verification.locate_claim(session, claim, source.id, read.text)
    if found.outcome == "not-found" and view.figures and cited.get("quote"):
        by_figures = verification.locate_claim(session, claim, source.id, read.text, cited=False)
        if by_figures.outcome != "not-found":  # the quote it cites is not there, its figures are
            found, base = by_figures, replace(base, cited_quote_absent=True)
    nearest, passage = None, found.passage
    if found.outcome == "not-found" or not passage:
        nearest, passage = _near(read.text, claim, cited.get("quote"))
    figures = list(view.figures)
    shown = tuple(Sentence(s, highlight(s, figures)) for s in sentences(passage or ""))
    return replace(
        base, outcome=found.outcome, sentences=shown, nearest=nearest, changes=found.changes
    )


def prefill(
    page: Page | None, picked: str | None, cited_quote: str | None, statement: str
) -> tuple[Entered, Page | None]:
    """The form as the queue first shows it: the page named; the quote picked from its text, else its
    sentence holding the claim's figure; the claim's locator when it names a place the page holds."""
    if page is None:
        return Entered(), None
    text = page.text
    locator = page.cited_locator or ""
    if not locator or page.vague or not locator_on_page(locator, text):
        locator = ""
    quote, source = "", None
    if text and picked and normalize(picked) and normalize(picked) in normalize(text):
        quote, source = " ".join(picked.split()), "picked"
    elif text and not page.nearest:
        quote = _filled(page, cited_quote, statement)
        source = "page" if quote else None
    return Entered(source=page.source, locator=locator, quote=quote), replace(
        page, quote_from=source
    )


def checked(session: Session, claim: Claim, page: Page | None, entered: Entered) -> Page | None:
    """The page with the quote as filled in checked against its text, as a re-read checks it (the
    claim's figures corrected first where the person ticked the page's value)."""
    if page is None or not page.text or not entered.quote.strip():
        return page
    figures = verification.quantities(session, [claim.id]).get(claim.id, [])
    check = check_page(page.text, entered.quote, figures, f"{claim.subject} {claim.statement}")
    quote = " ".join(entered.quote.split())
    return replace(
        page,
        check=check,
        sentences=tuple(replace(s, picked=s.text == quote) for s in page.sentences),
    )


def queue_item(
    session: Session,
    memo: Memo,
    policy: Policy,
    store: SnapshotStore,
    *,
    filters: Filters | None = None,
    key: str | None = None,
    after: str | None = None,
    entered: Entered | None = None,
    picked: str | None = None,
) -> dict[str, Any]:
    """One claim of the re-read queue (the active claims the filters select that the export gate would
    block, the located ones first: selection.Queue) beside its page, with the form: the claim named by
    `key`, else the first after `after` (wrapping round), else the first. A claim that disagrees with its
    history is passed over: a re-read is refused on it, so it is left to `claims db check`. `entered`:
    the form as sent back; `picked`: a sentence of the page picked as the quote."""
    filters = replace(filters or Filters(), status=EXPORTABLE_STATUS)
    facts = memo.facts(session)
    queue = Queue(
        session,
        filters.claim_filter(),
        policy,
        outdated=facts.outdated,
        unsigned=facts.unsigned,
        stale=filters.stale,
        vague=facts.vague,
        disputed=facts.disputed,
    )
    found = queue.find(key=key, after=after)
    total = found.total if found.total is not None else queue.total()
    base: dict[str, Any] = {
        "item": None,
        "total": total,
        "passed_over": found.passed_over,
        "position": 0,
        "f": filters,
        "choices": choices(session, facts),
    }
    view = found.view
    if view is None:
        return base
    claim = queries.get_claim(session, view.key)
    shown_page = last_checked_page(session, claim) or view.primary_source
    source = get_source(session, shown_page) if shown_page else None
    page = page_of(session, claim, view, source, store) if source is not None else None
    if entered is None:
        cited = next((s["quote"] for s in view.sources if source and s["key"] == source.key), None)
        entered, page = prefill(page, picked, cited, claim.statement)
    page = checked(session, claim, page, entered)
    pages = session.execute(
        select(Source.key, Source.title).where(Source.kind != "note").order_by(Source.key)
    ).all()
    return {
        **base,
        "item": Drawn.from_view(view, policy),
        "view": view,
        "page": page,
        "entered": entered,
        "position": found.position,
        "pages": pages,
        "fetchable": fetchable(session, claim),
        "preview": reread_preview(session, view.key, entered, page.read if page else None),
        "disputes": disputes.summary(disputes.of_claim(session, view.key)),
    }


def last_checked_page(session: Session, claim: Claim) -> str | None:
    """The page of the claim's latest conclusive verification (what placed it in the queue; else its
    latest unreachable one), when it is one of its primary pages: the queue shows that page's passage,
    which need not be the first page the claim cites."""
    row = session.execute(
        select(Source.key)
        .join(Verification, Verification.source_id == Source.id)
        .join(Evidence, and_(Evidence.source_id == Source.id, Evidence.claim_id == claim.id))
        .where(Verification.claim_id == claim.id, Source.kind != "note")
        .order_by(case((Verification.outcome == UNREACHABLE, 1), else_=0), Verification.id.desc())
        .limit(1)
    ).first()
    return row[0] if row else None


def fetchable(session: Session, claim: Claim) -> bool:
    """Whether `claims verify` has a page of this claim to fetch: a primary page with a URL or a local copy."""
    stmt = (
        select(Source.id)
        .join(Evidence, Evidence.source_id == Source.id)
        .where(
            Evidence.claim_id == claim.id,
            Source.kind != "note",
            or_(Source.url.is_not(None), Source.path.is_not(None)),
        )
    )
    return session.execute(stmt.limit(1)).first() is not None


@dataclass(frozen=True)
class Checked:
    """One page of the claim's latest verification run: its outcome, and why it could not be read."""

    source: str
    outcome: str
    at: str
    error: str | None = None


def last_check(session: Session, key: str) -> list[Checked]:
    """The claim's latest verification run (`claims verify` or "Fetch the page now"): each page checked, in
    the order checked; empty when it was never verified."""
    claim = queries.get_claim(session, key)
    latest = (
        select(func.max(Verification.at)).where(Verification.claim_id == claim.id).scalar_subquery()
    )
    rows = session.execute(
        select(Source.key, Verification.outcome, Verification.at, Verification.detail)
        .join(Source, Source.id == Verification.source_id)
        .where(Verification.claim_id == claim.id, Verification.at == latest)
        .order_by(Verification.id)
    )
    return [
        Checked(source, outcome, str(at), (json.loads(detail) if detail else {}).get("error"))
        for source, outcome, at, detail in rows
    ]


def reread_preview(
    session: Session, key: str, entered: Entered, read: PageRead | None
) -> provenance.RereadPreview | None:
    """What recording the form as filled in would change (what `claims reread` asks about), checked
    against the latest snapshot; None while the form holds what a re-read refuses (sent, the error says
    why)."""
    try:
        shown = provenance.preview_reread(session, key, **entered.fields(), read=read)
    except ClaimsError:
        return None
    return shown if shown.refusal is None else None


def record_reread(
    session: Session,
    key: str,
    reader: str,
    entered: Entered,
    read: PageRead | None,
    sign: Any = None,
) -> dict[str, Any]:
    """Record the re-read under every rule of `claims reread` (provenance.reread: previewed, checked
    against `read`, the page's text, and recorded in one transaction, as `claims reread --yes` records
    it); a refusal (BadQuery) records nothing."""
    return provenance.reread(session, key, actor=reader, **entered.fields(), read=read, sign=sign)


def recorded(session: Session, key: str) -> dict[str, str]:
    """What the latest re-read recorded, in the words `claims show` uses."""
    return {"key": key, "reason": queries.show(session, key)["tag_reason"]}
