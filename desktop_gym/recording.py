"""Recording trajectories: JSONL steps + PNG screenshots + a small HTML replay page."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return f"<array {value.shape} {value.dtype}>"
    return value


@dataclass
class TrajectoryRecorder:
    """Writes one episode to ``folder``: ``steps.jsonl``, ``step_NNN.png`` and ``index.html``.

    Call ``start`` after ``reset``, ``record`` after each ``step``, ``finish`` at the end.
    """

    folder: Path
    _rows: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._steps_file = (self.folder / "steps.jsonl").open("w", encoding="utf-8")

    def _save_screenshot(self, index: int, observation: dict[str, Any]) -> str | None:
        screenshot = observation.get("screenshot")
        if screenshot is None:
            return None
        from PIL import Image

        name = f"step_{index:03d}.png"
        Image.fromarray(screenshot).save(self.folder / name, compress_level=1)
        return name

    def _write(self, row: dict[str, Any]) -> None:
        self._rows.append(row)
        self._steps_file.write(json.dumps(_jsonable(row), ensure_ascii=False) + "\n")
        self._steps_file.flush()

    def start(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Record the initial observation (step 0)."""
        self._write(
            {
                "step": 0,
                "instruction": observation.get("instruction", info.get("instruction", "")),
                "task_id": info.get("task_id"),
                "params": info.get("params"),
                "screenshot": self._save_screenshot(0, observation),
            }
        )

    def record(
        self,
        action: str,
        observation: dict[str, Any],
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        """Record one step: the action taken and what came back."""
        index = len(self._rows)
        self._write(
            {
                "step": index,
                "action": action,
                "reward": reward,
                "terminated": terminated,
                "truncated": truncated,
                "result": observation.get("last_action_result", ""),
                "error": observation.get("last_action_error", ""),
                "focused_app": observation.get("focused_app", ""),
                "info": {k: v for k, v in info.items() if k != "params"},
                "screenshot": self._save_screenshot(index, observation),
            }
        )

    def finish(self) -> Path:
        """Close the JSONL file, write ``index.html`` and return its path."""
        self._steps_file.close()
        page = self.folder / "index.html"
        page.write_text(_replay_page(self._rows), encoding="utf-8")
        return page


def _replay_page(rows: list[dict[str, Any]]) -> str:
    header = rows[0] if rows else {}
    cards = []
    for row in rows:
        action = html.escape(str(row.get("action", "(reset)")))
        notes = []
        if row.get("error"):
            notes.append(f"<p class=err>error: {html.escape(str(row['error']))}</p>")
        if row.get("result"):
            notes.append(f"<p>result: {html.escape(str(row['result']))}</p>")
        verdict = (row.get("info") or {}).get("verifier")
        if verdict:
            cls = "ok" if verdict.get("success") else "err"
            notes.append(f"<p class={cls}>verifier: {html.escape(str(verdict.get('reason')))}</p>")
        image = f"<img src='{row['screenshot']}' loading=lazy>" if row.get("screenshot") else ""
        cards.append(
            f"<section><h2>step {row['step']}</h2><pre>{action}</pre>{''.join(notes)}"
            f"<p>reward {row.get('reward', 0)}</p>{image}</section>"
        )
    title = html.escape(str(header.get("task_id", "trajectory")))
    return (
        "<!doctype html><meta charset=utf-8>"
        f"<title>{title}</title><style>body{{font:14px sans-serif;margin:2em;max-width:1300px}}"
        "section{border-top:1px solid #ccc;padding:.5em 0}img{max-width:100%;border:1px solid #999}"
        "pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}.err{color:#b00}.ok{color:#070}</style>"
        f"<h1>{title}</h1><p>{html.escape(str(header.get('instruction', '')))}</p>" + "".join(cards)
    )
