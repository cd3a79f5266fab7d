"""A person's re-read, made on the page's own words: it names the page, the place in it (a locator a
reader can turn to) and a quote, and the quote is checked against the page's text (`reread_page.PageRead`:
the latest snapshot, the page fetched now, or a local copy the person names) by the locating core, with
every figure the re-read vouches for in the quote or the passage around it. A page that states another
value refuses the re-read unless the person corrects the figure to what the page says (`correct`: the
claim's figure and statement change in the same event). A page the tool cannot read (a paywall, a
printed book) takes an attestation with its reason instead (`attest`), recorded and listed as such; the
strict policy does not count it. Only a re-read raises a claim's trust; it links the page it read to
the claim as evidence, with the locator and the quote, so every command that reads evidence uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select, update
from sqlmodel import Session, col

from claimsdb import history, integrity, sources
from claimsdb.errors import BadQuery, InvalidField
from claimsdb.models import Claim, Evidence, Figure, Source
from claimsdb.queries import claim_views, get_claim
from claimsdb.recording import REREAD_TAG, TRUSTED
from claimsdb.recording import clean as _clean
from claimsdb.recording import detail as _detail
from claimsdb.recording import intact as _intact
from claimsdb.recording import record as _record
from claimsdb.reread_page import named_page, refuse_note
from claimsdb.trust import people, signatures
from claimsdb.trust.people import Signer
from claimsdb.views import ClaimView

if TYPE_CHECKING:
    from claimsdb.locating.reread import PageCheck
    from claimsdb.reread_page import PageRead


@dataclass(frozen=True)
class RereadPreview:
    """What a person is about to confirm: the claim, the page it resolves to, what the page holds of
    the quote and figures, and what the re-read changes. Made once per re-read (`preview_reread`: one lookup of the key, one resolution of
    the page) and handed to `reread`, which records it without looking either up again."""

    claim_id: int
    key: str
    statement: str
    figures: tuple[str, ...]  # the claim's figures as written
    source: str | None  # the page's key; None: a URL new to the store, registered when recorded
    source_id: int | None
    url: str | None  # the page's address (for a new URL, the URL given)
    locator: str | None
    quote: str | None
    note: str | None
    tag_before: str
    trust_before: str | None
    status: str  # a re-read leaves it as it is: a withdrawn claim stays out of every export
    linked: bool  # the page, with the locator and the quote, becomes evidence of the claim
    vouched: tuple[str, ...]  # the figures a verified re-read vouches for that nothing vouched for
    tag_after: str = REREAD_TAG
    read: PageRead | None = None  # the page's text the quote was checked against
    check: PageCheck | None = None  # what the page holds of the quote and figures
    corrections: tuple[tuple[str, str], ...] = ()  # (the claim's figure, the page's) corrected
    attested: str | None = None  # why the page could not be checked (an attestation)
    refusal: str | None = None  # why nothing can be recorded as filled in (None: it can)
    corrected_statement: str | None = None  # the statement once the corrections are made

    @property
    def page(self) -> str:
        """The page as the person named it: its key, or the URL to register."""
        return self.source or self.url or ""

    @property
    def registers(self) -> bool:
        return self.source_id is None


def _cited(view: ClaimView, page: str | None, locator: str | None, quote: str | None) -> bool:
    """Whether the claim cites the page so already (then the re-read links nothing new)."""
    evidence = [(s["key"], s["locator"], s["quote"]) for s in view.sources]
    return any(k == page and (loc, q) == (locator, quote) for k, loc, q in evidence) or (
        locator is None and quote is None and any(k == page for k, _l, _q in evidence)
    )


def preview_reread(
    session: Session,
    key: str,
    *,
    source: str | None = None,
    locator: str | None = None,
    quote: str | None = None,
    note: str | None = None,
    read: PageRead | None = None,
    correct: tuple[str, ...] = (),
    attest: str | None = None,
) -> RereadPreview:
    """What re-reading `key` in the page would record, read and checked without writing anything:
    the claim's key looked up once, the page resolved once; `read` is the page's text to check the quote against (`reread_page.read_page`)."""
    claim = get_claim(session, key)
    view = claim_views(session, [claim], events=0)[0]
    integrity.ensure_intact([view])
    asked = _Asked(source, locator, quote, note, read, tuple(correct), attest)
    return _preview(session, claim, view, asked)[0]


@dataclass(frozen=True)
class _Asked:
    """What a person filled in for a re-read, and the page's text read for it."""

    source: str | None
    locator: str | None
    quote: str | None
    note: str | None = None
    read: PageRead | None = None
    correct: tuple[str, ...] = ()
    attest: str | None = None


