"""Behavior cloning data: a task's API oracle played on real desktops, recorded as the policy sees it.

Each step's prompt is built exactly as a rollout builds it (the env's ``describe()`` in the
system prompt, the observation, the history), and its completion is the oracle's next call; the
episode ends with ``exit(success=True)``, so the policy also learns when a task is done. Only
episodes the verifier passed are kept (a failed oracle run teaches nothing true). The steps carry
no token ids, so :func:`desktop_gym.train.model_ops.step_sample` tokenizes the completion plus the
end-of-turn token: SFT on them is behavior cloning.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from desktop_gym.episode.prompts import PromptConfig, Turn, build_messages, system_prompt, text_only
from desktop_gym.episode.trajectory import Step, Trajectory

from .rollout import PROMPT_OBSERVATION_PARTS, EpisodeSpec

FINAL_ACTION = "exit(success=True)"
MAX_ORACLE_STEPS = 20


def oracle_actions(task_id: str, params: dict[str, Any]) -> list[str]:
    """The task's API oracle for ``params`` as action lines, then :data:`FINAL_ACTION`.

    Raises:
        ValueError: the task has no API oracle of plain calls, or a longer one than
            :data:`MAX_ORACLE_STEPS`.
    """
    from ..tasks import get_task

    task = get_task(task_id)
    steps = task.api_steps(params) if hasattr(task, "api_steps") else None
    if not steps or not all(isinstance(step, str) for step in steps):
        raise ValueError(f"{task_id} has no API oracle of plain calls to clone")
    if len(steps) >= MAX_ORACLE_STEPS:
        raise ValueError(f"{task_id}'s API oracle has {len(steps)} steps, over {MAX_ORACLE_STEPS - 1}")
    return [*steps, FINAL_ACTION]


def record_oracle(
    envs: Sequence[Any],
    episodes: Sequence[EpisodeSpec],
    prompt: PromptConfig,
    describe_format: str = "python",
) -> list[Trajectory]:
    """Play each episode's API oracle on the envs (one episode per env at a time); the trajectories in order.

    A trajectory's ``success`` is the verifier's verdict after the final action; the caller keeps
    the successful ones.
    """
    queues: list[list[tuple[int, EpisodeSpec]]] = [[] for _ in envs]
    for index, spec in enumerate(episodes):
        queues[index % len(envs)].append((index, spec))

    def run(env: Any, queue: list[tuple[int, EpisodeSpec]]) -> list[tuple[int, Trajectory]]:
        return [(index, _play(env, spec, prompt, describe_format)) for index, spec in queue]

    results: dict[int, Trajectory] = {}
    with ThreadPoolExecutor(max_workers=len(envs), thread_name_prefix="oracle") as threads:
        for done in threads.map(run, envs, queues):
            results.update(done)
    return [results[index] for index in range(len(episodes))]


def _play(env: Any, spec: EpisodeSpec, prompt: PromptConfig, describe_format: str) -> Trajectory:
    started = time.perf_counter()
    trajectory = Trajectory(task_id=spec.task_id, seed=spec.seed, started=time.time(), meta={"group": spec.group_key})
    try:
        observation, info = env.reset(seed=spec.seed, options={"task_id": spec.task_id})
    except Exception as error:  # one desktop failing must not stop the recording
        trajectory.crash = f"reset failed: {type(error).__name__}: {error}"
        return trajectory
    trajectory.instruction = str(info.get("instruction", observation.get("instruction", "")))
    trajectory.params = dict(info.get("params") or {})
    system = system_prompt(env.describe(describe_format), prompt)
    history: list[Turn] = []
    for action in oracle_actions(spec.task_id, trajectory.params):
        messages = build_messages(system, observation, history, prompt)
        step_started = time.perf_counter()
        next_observation, reward, terminated, truncated, step_info = env.step(action)
        trajectory.steps.append(
            Step(
                index=len(trajectory.steps) + 1,
                action=action,
                completion=action,
                observation={k: next_observation[k] for k in PROMPT_OBSERVATION_PARTS if k in next_observation},
                messages=text_only(messages),
                reward=float(reward),
                terminated=bool(terminated),
                truncated=bool(truncated),
                seconds=time.perf_counter() - step_started,
            )
        )
        history.append(Turn(observation, action))
        observation = next_observation
        if terminated or truncated:
            trajectory.success = bool(step_info.get("success"))
            trajectory.verifier = step_info.get("verifier")
            break
    trajectory.seconds = time.perf_counter() - started
    return trajectory
