"""desktop-gym: Gymnasium environments over real desktops, for computer-use agents.

The whole public surface is here::

    env = desktop_gym.make("desktop_gym/starter.calc_fill_totals-v0")   # = gymnasium.make
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('hotkey(keys=["ctrl", "s"])')

The root is lazy: ``import desktop_gym`` imports no gymnasium, env, task family or verifier (the
guest agent inside each desktop imports this package too). Each name below loads its module on
first access. The built-in task ids are registered with Gymnasium when ``desktop_gym.tasks`` is
imported: by any task or env name here, or at ``import desktop_gym`` when gymnasium was imported
first (``import gymnasium, desktop_gym``).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "Action",
            "ActionOutcome",
            "ActionParseError",
            "ActionSet",
            "ApiCall",
            "Click",
            "Done",
            "Exit",
            "Fail",
            "Hotkey",
            "Press",
            "Quote",
            "Scroll",
            "TypeText",
            "Wait",
            "execute",
        ),
        "desktop_gym.actions",
    ),
    **dict.fromkeys(("Backend", "DesktopHandle", "make_backend"), "desktop_gym.backends"),
    "DesktopEnv": "desktop_gym.env",
    "Unicode": "desktop_gym.spaces",
    **dict.fromkeys(
        ("Task", "TaskContext", "get_task", "gym_id", "list_tasks", "load_suite_dir", "register_task"),
        "desktop_gym.tasks",
    ),
    "VerifierResult": "desktop_gym.verifiers.result",
    "DesktopGymError": "desktop_gym.errors",
    **dict.fromkeys(("EnvLostError", "EnvServerError"), "desktop_gym.errors"),
    "make_vec": "desktop_gym.serve.vector",
    "RemoteEnv": "desktop_gym.serve.client",
    "EnvPool": "desktop_gym.serve.env_pool",
    "EnvCluster": "desktop_gym.serve.cluster",
    "EnvServer": "desktop_gym.serve.server",
    "make": "desktop_gym._make",
}
_SUBMODULES = ("errors", "polling")

if TYPE_CHECKING:
    from . import errors, polling
    from ._make import make
    from .actions import (
        Action,
        ActionOutcome,
        ActionParseError,
        ActionSet,
        ApiCall,
        Click,
        Done,
        Exit,
        Fail,
        Hotkey,
        Press,
        Quote,
        Scroll,
        TypeText,
        Wait,
        execute,
    )
    from .backends import Backend, DesktopHandle, make_backend
    from .env import DesktopEnv
    from .errors import DesktopGymError, EnvLostError, EnvServerError
    from .serve.client import RemoteEnv
    from .serve.cluster import EnvCluster
    from .serve.env_pool import EnvPool
    from .serve.server import EnvServer
    from .serve.vector import make_vec
    from .spaces import Unicode
    from .tasks import Task, TaskContext, get_task, gym_id, list_tasks, load_suite_dir, register_task
    from .verifiers.result import VerifierResult


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        value: Any = importlib.import_module(f"{__name__}.{name}")
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, *_SUBMODULES})


if "gymnasium" in sys.modules:  # `import gymnasium, desktop_gym; gymnasium.make("desktop_gym/...")`
    importlib.import_module("desktop_gym.tasks")

__all__ = [
    "Action",
    "ActionOutcome",
    "ActionParseError",
    "ActionSet",
    "ApiCall",
    "Backend",
    "Click",
    "DesktopEnv",
    "DesktopGymError",
    "DesktopHandle",
    "Done",
    "EnvCluster",
    "EnvLostError",
    "EnvPool",
    "EnvServer",
    "EnvServerError",
    "Exit",
    "Fail",
    "Hotkey",
    "Press",
    "Quote",
    "Scroll",
    "Task",
    "TaskContext",
    "TypeText",
    "Unicode",
    "VerifierResult",
    "Wait",
    "errors",
    "execute",
    "get_task",
    "gym_id",
    "list_tasks",
    "load_suite_dir",
    "make",
    "make_backend",
    "polling",
    "make_vec",
    "register_task",
    "RemoteEnv",
]
