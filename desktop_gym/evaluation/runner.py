"""Run an agent over tasks on N desktops in parallel, resumably: ``run_eval``.

Each worker thread owns one env (an in-process ``DesktopEnv``, or a remote one from the env
server) and one agent, and takes episodes from a shared queue. Finished episodes are appended
to ``results.jsonl`` at once, so a rerun with the same ``--out`` skips them.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from desktop_gym.episode.trajectory import Step, Trajectory, TrajectoryWriter

from ..agents import Agent, AgentOptions, AgentUsage, EpisodeContext, make_agent
from ..tasks import get_task
from .records import CONFIG_FILE, RESULTS_FILE, EpisodeRecord, ResultsError, episode_key, read_config, read_records

ACTION_MODES = ("gui", "api", "hybrid")
ACTION_STYLES = ("computerrl", "computer_13", "pyautogui", "all")
LLM_AGENT_PREFIXES = ("hf:", "openai:")
MAX_EPISODES = 100_000
MAX_ENVS = 64
EnvFactory = Callable[[int], Any]


@dataclass
class EvalConfig:
    """What to evaluate.

    Args:
        tasks: task ids.
        agent: the agent string (``desktop_gym.agents.make_agent``).
        out: the output folder.
        runs: passes over the tasks (mean +- std and pass@k are over runs).
        seeds: task seeds; every (task, seed) is played ``runs`` times.
        envs: desktops in parallel.
        action_mode: ``gui``, ``api`` or ``hybrid``.
        action_style: the GUI vocabulary offered and parsed (``computerrl``, ``computer_13``,
            ``pyautogui`` or ``all``); None: ``computerrl`` for LLM agents (ComputerRL's set alone
            keeps the prompt at ~1,000 tokens instead of ~2,300) and ``all`` for the others (the
            oracles and the null agent also say ``done()`` / ``fail()``).
        backend: the backend of in-process envs.
        max_steps: a step budget for every task (None: each task's own).
        agent_options: LLM agent options.
        record_screenshots: save each step's screenshot in the trajectory.
    """

    tasks: Sequence[str]
    agent: str
    out: Path
    runs: int = 1
    seeds: Sequence[int] = (0,)
    envs: int = 1
    action_mode: str = "hybrid"
    action_style: str | None = None
    backend: str = "local"
    max_steps: int | None = None
    agent_options: AgentOptions = field(default_factory=AgentOptions)
    record_screenshots: bool = True

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        if not self.tasks:
            raise ValueError("tasks: no task to evaluate (give --suite or --task)")
        if self.action_mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {ACTION_MODES}, got {self.action_mode!r}")
        if not 1 <= self.runs <= 1000:
            raise ValueError(f"runs must be in 1..1000, got {self.runs}")
        if not 1 <= self.envs <= MAX_ENVS:
            raise ValueError(f"envs must be in 1..{MAX_ENVS}, got {self.envs}")
        if self.action_style is None:
            self.action_style = "computerrl" if self.agent.startswith(LLM_AGENT_PREFIXES) else "all"
        if self.action_style not in ACTION_STYLES:
            raise ValueError(f"action_style must be one of {ACTION_STYLES}, got {self.action_style!r}")
        if not self.seeds:
            raise ValueError("seeds: give at least one seed")
        if len(self.tasks) * len(self.seeds) * self.runs > MAX_EPISODES:
            raise ValueError(f"at most {MAX_EPISODES} episodes per evaluation")

    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to resume this folder."""
        return {
            "agent": self.agent,
            "action_mode": self.action_mode,
            "action_style": self.action_style,
            "max_steps": self.max_steps,
            "agent_options": asdict(self.agent_options),
        }

    def episodes(self) -> list[tuple[str, int, int]]:
        """Every (task, seed, run), run-major so that early results cover every task."""
        return [(task, seed, run) for run in range(self.runs) for task in self.tasks for seed in self.seeds]


def local_env_factory(config: EvalConfig) -> EnvFactory:
    """Makes in-process ``DesktopEnv``s for ``config``."""

    def make(index: int) -> Any:
        from ..actions import ActionSet
        from ..env import DesktopEnv

        return DesktopEnv(
            backend=config.backend,
            action_mode=config.action_mode,
            action_set=ActionSet(style=config.action_style),
            max_steps=config.max_steps,
        )

    return make


def remote_env_factory(config: EvalConfig, servers: Sequence[str], token: str | None = None) -> EnvFactory:
    """Makes envs on env servers (``desktop_gym.serve.RemoteEnv``), worker ``i`` on server ``i % len``.

    Args:
        config: what to evaluate (action mode and step budget travel to the server).
        servers: ``HOST:PORT`` addresses (``desktop-gym serve`` prints them).
        token: the servers' token (``$DESKTOP_GYM_TOKEN`` when None).

    Raises:
        RuntimeError: this install has no env server client.
    """
    if not servers:
        raise ValueError("servers: give at least one env server address")
    try:
        from ..serve import RemoteEnv
    except (ImportError, AttributeError) as error:
        raise RuntimeError(f"--servers needs the env server client (desktop_gym.serve.RemoteEnv): {error}") from error

    def make(index: int) -> Any:
        return RemoteEnv(
            address=servers[index % len(servers)],
            token=token if token is not None else os.environ.get("DESKTOP_GYM_TOKEN"),
            action_mode=config.action_mode,
            max_steps=config.max_steps,
        )

    return make


def prepare_out(config: EvalConfig) -> list[EpisodeRecord]:
    """Create or reopen the output folder; the records already there (to skip).

    Raises:
        ResultsError: the folder holds an evaluation of another agent or action mode.
    """
    config.out.mkdir(parents=True, exist_ok=True)
    existing = read_config(config.out)
    identity = config.identity()
    if existing and existing.get("identity") != identity:
        raise ResultsError(
            f"{config.out / CONFIG_FILE}: the folder holds an evaluation of {existing.get('identity')}, "
            f"not {identity}; use another --out"
        )
    tasks = list(dict.fromkeys([*existing.get("tasks", []), *config.tasks]))
    seeds = sorted({*existing.get("seeds", []), *config.seeds})
    runs = max(int(existing.get("runs", 0)), config.runs)
    payload = {"identity": identity, "tasks": tasks, "seeds": seeds, "runs": runs, "backend": config.backend}
    (config.out / CONFIG_FILE).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    if not (config.out / RESULTS_FILE).exists():
        return []
    return read_records(config.out)


def run_eval(
    config: EvalConfig,
    *,
    env_factory: EnvFactory | None = None,
    progress: bool = True,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> list[EpisodeRecord]:
    """Play every episode of ``config`` not yet in its output folder; returns all its records.

    Args:
        config: what to evaluate.
        env_factory: makes worker ``i``'s env (default: in-process ``DesktopEnv``s).
        progress: show a progress bar with the live success rate.
        on_record: called with each new record.
    """
    done = {record.key: record for record in prepare_out(config)}
    pending = [e for e in config.episodes() if episode_key(*e) not in done]
    factory = env_factory or local_env_factory(config)
    work: queue.Queue[tuple[str, int, int]] = queue.Queue()
    for episode in pending:
        work.put(episode)
    lock = threading.Lock()
    new_records: list[EpisodeRecord] = []
    bar = _progress_bar(len(pending), config, progress)
    results_file = (config.out / RESULTS_FILE).open("a", encoding="utf-8")

    def finish(record: EpisodeRecord) -> None:
        with lock:
            results_file.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
            results_file.flush()
            new_records.append(record)
            if bar is not None:
                wins = sum(r.success for r in new_records)
                bar.set_postfix_str(f"success {wins}/{len(new_records)} ({100 * wins / len(new_records):.0f}%)")
                bar.update(1)
        if on_record is not None:
            on_record(record)

    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            env = factory(index)
        except BaseException as error:  # noqa: BLE001  (reported after the other workers finish)
            errors.append(error)
            return
        try:
            agent = make_agent(config.agent, config.agent_options)
            while True:
                try:
                    task_id, seed, run = work.get_nowait()
                except queue.Empty:
                    return
                finish(play_episode(env, agent, config, task_id, seed, run))
        except BaseException as error:  # noqa: BLE001
            errors.append(error)
        finally:
            env.close()

    workers = [
        threading.Thread(target=worker, args=(i,), name=f"eval-env-{i}") for i in range(min(config.envs, len(pending)))
    ]
    try:
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
    finally:
        results_file.close()
        if bar is not None:
            bar.close()
    if errors and len(new_records) < len(pending):
        raise errors[0]
    return read_records(config.out) if (config.out / RESULTS_FILE).exists() else []


def _progress_bar(total: int, config: EvalConfig, enabled: bool) -> Any:
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=f"eval {config.agent} ({config.action_mode}, {config.envs} envs)", unit="ep")


def play_episode(env: Any, agent: Agent, config: EvalConfig, task_id: str, seed: int, run: int) -> EpisodeRecord:
    """Play one episode and write its trajectory; failures become the record's ``error``."""
    record = EpisodeRecord(task_id=task_id, seed=seed, run=run, agent=config.agent, action_mode=config.action_mode)
    relative = Path("trajectories") / task_id / f"seed{seed}-run{run}"
    started = time.perf_counter()
    writer: TrajectoryWriter | None = None
    agent.usage = AgentUsage()
    try:
        observation, info = env.reset(seed=seed, options={"task_id": task_id})
        record.reset_seconds = float(info.get("reset_seconds", time.perf_counter() - started))
        trajectory = Trajectory(
            task_id=task_id,
            seed=seed,
            instruction=str(info.get("instruction", "")),
            params=dict(info.get("params", {})),
            started=time.time(),
            meta={"agent": config.agent, "action_mode": config.action_mode, "run": run},
        )
        writer = TrajectoryWriter(config.out / relative, trajectory)
        record.trajectory = str(writer.folder.relative_to(config.out))
        writer.begin(_screenshot(observation, config))
        context = EpisodeContext(
            task=getattr(env.unwrapped, "_task", None) or get_task(task_id),
            params=info.get("params", {}),
            action_mode=config.action_mode,
            describe=env.describe,
            tool_schemas=env.tool_schemas,
            seed=seed * 1000 + run,
        )
        agent.reset(trajectory.instruction, context)
        step_info: dict[str, Any] = {}
        reward, done = 0.0, False
        while not done:
            step_started = time.perf_counter()
            action = agent.act(observation, info)
            observation, reward, terminated, truncated, step_info = env.step(action)
            done = terminated or truncated
            error = step_info.get("action_error")
            record.action_errors += bool(error)
            step = Step(
                index=int(step_info.get("step", record.steps + 1)),
                action=action,
                observation={k: v for k, v in observation.items() if isinstance(v, str)},
                reward=float(reward),
                terminated=bool(terminated),
                truncated=bool(truncated),
                well_formed=not error,
                info={k: v for k, v in step_info.items() if k != "params"},
                seconds=time.perf_counter() - step_started,
            )
            writer.add_step(step, _screenshot(observation, config))
            record.steps += 1
        record.success = bool(step_info.get("success", False))
        record.reward = float(reward)
        verdict = step_info.get("verifier") or {}
        record.reason = str(verdict.get("reason", ""))[:500]
        if step_info.get("crash"):
            record.error = f"crash: {step_info['crash']}"[:500]
        trajectory.success, trajectory.verifier, trajectory.crash = (
            record.success,
            verdict or None,
            step_info.get("crash"),
        )
    except Exception as error:  # noqa: BLE001  (one broken episode must not end the evaluation)
        record.error = f"{type(error).__name__}: {error}"[:500]
        record.extra["traceback"] = traceback.format_exc(limit=8)[-2000:]
    finally:
        record.wall_seconds = time.perf_counter() - started
        usage = agent.usage
        record.prompt_tokens, record.completion_tokens = usage.prompt_tokens, usage.completion_tokens
        record.generation_seconds = usage.generation_seconds
        if writer is not None:
            writer.trajectory.seconds = record.wall_seconds
            writer.end()
    return record


def _screenshot(observation: dict[str, Any], config: EvalConfig) -> Any:
    return observation.get("screenshot") if config.record_screenshots else None
