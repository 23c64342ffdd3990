"""What every trainer adapter shares: where desktops come from, and one episode as text in, text out.

An adapter object (a TRL environment, a verl agent loop, an OpenRLHF agent instance, a verifiers
environment) holds an :class:`EnvSource`: either env options for an in-process ``DesktopEnv`` or the
address and token of an env server (``RemoteEnv``, same interface). Switching is one argument::

    EnvSource(options={"action_mode": "api"})                               # a desktop in this process
    EnvSource(address="10.0.0.5:50051", token="...", options={"action_mode": "api"})  # an env server

An ``EnvSource`` is a small frozen value: it pickles, so trainers that ship adapter objects to other
processes (TRL's async trainer, Ray actors) send an address, never a desktop. :class:`DesktopEpisode`
connects lazily on its first ``start`` and keeps its desktop across episodes (each ``start`` is an
env ``reset``); the episode's reward is the task verifier's verdict, as ``DesktopEnv`` computes it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop_gym.actions import ActionSet
from desktop_gym.api_exposure import ApiExposure
from desktop_gym.episode.prompts import PromptConfig, observation_text
from desktop_gym.errors import EpisodeNotRunningError
from desktop_gym.guest.apps import registry
from desktop_gym.tasks import get_task

ADAPTER_OBSERVATION = ("instruction", "focused_app", "app_info", "last_action_result", "last_action_error")
"""Observation parts adapters ask for by default: text only, no screenshot and no accessibility tree
(small models see a short prompt; pass ``observation=`` in ``EnvSource.options`` for more)."""
TOOL_SYSTEM_PROMPT = (
    "You are an agent that operates a real Linux desktop to complete the user's task. Act only by "
    "calling the tools, one call per turn; each tool answers with the new state of the desktop. "
    "Call DONE when the task is finished, FAIL when it cannot be done."
)
MAX_FEEDBACK_CHARS = 4000
"""The longest observation text an adapter hands to a trainer after one action."""
_ENV_OPTION_NAMES = {
    "observation",
    "coordinates",
    "action_mode",
    "api_scope",
    "max_steps",
    "a11y_max_nodes",
    "app_info_max_chars",
    "settle_timeout",
    "backend",
    "backend_kwargs",
}


SOURCE_VARIABLE = "DESKTOP_GYM_SOURCE"
"""Environment variable holding an :class:`EnvSource` as JSON, for trainers that build adapter objects
without arguments (OpenRLHF's agent instances, verl's agent loops inside Ray workers)."""
PREFILL_VARIABLE = "DESKTOP_GYM_PREFILL"
"""Environment variable holding the start of every answer (``PromptConfig.prefill``, e.g.
``CalcTools.set_cell_value(cell="``), for the same trainers."""


@dataclass(frozen=True)
class EnvSource:
    """Where an adapter's desktops come from: in-process env options, or an env server.

    Args:
        address: ``host:port`` of an env server (``desktop-gym serve``); None runs ``DesktopEnv`` here.
        token: the env server's token.
        options: ``DesktopEnv`` keyword options (``observation``, ``action_mode``, ``api_scope``,
            ``max_steps``, ...); ``observation`` defaults to :data:`ADAPTER_OBSERVATION`.

    Raises:
        ValueError: an option ``DesktopEnv`` does not take (names it).
    """

    address: str | None = None
    token: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.options) - _ENV_OPTION_NAMES)
        if unknown:
            raise ValueError(
                f"EnvSource.options has unknown keys {unknown}; known: {', '.join(sorted(_ENV_OPTION_NAMES))}"
            )
        if self.address is not None and ("backend" in self.options or "backend_kwargs" in self.options):
            raise ValueError("EnvSource.options: 'backend' is chosen by the env server when an address is given")
        object.__setattr__(self, "options", {"observation": ADAPTER_OBSERVATION, **dict(self.options)})

    def make(self, task_id: str | None = None) -> Any:
        """A new env for ``task_id``: a ``RemoteEnv`` when an address is set, else a ``DesktopEnv``."""
        if self.address is not None:
            from desktop_gym.serve.client import RemoteEnv

            return RemoteEnv(task_id, address=self.address, token=self.token, **self.options)
        from desktop_gym.env import DesktopEnv

        return DesktopEnv(task_id, **self.options)

    def exposure(self) -> ApiExposure:
        """The actions and app APIs the env offers under these options (no desktop needed)."""
        action_set = ActionSet(coordinates=self.options.get("coordinates", "pixel"))
        return ApiExposure(
            action_set, self.options.get("action_mode", "hybrid"), self.options.get("api_scope", "focused")
        )

    def to_json(self) -> str:
        """The source as JSON (for trainers that configure adapters through strings or env variables)."""
        options = {key: list(value) if isinstance(value, tuple) else value for key, value in self.options.items()}
        return json.dumps({"address": self.address, "token": self.token, "options": options})

    @classmethod
    def from_json(cls, text: str) -> EnvSource:
        """Read :meth:`to_json`'s text back.

        Raises:
            ValueError: not a JSON object with only ``address``, ``token`` and ``options`` (names the field).
        """
        from desktop_gym.serve.wire import loads_object

        if not text:
            raise ValueError("EnvSource JSON is empty")
        data = loads_object(text, "EnvSource JSON")  # capped in size, names the field
        unknown = sorted(set(data) - {"address", "token", "options"})
        if unknown:
            raise ValueError(f"EnvSource JSON has unknown fields {unknown}; known: address, token, options")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise ValueError(f"EnvSource JSON field 'options' must be an object, got {type(options).__name__}")
        if "observation" in options:
            options["observation"] = tuple(options["observation"])
        return cls(address=data.get("address"), token=data.get("token"), options=options)


