"""PNG plots of a training run from its ``metrics.jsonl``: success, entropy, KL, loss, SFT phases shaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .metrics import read_metrics


def _sft_spans(rows: list[dict[str, Any]]) -> list[tuple[float, float]]:
    spans, start = [], None
    last = 0.0
    for row in rows:
        if row.get("kind") == "iteration":
            last = float(row["iteration"])
        if row.get("kind") == "phase":
            if row.get("phase") == "sft":
                start = float(row["iteration"]) + 0.5
            elif start is not None:
                spans.append((start, float(row["iteration"]) + 0.5))
                start = None
    if start is not None:
        spans.append((start, last + 0.5))
    return spans


def plot_metrics(metrics_path: Path | str, out: Path | str | None = None) -> Path:
    """Draw the run's curves into ``out`` (default ``training.png`` beside the metrics); returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics_path = Path(metrics_path)
    rows = read_metrics(metrics_path)
    iterations = [row for row in rows if row.get("kind") == "iteration"]
    evals = [row for row in rows if row.get("kind") == "eval"]
    out = Path(out) if out else metrics_path.with_name("training.png")
    figure, axes = plt.subplots(2, 2, figsize=(10, 6.4), sharex=True)
    panels = (
        ("success", "train success"),
        ("entropy", "entropy (nats/token)"),
        ("kl", "KL to reference"),
        ("loss", "loss"),
    )
    for axis, (key, title) in zip(axes.flat, panels, strict=True):
        xs = [row["iteration"] for row in iterations if row.get(key) is not None]
        ys = [row[key] for row in iterations if row.get(key) is not None]
        rl = [(x, y) for x, y, row in zip(xs, ys, iterations, strict=False) if row.get("phase") == "rl"]
        axis.plot(xs, ys, color="#888", lw=1)
        axis.scatter([x for x, _ in rl], [y for _, y in rl], s=12, color="#1f77b4", label="RL")
        sft = [
            (row["iteration"], row[key]) for row in iterations if row.get("phase") == "sft" and row.get(key) is not None
        ]
        axis.scatter([x for x, _ in sft], [y for _, y in sft], s=18, color="#d62728", marker="s", label="SFT")
        for start, end in _sft_spans(rows):
            axis.axvspan(start, end, color="#d62728", alpha=0.12)
        if key == "entropy" and ys and min(ys) > 0:  # spans decades: a rise from 0.01 shows
            axis.set_yscale("log")
            title += ", log scale"
        axis.set_title(title, fontsize=10)
        axis.grid(alpha=0.3)
    if evals:
        axis = axes.flat[0]
        for row in evals:
            x = row.get("iteration", 0)
            axis.errorbar(
                [x],
                [row["success"]],
                yerr=[[row["success"] - row["ci_low"]], [row["ci_high"] - row["success"]]],
                fmt="D",
                color="#2ca02c",
                capsize=4,
            )
        axis.plot([], [], "D", color="#2ca02c", label="held-out eval (95% CI)")
    axes.flat[0].legend(fontsize=8, loc="lower right")
    for axis in axes[-1]:
        axis.set_xlabel("iteration")
    figure.tight_layout()
    figure.savefig(out, dpi=80)
    plt.close(figure)
    return out
