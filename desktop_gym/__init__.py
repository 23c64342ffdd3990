"""desktop-gym: Gymnasium environments over real desktops, for computer-use agents.

The whole public surface is here::

    env = desktop_gym.make("desktop_gym/starter.calc_fill_totals-v0")   # = gymnasium.make
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('hotkey(keys=["ctrl", "s"])')

Importing the package registers every built-in task as ``desktop_gym/<suite>.<name>-v0``.
"""

from gymnasium import make

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
from .spaces import Unicode
from .tasks import Task, TaskContext, get_task, gym_id, list_tasks, load_suite_dir, register_task
from .verifiers import VerifierResult

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionOutcome",
    "ActionParseError",
    "ActionSet",
    "ApiCall",
    "Backend",
    "Click",
    "DesktopEnv",
    "DesktopHandle",
    "Done",
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
    "execute",
    "get_task",
    "gym_id",
    "list_tasks",
    "load_suite_dir",
    "make",
    "make_backend",
    "register_task",
]