def required_fields(source: str | None, locator: str | None, quote: str | None) -> None:
    """A re-read names the page, the place in it and the page's own words: refuse it without them."""
    given = {"source": source, "locator": locator, "quote": quote}
    missing = [name for name, value in given.items() if value is None or not value.strip()]
    if missing:
        raise InvalidField(
            missing[0],
            "is needed: a re-read names the page, the place in it and the page's own words "
            f"(missing: {', '.join(missing)}); nothing was recorded",
        )


def _preview(
    session: Session,
    claim: Claim,
    view: ClaimView,
    asked: _Asked,
) -> tuple[RereadPreview, Source | None]:
    """The preview of re-reading a claim read already (its view checked against its history), and the
    page it resolved (None: a URL to register)."""
    required_fields(asked.source, asked.locator, asked.quote)
    src, _named = named_page(session, view, asked.source)
    locator, quote = _clean(asked.locator, "locator") or None, _clean(asked.quote, "quote") or None
    if asked.attest is not None and not asked.attest.strip():
        raise InvalidField("attest", "must say why the page cannot be checked here")
    attest = _clean(asked.attest, "attest") or None
    if attest and asked.correct:
        raise InvalidField(
            "attest", "cannot go with a correction: a correction is checked on the page"
        )
    figures = tuple(f["raw"] for f in view.figures)
    vouched = view.trust == TRUSTED and not view.reread_outdated
    verdict = _checked_on_page(session, claim, asked, locator or "", attest)
    preview = RereadPreview(
        claim_id=view.id,
        key=claim.key,
        statement=claim.statement,
        figures=figures,
        source=src.key if src is not None else None,
        source_id=src.id if src is not None else None,
        url=src.url if src is not None else _named,
        locator=locator,
        quote=quote,
        note=_clean(asked.note, "note") or None,
        tag_before=claim.tag,
        trust_before=view.trust,
        status=claim.status,
        linked=src is None or not _cited(view, src.key, locator, quote),
        vouched=() if vouched and not verdict.corrections else figures,
        read=asked.read,
        check=verdict.check,
        corrections=verdict.corrections,
        attested=attest,
        refusal=verdict.refusal,
        corrected_statement=verdict.statement if verdict.corrections else None,
    )
    return preview, src


@dataclass(frozen=True)
class _Verdict:
    """The page's verdict on a re-read as filled in: the check, the corrections it accepts and the
    statement they make, and why nothing can be recorded (None: it can)."""

    check: PageCheck | None = None
    corrections: tuple[tuple[str, str], ...] = ()
    statement: str | None = None
    refusal: str | None = None


def _checked_on_page(
    session: Session, claim: Claim, asked: _Asked, locator: str, attest: str | None
) -> _Verdict:
    """Check the re-read's locator, then its quote and the claim's figures (after the person's
    corrections) against the page's text; an attestation is checked for its locator alone."""
    from claimsdb.locating.reread import too_short, vague_locator

    read = asked.read
    text = read.text if read is not None else None
    if vague_locator(locator, text):
        return _Verdict(
            refusal=f"the locator {locator!r} names no section, table, figure, page or heading of "
            "the page: say where in the page a reader finds the quote"
        )
    if too_short(asked.quote or ""):
        return _Verdict(
            refusal=f"the quote {asked.quote!r} is one word: quote the page's words around the "
            "figure or the fact, so that a reader finds them"
        )
    if attest:
        return _Verdict()
    if read is None:
        return _Verdict(refusal="the page was not read: a re-read is checked against its text")
    if text is None:
        why = "no snapshot, and the fetch failed" if read.how == "fetched" else "it cannot be read"
        return _Verdict(
            refusal=f"the page cannot be had ({why}: {read.error}); name a local copy of it, or "
            "attest with the reason it cannot be checked"
        )
    return _on_text(session, claim, asked, text, read)


