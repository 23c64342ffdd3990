"""Two evaluations side by side (the GUI vs API-GUI ablation): ``compare.html`` and ``compare.md``.

Only like is compared with like: both evaluations must hold the same (task, seed, run) episodes,
or the comparison is refused (``ResultsError``); with ``allow_mismatch`` the episodes both hold are
compared and the page says how many were left out. Per task, per domain and overall: the episode
count, each side's success (mean +- std over runs) and pass@k, the difference, the steps per
success, and McNemar's exact test on the paired episodes (two-sided p), as ComputerRL's table
compares GUI-only with API-GUI agents.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path

from ..errors import ResultsError
from .charts import bar_chart
from .records import EpisodeRecord, episode_key
from .report import _STYLE, Table, mean_std, number
from .summary import group_stats, summarize

MAX_NAMED_KEYS = 3  # episodes named in a mismatch message


def label(records: Sequence[EpisodeRecord], fallback: str) -> str:
    """``agent (mode)`` of an evaluation."""
    if not records:
        return fallback
    return f"{records[0].agent} ({records[0].action_mode})"


def _keys(records: Sequence[EpisodeRecord]) -> dict[str, EpisodeRecord]:
    return {episode_key(r.task_id, r.seed, r.run): r for r in records}


def matched(
    a: Sequence[EpisodeRecord], b: Sequence[EpisodeRecord], allow_mismatch: bool = False
) -> tuple[list[EpisodeRecord], list[EpisodeRecord], str]:
    """The records both evaluations hold, in the same order, and a note of what was left out ("" if nothing).

    Raises:
        ResultsError: the (task, seed, run) sets differ and ``allow_mismatch`` is False.
    """
    ka, kb = _keys(a), _keys(b)
    only_a, only_b = sorted(set(ka) - set(kb)), sorted(set(kb) - set(ka))
    common = sorted(set(ka) & set(kb))
    if not (only_a or only_b):
        return [ka[k] for k in common], [kb[k] for k in common], ""
    detail = (
        f"{len(only_a)} episodes only in A (e.g. {', '.join(only_a[:MAX_NAMED_KEYS]) or '-'}), "
        f"{len(only_b)} only in B (e.g. {', '.join(only_b[:MAX_NAMED_KEYS]) or '-'}), {len(common)} in both"
    )
    if not allow_mismatch:
        raise ResultsError(
            f"--compare: the evaluations hold different (task, seed, run) episodes: {detail}; "
            "evaluate the same tasks, seeds and runs, or pass --allow-mismatch to compare the common ones"
        )
    if not common:
        raise ResultsError(f"--compare: the evaluations have no episode in common: {detail}")
    note = f"Compared only the episodes both evaluations hold: {detail}."
    return [ka[k] for k in common], [kb[k] for k in common], note


def mcnemar_p(a: Sequence[EpisodeRecord], b: Sequence[EpisodeRecord]) -> float:
    """Two-sided exact McNemar p-value of paired outcomes (``a[i]`` and ``b[i]`` are the same episode)."""
    only_a = sum(x.success and not y.success for x, y in zip(a, b, strict=True))
    only_b = sum(y.success and not x.success for x, y in zip(a, b, strict=True))
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare_table(a: Sequence[EpisodeRecord], b: Sequence[EpisodeRecord], names: tuple[str, str]) -> Table:
    """Rows: each domain, each task, then overall; ``a`` and ``b`` are paired (see :func:`matched`)."""
    k = max(len({r.run for r in a}), 1)
    rows = []
    groups = [(f"{domain}", lambda r, d=domain: r.domain == d) for domain in sorted({r.domain for r in a})]
    groups += [(f"  {task}", lambda r, t=task: r.task_id == t) for task in sorted({r.task_id for r in a})]
    groups.append(("overall", lambda r: True))
    for name, keep in groups:
        pairs = [(x, y) for x, y in zip(a, b, strict=True) if keep(x)]
        xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
        rows.append(_row(name, group_stats(xs, k), group_stats(ys, k), mcnemar_p(xs, ys)))
    first, second = names
    return Table(
        [
            "domain / task",
            "episodes",
            f"{first} success",
            f"{second} success",
            "difference",
            f"{first} pass@{k}",
            f"{second} pass@{k}",
            f"{first} steps/success",
            f"{second} steps/success",
            "p (McNemar)",
        ],
        rows,
    )


def _row(name: str, x: dict, y: dict, p: float) -> list[str]:
    diff = f"{100 * (y['mean'] - x['mean']):+.1f} pts" if x["episodes"] and y["episodes"] else "-"
    return [
        name,
        str(x["episodes"]),
        mean_std(x),
        mean_std(y),
        diff,
        f"{100 * x['pass_at_k']:.1f}%",
        f"{100 * y['pass_at_k']:.1f}%",
        number(x.get("avg_steps_success")),
        number(y.get("avg_steps_success")),
        f"{p:.3g}",
    ]


def write_comparison(
    out: Path | str, a: Sequence[EpisodeRecord], b: Sequence[EpisodeRecord], allow_mismatch: bool = False
) -> dict[str, Path]:
    """Write ``compare.html``, ``compare.md`` and ``compare_domains.svg`` into ``out``.

    Raises:
        ResultsError: the evaluations hold different episodes (see :func:`matched`).
    """
    a, b, note = matched(a, b, allow_mismatch)
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
        f"<h1>{html.escape(title)}</h1>"
        + (f"<p><strong>{html.escape(note)}</strong></p>" if note else "")
        + f"{svg}{table.html()}<p>p: McNemar's exact test on the paired episodes (two-sided).</p>"
    )
    paths = {"html": out / "compare.html", "markdown": out / "compare.md"}
    paths["html"].write_text(page, encoding="utf-8")
    paths["markdown"].write_text(
        f"# {title}\n\n" + (f"**{note}**\n\n" if note else "") + "![success by domain](compare_domains.svg)\n\n"
        f"{table.markdown()}\n\np: McNemar's exact test on the paired episodes (two-sided).\n",
        encoding="utf-8",
    )
    return paths
