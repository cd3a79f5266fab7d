"""What an import knows as it goes: the channel each file came in through (what it may vouch for), and
the store's definitions (tags and their trust, sources, quantities), which it writes as they come."""

from __future__ import annotations

from dataclasses import dataclass

from claimsdb import history, records
from claimsdb.errors import AgentCannotVouch
from claimsdb.figures import Quantity, figure_columns
from claimsdb.records.types import FigureRecord
from claimsdb.trust_rule import RereadPage

# Claim fields an import owns outright; tag and status are handled apart, because a person may own them.
DATA_FIELDS = ("subject", "stage", "statement", "basis", "section", "aliases", "label")
# What a person reads when re-reading a claim (history.content_digest covers these).
CONTENT_FIELDS = {"subject", "statement", "figures", "evidence"}
UNVERIFIED, VERIFIED = "unverified", history.VERIFIED
FIGURE_COLUMNS = tuple(figure_columns(0, FigureRecord(Quantity(raw="", kind="text"))).keys())


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


@dataclass
class Known:
    """The store's definitions as the import leaves them so far: tag -> trust, source key -> id and
    kind, quantity key -> id; and each file's channel."""

    tags: dict[str, str]
    sources: dict[str, int]
    source_kinds: dict[str, str]
    quantities: dict[str, int]
    channels: dict[str, Channel]

    def agent(self, file: str) -> bool:
        # a record from nowhere known vouches for nothing
        return self.channels.get(file, AGENT).agent

    def unverified_tags(self) -> str:
        return ", ".join(sorted(t for t, trust in self.tags.items() if trust == UNVERIFIED))

    def check_agent_tag(
        self, file: str, label: str, key: str, tag: str, page: RereadPage | None = None
    ) -> None:
        """The rule of agent channels for a claim's tag: unverified trust only. `page`: the page the
        record cites, for the refusal to say what a person re-reads instead."""
        trust = self.tags.get(tag)
        if trust is not None and trust != UNVERIFIED:
            raise AgentCannotVouch(
                file,
                label,
                "tag",
                f"tag {tag!r} is of {trust} trust: an agent channel records what was reported, "
                f"so only tags of unverified trust ({self.unverified_tags()}); only a person's "
                "re-read raises a claim above that",
                key=key,
                page=page,
            )