def _on_text(session: Session, claim: Claim, asked: _Asked, text: str, read: PageRead) -> _Verdict:
    from claimsdb.figures import parse
    from claimsdb.locating.reread import check_page, corrected, rewritten
    from claimsdb.verification import quantities

    assert claim.id is not None  # a stored claim
    figures = quantities(session, [claim.id]).get(claim.id, [])
    hint = f"{claim.subject} {claim.statement}"
    check = check_page(text, asked.quote or "", figures, hint)
    corrections: list[tuple[str, str]] = []
    statement: str | None = claim.statement
    for given in asked.correct:
        try:
            old, new = corrected(check.changes, given)
        except ValueError as exc:
            return _Verdict(check, refusal=str(exc))
        corrections.append((old, new))
        statement = rewritten(statement, old, new) if statement is not None else None
        if statement is None:
            return _Verdict(
                check,
                refusal=f"the statement does not write {old} where it could say {new}: "
                "correct the claim's data, then re-read it",
            )
    if corrections:
        fixed = dict(corrections)
        figures = [parse(fixed[q.raw]) if q.raw in fixed else q for q in figures]
        check = check_page(text, asked.quote or "", figures, hint)
    if check.holds:
        return _Verdict(check, tuple(corrections), statement)
    said = f"; the page says there: “{' '.join(check.passage.split())}”" if check.passage else ""
    if check.changes:
        said += "; if the page is right, correct the claim: " + ", ".join(
            repr(page) for _claim, page in check.changes
        )
    why = f"checked against {read.describe()}: " + "; ".join(check.findings) + said
    return _Verdict(check, tuple(corrections), statement, why)


def reread(
    session: Session,
    what: str | RereadPreview,
    *,
    actor: str,
    source: str | None = None,
    locator: str | None = None,
    quote: str | None = None,
    note: str | None = None,
    read: PageRead | None = None,
    correct: tuple[str, ...] = (),
    attest: str | None = None,
    sign: Signer | signatures.Prepare | signatures.Passkey | None = None,
) -> dict[str, Any]:
    """Record that `actor` re-read the claim in a page; the tag becomes spot-checked and the page, with
    the locator and the quote, becomes evidence of the claim (unless it is cited so already).

    `what` is the preview the person confirmed (`preview_reread`), or a claim key to preview here with
    the page, locator, quote, note, the page's text (`read`), corrections and attestation given. The
    claim is read again under the writers' lock: what is recorded is its state then (its tag before, its
    evidence), never an older one. A preview that refuses (its `refusal`) records nothing. `sign` signs
    the re-read with the person's key (trust.signatures.sign); required once the store requires signatures."""
    actor = people.recorded_name(session, actor, field="reader")
    if isinstance(what, str):  # one transaction: the claim read under the lock, then previewed
        claim = get_claim(session, what)
        view = _intact(session, claim)
        asked = _Asked(source, locator, quote, note, read, tuple(correct), attest)
        what, src = _preview(session, claim, view, asked)
    elif (source, locator, quote, note, read, attest) != (None,) * 6 or correct:
        raise TypeError("a preview holds the page, locator, quote and note it was made with")
    else:  # confirmed in an earlier transaction: read again under the lock, by its id
        claim, view, src = _as_confirmed(session, what)
    if what.refusal is not None:
        raise BadQuery(f"{what.key}: nothing recorded: {what.refusal}")
    registered = False
    if src is None:  # a URL new to the store when previewed: registered now (or found since)
        src, registered = sources.resolve(session, what.page)
        refuse_note(src.kind, src.key)
    cited = _cited(view, src.key, what.locator, what.quote)
    statement, stored = _apply_corrections(session, claim, what)
    unsigned = {
        "kind": "reread",
        "actor": actor,
        "tag_before": claim.tag,
        "tag_after": REREAD_TAG,
        "origin": src.key,
        "content_sha256": _content_after(
            session, claim, view, None if cited else (src.key, what), statement
        ),
        "stored_sha256": stored,
        "detail": _event_detail(what, src, linked=not cited),
    }
    event = _record(
        session,
        claim,
        signatures.sign(session, claim.key, unsigned, sign),
        tag=REREAD_TAG,
        **({"statement": statement} if what.corrections else {}),
    )
    if not cited:
        _link(session, claim, src, what, event["id"])
    return {
        "key": what.key,
        "tag_before": event["tag_before"],
        "tag_after": REREAD_TAG,
        "event": event,
        "source": src.key,
        "source_registered": registered,
        "linked": not cited,
        "checked": event["detail"].get("checked"),
        "attested": what.attested,
        "corrected": [list(c) for c in what.corrections],
    }


