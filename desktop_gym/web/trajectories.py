"""The viewer's data: trajectories below a root folder as JSON, and files confined to that root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_gym.episode.trajectory import load_trajectories, read_trajectory
from desktop_gym.episode.video import VIDEO_FILE

MAX_LISTED = 5_000  # episodes listed at most
MAX_TEXT = 20_000  # characters of a11y tree / app_info sent per step
RESET_SCREENSHOT = "step_000.png"


def confined(root: Path, relative: str) -> Path:
    """``root / relative`` resolved, refusing anything that leaves ``root`` (``..``, symlinks out).

    Raises:
        PermissionError: the path leaves the root.
    """
    root = root.resolve()
    target = (root / relative).resolve()
    if target != root and root not in target.parents:
        raise PermissionError(f"path {relative!r} leaves the viewer's folder")
    return target


def _run_of(root: Path, folder: Path) -> str:
    """The run an episode belongs to: the first folder below the root (or ``.``)."""
    parts = folder.relative_to(root).parts
    return parts[0] if len(parts) > 1 else "."


def list_episodes(root: Path, task: str = "", success: str = "") -> list[dict[str, Any]]:
    """Every trajectory below ``root`` (complete or not), optionally filtered by task and success."""
    root = root.resolve()
    rows = []
    for trajectory in load_trajectories(root, complete_only=False, limit=MAX_LISTED):
        if task and task not in trajectory.task_id:
            continue
        if success in ("1", "0") and trajectory.success != (success == "1"):
            continue
        folder = Path(trajectory.folder or root).resolve()
        rows.append(
            {
                "path": folder.relative_to(root).as_posix() or ".",
                "run": _run_of(root, folder),
                "task_id": trajectory.task_id,
                "seed": trajectory.seed,
                "steps": len(trajectory.steps),
                "success": trajectory.success,
                "complete": trajectory.complete,
                "source": str(trajectory.meta.get("source", trajectory.meta.get("agent", ""))),
                "seconds": round(trajectory.seconds, 2),
            }
        )
    return rows


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return value[:MAX_TEXT] + f"\n... ({len(value) - MAX_TEXT} more characters)"
    return value


def episode(root: Path, relative: str) -> dict[str, Any]:
    """One trajectory as the viewer page needs it (screenshots as URLs relative to the root)."""
    folder = confined(root, relative)
    trajectory = read_trajectory(folder)
    prefix = folder.relative_to(root.resolve()).as_posix()
    prefix = "" if prefix in ("", ".") else prefix + "/"
    reset_shot = trajectory.meta.get("reset_screenshot")
    if not reset_shot and (folder / RESET_SCREENSHOT).is_file():
        reset_shot = RESET_SCREENSHOT  # the writer saves it after the header row is out
    steps = []
    for step in trajectory.steps:
        observation = {key: _clip(value) for key, value in (step.observation or {}).items()}
        steps.append(
            {
                "index": step.index,
                "action": step.action,
                "completion": step.completion,
                "screenshot": f"/files/{prefix}{step.screenshot}" if step.screenshot else None,
                "result": observation.get("last_action_result") or "",
                "error": observation.get("last_action_error") or "",
                "app_info": observation.get("app_info") or "",
                "a11y_tree": observation.get("a11y_tree") or "",
                "reward": step.reward,
                "well_formed": step.well_formed,
                "terminated": step.terminated,
                "truncated": step.truncated,
                "seconds": step.seconds,
            }
        )
    return {
        "path": prefix.rstrip("/") or ".",
        "task_id": trajectory.task_id,
        "seed": trajectory.seed,
        "instruction": trajectory.instruction,
        "reset_screenshot": f"/files/{prefix}{reset_shot}" if reset_shot else None,
        "video": f"/files/{prefix}{VIDEO_FILE}" if (folder / VIDEO_FILE).is_file() else None,
        "steps": steps,
        "success": trajectory.success,
        "complete": trajectory.complete,
        "verifier": trajectory.verifier,
        "crash": trajectory.crash,
        "seconds": trajectory.seconds,
    }


def find_metrics(root: Path) -> list[str]:
    """Training runs below ``root``: paths of their ``metrics.jsonl``, relative to the root."""
    root = root.resolve()
    found = []
    for path in sorted(root.rglob("metrics.jsonl")):
        found.append(path.relative_to(root).as_posix())
        if len(found) >= MAX_LISTED:
            break
    return found
