"""Proof that a task is sound, run on a real desktop: ``check_task(task_id) -> TaskProof``.

For each seed: every oracle the task has (API, GUI) must succeed, the null agent (``done()``
at once) must fail, and the oracle playing with one perturbed parameter must fail (so the
verifier really checks that value). An infeasible task is proven when its oracle (``fail()``)
succeeds and ``done()`` fails. One env (one desktop) can serve many tasks: each episode switches
the task with ``reset(options={"task_id": ...})``.

Beyond those, the reward hacking attacks of ``reward_attacks`` must fail too: the file-level ones
for every task (judged on forged files without a desktop, so they cost little), and the
episode-level ones where asked (``episode_attacks=True``).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .reward_attacks import EPISODE_ATTACKS, episode_attack_policy, run_file_attacks
from .tasks import ScriptedPolicy, Task, get_task, null_policy
from .tasks.base import ORACLE_KINDS

Policy = Callable[[Mapping[str, Any]], str]
PERTURB_SEED_OFFSET = 7919  # the perturbation's RNG differs from the episode's, reproducibly


@dataclass
class EpisodeCheck:
    """One checked episode.

    Attributes:
        kind: ``api``, ``gui``, ``oracle`` (infeasible tasks), ``null`` or ``perturbed``.
        seed: the reset seed.
        expected_success: what a sound task gives for this kind of episode.
        success: what the verifier said (None when the episode could not run).
        reason: the verifier's reason, or the error that stopped the episode.
        steps: steps taken.
        seconds: wall time of reset plus the episode.
    """

    kind: str
    seed: int
    expected_success: bool
    success: bool | None
    reason: str
    steps: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.success is not None and self.success == self.expected_success


@dataclass
class TaskProof:
    """The outcome of ``check_task``: ``proven`` when every episode came out as a sound task's would."""

    task_id: str
    seeds: tuple[int, ...]
    episodes: list[EpisodeCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    attacks_not_applicable: list[str] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        return not self.problems and bool(self.episodes) and all(e.ok for e in self.episodes)

    @property
    def oracle_kinds(self) -> list[str]:
        """The oracle kinds checked (``api``, ``gui``, or ``oracle`` for infeasible tasks)."""
        return sorted({e.kind for e in self.episodes if e.expected_success})

    def attack_verdict(self) -> str:
        """``ok`` when every attack mounted failed, ``FAIL`` when one passed, ``n/a`` when none applied."""
        attacks = [e for e in self.episodes if e.kind.startswith("attack")]
        if not attacks:
            return "n/a"
        return "ok" if all(e.ok for e in attacks) else "FAIL"

    def verdict(self, kind: str) -> str:
        """``ok`` / ``FAIL`` / ``-`` (not run) for one episode kind over all seeds."""
        episodes = [e for e in self.episodes if e.kind == kind]
        if not episodes:
            return "-"
        return "ok" if all(e.ok for e in episodes) else "FAIL"

    def why_unproven(self) -> list[str]:
        """One line per problem or episode that did not come out as expected."""
        lines = list(self.problems)
        for e in self.episodes:
            if not e.ok:
                wanted = "succeed" if e.expected_success else "fail"
                lines.append(f"{e.kind} (seed {e.seed}) should {wanted}: {e.reason}")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "proven": self.proven,
            "oracle_kinds": self.oracle_kinds,
            "seconds": round(self.seconds, 2),
            "problems": self.why_unproven(),
            "episodes": [asdict(e) | {"ok": e.ok} for e in self.episodes],
            "attacks_not_applicable": self.attacks_not_applicable,
        }


def _run_episode(
    env: Any, task_id: str, seed: int, kind: str, expected: bool, make_policy: Callable[..., Policy]
) -> EpisodeCheck:
    started = time.perf_counter()
    steps = 0
    try:
        observation, info = env.reset(seed=seed, options={"task_id": task_id})
        policy = make_policy(info["params"])
        while True:
            observation, _reward, terminated, truncated, step_info = env.step(policy(observation))
            steps += 1
            if terminated or truncated:
                break
        verdict = step_info.get("verifier", {})
        reason = verdict.get("reason") or step_info.get("crash") or ("truncated" if truncated else "")
        if getattr(policy, "gave_up", None):  # a GUI script that played fail() says what it waited for
            reason = f"{reason} (the script {policy.gave_up})" if reason else f"the script {policy.gave_up}"
        success: bool | None = bool(step_info.get("success"))
    except Exception as error:  # noqa: BLE001 - a broken task must be reported, not crash the whole check
        reason, success = f"{type(error).__name__}: {error}", None
    return EpisodeCheck(kind, seed, expected, success, reason, steps, time.perf_counter() - started)


def _plan(task: Task, seed: int) -> tuple[list[tuple[str, bool, Callable[..., Policy]]], list[str]]:
    """The episodes to run for one seed, and the problems that keep the task unproven before any runs."""
    null: Callable[..., Policy] = lambda params: null_policy  # noqa: E731
    if task.infeasible:
        return [("oracle", True, task.oracle), ("null", False, null)], []
    sampled = task.sample_params(np.random.default_rng(seed))
    declared = tuple(getattr(task, "oracles", ORACLE_KINDS))
    episodes = [(kind, True, functools.partial(task.oracle_of_kind, kind)) for kind in declared]
    problems = [] if episodes else ["the task declares no oracle (its 'oracles' is empty)"]
    problems += [
        f"the task declares a {kind!r} oracle, but {kind}_oracle() returned None"
        for kind in declared
        if task.oracle_of_kind(kind, sampled) is None
    ]
    episodes.append(("null", False, null))
    rng = np.random.default_rng(seed + PERTURB_SEED_OFFSET)
    try:
        task.perturb(sampled, np.random.default_rng(seed))
        episodes.append(("perturbed", False, lambda params: task.perturbed_oracle(params, rng)))
    except NotImplementedError:
        problems.append(
            "the task does not define perturb(), so nothing shows the verifier checks what the oracle writes"
        )
    except Exception:  # noqa: BLE001 - a broken perturb() shows up as the perturbed episode's error
        episodes.append(("perturbed", False, lambda params: task.perturbed_oracle(params, rng)))
    return episodes, problems


