"""What an MCP answer holds, sized for an agent's context: the compact form of a claim, pages cut at a
byte budget, and a last cut that keeps any answer within it. Domain code (no protocol, no printing).

Agent clients refuse or truncate long tool results (Claude Code refuses one over 25,000 tokens by default),
so every answer `claims mcp` gives is at most BUDGET_BYTES of text: 8,000 tokens at 4 bytes a token, a
bound that holds whatever the tokenizer (JSON of English text runs 3.5 to 4.5 bytes a token, and a bound
in bytes needs no tokenizer installed). A page of claims stops at the last claim that fits; its
`next_offset` resumes there, so a page may hold fewer than `limit` claims.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

TOKENS = 8_000  # the most an answer may cost an agent, in tokens
BYTES_PER_TOKEN = 4
BUDGET_BYTES = TOKENS * BYTES_PER_TOKEN
COMPACT, FULL = "compact", "full"
DETAILS = (COMPACT, FULL)
STATEMENT_CUT, QUOTE_CUT, FIGURES_CUT = 600, 300, 12  # what a compact claim keeps
ROOM = 1_500  # bytes kept free on a page for its own fields (total, offsets, query, counts)
_ELLIPSIS = "…"


def as_text(value: Any) -> str:
    """The text an agent reads for an answer: its JSON on one line (the budget counts these bytes)."""
    return json.dumps(value, ensure_ascii=False)


def size(value: Any) -> int:
    return len(as_text(value).encode("utf-8"))


def cut(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + _ELLIPSIS


def compact(claim: dict[str, Any]) -> dict[str, Any]:
    """A claim as a page lists it (`claims show`, or detail "full", gives the rest): key, subject,
    statement, figures as written, tag, trust and the first source with its locator and quote. Long
    text ends in "…"; `sources` counts them all."""
    first = claim["sources"][0] if claim.get("sources") else None
    figures = [f["raw"] if isinstance(f, dict) else f for f in claim.get("figures", [])]
    out: dict[str, Any] = {
        "key": claim["key"],
        "subject": cut(claim["subject"], 200),
        "statement": cut(claim["statement"], STATEMENT_CUT),
        "figures": figures[:FIGURES_CUT],
        "tag": claim["tag"],
        "trust": claim["trust"],
        "source": None
        if first is None
        else {
            "key": first["key"],
            "url": first.get("url"),
            "locator": cut(first.get("locator"), 200),
            "quote": cut(first.get("quote"), QUOTE_CUT),
        },
        "sources": len(claim.get("sources", [])),
    }
    if len(figures) > FIGURES_CUT:
        out["figures_left_out"] = len(figures) - FIGURES_CUT
    if claim.get("status") not in (None, "active"):
        out["status"] = claim["status"]
    if claim.get("disputes"):
        out["disputes"] = claim["disputes"]
    return out


def claim_form(detail: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The form a page gives each claim in: compact, or whole (a whole claim too large alone for a page
    is given compact, saying so)."""
    if detail == COMPACT:
        return compact

    def whole(claim: dict[str, Any]) -> dict[str, Any]:
        if size(claim) <= BUDGET_BYTES - ROOM:
            return claim
        return {**compact(claim), "left_out": f"too long for a page: show {claim['key']!r}"}

    return whole


def fitting(items: Sequence[Any], room: int = BUDGET_BYTES - ROOM) -> int:
    """How many of the items, from the first, fit in `room` bytes as a JSON list (at least one, when
    there is one: each item alone is made to fit by its form)."""
    used, n = 2, 0
    for item in items:
        used += size(item) + 2
        if used > room and n:
            break
        n += 1
    return n


def within(answer: dict[str, Any], key: str | None = None) -> dict[str, Any]:
    """The answer whole if it fits the budget; else, for a claim (`key` given), its latest events that
    fit (`events_left_out` counts the rest, `claims history` gives them), then every long text and list
    cut shorter until it fits, saying so in `cut`."""
    if size(answer) <= BUDGET_BYTES:
        return answer
    events = answer.get("events")
    if key is not None and isinstance(events, list) and events:
        kept = list(events)
        while kept and size({**answer, "events": kept}) > BUDGET_BYTES - 200:
            kept = kept[1:] if len(kept) == 1 else kept[len(kept) // 4 or 1 :]
        answer = {
            **answer,
            "events": kept,
            "events_left_out": len(events) - len(kept),
            "history": f"claims history {key} --format json (or read claims://claim/{key})",
        }
        if size(answer) <= BUDGET_BYTES:
            return answer
    for text_limit, list_limit in ((2_000, 50), (500, 20), (200, 10), (80, 5), (40, 3)):
        shorter = _shortened(answer, text_limit, list_limit)
        shorter["cut"] = (
            f"texts cut at {text_limit} characters and lists at {list_limit} items to fit "
            f"{TOKENS:,} tokens"
        )
        if size(shorter) <= BUDGET_BYTES:
            return shorter
    return {"cut": "the answer was too large to give", "key": key}


def _shortened(value: Any, text_limit: int, list_limit: int) -> Any:
    if isinstance(value, str):
        return cut(value, text_limit)
    if isinstance(value, list):
        return [_shortened(v, text_limit, list_limit) for v in value[:list_limit]]
    if isinstance(value, dict):
        return {k: _shortened(v, text_limit, list_limit) for k, v in value.items()}
    return value
