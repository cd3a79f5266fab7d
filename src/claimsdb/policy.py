"""Which figures are paper-safe.

By default a claim whose tag is `verified` or `secondary` passes and `unverified` is blocked;
`strict` passes `verified` only. A verified tag counts only while the re-read behind it still covers
the claim (history.derive): a claim changed since its re-read is blocked until re-read again.
Only active claims are ever exported: withdrawn and superseded claims are left out of every export,
whatever their tag.
"""

from __future__ import annotations

from dataclasses import dataclass

EXPORTABLE_STATUS = "active"


@dataclass(frozen=True)
class Policy:
    strict: bool = False

    @property
    def passing(self) -> tuple[str, ...]:
        return ("verified",) if self.strict else ("verified", "secondary")

    def passes(self, trust: str | None) -> bool:
        return trust in self.passing

    def allows(self, view: dict) -> bool:
        """Whether a claim (a queries.claim_views view) is paper-safe: its trust passes, its re-read
        still covers it, and, under the strict policy, its latest verification still finds it."""
        return (self.passes(view["trust"]) and not view["reread_outdated"]
                and not (self.strict and view["stale"]) and not view["integrity"])

    @property
    def name(self) -> str:
        return "strict" if self.strict else "default"

    def describe(self) -> str:
        return f"{self.name} policy ({' and '.join(self.passing)} pass)"
