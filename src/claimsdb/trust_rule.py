"""Which figures are paper-safe.

By default a claim whose tag is `verified` or `secondary` passes and `unverified` is blocked;
`strict` passes `verified` only, and not where the re-read behind it is an attestation (a person said
why the page could not be checked, so nothing checked the quote against the page). A verified tag counts only while the re-read behind it still covers
the claim (history.derive): a claim changed since its re-read is blocked until re-read again.
Only active claims are ever exported: withdrawn and superseded claims are left out of every export,
whatever their tag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claimsdb.views import ClaimView

EXPORTABLE_STATUS = "active"


@dataclass(frozen=True)
class Blocker:
    """One reason a claim is not paper-safe: `kind` is "status", "integrity", "trust", "outdated",
    "stale" or "attested"; `reason` says it for people."""

    kind: str
    reason: str


def reread_command(key: str, primary_source: str | None, db: str | None = None) -> str:
    """The exact command that clears a claim blocked for its trust: a person's re-read of its primary
    page (PAGE when it cites none yet). Export, lint and the web say it the same way."""
    import shlex

    parts = ["claims", "reread", key, "--source", primary_source or "PAGE"]
    if db:
        parts += ["--db", db]
    command = shlex.join(parts)
    if primary_source is None:
        command += " (it cites no primary page yet: PAGE is the URL you re-read, or a key from `claims sources add`)"
    return command


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
