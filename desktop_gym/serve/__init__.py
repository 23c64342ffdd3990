"""Many desktops for a trainer: an env server over gRPC, remote and vector envs, a Ray cluster.

- :class:`EnvServer` hosts many envs on one node (``desktop-gym serve``).
- :class:`RemoteEnv` is a ``gymnasium.Env`` on such a server; :func:`make_vec` a vector env.
- :class:`EnvPool` keeps many episodes in flight from asyncio.
- :class:`EnvCluster` starts one server per Ray node with a ``desktop`` resource.

Names are imported on first use, so ``import desktop_gym.serve`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "EnvServer": ".server",
    "RemoteEnv": ".client",
    "EnvConnection": ".client",
    "make_vec": ".vector",
    "RemoteVectorEnv": ".vector",
    "EnvPool": ".env_pool",
    "EnvCluster": ".cluster",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = sorted(_EXPORTS)
