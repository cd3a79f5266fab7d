"""What lint says: a finding for each figure it flags or skips, and the report of a manuscript."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

SEVERITIES = ("error", "warning", "note")
SKIPPED = "skipped"  # a figure lint does not judge: Report.skipped, with the reason as its message


@dataclass(frozen=True)
class Finding:
    file: str
    line: int  # 1-based, of the figure's first character in the original file
    col: int  # 1-based, in characters
    raw: str  # the figure as the prose reads it: markup removed ("16K~H100" -> "16K H100"), spaces collapsed
    severity: str  # "error" | "warning" | "note", or "skipped" (Report.skipped)
    message: (
        str  # one line for people; it does not repeat `raw` (a report shows both); a skip's reason
    )
    claims: tuple[str, ...]  # matched claim keys (empty for untracked)
    tags: tuple[str, ...]  # their tags, in the same order
    verdict: str | None = (
        None  # the matcher's verdict behind the finding ("same", "different", ...); None: untracked
    )

    def to_dict(self) -> dict[str, Any]:
        """Every field, in order; the claims and tags as lists (JSON)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out.update(claims=list(self.claims), tags=list(self.tags))
        return out


@dataclass
class Report:
    """Findings; the figures lint did not judge (`skipped`, each with its reason); how many figures were
    checked and how many passed (a paper-safe, current claim states them, or holds them in its range)."""

    findings: list[Finding] = field(default_factory=list)
    skipped: list[Finding] = field(default_factory=list)
    checked: int = 0
    passed: int = 0
    history: Any = (
        None  # the history the store held when it was read (anchor.Anchor), for the record
    )
    signatures_required: bool = (
        False  # whether the store counts only signed re-reads (trust.people)
    )

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def counts(self) -> dict[str, int]:
        """errors, warnings, notes (all of them), untracked (the notes no claim states), passed, checked
        (every figure judged), skipped (every figure not judged)."""
        return {
            "errors": self.count("error"),
            "warnings": self.count("warning"),
            "notes": self.count("note"),
            "untracked": sum(1 for f in self.findings if f.severity == "note" and not f.claims),
            "passed": self.passed,
            "checked": self.checked,
            "skipped": len(self.skipped),
        }

    def extend(self, other: Report) -> None:
        self.findings += other.findings
        self.skipped += other.skipped
        self.checked += other.checked
        self.passed += other.passed
