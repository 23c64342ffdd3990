"""The miner's report: what ``tasks synth`` generated, kept and dropped, and why (JSON and an HTML page).

Every run appends its numbers to ``report.json`` (``runs``); the page sums them and shows the
kept tasks' shape (calls per program, call kinds), the drop reasons with examples, and a sample of
kept instructions.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..mined_suite import read_index

REPORT_JSON = "report.json"
REPORT_HTML = "report.html"
SHOWN_TASKS = 25


def append_run(folder: Path, run: dict[str, Any]) -> dict[str, Any]:
    """Add one run's numbers to ``<folder>/report.json``; returns the whole report."""
    path = Path(folder) / REPORT_JSON
    report = json.loads(path.read_text()) if path.is_file() else {"runs": []}
    report["runs"].append(run)
    path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    return report


def totals(report: dict[str, Any]) -> dict[str, Any]:
    """The runs summed: kept, candidates, groups, episodes, seconds, drop reasons, calls, call kinds."""
    runs = report.get("runs", [])
    summed: dict[str, Any] = {
        key: sum(r.get(key, 0) for r in runs) for key in ("kept", "candidates", "groups", "episodes")
    }
    summed["seconds"] = round(sum(r.get("seconds", 0.0) for r in runs), 1)
    summed["episode_seconds"] = round(sum(r.get("episode_seconds", 0.0) for r in runs), 1)
    for key in ("dropped", "calls", "call_kinds"):
        counter: Counter[str] = Counter()
        for run in runs:
            counter.update(run.get(key, {}))
        summed[key] = dict(counter.most_common())
    summed["kept_per_minute"] = round(60.0 * summed["kept"] / summed["seconds"], 2) if summed["seconds"] else 0.0
    summed["dropped_total"] = sum(summed["dropped"].values())
    return summed


def _table(rows: list[tuple[Any, ...]], head: tuple[str, ...]) -> str:
    cells = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + cells + "</table>"


def write_html(folder: Path, report: dict[str, Any], shards: dict[str, list[dict[str, Any]]]) -> Path:
    """Write ``<folder>/report.html`` from the report and the kept definitions (by shard)."""
    summed = totals(report)
    examples: dict[str, list[str]] = {}
    for run in report.get("runs", []):
        for reason, shown in run.get("examples", {}).items():
            examples.setdefault(reason, []).extend(shown)
    kept = [d for definitions in shards.values() for d in definitions]
    parts = [
        "<!doctype html><meta charset='utf-8'><title>Mined tasks</title>",
        "<style>body{font:14px sans-serif;margin:2em;max-width:70em}td,th{border:1px solid #ccc;padding:3px 8px;"
        "vertical-align:top}table{border-collapse:collapse;margin:1em 0}</style>",
        "<h1>Mined tasks</h1>",
        f"<p>{len(kept)} proven tasks in the suite; {len(report.get('runs', []))} run(s) of "
        "<code>tasks synth</code>.</p>",
        _table(
            [
                ("groups drawn", summed["groups"]),
                ("candidates run on the desktop", summed["candidates"]),
                ("kept (proven)", summed["kept"]),
                ("dropped", summed["dropped_total"]),
                ("wall seconds", summed["seconds"]),
                ("episode seconds", summed["episode_seconds"]),
                ("kept per minute, one desktop", summed["kept_per_minute"]),
            ],
            ("", "value"),
        ),
        "<h2>Why candidates were dropped</h2>",
        _table(
            [(r, n, " | ".join(examples.get(r, [])[:3])) for r, n in summed["dropped"].items()],
            ("reason", "count", "examples"),
        ),
        "<h2>Kept tasks by number of calls</h2>",
        _table(sorted(summed["calls"].items()), ("calls", "tasks")),
        "<h2>Call kinds in kept tasks</h2>",
        _table(list(summed["call_kinds"].items()), ("call", "tasks")),
        f"<h2>The first {SHOWN_TASKS} kept tasks</h2>",
        _table(
            [(d["id"], d["instruction"], len(d["oracles"]["api"]) - 1) for d in kept[:SHOWN_TASKS]],
            ("id", "instruction", "calls"),
        ),
    ]
    path = Path(folder) / REPORT_HTML
    path.write_text("\n".join(parts) + "\n")
    return path


def kept_by_shard(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """The kept definitions of the folder's shards, by shard name (in index order)."""
    from .synth import read_shard

    shards: dict[str, list[dict[str, Any]]] = {}
    for shard in sorted(set(read_index(folder).values())):
        shards[shard] = read_shard(Path(folder) / shard)
    return shards