def _file_attack_checks(task: Task, seed: int, proof: TaskProof) -> None:
    """Judge the file-level attacks for one seed into ``proof`` (no desktop needed)."""
    started = time.perf_counter()
    for outcome in run_file_attacks(task, seed):
        if not outcome.applicable:
            note = f"{outcome.attack}: {outcome.reason}"
            if note not in proof.attacks_not_applicable:
                proof.attacks_not_applicable.append(note)
            continue
        proof.episodes.append(
            EpisodeCheck(
                f"attack: {outcome.attack}",
                seed,
                False,
                outcome.passed,
                outcome.reason,
                seconds=time.perf_counter() - started,
            )
        )
        started = time.perf_counter()


def _episode_attacks(task: Task) -> list[tuple[str, bool, Callable[..., Policy]]]:
    """The episode-level attacks that apply to ``task``, as planned episodes that must fail."""
    if task.infeasible:
        return []
    planned = []
    for name, actions in EPISODE_ATTACKS.items():
        script = episode_attack_policy(actions, task.apps)
        if script is not None:
            planned.append((f"attack: {name}", False, lambda params, script=script: ScriptedPolicy(script)))
    return planned


def check_task(
    task_id: str,
    seeds: Sequence[int] = (0,),
    backend: Any = None,
    env: Any = None,
    file_attacks: bool = True,
    episode_attacks: bool = False,
) -> TaskProof:
    """Prove a task on a real desktop: oracles pass; the null agent, the perturbed oracle and attacks fail.

    Args:
        task_id: a registered task id.
        seeds: reset seeds to check (each gives its own parameters).
        backend: a backend name or instance for a new env (``"local"`` when None); ignored with ``env``.
        env: an existing ``DesktopEnv`` to reuse (not closed here), so many tasks share one desktop.
        file_attacks: judge the file-level reward hacking attacks (no desktop needed).
        episode_attacks: also play the episode-level attacks on the desktop.

    Returns:
        a ``TaskProof``; ``proof.proven`` is the verdict and ``proof.why_unproven()`` the reasons.
    """
    from .env import DesktopEnv

    started = time.perf_counter()
    proof = TaskProof(task_id=task_id, seeds=tuple(seeds))
    task = get_task(task_id)
    own_env = env is None
    if own_env:
        env = DesktopEnv(task_id=task_id, backend=backend or "local")
    try:
        for seed in seeds:
            if file_attacks:
                _file_attack_checks(task, seed, proof)
            episodes, problems = _plan(task, seed)
            if episode_attacks:
                episodes.extend(_episode_attacks(task))
            proof.problems.extend(p for p in problems if p not in proof.problems)
            for kind, expected, make_policy in episodes:
                proof.episodes.append(_run_episode(env, task_id, seed, kind, expected, make_policy))
    finally:
        if own_env:
            env.close()
    proof.seconds = time.perf_counter() - started
    return proof


def check_tasks(
    task_ids: Iterable[str],
    seeds: Sequence[int] = (0,),
    env: Any = None,
    backend: str = "local",
    on_result: Callable[[TaskProof], None] | None = None,
    jobs: int = 1,
    file_attacks: bool = True,
    episode_attacks: Iterable[str] = (),
) -> list[TaskProof]:
    """``check_task`` for many tasks, each desktop reused across tasks; results in the order given.

    Args:
        task_ids: the tasks to prove.
        seeds: reset seeds per task.
        env: one env to use for all (``jobs`` is then ignored); else each worker makes its own.
        backend: the backend name for envs made here.
        on_result: called with each proof as it is ready (from worker threads when ``jobs > 1``).
        jobs: desktops checking tasks in parallel, one thread each.
        file_attacks: judge the file-level reward hacking attacks for every task.
        episode_attacks: the task ids that also get the episode-level attacks.
    """
    from .env import DesktopEnv

    task_ids = list(task_ids)
    attacked = set(episode_attacks)
    proofs: list[TaskProof | None] = [None] * len(task_ids)
    pending = list(enumerate(task_ids))
    lock = threading.Lock()

    def work(shared: Any) -> None:
        worker_env = shared
        try:
            while True:
                with lock:
                    if not pending:
                        return
                    index, task_id = pending.pop(0)
                try:
                    if worker_env is None:
                        worker_env = DesktopEnv(backend=backend)
                    proof = check_task(
                        task_id,
                        seeds,
                        env=worker_env,
                        file_attacks=file_attacks,
                        episode_attacks=task_id in attacked,
                    )
                except Exception as error:  # noqa: BLE001 - one task's crash must not hide the others' results
                    proof = TaskProof(
                        task_id, tuple(seeds), problems=[f"the check crashed: {type(error).__name__}: {error}"]
                    )
                with lock:
                    proofs[index] = proof
                    if on_result is not None:
                        on_result(proof)
        finally:
            if shared is None and worker_env is not None:
                worker_env.close()

    workers = 1 if env is not None else max(1, min(jobs, len(task_ids)))
    if workers == 1:
        work(env)
    else:
        threads = [threading.Thread(target=work, args=(None,), name=f"check-{n}") for n in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return [proof for proof in proofs if proof is not None]
