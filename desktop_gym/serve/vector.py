"""``make_vec``: many desktops as one ``gymnasium.vector.VectorEnv``.

Autoreset follows Gymnasium 1.x's default, ``AutoresetMode.NEXT_STEP``: when env ``i`` ends
(terminated or truncated) at step ``t``, the observation returned at ``t`` is its last one; at
step ``t + 1`` env ``i`` ignores its action, resets, and returns the first observation of the new
episode with reward 0 and both flags False. Observations are batched as the ``Dict`` of
``batch_space``: ``screenshot`` is one ``(n, H, W, 3)`` array, every text part a tuple of ``n``
strings. ``infos`` follow ``VectorEnv._add_info`` (values plus ``_key`` masks).

The envs step in parallel threads: each waits on its own server (or desktop) call. A bad action
is that env's ``last_action_error`` and never stops the batch; an env that fails outright (lost,
a server error) raises ``VectorStepError`` once every other env has stepped, holding their results.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space
from gymnasium.vector.vector_env import AutoresetMode

from ..errors import UnsendableActionError, VectorStepError

Server = str | tuple[str, str | None]
__all__ = ["RemoteVectorEnv", "VectorStepError", "make_vec"]  # VectorStepError lives in errors


class RemoteVectorEnv(VectorEnv):
    """A vector env over ``RemoteEnv``s (or any ``DesktopEnv``-like envs), stepped in parallel.

    Args:
        env_fns: one callable per sub-env that builds it.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, env_fns: Sequence[Callable[[], gymnasium.Env]]) -> None:
        if not env_fns:
            raise ValueError("env_fns: a vector env needs at least one env")
        self.num_envs = len(env_fns)
        self._executor = ThreadPoolExecutor(max_workers=self.num_envs, thread_name_prefix="vector-env")
        self.envs: list[gymnasium.Env] = list(self._executor.map(lambda make: make(), env_fns))
        first = self.envs[0]
        for index, env in enumerate(self.envs[1:], start=1):
            if env.observation_space != first.observation_space:
                raise ValueError(f"env {index} has another observation space than env 0: {env.observation_space}")
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)
        self._last_observations: list[dict[str, Any] | None] = [None] * self.num_envs

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        """Reset every env; ``seed`` an int (env ``i`` gets ``seed + i``) or one per env."""
        seeds = _seeds(seed, self.num_envs)
        results = list(
            self._executor.map(
                lambda pair: pair[0].reset(seed=pair[1], options=options), zip(self.envs, seeds, strict=True)
            )
        )
        self._needs_reset[:] = False
        self._last_observations = [observation for observation, _ in results]
        infos: dict[str, Any] = {}
        for index, (_, info) in enumerate(results):
            infos = self._add_info(infos, info, index)
        return self._batch([observation for observation, _ in results]), infos

    def step(self, actions: Sequence[Any]):
        """Step every env with its action (envs that ended last step reset instead; see the module)."""
        if len(actions) != self.num_envs:
            raise ValueError(f"actions: expected {self.num_envs} actions, got {len(actions)}")

        def one(index: int) -> tuple[dict, float, bool, bool, dict]:
            env = self.envs[index]
            if self._needs_reset[index]:
                observation, info = env.reset()
                return observation, 0.0, False, False, info
            return env.step(actions[index])

        # Every env's call runs to its end: one env's failure neither stops the others nor drops their results.
        futures = [self._executor.submit(one, index) for index in range(self.num_envs)]
        results: list[tuple[dict, float, bool, bool, dict] | None] = []
        failures: dict[int, BaseException] = {}
        for index, future in enumerate(futures):
            try:
                results.append(future.result())
            except UnsendableActionError as error:  # never sent: that env's step is an error, as a refusal
                results.append(self._refused(index, error))
            except Exception as error:  # noqa: BLE001 - raised below, with every other env's result
                results.append(None)
                failures[index] = error
        for index, result in enumerate(results):
            if result is not None:
                self._needs_reset[index] = result[2] or result[3]
                self._last_observations[index] = result[0]
        if failures:
            raise VectorStepError(failures, results)
        return self._assemble(results)  # type: ignore[arg-type]

    def _refused(self, index: int, error: BaseException) -> tuple[dict, float, bool, bool, dict]:
        """What a step whose action never left this process returns: the last observation with the error."""
        observation = dict(self._last_observations[index] or {})
        if "last_action_error" in observation:
            observation["last_action_error"] = str(error)
        return observation, 0.0, False, False, {"action_error": str(error)}

    def _assemble(self, results: list[tuple[dict, float, bool, bool, dict]]):
        infos: dict[str, Any] = {}
        for index, (_, _, _, _, info) in enumerate(results):
            infos = self._add_info(infos, info, index)
        return (
            self._batch([result[0] for result in results]),
            np.array([result[1] for result in results], dtype=np.float64),
            np.array([result[2] for result in results], dtype=bool),
            np.array([result[3] for result in results], dtype=bool),
            infos,
        )

    def _batch(self, observations: list[dict[str, Any]]) -> dict[str, Any]:
        batched: dict[str, Any] = {}
        for key in self.single_observation_space.spaces:
            values = [observation[key] for observation in observations]
            batched[key] = np.stack(values) if key == "screenshot" else tuple(values)
        return batched

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` (e.g. ``describe``) on every env; one result per env."""
        return tuple(self._executor.map(lambda env: getattr(env, name)(*args, **kwargs), self.envs))

    def close_extras(self, **kwargs: Any) -> None:
        list(self._executor.map(lambda env: env.close(), self.envs))
        self._executor.shutdown(wait=True)


def _seeds(seed: int | Sequence[int | None] | None, count: int) -> list[int | None]:
    if seed is None:
        return [None] * count
    if isinstance(seed, int):
        return [seed + index for index in range(count)]
    if len(seed) != count:
        raise ValueError(f"seed: expected {count} seeds, got {len(seed)}")
    return list(seed)


def _server_list(servers: Any) -> list[tuple[str, str | None]]:
    """Normalize ``servers`` to ``[(address, token)]``: strings, pairs, or an object with ``.servers``."""
    if hasattr(servers, "servers"):
        servers = servers.servers
    if isinstance(servers, str):
        servers = [servers]
    result = []
    for index, server in enumerate(servers):
        if isinstance(server, str):
            result.append((server, None))
        elif isinstance(server, tuple | list) and len(server) == 2:
            result.append((str(server[0]), server[1]))
        else:
            raise TypeError(f"servers[{index}]: expected an address or (address, token), got {server!r}")
    if not result:
        raise ValueError("servers: the list is empty")
    return result


def make_vec(
    task_ids: str | Sequence[str],
    num_envs: int | None = None,
    servers: Any = None,
    **env_options: Any,
) -> RemoteVectorEnv:
    """A ``VectorEnv`` of ``num_envs`` desktops; env ``i`` runs ``task_ids[i % len(task_ids)]``.

    Args:
        task_ids: one task id, or several to mix.
        num_envs: how many envs (default: one per task id).
        servers: where the desktops live: None for in-process ``DesktopEnv``s (each its own desktop),
            else env-server addresses, ``(address, token)`` pairs, or an ``EnvCluster``; envs are
            spread over them round-robin as ``RemoteEnv``s.
        **env_options: ``DesktopEnv`` / ``RemoteEnv`` options (``observation``, ``screenshot_format``, ...).

    Returns:
        A ``RemoteVectorEnv`` with Gymnasium 1.x next-step autoreset (see the module docstring).
    """
    tasks = [task_ids] if isinstance(task_ids, str) else list(task_ids)
    if not tasks:
        raise ValueError("task_ids: give at least one task id")
    count = len(tasks) if num_envs is None else num_envs
    if count < 1:
        raise ValueError(f"num_envs: must be at least 1, got {num_envs}")
    assignments = [tasks[i % len(tasks)] for i in range(count)]
    if servers is None:
        from ..env import DesktopEnv

        return RemoteVectorEnv([functools.partial(DesktopEnv, task, **env_options) for task in assignments])
    from .client import RemoteEnv

    targets = _server_list(servers)
    return RemoteVectorEnv(
        [
            functools.partial(RemoteEnv, task, *targets[i % len(targets)], **env_options)
            for i, task in enumerate(assignments)
        ]
    )
