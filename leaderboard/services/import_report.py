"""What an import did: records imported, updated, unchanged and skipped (with reasons and
line numbers), and records imported without their examples."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class ImportReport:
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    rescaled: int = 0  # records whose scores were written in percent
    with_examples: int = 0  # records stored with their per-example evidence
    skipped: Counter = field(default_factory=Counter)
    examples_missing: Counter = field(default_factory=Counter)  # reason → records imported without examples
    errors: list[tuple[int, str]] = field(default_factory=list)
    speed: Counter = field(default_factory=Counter)  # EuroEval speed records: imported / updated / unchanged

    def count(self, outcome: str) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    def skip(self, reason: str, line: int | None = None, detail: str = "") -> None:
        self.skipped[reason] += 1
        if line is not None and detail:
            self.errors.append((line, detail))

    @property
    def total_skipped(self) -> int:
        return sum(self.skipped.values())

    def summary(self) -> str:
        reasons = ", ".join(f"{reason}: {n}" for reason, n in sorted(self.skipped.items()))
        skipped = f"skipped {self.total_skipped}" + (f" ({reasons})" if reasons else "")
        summary = f"imported {self.imported}, updated {self.updated}, unchanged {self.unchanged}, {skipped}"
        if self.with_examples:
            summary += f"; with examples: {self.with_examples}"
        if self.examples_missing:
            summary += (
                "; without their examples ("
                + ", ".join(f"{reason}: {n}" for reason, n in sorted(self.examples_missing.items()))
                + ")"
            )
        if self.speed:
            outcomes = ", ".join(f"{outcome} {n}" for outcome, n in sorted(self.speed.items()))
            summary += f"; speed records (EuroEval's own kind, not scores): {outcomes}"
        return summary + (f"; rescaled from percent: {self.rescaled}" if self.rescaled else "")

    def examples_problem(self, reason: str, line: int, detail: str) -> None:
        """The record imports; its examples do not (``reason``)."""
        self.examples_missing[reason] += 1
        self.errors.append((line, detail))
