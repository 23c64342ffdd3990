"""Rollouts: G episodes per task over many envs at once, one policy batch per round.

The collector drives every env in lockstep: envs whose episode ended take the next pending
episode (resets run in parallel threads), then the prompts of all running episodes go to the
policy as one batch, then every env steps in parallel. Any object with Gymnasium's
``reset``/``step`` and ``describe()`` works: an in-process ``DesktopEnv`` or a ``RemoteEnv`` of
the env server (``desktop_gym.serve``). A step that raises ends that episode as a crash (the
step is never retried); the env is reset for the next one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_gym.episode.images import ImageStore, store_images
from desktop_gym.episode.prompts import (
    Generation,
    Messages,
    Policy,
    PromptConfig,
    Turn,
    build_messages,
    system_prompt,
    text_only,
)
from desktop_gym.episode.trajectory import Step, Trajectory, TrajectoryWriter

from .rewards import RewardRule, assign_rewards

MAX_EPISODES_PER_COLLECT = 10_000
PROMPT_OBSERVATION_PARTS = (
    "instruction",
    "focused_app",
    "app_info",
    "a11y_tree",
    "last_action_result",
    "last_action_error",
)


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to run: a task, a seed (the task instance) and its group key for GRPO."""

    task_id: str
    seed: int
    group: str = ""

    @property
    def group_key(self) -> str:
        """Every step of the G episodes of one task instance shares this key."""
        return self.group or f"{self.task_id}#{self.seed}"


def grouped_episodes(tasks: Sequence[tuple[str, int]], group_size: int) -> list[EpisodeSpec]:
    """``group_size`` episodes of each (task id, seed), kept together."""
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1, got {group_size}")
    return [EpisodeSpec(task_id, seed) for task_id, seed in tasks for _ in range(group_size)]


def well_formed_checker(env: Any) -> Callable[[str], bool]:
    """A function telling whether an action text parses with ``env``'s action parser."""
    from ..actions import ActionParseError, ActionSet
    from ..guest.apps import registry

    exposure = getattr(getattr(env, "unwrapped", env), "exposure", None)
    parser = exposure.parser if exposure is not None else ActionSet(api_classes=registry.api_classes())

    def check(text: str) -> bool:
        try:
            return bool(parser.parse(text))
        except ActionParseError:
            return False

    return check


@dataclass
class _Slot:
    env: Any
    spec: EpisodeSpec | None = None
    trajectory: Trajectory | None = None
    writer: TrajectoryWriter | None = None
    system: str = ""
    observation: dict[str, Any] = field(default_factory=dict)
    history: list[Turn] = field(default_factory=list)
    started: float = 0.0
    reserved: tuple[int, EpisodeSpec] | None = None  # with prefetch: the slot's next episode (index, spec)


@dataclass
class RolloutStats:
    """What one ``collect`` cost: episodes, steps, generated tokens and the time split."""

    episodes: int = 0
    steps: int = 0
    tokens: int = 0
    seconds: float = 0.0
    generate_seconds: float = 0.0
    env_seconds: float = 0.0


