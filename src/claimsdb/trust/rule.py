"""Which figures are paper-safe.

By default a claim whose tag is `verified` or `secondary` passes and `unverified` is blocked;
`strict` passes `verified` only, and not where the re-read behind it is an attestation (a person said
why the page could not be checked, so nothing checked the quote against the page). A verified tag
counts only while the re-read behind it still covers the claim (history.derive): a claim changed since
its re-read is blocked until re-read again. Once the store requires signatures (`claims people
require-signatures`), under either policy a verified tag counts only when the re-read behind it is signed
by the person it names with a key registered to them then (trust.signatures): views.ClaimView.unsigned.
Only active claims are ever exported: withdrawn and superseded claims are left out of every export,
whatever their tag.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claimsdb.errors import AgentCannotVouch, RetagRaisesTrust
    from claimsdb.views import ClaimView

EXPORTABLE_STATUS = "active"


@dataclass(frozen=True)
class Blocker:
    """One reason a claim is not paper-safe: `kind` is "status", "integrity", "trust", "outdated",
    "stale", "attested" or "unsigned"; `reason` says it for people."""

    kind: str
    reason: str


@dataclass(frozen=True)
class RereadPage:
    """The page a person re-reads to raise a claim: its key (or the URL it cites), its address, and
    where the claim says the figure stands in it."""

    key: str
    url: str | None = None
    locator: str | None = None


def page_to_reread(sources: Iterable[Mapping[str, Any]]) -> RereadPage | None:
    """The claim's primary page (its first cited source that is not a note: views.ClaimView.primary_source)
    with its address and locator; None when it cites none."""
    for s in sources:
        if s.get("kind") != "note":
            return RereadPage(s["key"], s.get("url"), s.get("locator"))
    return None


def reread_hint(key: str, page: RereadPage | None, db: str | None = None) -> str:
    """What a person re-reads to raise a claim, and where they record it: the page with its address and
    the place the claim cites, then the doors a person records a re-read through. Every door says it so
    (export, lint, the agent doors' refusals, retag, the import's report)."""
    if page is None:
        where = "the page its figure comes from (it cites none yet: name the page you read)"
    else:
        where = page.key + (f" <{page.url}>" if page.url and page.url != page.key else "")
        where += f", at {page.locator}," if page.locator else " (it cites no place in it yet)"
    return f"a person re-reads {key} in {where} and records it {reread_doors(key, db)}"


def reread_doors(key: str | None = None, db: str | None = None) -> str:
    """Where a person records a re-read: the browser's re-read queue or `claims reread KEY` at a terminal.
    Never a whole command to run: a re-read quotes the page's own words, which only the person who read
    the page has, and it is recorded as theirs (so no --yes, and no quote or locator to fill in)."""
    import shlex
    from urllib.parse import quote

    on_db = ["--db", db] if db else []
    serve = shlex.join(["claims", "serve", *on_db])
    queue = f"/queue?key={quote(key, safe='')}" if key else "/queue"
    reread = shlex.join(["claims", "reread", key or "KEY", *on_db])
    return (
        f"with the page's own words, in the browser's re-read queue (`{serve}`, then {queue}) or at "
        f"a terminal (`{reread}`, naming the page, the place and the quote)"
    )


@dataclass(frozen=True)
class Policy:
    strict: bool = False

    @property
    def passing(self) -> tuple[str, ...]:
        return ("verified",) if self.strict else ("verified", "secondary")

    def passes(self, trust: str | None) -> bool:
        return trust in self.passing

    def blockers(self, view: ClaimView) -> list[Blocker]:
        """Why a claim (a views.ClaimView) is not paper-safe under this policy; empty when it is. The one
        rule every caller asks: export, lint, the web grid and queue, PROV, agents."""
        out = []
        if view.status != EXPORTABLE_STATUS:
            out.append(
                Blocker(
                    "status",
                    view.status
                    + (f": {view.status_reason}" if view.status_reason else "")
                    + (f" by {view.superseded_by}" if view.superseded_by else ""),
                )
            )
        if view.integrity:
            out.append(Blocker("integrity", f"disagrees with its history: {view.integrity[0]}"))
        if not self.passes(view.trust):
            out.append(
                Blocker(
                    "trust",
                    f"tag {view.tag} ({view.trust or 'unknown trust'}) does not pass the "
                    f"{self.describe()}",
                )
            )
        if view.reread_outdated:
            out.append(Blocker("outdated", view.outdated_reason or "changed since it was re-read"))
        if view.unsigned and self.passes(view.trust):
            out.append(
                Blocker(
                    "unsigned",
                    f"{view.unsigned}: this store requires signed re-reads, so it vouches for nothing",
                )
            )
        if self.strict and view.stale:
            out.append(Blocker("stale", f"stale: the latest verification was {view.stale_outcome}"))
        if self.strict and view.attested is not None and self.passes(view.trust):
            out.append(
                Blocker(
                    "attested",
                    f"re-read on an attestation, not checked against the page ({view.attested}): "
                    f"the {self.describe()} counts only re-reads checked on the page",
                )
            )
        return out

    def allows(self, view: ClaimView) -> bool:
        """Whether a claim's figures are paper-safe: its trust passes, its re-read still covers it, it agrees
        with its history, and, under the strict policy, its latest verification still finds it. Its status
        is the caller's to weigh (exports select active claims; lint names a withdrawn claim as that)."""
        return all(b.kind == "status" for b in self.blockers(view))

    @property
    def name(self) -> str:
        return "strict" if self.strict else "default"

    def describe(self) -> str:
        return f"{self.name} policy ({' and '.join(self.passing)} pass)"


def with_reread(exc: AgentCannotVouch | RetagRaisesTrust) -> str:
    """A refusal to vouch (an agent's record, a retag that would raise trust), followed by how a person
    raises the claim instead: the one wording every door prints (the command line, MCP)."""
    from claimsdb.errors import AgentCannotVouch

    if exc.key is None:
        return exc.message
    lead = "; record it unverified: " if isinstance(exc, AgentCannotVouch) else "; "
    return f"{exc.message}{lead}{reread_hint(exc.key, exc.page)}"
