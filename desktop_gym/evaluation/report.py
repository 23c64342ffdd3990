"""The evaluation report: ``report.html`` and ``report.md`` (+ SVG charts) in the output folder.

Tables: overall, per domain (with a bar chart), per task with step efficiency next to reference
runs (the API and GUI oracles, when their result folders are given), and every episode with
links to the trajectory viewer (``view/<trajectory>``) and to the raw trajectory folder.
"""

from __future__ import annotations

import html
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .charts import bar_chart
from .records import SUMMARY_FILE, EpisodeRecord, viewer_url
from .summary import reference_steps, summarize

_STYLE = (
    "body{font:14px sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
    "th{background:#f0f0f0}.ok{color:#070}.err{color:#b00}svg{display:block;margin:.5em 0}"
)


@dataclass
class Table:
    """A table rendered both as HTML and as markdown (cells are plain text or (text, href))."""

    headers: Sequence[str]
    rows: Sequence[Sequence[Any]]

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(f"<td>{_html_cell(c)}</td>" for c in row) + "</tr>" for row in self.rows)
        return f"<table><tr>{head}</tr>{body}</table>"

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.headers) + " |", "|" + "---|" * len(self.headers)]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in self.rows]
        return "\n".join(lines)


def _html_cell(cell: Any) -> str:
    if isinstance(cell, tuple):
        return " ".join(f"<a href='{html.escape(href)}'>{html.escape(text)}</a>" for text, href in _links(cell))
    return html.escape(str(cell))


def _md_cell(cell: Any) -> str:
    if isinstance(cell, tuple):
        return " ".join(f"[{text}]({href})" for text, href in _links(cell))
    return str(cell).replace("|", "\\|")


def _links(cell: tuple[Any, ...]) -> list[tuple[str, str]]:
    return [cell] if isinstance(cell[0], str) else list(cell)  # type: ignore[list-item]


def percent(value: float | None) -> str:
    """``0.5`` as ``50.0%`` ("-" for None)."""
    return "-" if value is None else f"{100 * value:.1f}%"


def mean_std(stats: Mapping[str, Any]) -> str:
    """The success rate over runs as ``mean +- std``."""
    if stats.get("episodes", 0) == 0:
        return "-"
    return f"{100 * stats['mean']:.1f} ± {100 * stats['std']:.1f}%"


def number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def overall_table(summary: Mapping[str, Any]) -> Table:
    o = summary["overall"]
    return Table(
        [
            "agent",
            "action mode",
            "episodes",
            "success (mean ± std over runs)",
            f"pass@{o['k']}",
            "avg steps (successes)",
            "action errors / step",
            "errors",
            "tokens/s",
        ],
        [
            [
                summary["agent"],
                summary["action_mode"],
                o["episodes"],
                mean_std(o),
                percent(o["pass_at_k"]),
                number(o["avg_steps_success"]),
                percent(o["action_error_rate"]),
                o["errors"],
                number(o["tokens_per_s"]),
            ]
        ],
    )


def domain_table(summary: Mapping[str, Any]) -> Table:
    rows = [
        [d, s["episodes"], mean_std(s), percent(s["pass_at_k"]), number(s["avg_steps_success"])]
        for d, s in summary["domains"].items()
    ]
    return Table(["domain", "episodes", "success", f"pass@{summary['overall']['k']}", "avg steps (successes)"], rows)


def task_table(
    summary: Mapping[str, Any], references: Mapping[str, Mapping[str, float]], domain: str | None = None
) -> Table:
    """Per task, with the reference runs' steps per success and this agent's ratio to the first one."""
    headers = ["task", "episodes", "success", f"pass@{summary['overall']['k']}", "avg steps (successes)"]
    headers += [f"{name} steps" for name in references]
    if references:
        headers.append(f"steps / {next(iter(references))}")
    rows = []
    for task, stats in summary["tasks"].items():
        if domain is not None and not task.startswith(domain + "."):
            continue
        row: list[Any] = [
            task,
            stats["episodes"],
            mean_std(stats),
            percent(stats["pass_at_k"]),
            number(stats["avg_steps_success"]),
        ]
        row += [number(steps.get(task)) for steps in references.values()]
        if references:
            first = next(iter(references.values())).get(task)
            mine = stats["avg_steps_success"]
            row.append(f"{mine / first:.2f}x" if mine is not None and first else "-")
        rows.append(row)
    return Table(headers, rows)


