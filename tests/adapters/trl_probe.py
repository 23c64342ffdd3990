"""A probe for TRL's async GRPO worker: its real child-process start, minus the vLLM server it would call.

``AsyncRolloutWorker.start`` pickles the loop's keyword arguments (``environment_factory`` among
them) and spawns a child that unpickles them and builds TRL's ``_AsyncRolloutLoop``, which calls
the factory and probes the environment's tools. :class:`ProbeLoop` is that loop with ``run``
replaced: instead of generating through vLLM (which needs a GPU) it reports what the child built.
"""

from __future__ import annotations

import asyncio
import os

from trl.experimental.async_grpo.async_rollout_worker import AsyncRolloutWorker, _AsyncRolloutLoop


class ProbeLoop(_AsyncRolloutLoop):
    """TRL's rollout loop, built by TRL in the child; ``run`` reports the child's view, then waits to be stopped."""

    def run(self) -> None:
        (instance,) = self._environment_pool[None]
        self._metrics_queue.put(
            {
                "pid": os.getpid(),
                "class": f"{type(instance).__module__}.{type(instance).__qualname__}",
                "tools": sorted(tool.__name__ for tool in self._env_tools[None]),
                "reward_columns": list(self.reward_func_names),
                "connected": instance.episode._env is not None,
                "source": instance.source.to_json(),
            }
        )
        # Run until the parent stops the worker, as TRL's loop does. TRL's stop-watcher thread waits
        # on the parent's stop event; a child that exits while that thread waits leaves the event
        # counting a sleeper that never wakes, and the parent's ``stop()`` then blocks for ever in
        # ``Event.set`` (seen once in CI: 400 s).
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._stop_event.wait())


class ProbeWorker(AsyncRolloutWorker):
    """``AsyncRolloutWorker`` whose child runs :class:`ProbeLoop` (its ``start`` is TRL's, unchanged)."""

    _loop_cls = ProbeLoop
