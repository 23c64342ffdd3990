"""Agent actions: typed actions, parsing of agent text, prompt descriptions, execution.

``ActionSet`` reads what an agent writes (ComputerRL calls, OSWorld computer_13 actions,
pyautogui scripts, JSON tool calls, app API calls) into the typed actions below, and
``execute`` performs them through the guest client.
"""

from desktop_gym.actions.action_set import COORDINATE_MODES, ActionSet
from desktop_gym.actions.executor import (
    APP_ALIASES,
    ActionLimits,
    StepAllowance,
    execute,
    resolve_app_name,
    resolve_point,
)
from desktop_gym.actions.keys import normalize_key, normalize_keys
from desktop_gym.actions.spec import STYLES, ActionSpec
from desktop_gym.actions.types import (
    ACTION_TYPES,
    Action,
    ActionOutcome,
    ActionParseError,
    ApiCall,
    Click,
    Done,
    Drag,
    Exit,
    Fail,
    Hotkey,
    KeyDown,
    KeyUp,
    MouseDown,
    MouseUp,
    MoveTo,
    OpenApp,
    Press,
    Quote,
    Scroll,
    SwitchWindow,
    TypeText,
    Wait,
)

__all__ = [
    "ACTION_TYPES",
    "APP_ALIASES",
    "COORDINATE_MODES",
    "STYLES",
    "Action",
    "ActionLimits",
    "ActionOutcome",
    "ActionParseError",
    "ActionSet",
    "ActionSpec",
    "ApiCall",
    "Click",
    "Done",
    "Drag",
    "Exit",
    "Fail",
    "Hotkey",
    "KeyDown",
    "KeyUp",
    "MouseDown",
    "MouseUp",
    "MoveTo",
    "OpenApp",
    "Press",
    "Quote",
    "Scroll",
    "StepAllowance",
    "SwitchWindow",
    "TypeText",
    "Wait",
    "execute",
    "normalize_key",
    "normalize_keys",
    "resolve_app_name",
    "resolve_point",
]
