"""How much of a folder of OSWorld tasks maps to desktop-gym tasks, and why the rest does not.

``coverage(folder)`` converts every task file under ``folder`` (OSWorld's
``evaluation_examples/examples/<domain>/*.json`` layout) without its downloaded files: a task
*maps given its files* when everything it needs has an equivalent here and only cached files are
missing. The rest are grouped by the first reason that keeps them out (an evaluator metric, a
result getter, a setup step), so the report says what to support next.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .osworld_import import ImportReport, convert_osworld

MAX_FILES = 5_000
#: OSWorld's office, OS and multi-app domains: the ones desktop-gym's apps cover.
DOMAINS = ("libreoffice_calc", "libreoffice_writer", "libreoffice_impress", "os", "multi_apps")


@dataclass
class Coverage:
    """The outcome over a folder.

    Attributes:
        total: task files read, per domain (the folder's subfolder names).
        mapped: tasks that map given their files, per domain.
        reasons: why the others do not, as a short category -> count.
        examples: one task file per category.
    """

    total: Counter[str] = field(default_factory=Counter)
    mapped: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    @property
    def fraction(self) -> float:
        return sum(self.mapped.values()) / max(sum(self.total.values()), 1)

    def describe(self) -> str:
        """A table per domain, then the reasons, most common first."""
        lines = [f"{'domain':<22} {'tasks':>6} {'map':>6} {'share':>7}"]
        for domain in sorted(self.total):
            share = self.mapped[domain] / self.total[domain]
            lines.append(f"{domain:<22} {self.total[domain]:>6} {self.mapped[domain]:>6} {share:>7.0%}")
        total, mapped = sum(self.total.values()), sum(self.mapped.values())
        lines.append(f"{'all':<22} {total:>6} {mapped:>6} {self.fraction:>7.0%}")
        if self.reasons:
            lines.append("\nnot mapped, by first reason:")
            for reason, count in self.reasons.most_common():
                lines.append(f"  {count:>4}  {reason}  (e.g. {self.examples[reason]})")
        return "\n".join(lines)


def blocking_reason(report: ImportReport) -> str | None:
    """The first reason ``report``'s task would not map even with its files; None when it would."""
    if report.status == "error":
        return "not an OSWorld task file"
    for item in report.unsupported:
        if item in report.missing_assets:
            continue
        where, _, why = item.partition(": ")
        kind = re.sub(r"\[\d+\]", "", where)
        metric = re.search(r"metric '([^']+)'", why)
        if metric:
            return f"evaluator metric {metric.group(1)}"
        getter = re.search(r"getter '([^']+)'", why)
        if getter:
            return f"{kind}: getter {getter.group(1)}"
        return f"{kind}: {why[:70]}"
    return None


def coverage(folder: Path, domains: tuple[str, ...] | None = DOMAINS) -> Coverage:
    """Convert every ``<domain>/*.json`` under ``folder`` with an empty cache and tally what maps.

    Args:
        folder: OSWorld's ``evaluation_examples/examples`` (or a folder of task files).
        domains: the subfolders to read; every ``*.json`` below ``folder`` when None.
    """
    result = Coverage()
    if domains is None:
        files = sorted(Path(folder).rglob("*.json"))[:MAX_FILES]
    else:
        files = sorted(path for domain in domains for path in (Path(folder) / domain).glob("*.json"))[:MAX_FILES]
    with tempfile.TemporaryDirectory(prefix="osworld-cache-") as empty_cache:
        for path in files:
            domain = path.parent.name
            result.total[domain] += 1
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                report = convert_osworld(data, Path(empty_cache), source=str(path))
            except (OSError, ValueError) as error:
                reason = f"unreadable file ({type(error).__name__})"
            else:
                reason = blocking_reason(report)
            if reason is None:
                result.mapped[domain] += 1
            else:
                result.reasons[reason] += 1
                result.examples.setdefault(reason, f"{domain}/{path.name}")
    return result
