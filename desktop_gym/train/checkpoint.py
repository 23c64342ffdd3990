"""What a trainer checkpoint holds besides the weights: RNG states and the Entropulse buffer, as files.

A resumed run continues the run it was cut from: the reference model (the initial model until
the first SFT phase, then the saved one), the optimizer, every RNG (numpy's of the trainer and of
the sampler, torch's of the CPU and of each CUDA device), the successful rollouts waiting for the
next SFT phase and the sampler's success estimates come back as they were.

Files inside ``<output>/checkpoint``: ``rng.pt`` (torch RNG states, loaded with
``weights_only=True``), ``buffer.jsonl`` (one trajectory per line: header, steps, end rows, as
``steps.jsonl`` writes them) and ``trainer_state.json`` (counters, numpy RNG states, sampler).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_gym.episode.trajectory import Step, Trajectory

BUFFER_FILE = "buffer.jsonl"
RNG_FILE = "rng.pt"
MAX_BUFFER_TRAJECTORIES = 100_000


def save_buffer(path: Path, trajectories: Sequence[Trajectory]) -> None:
    """Write the trajectories, one JSON line each (``header``, ``steps``, ``end``)."""
    with open(path, "w", encoding="utf-8") as handle:
        for trajectory in trajectories[-MAX_BUFFER_TRAJECTORIES:]:
            row = {
                "header": trajectory.header_row(),
                "steps": [step.to_row() for step in trajectory.steps],
                "end": trajectory.end_row(),
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def load_buffer(path: Path) -> list[Trajectory]:
    """The trajectories :func:`save_buffer` wrote (an absent file: none).

    Raises:
        ValueError: a line is not a buffer row (names the file and line).
    """
    if not path.exists():
        return []
    trajectories = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            try:
                row = json.loads(line)
                header, end = row["header"], row["end"]
                trajectory = Trajectory(
                    task_id=str(header["task_id"]),
                    seed=header.get("seed"),
                    instruction=str(header.get("instruction", "")),
                    params=dict(header.get("params") or {}),
                    started=float(header.get("started") or 0.0),
                    meta=dict(header.get("meta") or {}),
                    success=bool(end.get("success")),
                    verifier=end.get("verifier"),
                    crash=end.get("crash"),
                    seconds=float(end.get("seconds") or 0.0),
                    steps=[Step.from_row(step) for step in row["steps"]],
                )
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                raise ValueError(f"{path}:{number}: not a buffer row ({error})") from error
            trajectories.append(trajectory)
    return trajectories


def save_torch_rng(path: Path) -> None:
    """Write torch's CPU RNG state and every CUDA device's."""
    import torch

    state = {"cpu": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.stack(torch.cuda.get_rng_state_all())
    torch.save(state, path)


def load_torch_rng(path: Path) -> None:
    """Restore what :func:`save_torch_rng` wrote (the CUDA states only where CUDA is there)."""
    import torch

    state = torch.load(path, weights_only=True)
    torch.set_rng_state(state["cpu"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(list(state["cuda"]))


def numpy_rng_state(generator: Any) -> dict[str, Any]:
    """A numpy ``Generator``'s bit-generator state (plain JSON data)."""
    return generator.bit_generator.state


def set_numpy_rng_state(generator: Any, state: dict[str, Any]) -> None:
    """Put a state from :func:`numpy_rng_state` back."""
    generator.bit_generator.state = state