def source_from_environment() -> EnvSource:
    """The :class:`EnvSource` in ``$DESKTOP_GYM_SOURCE`` (an in-process desktop when unset)."""
    text = os.environ.get(SOURCE_VARIABLE)
    return EnvSource.from_json(text) if text else EnvSource()


def screenshot_image(screenshot: Any) -> Any:
    """A screenshot (an HxWx3 uint8 array, as observations carry it) as a PIL image (what VLM processors take)."""
    from PIL import Image

    return screenshot if isinstance(screenshot, Image.Image) else Image.fromarray(screenshot)


def task_rows(task_ids: Sequence[str], seeds: Iterable[int] = (0,)) -> list[dict[str, Any]]:
    """Dataset rows ``{"task_id", "seed"}``: every task with every seed (tasks are checked to exist).

    Raises:
        KeyError: an unknown task id (from ``get_task``, naming it).
        ValueError: no task ids or no seeds.
    """
    seeds = list(seeds)
    if not task_ids:
        raise ValueError("task_rows needs at least one task id")
    if not seeds:
        raise ValueError("task_rows needs at least one seed")
    for task_id in task_ids:
        get_task(task_id)
    return [{"task_id": task_id, "seed": int(seed)} for seed in seeds for task_id in task_ids]


def offered_apps(task_ids: Iterable[str], source: EnvSource) -> list[str]:
    """The app APIs offered across ``task_ids`` (their apps that have an API, plus ``OSTools``)."""
    exposure = source.exposure()
    if exposure.action_mode == "gui":
        return []
    apps: list[str] = []
    for task_id in task_ids:
        for app in get_task(task_id).apps:
            if app in registry.TOOL_CLASSES and app not in apps:
                apps.append(app)
    return [*apps, *(app for app in registry.ALWAYS_OFFERED if app not in apps)]


def tool_schemas(task_ids: Iterable[str], source: EnvSource) -> list[dict[str, Any]]:
    """OpenAI function-calling schemas of what the env offers on ``task_ids`` (GUI actions, then APIs)."""
    return source.exposure().tool_schemas(offered_apps(task_ids, source))


def describe_actions(task_ids: Iterable[str], source: EnvSource, tools: Sequence[str] | None = None) -> str:
    """Prompt text (Python-call syntax) of what the env offers on ``task_ids``, or only of ``tools``.

    ``tools`` names tool schemas (``"CalcTools__set_cell_value"``, ``"DONE"``): a short prompt for
    small models. The env still accepts every action it offers.

    Raises:
        ValueError: a name in ``tools`` the env does not offer on ``task_ids`` (lists the offered ones).
    """
    task_ids = list(task_ids)
    if tools is None:
        return source.exposure().describe(offered_apps(task_ids, source))
    schemas = {schema["function"]["name"]: schema["function"] for schema in tool_schemas(task_ids, source)}
    unknown = [tool for tool in tools if tool not in schemas]
    if unknown:
        raise ValueError(f"tools {unknown} are not offered on these tasks; offered: {', '.join(schemas)}")
    lines = ["Answer with exactly one call, in Python syntax:"]
    for tool in tools:
        function = schemas[tool]
        parameters = ", ".join(f"{name}=..." for name in function["parameters"].get("properties", {}))
        lines.append(f"{tool.replace('__', '.')}({parameters})\n    {function.get('description', '')}")
    return "\n".join(lines)


