"""Why a claim has its tag and its rank, in words, from the events that set them; and how the re-read
its verified tag stands on met the page. Shared by the claim view, `claims show` and the web."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from claimsdb.history import IMPORT_KINDS


def event_detail(event: dict[str, Any] | None) -> dict[str, Any]:
    """A stored event's detail, decoded (empty for none)."""
    detail = (event or {}).get("detail")
    if isinstance(detail, str):
        detail = json.loads(detail)
    return detail if isinstance(detail, dict) else {}


def reread_check(event: dict[str, Any] | None) -> str | None:
    """How a re-read event met the page: "checked", "attested" or "unchecked" (None: not a re-read)."""
    if event is None or event.get("kind") != "reread":
        return None
    detail = event_detail(event)
    if detail.get("attested"):
        return "attested"
    return "checked" if detail.get("checked") else "unchecked"


def outdated_reason(
    vouched_by: dict[str, Any] | None,
    tag_event: dict[str, Any] | None,
    sources: Sequence[Mapping[str, Any]],
    vouches: bool,
) -> str | None:
    """Why a verified claim (one that agrees with its history) is not vouched for, or None: the page of
    its re-read moved, its content changed since (`vouches` is false), or an import set its tag."""
    moved = moved_page(vouched_by, sources)
    if moved or vouches:
        return moved
    if vouched_by is not None and vouched_by["kind"] == "reread":
        return f"changed since the re-read by {vouched_by['actor']} on {str(vouched_by['at'])[:10]}"
    if tag_event is not None and tag_event["kind"] in IMPORT_KINDS:
        return "no person's re-read stands behind its verified tag (an import set it)"
    return "its content changed since it was last re-read"


def moved_page(event: dict[str, Any] | None, sources: Sequence[Mapping[str, Any]]) -> str | None:
    """Why a re-read no longer vouches because its page moved: the source it was made on (one of the
    claim's `sources`, each with its key and url) now points elsewhere than the URL the re-read
    recorded. A source's URL set later (by a person, an import, or SQL with its definition) does not
    carry the re-read of another page with it. None when it stands, or the re-read recorded no URL."""
    if event is None or event.get("kind") != "reread":
        return None
    detail = event_detail(event)
    key = detail.get("source")
    now = next((s.get("url") for s in sources if s.get("key") == key), detail.get("url"))
    if "url" not in detail or now == detail["url"]:
        return None
    return (
        f"the page of the re-read by {event['actor']} on {str(event['at'])[:10]} has moved: "
        f"source {key} was {detail['url'] or 'no URL'} then, {now or 'no URL'} now"
    )


def tag_reason(event: dict[str, Any] | None, basis: str) -> str:
    """Why the claim has its current tag, from the event that set it."""
    if event is None:
        return basis
    when = f"{event['at'][:10]}"
    detail = event.get("detail") or {}
    if event["kind"] == "reread":
        where = str(detail.get("source") or event.get("origin") or "its page")
        if detail.get("locator"):
            where += f", {detail['locator']}"
        seen = f": “{detail['quote']}”" if detail.get("quote") else ""
        how = {
            "attested": f" (attested, not checked against the page: {detail.get('attested')})",
            "unchecked": " (not checked against the page: recorded before re-reads were checked)",
        }.get(reread_check(event) or "", "")
        signature = detail.get("signature")
        signed = (
            f", signed with {signature.get('fingerprint')}" if isinstance(signature, dict) else ""
        )
        return f"re-read by {event['actor']} on {when} in {where}{seen}{how}{signed}"
    if event["kind"] == "retagged":
        return f"retagged by {event['actor']} on {when}: {detail.get('reason', '')}".rstrip(": ")
    if isinstance(detail, dict) and detail.get(
        "agent"
    ):  # an agent door's (claims mcp): no data file
        return f"reported by {event['actor']} on {when}: {basis}"
    return f"from the data file {event['origin']}: {basis}" if event.get("origin") else basis


def rank_reason(event: dict[str, Any] | None) -> str | None:
    """Why the claim has its rank, from the event that set it (None while it is merely normal)."""
    if event is None:
        return None
    detail = event.get("detail") or {}
    if event["kind"] == "ranked":
        why = f"{event['actor']} on {event['at'][:10]}: {detail.get('reason', '')}"
        return why + (f" ({detail['because']})" if detail.get("because") else "")
    return f"from the data file {event['origin']}" + (
        f": {detail['rank_reason']}" if detail.get("rank_reason") else ""
    )
