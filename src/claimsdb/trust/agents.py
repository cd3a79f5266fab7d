"""Software agents that record claims through an agent door (`claims mcp`), and how the history names them.

An AI agent that adds a claim over MCP is a software agent acting for a person: the MCP client as it
named itself in the protocol's handshake (`clientInfo`: a name and a version), the name the server was
started with (`claims mcp --agent NAME`), and the person who started the server (`--by`, else the reader
set on that machine; nobody when none is set, and the record says so instead of inventing one).

The event of such a claim carries the agent twice, within the fields the chain already hashes: its
`actor` is a line a person reads in `claims history` ('"sweep-7" ("claude-code" "2.1.0" over MCP) for
"Ada Lovelace"'), and its detail holds the same facts as data under `agent`, which `claims history --format
prov` reads to draw a software agent acting on behalf of the person. Decisions are made on the detail,
never on the actor's wording. Every name in the line is quoted (`trust.identity.quoted`, a JSON string), so
a client that calls itself `X) for Y (` cannot make the line read as acting for Y: the line's own words
are the ones outside quotes. Events recorded before names were quoted keep their line as it was (it is in
the chain's hash); nothing reads it back.

The client's name and version come from the other end of a pipe, so they are checked by the rule every
recorded name follows (`trust.identity.person_name`: visible, no control, format or bidirectional characters,
at most 80 characters); a client whose name is not one records nothing.

Light on purpose: `claims history` imports it to draw the agent, and loads nothing of the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claimsdb.trust.identity import person_name, quoted

PROTOCOL = "MCP"
DETAIL_KEY = "agent"  # where an event's detail holds the software agent
NOBODY = (
    "nobody: the server was started without --by and with no reader set on its machine "
    "(CLAIMS_READER, the settings file or git's user.name)"
)


@dataclass(frozen=True)
class SoftwareAgent:
    """Who records through an agent door: the client as it named itself, the server's name for it, and the
    person it acts for (None: nobody was named where the server started)."""

    client: str | None
    client_version: str | None
    name: str | None = None
    person: str | None = None
    protocol: str = PROTOCOL

    @classmethod
    def named(
        cls, client: object, client_version: object, *, name: str | None, person: str | None
    ) -> SoftwareAgent:
        """The agent of a write, its client's self-description checked as any recorded name is (InvalidName
        otherwise). An empty name or version counts as none given."""
        return cls(
            _checked(client, "MCP client name"),
            _checked(client_version, "MCP client version"),
            name,
            person,
        )

    @property
    def software(self) -> str:
        """The client and its version as a person reads them, quoted: '"claude-code" "2.1.0"', or "an
        unnamed client"."""
        if self.client is None:
            return "an unnamed client"
        version = f" {quoted(self.client_version)}" if self.client_version else ""
        return f"{quoted(self.client)}{version}"

    @property
    def actor(self) -> str:
        """The event's actor: '"sweep-7" ("claude-code" "2.1.0" over MCP) for "Ada Lovelace"'."""
        over = f"{self.software} over {self.protocol}"
        who = f"{quoted(self.name)} ({over})" if self.name else over
        return f"{who} for {quoted(self.person)}" if self.person else who

    def detail(self) -> dict[str, Any]:
        """The agent as the event's detail records it."""
        out: dict[str, Any] = {
            "protocol": self.protocol,
            "client": self.client,
            "client_version": self.client_version,
            "name": self.name,
            "on_behalf_of": self.person,
        }
        if self.person is None:
            out["on_behalf_of_note"] = NOBODY
        return out

    @classmethod
    def of_detail(cls, detail: object) -> SoftwareAgent | None:
        """The agent an event's decoded detail names, or None for an event no agent door wrote."""
        if not isinstance(detail, dict) or not isinstance(detail.get(DETAIL_KEY), dict):
            return None
        raw = detail[DETAIL_KEY]
        text = {
            k: raw.get(k) if isinstance(raw.get(k), str) else None
            for k in ("client", "client_version", "name", "on_behalf_of", "protocol")
        }
        return cls(
            text["client"],
            text["client_version"],
            text["name"],
            text["on_behalf_of"],
            text["protocol"] or PROTOCOL,
        )

    def describe(self) -> str:
        """One line for `claims history`'s details."""
        parts = [f"{self.protocol} client {self.software}"]
        if self.name:
            parts.append(f"named {quoted(self.name)} by the server")
        parts.append(
            f"on behalf of {quoted(self.person)}" if self.person else "on behalf of nobody named"
        )
        return ", ".join(parts)


def _checked(value: object, field: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return person_name(value, field=field)
