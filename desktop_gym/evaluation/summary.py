"""The numbers of an evaluation: success per task, per domain and overall, over runs.

``summarize(records)`` returns a JSON-able dict::

    {"agent", "action_mode", "episodes", "runs", "k",
     "overall": Group, "domains": {domain: Group}, "tasks": {task: Group}}

where a Group is ``{"episodes", "successes", "success_rate", "mean", "std", "per_run",
"pass_at_k", "avg_steps_success", "avg_steps", "action_error_rate", "errors",
"prompt_tokens", "completion_tokens", "tokens_per_s", "wall_seconds"}``: ``mean`` and ``std`` are
over the runs' success rates (std 0 for one run), ``pass_at_k`` is the unbiased estimator
1 - C(n-c, k)/C(n, k) per (task, seed) over its n runs, averaged.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .records import EpisodeRecord


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of ``c`` successes in ``n`` attempts (Chen et al., 2021)."""
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and k >= 1, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def group_stats(records: Sequence[EpisodeRecord], k: int) -> dict[str, Any]:
    """The statistics of a group of records (see the module docstring)."""
    episodes = len(records)
    successes = sum(r.success for r in records)
    by_run: dict[int, list[EpisodeRecord]] = defaultdict(list)
    by_instance: dict[tuple[str, int], list[EpisodeRecord]] = defaultdict(list)
    for record in records:
        by_run[record.run].append(record)
        by_instance[(record.task_id, record.seed)].append(record)
    per_run = [sum(r.success for r in runs) / len(runs) for _, runs in sorted(by_run.items())]
    usable_k = min(k, min((len(v) for v in by_instance.values()), default=1))
    passes = [pass_at_k(len(v), sum(r.success for r in v), usable_k) for v in by_instance.values()]
    won = [r for r in records if r.success]
    steps = sum(r.steps for r in records)
    generation = sum(r.generation_seconds for r in records)
    completion = sum(r.completion_tokens for r in records)
    return {
        "episodes": episodes,
        "successes": successes,
        "success_rate": successes / episodes if episodes else 0.0,
        "mean": statistics.fmean(per_run) if per_run else 0.0,
        "std": statistics.stdev(per_run) if len(per_run) > 1 else 0.0,
        "per_run": per_run,
        "k": usable_k,
        "pass_at_k": statistics.fmean(passes) if passes else 0.0,
        "avg_steps_success": statistics.fmean(r.steps for r in won) if won else None,
        "avg_steps": steps / episodes if episodes else 0.0,
        "action_error_rate": sum(r.action_errors for r in records) / steps if steps else 0.0,
        "errors": sum(r.error is not None for r in records),
        "prompt_tokens": sum(r.prompt_tokens for r in records),
        "completion_tokens": completion,
        "tokens_per_s": completion / generation if generation > 0 else None,
        "wall_seconds": sum(r.wall_seconds for r in records),
    }


def _grouped(records: Iterable[EpisodeRecord], key: Callable[[EpisodeRecord], str]) -> dict[str, list[EpisodeRecord]]:
    groups: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    return dict(sorted(groups.items()))


def summarize(records: Sequence[EpisodeRecord], k: int | None = None) -> dict[str, Any]:
    """The summary of an evaluation's records.

    Args:
        records: one record per episode.
        k: pass@k's k (default: the number of runs).
    """
    runs = len({r.run for r in records})
    k = k or max(runs, 1)
    agents = sorted({r.agent for r in records})
    modes = sorted({r.action_mode for r in records})
    return {
        "agent": ", ".join(agents),
        "action_mode": ", ".join(modes),
        "episodes": len(records),
        "runs": runs,
        "k": k,
        "overall": group_stats(records, k),
        "domains": {d: group_stats(g, k) for d, g in _grouped(records, lambda r: r.domain).items()},
        "tasks": {t: group_stats(g, k) for t, g in _grouped(records, lambda r: r.task_id).items()},
    }


def reference_steps(summary: dict[str, Any]) -> dict[str, float]:
    """Average steps of successful episodes per task (a reference such as the oracle's)."""
    return {
        task: stats["avg_steps_success"]
        for task, stats in summary["tasks"].items()
        if stats["avg_steps_success"] is not None
    }
