"""What `claims mcp` offers an agent, as the protocol lists it: each tool's name, description and input
schema (JSON Schema, additionalProperties false), the fields an agent may never set (each would vouch for a
claim) and the check of a call's arguments against its tool's schema. Domain code: no protocol, no printing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claimsdb.errors import AgentCannotVouch, InvalidRecord, shown
from claimsdb.mcp_answers import COMPACT, DETAILS, TOKENS
from claimsdb.models import CLAIM_STATUSES, TRUST_LEVELS
from claimsdb.records import types as record_types
from claimsdb.trust.rule import reread_doors

ORIGIN = "claims mcp"  # the door's name: an added claim's origin in its history, and where errors say they arose
PAGE, MAX_PAGE = (
    20,
    100,
)  # claims a search or trace returns by default, and at most (within the budget)
# What an agent may never set, and why: each would vouch for the claim (store.AGENT's rules, by field).
_TAG_WHY = (
    "an agent over MCP records every claim as agent-reported (unverified trust): a tag above that "
    f"rests on a person's re-read of the page, which that person records {reread_doors()}"
)
VOUCHING = {
    "tag": _TAG_WHY,
    "trust": _TAG_WHY,
    "reread": (
        "an agent channel cannot record a re-read: the person who re-read the page records it "
        + reread_doors()
    ),
    "tags": "an agent channel cannot define tags: a data file read from a path defines them",
    "tag_definition": "an agent channel cannot define tags: a data file read from a path defines them",
    "rank": (
        "an agent channel cannot rank a value: which value of a quantity to use is a person's call, "
        "or a data file's"
    ),
    "preferred": (
        "an agent channel cannot prefer a value: which value of a quantity to use is a person's "
        "call, or a data file's"
    ),
}
_WHY_REQUIRED = {
    "source": "the page the figure was read in: a registered source's key, or its URL",
    "locator": 'where in the page the figure stands ("§3.5", "Table 5"), so a person can find it',
    "quote": "the page's own words that state the figure, so a person can check them",
}


def _text(description: str, max_length: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_length, "description": description}


def _count(description: str, default: int, low: int, high: int | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "type": "integer",
        "minimum": low,
        "default": default,
        "description": description,
    }
    # every count has a maximum: at most what a database takes (an offset of 10**20 overflowed SQLite)
    rule["maximum"] = high if high is not None else record_types.MAX_INTEGER
    return rule


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        out["required"] = list(required)
    return out


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the server lists it: its name, a title and a description for the model, its input schema
    (JSON Schema, additionalProperties false) and whether it writes."""

    name: str
    title: str
    description: str
    schema: dict[str, Any]
    writes: bool = False


LINE, TEXT, KEY = record_types.MAX_LINE, record_types.MAX_TEXT, record_types.MAX_KEY
PAGED = (
    f" A page at a time, each page at most {TOKENS:,} tokens: it stops before `limit` when the next "
    "claim would not fit; `total` counts them all, `next_offset` gives the next page (null on the last)."
)
OFFSET = _count("Skip this many (the previous page's next_offset).", 0, 0)
DETAIL = {
    "type": "string",
    "enum": list(DETAILS),
    "default": COMPACT,
    "description": "compact (the default): each claim in brief; full: each claim whole, as `show` gives it "
    "(fewer a page).",
}
TOOLS = (
    ToolSpec(
        "trace",
        "Trace a figure",
        (
            "Where does this number come from? Every stored claim stating a figure (a number, range or transition "
            'as written: 466, 2,048, 14.8T, "16K H100", 32–33T, "4K → 128K"), rounding to it or overlapping it, '
            "each with its claim in brief (key, subject, statement, figures, tag, trust, first source; `show` "
            "gives the rest). When nothing matches, `nearest` lists the closest figures (the same value with "
            "another unit or thing, or the same thing with a close value). Ask this before adding a claim."
            + PAGED
        ),
        _schema(
            {
                "figure": _text("The figure as written.", LINE),
                "limit": _count(
                    "At most this many matches (`total` counts them all).", PAGE, 1, MAX_PAGE
                ),
                "offset": OFFSET,
                "detail": DETAIL,
            },
            ("figure",),
        ),
    ),
    ToolSpec(
        "show",
        "Show a claim",
        (
            "One claim: statement, tag and trust, why it has that tag, parsed figures, sources with locators and "
            "quotes, the latest verification of each page, competing values, the claims of its subject it "
            "repeats or contradicts where one of the two is an agent's (`disputes`), and its history."
        ),
        _schema({"key": _text("The claim's key.", KEY)}, ("key",)),
    ),
    ToolSpec(
        "search",
        "Search claims",
        (
            "Claims matching every filter given, in key order, each in brief (key, subject, statement, "
            "figures, tag, trust, first source; `show` gives the rest)." + PAGED
        ),
        _schema(
            {
                "subject": _text("The subject contains this text (any case).", LINE),
                "text": _text("The statement contains this text (any case).", LINE),
                "stage": _text("The stage or topic is this (any case).", LINE),
                "tag": _text("The provenance tag is this.", KEY),
                "trust": {
                    "type": "string",
                    "enum": list(TRUST_LEVELS),
                    "description": "The tag's trust level: verified, secondary or unverified.",
                },
                "status": {
                    "type": "string",
                    "enum": list(CLAIM_STATUSES),
                    "description": "active, superseded or withdrawn.",
                },
                "source": _text("The claim cites this source key.", KEY),
                "limit": _count("At most this many claims in this page.", PAGE, 1, MAX_PAGE),
                "offset": OFFSET,
                "detail": DETAIL,
            }
        ),
    ),
    ToolSpec(
        "values",
        "Competing values",
        (
            "The competing values of a quantity (a subject and what is measured), or of every quantity: each "
            "claim's figure, tag, sources, rank (preferred, normal, deprecated) and why."
        ),
        _schema({"quantity": _text("A quantity's key; every quantity when left out.", KEY)}),
    ),
    ToolSpec(
        "sources",
        "Sources",
        (
            "The registered sources (pages, reports, notes) and how many claims cite each; with `key`, one source "
            "with the claims citing it, locator and quote."
        ),
        _schema(
            {"key": _text("A source's key: that source alone, with the claims citing it.", KEY)}
        ),
    ),
    ToolSpec(
        "add_claim",
        "Add a claim (agent-reported)",
        (
            "Record one claim you read in a page. It is always recorded agent-reported (unverified): it is blocked "
            "from papers until a person re-reads the page, and no argument can change that (a tag, trust, re-read, "
            "tag definition or rank is refused). It needs the page (a registered source's key, or its URL, "
            "registered on the spot), where in it (locator) and the page's own words (quote). The answer gives the "
            "new key and the stored claims of the same subject that already state the figure (duplicates) or "
            "another value of what it measures (contradictions), the first 20 in `existing` and all counted: trace "
            "the figure first to avoid duplicates. `reread` says which page a person re-reads to raise it, "
            "and where they record that: tell the person; you cannot record it."
        ),
        _schema(
            {
                "subject": _text("The system or model the claim is about.", LINE),
                "statement": _text("The claim in one sentence, as the page supports it.", TEXT),
                "figures": {
                    "type": "array",
                    "maxItems": record_types.MAX_ITEMS,
                    "items": {"type": "string", "maxLength": record_types.MAX_FIGURE},
                    "description": 'Each figure as the statement writes it ("2,048 H800", "up to 100,000 '
                    'tasks"); one the statement does not state is refused. Left out: the figures the '
                    "statement writes, read from it (the answer lists them in `figures`).",
                },
                "source": _text("The page: a registered source's key, or its http(s) URL.", LINE),
                "locator": _text('Where in the page: "§3.5", "Table 5".', LINE),
                "quote": _text("The page's own words that state the figure.", TEXT),
                "stage": _text('Stage or topic ("Pretrain", "weight sync").', LINE),
                "basis": _text(
                    "One line on how you found it (default: who reported it, over MCP).", LINE
                ),
                "section": _text("Where it stands in the notes it belongs to.", LINE),
            },
            ("subject", "statement", "source", "locator", "quote"),
        ),
        writes=True,
    ),
)
SPECS = {t.name: t for t in TOOLS}


