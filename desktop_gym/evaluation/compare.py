"""Two evaluations side by side (the GUI vs API-GUI ablation): ``compare.html`` and ``compare.md``.

Per domain and overall: each side's success (mean +- std over runs), the difference, and the
steps per success, as ComputerRL's table compares GUI-only with API-GUI agents.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from .charts import bar_chart
from .records import EpisodeRecord
from .report import _STYLE, Table, mean_std, number
from .summary import summarize


def label(records: Sequence[EpisodeRecord], fallback: str) -> str:
    """``agent (mode)`` of an evaluation."""
    if not records:
        return fallback
    return f"{records[0].agent} ({records[0].action_mode})"


def compare_table(a: Sequence[EpisodeRecord], b: Sequence[EpisodeRecord], names: tuple[str, str]) -> Table:
    """Rows: each domain, then overall."""
    sa, sb = summarize(a), summarize(b)
    rows = []
    for domain in sorted(set(sa["domains"]) | set(sb["domains"])):
        rows.append(_row(domain, sa["domains"].get(domain), sb["domains"].get(domain)))
    rows.append(_row("overall", sa["overall"], sb["overall"]))
    first, second = names
    return Table(
        [
            "domain",
            f"{first} success",
            f"{second} success",
            "difference",
            f"{first} steps/success",
            f"{second} steps/success",
        ],
        rows,
    )


def _row(name: str, x: dict | None, y: dict | None) -> list[str]:
    blank = {"episodes": 0}
    x, y = x or blank, y or blank
    diff = "-"
    if x.get("episodes") and y.get("episodes"):
        diff = f"{100 * (y['mean'] - x['mean']):+.1f} pts"
    return [
        name,
        mean_std(x),
        mean_std(y),
        diff,
        number(x.get("avg_steps_success")),
        number(y.get("avg_steps_success")),
    ]


def write_comparison(out: Path | str, a: Sequence[EpisodeRecord], b: Sequence[EpisodeRecord]) -> dict[str, Path]:
    """Write ``compare.html``, ``compare.md`` and ``compare_domains.svg`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = (label(a, "A"), label(b, "B"))
    if names[0] == names[1]:
        names = (names[0] + " [A]", names[1] + " [B]")
    table = compare_table(a, b, names)
    sa, sb = summarize(a), summarize(b)
    domains = sorted(set(sa["domains"]) | set(sb["domains"]))
    series = [
        (name, [s["domains"].get(d, {}).get("mean", 0.0) for d in domains], None)
        for name, s in zip(names, (sa, sb), strict=True)
    ]
    svg = bar_chart("Success by domain", domains, series)
    (out / "compare_domains.svg").write_text(svg, encoding="utf-8")
    title = f"{names[0]} vs {names[1]}"
    page = (
        f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title><style>{_STYLE}</style>"
        f"<h1>{html.escape(title)}</h1>{svg}{table.html()}"
    )
    paths = {"html": out / "compare.html", "markdown": out / "compare.md"}
    paths["html"].write_text(page, encoding="utf-8")
    paths["markdown"].write_text(
        f"# {title}\n\n![success by domain](compare_domains.svg)\n\n{table.markdown()}\n", encoding="utf-8"
    )
    return paths
