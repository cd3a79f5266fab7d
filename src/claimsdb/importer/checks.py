"""The checks of one claim record against what the import knows (import_known.Known): its tag and what
its channel may vouch for, its re-read, and the sources, quantity and rank it names. Each problem raises
InvalidRecord (or AgentCannotVouch) naming the file, the record and the field."""

from __future__ import annotations

from claimsdb.errors import AgentCannotVouch, InvalidRecord
from claimsdb.importer.known import VERIFIED, Known
from claimsdb.records.types import ClaimRecord
from claimsdb.records.validation import REREAD_FIELDS
from claimsdb.trust.rule import RereadPage


def check_claim(rec: ClaimRecord, known: Known) -> None:
    if rec.tag not in known.tags:
        raise InvalidRecord(
            rec.file,
            rec.record_name,
            "tag",
            f"unknown tag {rec.tag!r} (known: {', '.join(sorted(known.tags))})",
        )
    if known.agent(rec.file):
        _check_agent(rec, known)
    elif known.tags[rec.tag] == VERIFIED and rec.reread is None:
        how = (
            "a CSV row cannot hold one: give the claim in a JSON data file"
            if rec.file.lower().endswith(".csv")
            else f"give it as {{{', '.join(REREAD_FIELDS)}}}"
        )
        raise InvalidRecord(
            rec.file,
            rec.record_name,
            "reread",
            f"is required: tag {rec.tag!r} is of verified trust, which only a person's re-read "
            "gives; name who re-read the primary page, when, where in it and what they saw "
            f"({how})",
        )
    if rec.reread is not None:
        _check_reread(rec, known)
    _check_references(rec, known)


def _check_agent(rec: ClaimRecord, known: Known) -> None:
    """What an agent channel may not record: a tag above unverified, a re-read, a preferred value."""
    known.check_agent_tag(rec.file, rec.record_name, rec.key, rec.tag, page_of(rec, known))
    if rec.reread is not None:
        raise AgentCannotVouch(
            rec.file,
            rec.record_name,
            "reread",
            "an agent channel cannot record a re-read: the person who re-read the page records it",
            key=rec.key,
            page=RereadPage(rec.reread.source, locator=rec.reread.locator),
        )
    if rec.rank == "preferred":  # it would stand in exports for the quantity's other values
        raise AgentCannotVouch(
            rec.file,
            rec.record_name,
            "rank",
            "an agent channel cannot prefer a value: which "
            "value of a quantity to use is a person's call, or a data file's",
        )


def page_of(rec: ClaimRecord, known: Known) -> RereadPage | None:
    """The page the record cites for a person to re-read: its first source that is not a note."""
    return next(
        (
            RereadPage(e.source, locator=e.locator)
            for e in rec.evidence
            if known.source_kinds.get(e.source) != "note"
        ),
        None,
    )


def _check_reread(rec: ClaimRecord, known: Known) -> None:
    assert rec.reread is not None
    trust = known.tags[rec.tag]
    if trust != VERIFIED:
        raise InvalidRecord(
            rec.file,
            rec.record_name,
            "reread",
            f"a re-read makes a claim verified, and tag {rec.tag!r} is of {trust} trust: "
            "give the claim a verified tag, or leave the re-read out",
        )
    page = rec.reread.source
    if page not in known.sources:
        raise InvalidRecord(rec.file, rec.record_name, "reread.source", f"unknown source {page!r}")
    if known.source_kinds.get(page) == "note":
        raise InvalidRecord(
            rec.file,
            rec.record_name,
            "reread.source",
            f"{page!r} is a note, not a primary "
            "page: a re-read checks the page the figure comes from",
        )


def _check_references(rec: ClaimRecord, known: Known) -> None:
    """The sources, the quantity and the rank a record names."""
    for i, ev in enumerate(rec.evidence):
        if ev.source not in known.sources:
            raise InvalidRecord(
                rec.file, rec.record_name, f"evidence[{i}].source", f"unknown source {ev.source!r}"
            )
    if rec.quantity is not None and rec.quantity not in known.quantities:
        raise InvalidRecord(
            rec.file,
            rec.record_name,
            "quantity",
            f"unknown quantity {rec.quantity!r} (declare it under quantities)",
        )
    if rec.rank != "normal" and rec.quantity is None:
        raise InvalidRecord(
            rec.file,
            rec.record_name,
            "rank",
            "a rank orders the competing values of a quantity: name the quantity",
        )
