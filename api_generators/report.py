"""The run report: each requested function, its code and tests, each round's result, the verdict.

Written as ``report.md`` (for reading in a repository), ``report.html`` (one page, no external
assets) and ``report.json`` (the numbers, for benchmarks).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pipeline import PipelineRun


def summary(run: PipelineRun) -> dict[str, Any]:
    """The run's numbers: counts, acceptance rate, repair rounds and time per attempted function."""
    attempted = run.attempted
    accepted = [r for r in attempted if r.status in ("accepted", "duplicate")]
    return {
        "app": run.target.app,
        "tool_class": run.target.tool_class,
        "llm": run.llm,
        "tasks": [task.ref for task in run.tasks],
        "requested": len(run.results),
        "reused": run.count("reused"),
        "attempted": len(attempted),
        "accepted": len(accepted),
        "registered": list(run.registration.methods) if run.registration else [],
        "install_refused": run.registration.install_refused if run.registration else "",
        "acceptance_rate": round(len(accepted) / len(attempted), 3) if attempted else 0.0,
        "mean_repair_rounds": round(sum(r.repair_rounds for r in attempted) / len(attempted), 2) if attempted else 0.0,
        "mean_seconds_per_function": round(sum(r.seconds for r in attempted) / len(attempted), 1) if attempted else 0.0,
        "analysis_seconds": round(run.analysis_seconds, 1),
        "seconds": round(run.seconds, 1),
        "tokens": run.analysis_tokens + sum(r.tokens for r in run.results),
        "error": run.error,
        "recording_drift": run.drifted,
    }


def _markdown(run: PipelineRun, numbers: dict[str, Any]) -> str:
    lines = [
        f"# API generation report: {run.target.tool_class} ({run.target.title})",
        "",
        f"- LLM: {run.llm}",
        f"- Example tasks: {', '.join(numbers['tasks'])}",
        f"- Requested {numbers['requested']}, reused {numbers['reused']}, attempted {numbers['attempted']}, "
        f"accepted {numbers['accepted']} (rate {numbers['acceptance_rate']:.0%}); registered: "
        f"{', '.join(numbers['registered']) or 'none'}",
        f"- Mean repair rounds {numbers['mean_repair_rounds']}, mean time per function "
        f"{numbers['mean_seconds_per_function']} s, total {numbers['seconds']} s, tokens {numbers['tokens']}",
    ]
    lines += ["", "Example tasks:", "", *(f"- `{task.ref}`: {task.instruction}" for task in run.tasks)]
    if run.error:
        lines += ["", f"**Error:** {run.error}"]
    if run.drifted:
        lines += ["", f"Replayed for changed prompts (recording drift): {', '.join(run.drifted)}"]
    if run.analysis_reply:
        lines += ["", "The analysis reply:", "", "~~~~text", run.analysis_reply, "~~~~"]
    lines += ["", "| function | status | repair rounds | time (s) | tokens | why |", "|---|---|---|---|---|---|"]
    for r in run.results:
        lines.append(
            f"| `{r.spec.name}` | {r.status} | {r.repair_rounds} | {r.seconds:.1f} | {r.tokens} | "
            f"{r.reason.replace('|', '/').replace(chr(10), ' ')[:200]} |"
        )
    for r in run.results:
        lines += ["", f"## `{r.spec.header()}`", "", f"Status: **{r.status}**: {r.reason}", ""]
        lines.append(f"Needed by: {', '.join(r.spec.tasks) or '-'}")
        if r.status == "reused":
            continue
        for round_result in r.rounds:
            lines += ["", f"### Round {round_result.round}: {round_result.run.verdict}", ""]
            if round_result.run.reason:
                lines += [f"{round_result.run.reason}", ""]
            lines += ["```python", round_result.code, "```"]
            failed = [o for o in round_result.run.outcomes if not o.passed]
            if failed:
                lines += ["", "Failures:", "", "```text", *(f"{o.name}: {o.error}" for o in failed), "```"]
        if r.tests:
            lines += ["", "### Generated tests", "", "```python", r.tests, "```"]
        for reply in r.unusable_replies:
            lines += ["", "### An unusable reply", "", "~~~~text", reply, "~~~~"]
    return "\n".join(lines) + "\n"


_STYLE = (
    "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}"
    "pre{background:#f5f5f5;padding:.6em;overflow-x:auto}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left}"
    ".accepted{color:#060}.rejected{color:#a00}.reused,.duplicate{color:#555}"
)


def _html(run: PipelineRun, numbers: dict[str, Any]) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td><code>{e(r.spec.name)}</code></td><td class='{e(r.status)}'>{e(r.status)}</td>"
        f"<td>{r.repair_rounds}</td><td>{r.seconds:.1f}</td><td>{r.tokens}</td><td>{e(r.reason)}</td></tr>"
        for r in run.results
    )
    sections = []
    for r in run.results:
        parts = [
            f"<h2><code>{e(r.spec.header())}</code></h2>",
            f"<p class='{e(r.status)}'>{e(r.status)}: {e(r.reason)}</p>",
        ]
        for round_result in r.rounds:
            failed = "\n".join(f"{o.name}: {o.error}" for o in round_result.run.outcomes if not o.passed)
            parts.append(
                f"<h3>Round {round_result.round}: {e(round_result.run.verdict)}</h3><p>{e(round_result.run.reason)}</p>"
            )
            parts.append(f"<pre>{e(round_result.code)}</pre>" + (f"<pre>{e(failed)}</pre>" if failed else ""))
        if r.tests:
            parts.append(f"<details><summary>Generated tests</summary><pre>{e(r.tests)}</pre></details>")
        parts += [
            f"<details><summary>An unusable reply</summary><pre>{e(x)}</pre></details>" for x in r.unusable_replies
        ]
        sections.append("".join(parts))
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(run.target.tool_class)} API generation</title>"
        f"<style>{_STYLE}</style></head><body><h1>API generation: {e(run.target.tool_class)}</h1>"
        f"<p>LLM: {e(run.llm)}<br>Tasks: {e(', '.join(numbers['tasks']))}<br>Accepted {numbers['accepted']} of "
        f"{numbers['attempted']} attempted ({numbers['acceptance_rate']:.0%}); {numbers['reused']} reused; "
        f"{numbers['seconds']} s.</p>"
        + (f"<p class='rejected'>{e(run.error)}</p>" if run.error else "")
        + (f"<pre>{e(run.analysis_reply)}</pre>" if run.analysis_reply else "")
        + "<table><tr><th>function</th><th>status</th><th>repair rounds</th><th>time (s)</th><th>tokens</th>"
        f"<th>why</th></tr>{rows}</table>{''.join(sections)}</body></html>\n"
    )


def write_report(run: PipelineRun, out_dir: Path) -> dict[str, Any]:
    """Write ``report.md``, ``report.html`` and ``report.json`` into ``out_dir``; return the numbers."""
    out_dir.mkdir(parents=True, exist_ok=True)
    numbers = summary(run)
    (out_dir / "report.md").write_text(_markdown(run, numbers), encoding="utf-8")
    (out_dir / "report.html").write_text(_html(run, numbers), encoding="utf-8")
    details = {**numbers, "functions": [r.as_dict() for r in run.results]}
    (out_dir / "report.json").write_text(json.dumps(details, indent=1) + "\n", encoding="utf-8")
    return numbers