class RolloutCollector:
    """Runs episodes of a policy over a set of envs.

    Args:
        envs: the envs (each owns one desktop); episodes run on all of them at once.
        policy: answers a batch of prompts.
        prompt: how observations become messages (the prefill lives here).
        reward_rule: sets step rewards of each finished trajectory (a function or a registered name).
        record_dir: when set, every trajectory is written below it (with screenshots if observed).
        describe_format: ``env.describe`` format for the system prompt.
        image_dir: with ``prompt.vision`` and no ``record_dir``, where the prompts' screenshots are
            written (a recorded trajectory keeps them in its own folder). A step keeps its prompt
            with each screenshot as a PNG file path (:mod:`desktop_gym.episode.images`), never the
            pixels, so trajectories held for training cost no image memory.
        prefetch: each env is given its next episode when it starts one (the episode after it in
            ``collect``'s order is reserved for the same env) and prepares it on a second desktop
            (``DesktopEnv.reset``'s ``prefetch`` option), so its next reset is a swap.

    Raises:
        ValueError: no envs; or ``prompt.vision`` with neither ``record_dir`` nor ``image_dir``.
    """

    def __init__(
        self,
        envs: Sequence[Any],
        policy: Policy,
        prompt: PromptConfig | None = None,
        reward_rule: RewardRule | str = "computerrl",
        record_dir: Path | str | None = None,
        describe_format: str = "python",
        image_dir: Path | str | None = None,
        prefetch: bool = False,
    ) -> None:
        if not envs:
            raise ValueError("RolloutCollector needs at least one env")
        if prompt is not None and prompt.vision and not (record_dir or image_dir):
            raise ValueError("a vision prompt's screenshots need a folder: pass record_dir or image_dir")
        self.image_dir = Path(image_dir) if image_dir else None
        self.envs = list(envs)
        self.policy = policy
        self.prompt = prompt or PromptConfig()
        self.reward_rule = reward_rule
        self.record_dir = Path(record_dir) if record_dir else None
        self.describe_format = describe_format
        self.prefetch = prefetch
        self._well_formed = well_formed_checker(self.envs[0])
        self._threads = ThreadPoolExecutor(max_workers=len(self.envs), thread_name_prefix="rollout")
        self.stats = RolloutStats()

    def close(self) -> None:
        """Stop the worker threads (the envs stay open: the caller owns them)."""
        self._threads.shutdown(wait=True)

    def collect(
        self, episodes: Sequence[EpisodeSpec], progress: bool = True, desc: str = "rollouts"
    ) -> list[Trajectory]:
        """Run every episode; returns the finished trajectories in the order of ``episodes``."""
        from tqdm import tqdm

        if len(episodes) > MAX_EPISODES_PER_COLLECT:
            raise ValueError(f"at most {MAX_EPISODES_PER_COLLECT} episodes per collect, got {len(episodes)}")
        started = time.perf_counter()
        self.stats = RolloutStats()
        pending = list(enumerate(episodes))
        results: dict[int, Trajectory] = {}
        slots = [_Slot(env) for env in self.envs]
        order: dict[int, int] = {}  # id(slot) -> episode index
        with tqdm(total=len(episodes), desc=desc, disable=not progress, leave=False) as bar:
            while pending or any(slot.spec is not None or slot.reserved is not None for slot in slots):
                starts = []
                for slot in slots:
                    if slot.spec is None and (pending or slot.reserved is not None):
                        # A prefetching slot runs the episode it reserved (and prepared) first.
                        index, spec = slot.reserved if slot.reserved is not None else pending.pop(0)
                        slot.reserved = pending.pop(0) if self.prefetch and pending else None
                        order[id(slot)] = index
                        slot.spec = spec  # taken now, so the next slot gets the next episode
                        starts.append((slot, spec))
                env_started = time.perf_counter()
                for slot, finished in zip(
                    [s for s, _ in starts], self._threads.map(lambda pair: self._start(*pair), starts), strict=True
                ):
                    if finished is not None:  # the reset itself failed
                        results[order[id(slot)]] = finished
                        bar.update(1)
                self.stats.env_seconds += time.perf_counter() - env_started
                active = [slot for slot in slots if slot.spec is not None]
                if not active:
                    continue
                prompts = [self._messages(slot) for slot in active]
                generate_started = time.perf_counter()
                generations = self.policy.generate(prompts)
                self.stats.generate_seconds += time.perf_counter() - generate_started
                env_started = time.perf_counter()
                work = list(zip(active, prompts, generations, strict=True))
                for slot, finished in zip(active, self._threads.map(lambda item: self._step(*item), work), strict=True):
                    if finished is not None:
                        results[order[id(slot)]] = finished
                        bar.update(1)
                self.stats.env_seconds += time.perf_counter() - env_started
        self.stats.episodes = len(results)
        self.stats.seconds = time.perf_counter() - started
        return [results[index] for index in range(len(episodes))]

    # ------------------------------------------------------------------ one env
    def _messages(self, slot: _Slot) -> list[dict[str, Any]]:
        return build_messages(slot.system, slot.observation, slot.history, self.prompt)

    def _start(self, slot: _Slot, spec: EpisodeSpec) -> Trajectory | None:
        """Reset ``slot.env`` for ``spec``; a failed reset returns a finished crash trajectory."""
        slot.spec, slot.history, slot.started = spec, [], time.perf_counter()
        trajectory = Trajectory(
            task_id=spec.task_id, seed=spec.seed, started=time.time(), meta={"group": spec.group_key}
        )
        slot.trajectory = trajectory
        options: dict[str, Any] = {"task_id": spec.task_id}
        if slot.reserved is not None:  # prepared on a second desktop while this episode runs
            options["prefetch"] = {"task_id": slot.reserved[1].task_id, "seed": slot.reserved[1].seed}
        try:
            observation, info = slot.env.reset(seed=spec.seed, options=options)
        except Exception as error:  # a desktop that fails to reset must not stop the whole collection
            trajectory.crash = f"reset failed: {type(error).__name__}: {error}"
            return self._finish(slot)
        trajectory.instruction = str(info.get("instruction", observation.get("instruction", "")))
        trajectory.params = dict(info.get("params") or {})
        trajectory.meta["reset_seconds"] = info.get("reset_seconds")
        if info.get("prefetched"):
            trajectory.meta["prefetch_seconds"] = info.get("prefetch_seconds")
        slot.observation = observation
        slot.system = system_prompt(slot.env.describe(self.describe_format), self.prompt)
        if self.record_dir is not None:
            name = f"{spec.task_id}-seed{spec.seed}"
            slot.writer = TrajectoryWriter(self.record_dir / name, trajectory)
            slot.writer.begin(observation.get("screenshot"))
        return None

    def _step(self, slot: _Slot, messages: list[dict[str, Any]], generation: Generation) -> Trajectory | None:
        """Apply one generated action; returns the trajectory when the episode ended."""
        assert slot.trajectory is not None
        prefill = self.prompt.prefill or ""
        action = prefill + generation.text
        step_started = time.perf_counter()
        crash = None
        try:
            observation, _, terminated, truncated, info = slot.env.step(action)
        except Exception as error:  # never retried: the episode ends as a crash
            observation, terminated, truncated = {}, False, True
            info = {"crash": f"step failed: {type(error).__name__}: {error}"}
            crash = info["crash"]
        step = Step(
            index=len(slot.trajectory.steps) + 1,
            action=action,
            completion=generation.text,
            observation={k: observation[k] for k in PROMPT_OBSERVATION_PARTS if k in observation},
            messages=self._kept_messages(slot, messages),
            terminated=bool(terminated),
            truncated=bool(truncated),
            well_formed=self._well_formed(action),
            logprobs=generation.token_logprobs,
            policy_version=generation.policy_version,
            info={**info, "token_ids": generation.token_ids},
            seconds=time.perf_counter() - step_started,
        )
        self.stats.steps += 1
        self.stats.tokens += len(generation.token_ids or generation.token_logprobs or [])
        if slot.writer is not None:
            slot.writer.add_step(step, observation.get("screenshot"))
        else:
            slot.trajectory.steps.append(step)
        slot.history.append(Turn(slot.observation, action))
        slot.observation = observation
        if terminated or truncated:
            slot.trajectory.success = bool(info.get("success"))
            slot.trajectory.verifier = info.get("verifier")
            slot.trajectory.crash = crash or info.get("crash")
            return self._finish(slot)
        return None

    def _kept_messages(self, slot: _Slot, messages: Messages) -> Messages:
        """The prompt as the step keeps it: text only, or (vision) with screenshots as PNG file paths."""
        if not self.prompt.vision:
            return text_only(messages)
        folder = slot.writer.folder if slot.writer is not None else self.image_dir
        assert folder is not None  # checked in __init__
        return store_images(messages, ImageStore(folder))

    def _finish(self, slot: _Slot) -> Trajectory:
        trajectory = slot.trajectory
        assert trajectory is not None
        trajectory.seconds = time.perf_counter() - slot.started
        assign_rewards(trajectory, self.reward_rule)
        if slot.writer is not None:
            slot.writer.end()
        slot.spec, slot.trajectory, slot.writer, slot.history = None, None, None, []
        return trajectory
