"""Validating each kind of record from its raw fields (a data file's, or a command's options): tags,
sources, quantities, and claims with their evidence, aliases, grid label and re-read. Nothing here
touches the database: the checks that need it (known tags, known sources) are import_checks'."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from claimsdb.errors import InvalidName, InvalidRecord, shown
from claimsdb.escaping import CITE_KEY_PATTERN, http_url, http_url_problem, without_user
from claimsdb.models import ALIAS_SEPARATOR, CLAIM_STATUSES, RANKS, SOURCE_KINDS, TRUST_LEVELS
from claimsdb.records.fields import (
    choice_field,
    date_field,
    default_label,
    item_list,
    key_field,
    no_unknown,
    text_field,
)
from claimsdb.records.figures import figure
from claimsdb.records.types import (
    KEY,
    LABEL,
    MAX_ALIASES,
    SHORT,
    TEXT,
    ClaimRecord,
    EvidenceRecord,
    QuantityRecord,
    RereadRecord,
    SourceRecord,
    TagRecord,
)
from claimsdb.trust.identity import person_name


def tag_record(name: str, index: int, record: Any) -> TagRecord:
    label = default_label("tags", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a tag must be an object")
    no_unknown(record, {"name", "trust", "description"}, name, label)
    return TagRecord(
        name=key_field(record, "name", name, label),
        trust=choice_field(record, "trust", TRUST_LEVELS, name, label),
        description=text_field(record, "description", name, label, rule=TEXT) or "",
    )


def source_record(record: Any, *, file: str, label: str | None = None) -> SourceRecord:
    """One source from its fields (a data file's record, or command-line options), validated."""
    return read_source(file, 0, record, label)


def _not_a_url(url: str) -> str:
    """Why a source's address is refused: user information said without the password, any other
    problem as "not an http(s) URL"."""
    if without_user(url) != url.strip():
        return str(http_url_problem(url))
    return f"{shown(url)} is not an http(s) URL"


def read_source(name: str, index: int, record: Any, label: str | None = None) -> SourceRecord:
    label = label or default_label("sources", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a source must be an object")
    no_unknown(record, set(SourceRecord.model_fields), name, label)
    key = key_field(record, "key", name, label)
    url = text_field(record, "url", name, label)
    if url is not None and http_url(url) is None:
        raise InvalidRecord(name, label, "url", _not_a_url(url))
    cite_key = text_field(record, "cite_key", name, label, rule=KEY)
    if cite_key is not None and not CITE_KEY_PATTERN.fullmatch(cite_key):
        raise InvalidRecord(
            name,
            label,
            "cite_key",
            f"{shown(cite_key)} is not a citation key: use letters, digits "
            "and _ : . + / -, starting with a letter or digit (it is written as is into LaTeX and BibTeX)",
        )
    return SourceRecord(
        key=key,
        title=text_field(record, "title", name, label, required=True),
        kind=choice_field(record, "kind", SOURCE_KINDS, name, label),
        url=url,
        publisher=text_field(record, "publisher", name, label),
        date=date_field(record, name, label, "date"),
        path=text_field(record, "path", name, label),
        cite_key=cite_key,
        authors=text_field(record, "authors", name, label),
        accessed=date_field(record, name, label, "accessed", day=True),
    )


def read_quantity(name: str, index: int, record: Any, label: str | None = None) -> QuantityRecord:
    label = label or default_label("quantities", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a quantity must be an object")
    no_unknown(record, {f.name for f in dataclasses.fields(QuantityRecord)}, name, label)
    return QuantityRecord(
        key=key_field(record, "key", name, label),
        subject=text_field(record, "subject", name, label, required=True),
        measure=text_field(record, "measure", name, label, required=True),
        description=text_field(record, "description", name, label, rule=TEXT),
    )


# The fields a data file's claim may give: the record's own, but where it came from.
CLAIM_FIELDS = {f.name for f in dataclasses.fields(ClaimRecord)} - {"file", "record_name"}
REREAD_FIELDS = tuple(
    f.name for f in dataclasses.fields(RereadRecord)
)  # by, at, source, locator, quote
# The latest calendar date anywhere on Earth is UTC+14: a re-read dated after it has not happened yet.
LATEST_UTC_OFFSET = datetime.timedelta(hours=14)


def claim_record(record: Any, *, file: str, label: str | None = None) -> ClaimRecord:
    """One claim from its fields (a data file's record, or command-line options), validated."""
    return read_claim(file, 0, record, label)


def read_claim(name: str, index: int, record: Any, label: str | None = None) -> ClaimRecord:
    label = label or default_label("claims", index, record)
    if not isinstance(record, dict):
        raise InvalidRecord(name, label, None, "a claim must be an object")
    no_unknown(record, CLAIM_FIELDS, name, label)
    key = key_field(record, "key", name, label)
    figures = item_list(record, "figures", name, label)
    evidence = item_list(record, "evidence", name, label)
    if not evidence:
        raise InvalidRecord(
            name, label, "evidence", "is required: at least one source that supports the claim"
        )
    status = choice_field(record, "status", CLAIM_STATUSES, name, label, default="active")
    superseded_by = (
        key_field(record, "superseded_by", name, label)
        if record.get("superseded_by") is not None
        else None
    )
    if status == "superseded" and superseded_by is None:
        raise InvalidRecord(
            name,
            label,
            "superseded_by",
            "is required when the status is superseded: the claim that replaces it",
        )
    if superseded_by is not None and status != "superseded":
        raise InvalidRecord(
            name,
            label,
            "superseded_by",
            f"is only for a superseded claim, and the status is {status}",
        )
    if superseded_by == key:
        raise InvalidRecord(name, label, "superseded_by", "a claim cannot supersede itself")
    parsed = tuple(
        figure(f, name=name, label=label, field=f"figures[{i}]") for i, f in enumerate(figures)
    )
    names = [f.name for f in parsed if f.name]
    for i, f in enumerate(parsed):
        if f.name and names.count(f.name) > 1:
            raise InvalidRecord(
                name, label, f"figures[{i}].name", f"{f.name!r} names two figures of this claim"
            )
    return ClaimRecord(
        key=key,
        subject=text_field(record, "subject", name, label, required=True),
        statement=text_field(record, "statement", name, label, required=True, rule=TEXT),
        tag=key_field(record, "tag", name, label),
        basis=text_field(record, "basis", name, label, required=True),
        stage=text_field(record, "stage", name, label),
        section=text_field(record, "section", name, label),
        aliases=_aliases(record, name, label),
        status=status,
        status_reason=text_field(record, "status_reason", name, label, rule=TEXT),
        superseded_by=superseded_by,
        quantity=key_field(record, "quantity", name, label)
        if record.get("quantity") is not None
        else None,
        rank=choice_field(record, "rank", RANKS, name, label, default="normal"),
        rank_reason=text_field(record, "rank_reason", name, label, rule=TEXT),
        figures=parsed,
        evidence=tuple(_evidence(e, name, label, f"evidence[{i}]") for i, e in enumerate(evidence)),
        reread=_reread(record.get("reread"), name, label),
        file=name,
        record_name=label,
        label=_cell_label(record, name, label),
        observation=_observation(record, name, label),
    )


def _observation(record: dict, name: str, label: str) -> bool:
    value = record.get("observation", False)
    if not isinstance(value, bool):
        raise InvalidRecord(name, label, "observation", "must be true or false")
    return value


def _reread(raw: Any, name: str, label: str) -> RereadRecord | None:
    """Who re-read the claim, when, in which page, where and what they saw: every part required, the
    name a person's (trust.identity.person_name), the day a calendar date that has come."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InvalidRecord(
            name, label, "reread", f"must be an object with {', '.join(REREAD_FIELDS)}"
        )
    no_unknown(raw, set(REREAD_FIELDS), name, label, at="reread.")
    if raw.get("by") is None:
        raise InvalidRecord(
            name, label, "reread.by", "is required: the person who re-read the page"
        )
    try:
        by = person_name(raw["by"], field="reread.by")
    except InvalidName as exc:
        raise InvalidRecord(
            name, label, "reread.by", f"{shown(exc.value)} is not a person's name: {exc.reason}"
        ) from None
    at = date_field(raw, name, label, "at", day=True, at="reread.at")
    if at is None:
        raise InvalidRecord(
            name, label, "reread.at", "is required: the day the page was re-read (YYYY-MM-DD)"
        )
    if (
        datetime.date.fromisoformat(at)
        > (datetime.datetime.now(datetime.UTC) + LATEST_UTC_OFFSET).date()
    ):
        raise InvalidRecord(
            name,
            label,
            "reread.at",
            f"{at} has not come yet: a re-read is recorded once it was done",
        )
    return RereadRecord(
        by=by,
        at=at,
        source=key_field(raw, "source", name, label, at="reread.source"),
        locator=text_field(raw, "locator", name, label, required=True, at="reread.locator"),
        quote=text_field(raw, "quote", name, label, required=True, rule=TEXT, at="reread.quote"),
        signature=_signature(raw.get("signature"), name, label),
    )


def _signature(raw: Any, name: str, label: str) -> str | None:
    """A re-read's SSH signature: the armored text ssh-keygen writes, whose embedded key can be read."""
    if raw is None:
        return None
    from claimsdb.trust import sshsig

    if not isinstance(raw, str) or len(raw) > sshsig.MAX_ARMORED or sshsig.signer(raw) is None:
        raise InvalidRecord(
            name,
            label,
            "reread.signature",
            "is not an SSH signature (the armored text `claims people sign` or ssh-keygen -Y sign "
            "writes)",
        )
    return raw


def _aliases(record: dict, name: str, label: str) -> str | None:
    """Other names of the claim's subject ("Open Athena" for "Open Athena 535B"): distinct one-line texts
    with a letter in each, stored one per line."""
    items = record.get("aliases")
    if items is None:
        return None
    if not isinstance(items, list):
        raise InvalidRecord(name, label, "aliases", "must be a list of names")
    if len(items) > MAX_ALIASES:
        raise InvalidRecord(
            name, label, "aliases", f"has {len(items):,} names; the most allowed is {MAX_ALIASES}"
        )
    out: list[str] = []
    for i, item in enumerate(items):
        at = f"aliases[{i}]"
        alias = text_field({"alias": item}, "alias", name, label, required=True, rule=SHORT, at=at)
        assert alias is not None
        if not any(ch.isalpha() for ch in alias):
            raise InvalidRecord(name, label, at, f"{shown(alias)} is not a name: it has no letter")
        if alias.casefold() in (a.casefold() for a in out):
            raise InvalidRecord(name, label, at, f"{shown(alias)} is given twice")
        out.append(alias)
    return ALIAS_SEPARATOR.join(out) or None


def _cell_label(record: dict, name: str, label: str) -> str | None:
    """The claim's grid label ("curation, dedup, mixture"): one line of at most MAX_LABEL characters,
    shorter than the statement it stands for (a label as long as the statement is the statement)."""
    text = text_field(record, "label", name, label, rule=LABEL)
    statement = record.get("statement")
    if text is not None and isinstance(statement, str) and len(text) >= len(statement.strip()):
        raise InvalidRecord(
            name,
            label,
            "label",
            f"is as long as the statement ({len(text)} characters): "
            "a label is a short phrase for the grid, or leave it out",
        )
    return text


def _evidence(record: Any, name: str, label: str, field: str) -> EvidenceRecord:
    if not isinstance(record, dict):
        raise InvalidRecord(
            name, label, field, "evidence must be an object with source, locator, quote"
        )
    no_unknown(record, {"source", "locator", "quote"}, name, label, at=f"{field}.")
    if not isinstance(record.get("source"), str):
        raise InvalidRecord(name, label, f"{field}.source", "must be a source key")
    return EvidenceRecord(
        source=key_field(record, "source", name, label, at=f"{field}.source"),
        locator=text_field(record, "locator", name, label, at=f"{field}.locator"),
        quote=text_field(record, "quote", name, label, rule=TEXT, at=f"{field}.quote"),
    )