def episode_table(records: Sequence[EpisodeRecord]) -> Table:
    rows = []
    for r in sorted(records, key=lambda r: (r.task_id, r.seed, r.run)):
        links: Any = "-"
        if r.trajectory:
            links = (("view", viewer_url(r.trajectory)), ("raw", r.trajectory + "/"))
        rows.append(
            [
                r.task_id,
                r.seed,
                r.run,
                "yes" if r.success else "no",
                r.steps,
                f"{r.wall_seconds:.1f}s",
                r.completion_tokens,
                (r.error or r.reason)[:120],
                links,
            ]
        )
    return Table(["task", "seed", "run", "success", "steps", "wall", "tokens", "error / verifier", "trajectory"], rows)


def domain_chart(summary: Mapping[str, Any]) -> str:
    domains = list(summary["domains"])
    values = [summary["domains"][d]["mean"] for d in domains]
    errors = [summary["domains"][d]["std"] for d in domains]
    return bar_chart(
        f"Success by domain: {summary['agent']} ({summary['action_mode']})", domains, [("success", values, errors)]
    )


def task_chart(summary: Mapping[str, Any], domain: str) -> str:
    tasks = [t for t in summary["tasks"] if t.startswith(domain + ".")]
    values = [summary["tasks"][t]["mean"] for t in tasks]
    return bar_chart(f"{domain}: success by task", [t.split(".", 1)[1] for t in tasks], [("success", values, None)])


def write_report(
    out: Path | str,
    records: Sequence[EpisodeRecord],
    references: Mapping[str, Sequence[EpisodeRecord]] | None = None,
) -> dict[str, Path]:
    """Write ``summary.json``, ``report.html``, ``report.md`` and the SVG charts into ``out``.

    Args:
        out: the evaluation's output folder.
        records: its records.
        references: named reference evaluations (e.g. ``{"oracle-api": [...], "oracle-gui": [...]}``)
            whose steps per success are shown next to this agent's.

    Returns:
        The paths written, by kind.
    """
    out = Path(out)
    summary = summarize(records)
    steps = {name: reference_steps(summarize(refs)) for name, refs in (references or {}).items()}
    summary["reference_steps"] = steps
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    charts = {"report_domains.svg": domain_chart(summary)}
    for domain in summary["domains"]:
        charts[f"report_{domain}.svg"] = task_chart(summary, domain)
    for name, svg in charts.items():
        (out / name).write_text(svg, encoding="utf-8")
    title = f"Evaluation: {summary['agent']} ({summary['action_mode']})"
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    html_parts = [
        f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title><style>{_STYLE}</style>",
        f"<h1>{html.escape(title)}</h1><p>{summary['episodes']} episodes, {summary['runs']} run(s); {stamp}</p>",
        "<h2>Overall</h2>",
        overall_table(summary).html(),
        "<h2>Domains</h2>",
        charts["report_domains.svg"],
        domain_table(summary).html(),
    ]
    md_parts = [
        f"# {title}",
        f"{summary['episodes']} episodes, {summary['runs']} run(s); {stamp}",
        "## Overall",
        overall_table(summary).markdown(),
        "## Domains",
        "![success by domain](report_domains.svg)",
        domain_table(summary).markdown(),
    ]
    for domain in summary["domains"]:
        table = task_table(summary, steps, domain)
        html_parts += [f"<h2>{html.escape(domain)}</h2>", charts[f"report_{domain}.svg"], table.html()]
        md_parts += [f"## {domain}", table.markdown()]
    episodes = episode_table(records)
    html_parts += ["<h2>Episodes</h2>", episodes.html()]
    md_parts += ["## Episodes", episodes.markdown()]
    paths = {"summary": out / SUMMARY_FILE, "html": out / "report.html", "markdown": out / "report.md"}
    paths["html"].write_text("\n".join(html_parts), encoding="utf-8")
    paths["markdown"].write_text("\n\n".join(md_parts) + "\n", encoding="utf-8")
    return paths
