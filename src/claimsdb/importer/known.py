"""What an import knows as it goes: the channel each file came in through (trust.channels: what it may
vouch for), and the store's definitions (tags and their trust, sources, quantities), which it writes as
they come."""

from __future__ import annotations

from dataclasses import dataclass

from claimsdb import history
from claimsdb.errors import AgentCannotVouch
from claimsdb.figures import Quantity, figure_columns
from claimsdb.records.types import FigureRecord
from claimsdb.trust.channels import AGENT, Channel
from claimsdb.trust.rule import RereadPage

# Claim fields an import owns outright; tag and status are handled apart, because a person may own them.
DATA_FIELDS = (
    "subject",
    "stage",
    "statement",
    "basis",
    "section",
    "aliases",
    "label",
    "observation",
)
# What a person reads when re-reading a claim (history.content_digest covers these).
CONTENT_FIELDS = {"subject", "statement", "figures", "evidence"}
UNVERIFIED, VERIFIED = "unverified", history.VERIFIED
# source.origin of the sources a data file (or JSON Lines) registers (models.SOURCE_ORIGINS): the only
# sources a data file may change (importer.kept)
DATA_FILE_ORIGIN = "data-file"
FIGURE_COLUMNS = tuple(figure_columns(0, FigureRecord(Quantity(raw="", kind="text"))).keys())


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
