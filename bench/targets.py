"""The issue-16 speed targets as a table: what was measured now, the target, and now/target."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Target:
    """One measured quantity next to its target (lower is better)."""

    name: str
    now: float | None  # None: not measured in this run
    target: float
    unit: str
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if self.now is None else self.now / self.target


@dataclass
class TargetTable:
    """Rows collected while a benchmark runs, printed together at the end."""

    rows: list[Target] = field(default_factory=list)

    def add(self, name: str, now: float | None, target: float, unit: str, note: str = "") -> None:
        self.rows.append(Target(name, now, target, unit, note))

    def render(self) -> str:
        lines = [f"  {'what':<52} {'now':>10} {'target':>10} {'now/target':>10}  note", "  " + "-" * 100]
        for row in self.rows:
            now = "n/a" if row.now is None else f"{row.now:.1f} {row.unit}"
            ratio = "" if row.ratio is None else f"{row.ratio:.2f}" + (" ok" if row.ratio <= 1 else " MISS")
            lines.append(f"  {row.name:<52} {now:>10} {f'< {row.target:g} {row.unit}':>10} {ratio:>10}  {row.note}")
        return "\n".join(lines)
