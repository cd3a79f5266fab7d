"""Which figures are paper-safe.

By default a claim whose tag is `verified` or `secondary` passes and `unverified` is blocked;
`strict` passes `verified` only. Only active claims are ever exported: withdrawn and superseded
claims are left out of every export, whatever their tag.
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

    @property
    def name(self) -> str:
        return "strict" if self.strict else "default"

    def describe(self) -> str:
        return f"{self.name} policy ({' and '.join(self.passing)} pass)"