@dataclass
class StepOutcome:
    """What one action did: the text the trainer shows the model next, and how the episode stands."""

    text: str
    reward: float
    done: bool
    info: dict[str, Any]
    screenshot: Any = None


class DesktopEpisode:
    """One desktop, played one episode at a time by a trainer: text in, text out.

    Args:
        source: where the desktop comes from.
        prompt: how observations become text (``PromptConfig.parts``, cut sizes).
        max_feedback_chars: cap on the text of one observation.
    """

    def __init__(
        self, source: EnvSource, prompt: PromptConfig | None = None, max_feedback_chars: int = MAX_FEEDBACK_CHARS
    ) -> None:
        if max_feedback_chars < 16:
            raise ValueError(f"max_feedback_chars must be at least 16, got {max_feedback_chars}")
        self.source = source
        self.prompt = prompt or PromptConfig(parts=tuple(p for p in source.options["observation"] if p != "screenshot"))
        self.max_feedback_chars = max_feedback_chars
        self._env: Any = None
        self._reset_state()

    def _reset_state(self) -> None:
        self.task_id: str | None = None
        self.instruction = ""
        self.reward = 0.0
        self.success: bool | None = None
        self.verifier: dict[str, Any] | None = None
        self.steps = 0
        self.done = True
        self.last_screenshot: Any = None
        self.info: dict[str, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_env"] = None  # a desktop never travels; the copy reconnects on its next start
        return state

    @property
    def env(self) -> Any:
        """The env (created on first use)."""
        if self._env is None:
            self._env = self.source.make()
        return self._env

    def start(self, task_id: str, seed: int | None = None) -> str:
        """Reset the desktop to ``task_id`` (seeded) and return the first observation as text."""
        self._reset_state()
        observation, info = self.env.reset(seed=None if seed is None else int(seed), options={"task_id": task_id})
        self.task_id, self.info, self.done = task_id, dict(info), False
        self.instruction = str(info.get("instruction", observation.get("instruction", "")))
        self.last_screenshot = observation.get("screenshot")
        return self._text(observation)

    def act(self, action: str | dict[str, Any]) -> StepOutcome:
        """Play one action (agent text or a tool-call dict) and return what the model sees next.

        Raises:
            EpisodeNotRunningError: no episode runs (the text says why).
        """
        if self.done:
            raise EpisodeNotRunningError(
                "the episode is over; no more actions are accepted" if self.task_id else "no episode has started"
            )
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        self.info = dict(info)
        self.last_screenshot = observation.get("screenshot")
        text = self._text(observation)
        if terminated or truncated:
            self.done = True
            self.reward = float(reward)
            self.success = info.get("success")
            self.verifier = info.get("verifier")
            text += "\n\n" + self.summary()
        return StepOutcome(
            text=text, reward=float(reward), done=self.done, info=self.info, screenshot=self.last_screenshot
        )

    def finish(self) -> float:
        """End a still-running episode as if the agent declared it done, and return the reward.

        Trainers that stop an episode when the model stops calling tools (TRL, verifiers) call this:
        the verifier then judges the desktop as the model left it.
        """
        if not self.done:
            self.act("DONE()")
        return self.reward

    def summary(self) -> str:
        """One line on how the episode ended (for the model's last feedback and for logs)."""
        if not self.done:
            return f"Episode running: {self.steps} steps so far."
        verdict = "succeeded" if self.success else "failed"
        reason = (self.verifier or {}).get("reason") or self.info.get("crash") or ""
        return f"Episode over after {self.steps} steps: the task {verdict} (reward {self.reward:g}). {reason}".strip()

    def _text(self, observation: Mapping[str, Any]) -> str:
        text = observation_text(observation, self.prompt)
        if len(text) > self.max_feedback_chars:
            text = text[: self.max_feedback_chars - 15] + "\n... (cut)"
        return text

    def close(self) -> None:
        """Close the env (its desktop, or its lease on the env server)."""
        if self._env is not None:
            self._env.close()
            self._env = None
        self.done = True