def _as_confirmed(session: Session, what: RereadPreview) -> tuple[Claim, ClaimView, Source | None]:
    """The claim of a preview confirmed in an earlier transaction, read again under the lock by its id;
    refused when the person confirmed other words or figures than the claim now holds."""
    claim = session.get_one(Claim, what.claim_id)
    view = _intact(session, claim)
    if (claim.statement, tuple(f["raw"] for f in view.figures)) != (what.statement, what.figures):
        raise BadQuery(
            f"claim {what.key!r} changed since it was shown (its statement or figures): "
            "nothing was recorded; re-read it again"
        )
    return claim, view, None if what.registers else session.get_one(Source, what.source_id)


def _event_detail(what: RereadPreview, src: Source, *, linked: bool) -> str:
    """What a re-read event says: the page, the place and the quote; how the page was read and what
    it held (`checked`), or the attestation; the corrections."""
    checked = None
    if what.read is not None and what.check is not None:
        checked = what.read.checked(what.check.outcome)
    return _detail(
        source=src.key,
        url=src.url,
        locator=what.locator,
        quote=what.quote,
        note=what.note,
        linked=linked,
        checked=checked,
        attested=what.attested,
        corrected=[list(c) for c in what.corrections] or None,
    )


def _apply_corrections(
    session: Session, claim: Claim, what: RereadPreview
) -> tuple[str, str | None]:
    """Correct each of the claim's figures to what the page says (its row, its trace index, and the
    figure as the statement writes it); returns the statement and the stored record's new digest (None
    when nothing was corrected)."""
    corrections = what.corrections
    if not corrections or what.corrected_statement is None:
        return claim.statement, None
    from sqlalchemy import delete

    from claimsdb.figures import figure_columns, parse, reach
    from claimsdb.models import FIGURE_COLUMNS, FigureNumber

    assert claim.id is not None  # a stored claim
    for old, new in corrections:
        q = parse(new)
        figure = session.scalars(
            select(Figure).where(col(Figure.claim_id) == claim.id, col(Figure.raw) == old)
        ).first()
        if figure is None:
            raise BadQuery(f"{claim.key} no longer states {old}: nothing was recorded")
        columns = figure_columns(figure.position, _Corrected(q, figure.name))
        session.execute(update(Figure).where(col(Figure.id) == figure.id).values(**columns))
        session.execute(
            delete(FigureNumber).where(
                col(FigureNumber.claim_id) == claim.id,
                col(FigureNumber.position) == figure.position,
            )
        )
        for lo, hi, tier in reach(q):
            session.add(
                FigureNumber(claim_id=claim.id, position=figure.position, lo=lo, hi=hi, tier=tier)
            )
    session.flush()
    rows = session.scalars(
        select(Figure).where(col(Figure.claim_id) == claim.id).order_by(col(Figure.position))
    ).all()
    stored = history.stored_digest(
        claim.stage,
        claim.basis,
        claim.section,
        claim.quantity_id,
        [{c: getattr(r, c) for c in FIGURE_COLUMNS} for r in rows],
        bool(claim.observation),
    )
    return what.corrected_statement, stored


@dataclass(frozen=True)
class _Corrected:
    """A corrected figure as `figure_columns` reads it."""

    quantity: Any
    name: str | None


def _content_after(
    session: Session,
    claim: Claim,
    view: ClaimView,
    linked: tuple[str, RereadPreview] | None,
    statement: str | None = None,
) -> str:
    """The digest of the claim's content once the re-read's page is linked (when it is)."""
    evidence = [(s["key"], s["locator"], s["quote"]) for s in view.sources]
    if linked is not None:
        page, what = linked
        evidence.append((page, what.locator, what.quote))
    figures = session.execute(
        select(col(Figure.raw), col(Figure.name))
        .where(col(Figure.claim_id) == claim.id)
        .order_by(col(Figure.position))
    ).all()
    return history.content_digest(
        claim.subject,
        statement if statement is not None else claim.statement,
        [tuple(f) for f in figures],
        evidence,
        claim.label,
    )


def _link(session: Session, claim: Claim, src: Source, what: RereadPreview, event_id: int) -> None:
    """Make the page, with the locator and the quote, evidence of the claim, after its last evidence."""
    position = session.execute(
        select(col(Evidence.position))
        .where(col(Evidence.claim_id) == claim.id)
        .order_by(col(Evidence.position).desc())
        .limit(1)
    ).scalar()
    session.execute(
        insert(Evidence).values(
            claim_id=claim.id,
            source_id=src.id,
            position=(position if position is not None else -1) + 1,
            locator=what.locator,
            quote=what.quote,
            event_id=event_id,
        )
    )