def arguments(spec: ToolSpec, arguments: Any) -> dict[str, Any]:
    """A call's arguments checked against the tool's schema (the checks the records do not make: unknown
    and vouching fields, types, required fields, bounds); the records check the rest with their own
    messages, as for `claims add`."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidRecord(ORIGIN, None, None, f"{spec.name} takes an object of named arguments")
    properties = spec.schema["properties"]
    for name in arguments:
        if name in properties:
            continue
        if spec.writes and name in VOUCHING:
            raise AgentCannotVouch(ORIGIN, None, name, f"is not taken: {VOUCHING[name]}")
        shown_name = (
            name if len(name) <= 80 else name[:79] + "…"
        )  # a field's name is the caller's text too
        raise InvalidRecord(
            ORIGIN, None, shown_name, f"unknown field (allowed: {', '.join(properties)})"
        )
    required = spec.schema.get("required", ())
    out: dict[str, Any] = {}
    for name, rule in properties.items():
        value = arguments.get(name)
        if value is None or (isinstance(value, str) and not value.strip() and name in required):
            if name in required:
                why = "is required" if value is None else "must not be empty"
                reason = f"{why}: {_WHY_REQUIRED[name]}" if name in _WHY_REQUIRED else why
                raise InvalidRecord(ORIGIN, None, name, reason)
            continue
        out[name] = _check(spec, name, rule, value)
    return out


def _check(spec: ToolSpec, name: str, rule: dict[str, Any], value: Any) -> Any:
    """The value checked against its rule, as the tool takes it (a whole number written as a float, 5.0,
    is the integer: JSON has one kind of number, and some clients write every number as a float)."""
    kind = rule["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise InvalidRecord(ORIGIN, None, name, f"must be text, not {type(value).__name__}")
        if not spec.writes and len(value) > rule.get(
            "maxLength", LINE
        ):  # add_claim's: the records' own check
            raise InvalidRecord(
                ORIGIN,
                None,
                name,
                f"is {len(value):,} characters long; the most allowed is {rule['maxLength']:,}",
            )
        if "enum" in rule and value not in rule["enum"]:
            raise InvalidRecord(
                ORIGIN, None, name, f"{shown(value)} is not one of: {', '.join(rule['enum'])}"
            )
    elif kind == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidRecord(
                ORIGIN, None, name, f"must be a whole number, not {type(value).__name__}"
            )
        low, high = rule["minimum"], rule["maximum"]
        if value < low or value > high:
            bounds = (
                f"{low} or more"  # a count bounded only by what a database holds
                if value < low and high == record_types.MAX_INTEGER
                else f"between {low:,} and {high:,}"
            )
            raise InvalidRecord(ORIGIN, None, name, f"must be {bounds}, not {value}")
    elif kind == "array":
        if not isinstance(value, list):
            raise InvalidRecord(ORIGIN, None, name, "must be a list")
        if len(value) > rule["maxItems"]:
            raise InvalidRecord(
                ORIGIN,
                None,
                name,
                f"has {len(value):,} items; the most allowed is {rule['maxItems']}",
            )
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise InvalidRecord(
                    ORIGIN,
                    None,
                    f"{name}[{i}]",
                    f"must be text (a figure as written), not {type(item).__name__}",
                )
    return value
