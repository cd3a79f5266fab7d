"""The ways records come in, and what each may vouch for.

An agent channel (the MCP server's `add_claim`, JSON Lines on standard input or in a .jsonl file) records
only what was reported: claims of unverified trust, never a tag above that, a tag definition, a re-read,
a preferred value, a change to a source, to a quantity or to a claim a person vouches for, or a new name
for a vouched subject (importer.known.Known and importer.kept check each record against its file's
channel). A data file read from a path (JSON or CSV) is the author's own:
it vouches for its secondary tags and records the re-reads it names, which vouch once signed when the
store requires signatures (trust.signatures). Neither ever signs.
"""

from __future__ import annotations

from dataclasses import dataclass

from claimsdb import records


@dataclass(frozen=True)
class Channel:
    """How records come in, and so what they may vouch for. `agent`: only what was reported (tags of
    unverified trust, no tag definitions, no re-reads, no preferred value, no change to a source or to a
    claim a person vouches for); otherwise a data file read from a path, which vouches for its secondary
    tags and records the re-reads it names."""

    name: str
    agent: bool


AGENT = Channel("agent channel", agent=True)
DATA_FILE = Channel("data file", agent=False)


def channel_of(path: str) -> Channel:
    """JSON Lines (standard input or a .jsonl file) is what agents write, so it is an agent channel: a
    sweep's output piped in and the same output saved to a file first must get the same rules. A JSON or
    CSV data file read from a path is a data file."""
    return AGENT if records.json_lines(path) else DATA_FILE


def label_of(origin: str | None) -> str:
    """The channel a claim's own evidence came through, as its import event's origin names it: the MCP
    server, `claims add`, JSON Lines, or a data file (any other path)."""
    if origin in ("claims mcp", "claims add"):
        return "MCP agent" if origin == "claims mcp" else "claims add"
    if origin is not None and (origin == records.STDIN_NAME or records.json_lines(origin)):
        return "JSON Lines"
    return "data file"
