"""The prompt builder shared by training and evaluation, and the ``Policy`` protocol.

A prompt is a list of OpenAI-style chat messages (``{"role": ..., "content": ...}``); nothing
here tokenizes (the trainer that runs a model owns tokenization). The layout follows ComputerRL:

- system: the role line, the actions and app APIs the env offers now (``env.describe()``), and
  the answer format (one call per line);
- one user turn per observation, as text: instruction, ``app_info``, the accessibility tree cut
  to ``a11y_max_nodes`` lines, the last action's result and error; with ``vision`` the screenshot
  is an image block ``{"type": "image", "image": <HxWx3 uint8 array>}`` (HF chat-template style;
  :func:`encode_images` turns those into OpenAI ``image_url`` data URLs);
- one assistant turn per past action. Turns older than ``history`` keep only their action and a
  one-line result ("observation omitted"); only the last ``max_screenshots`` user turns keep
  their screenshot (ScaleCUA's visual context window), older ones are text;
- with ``prefill`` the messages end with an assistant message holding the start of the answer
  (e.g. ``CalcTools.set_cell_value(cell="``); the model continues it. :func:`split_prefill`
  separates it again.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

Message = dict[str, Any]
Messages = list[Message]

SYSTEM_ROLE = (
    "You are an agent that operates a real Linux desktop to complete the user's task. "
    "Each turn you see the current state and answer with exactly one action: one line of Python "
    "call syntax, no explanation."
)
TEXT_PARTS = ("instruction", "focused_app", "app_info", "a11y_tree", "last_action_result", "last_action_error")
_PART_TITLES = {
    "instruction": "Task",
    "focused_app": "Focused app",
    "app_info": "App info",
    "a11y_tree": "Accessibility tree",
    "api": "Available APIs",
    "last_action_result": "Last action result",
    "last_action_error": "Last action error",
}


@dataclass(frozen=True)
class PromptConfig:
    """How observations become messages.

    Args:
        parts: observation parts rendered as text, in this order (missing or empty ones are skipped).
        a11y_max_nodes: keep at most this many lines of the accessibility tree.
        app_info_max_chars: cut ``app_info`` to this many characters.
        history: past turns shown in full; older turns keep only their action and a short result.
        max_history_turns: past turns kept at all (the oldest are dropped beyond it).
        vision: add the screenshot as an image block.
        max_screenshots: with ``vision``, only the last this many user turns keep their screenshot.
        prefill: the start of the assistant's answer, or None.
        system_role: the first paragraph of the system prompt.
        actions_text: replaces ``env.describe()`` in the system prompt (a short, task-specific
            action list keeps prompts small for a small model on a CPU), or None.
    """

    parts: tuple[str, ...] = TEXT_PARTS
    a11y_max_nodes: int = 60
    app_info_max_chars: int = 3000
    history: int = 2
    max_history_turns: int = 20
    vision: bool = False
    max_screenshots: int = 1
    prefill: str | None = None
    system_role: str = SYSTEM_ROLE
    actions_text: str | None = None

    def __post_init__(self) -> None:
        for name in ("a11y_max_nodes", "app_info_max_chars", "history", "max_history_turns", "max_screenshots"):
            if getattr(self, name) < 0:
                raise ValueError(f"PromptConfig.{name} must be >= 0, got {getattr(self, name)}")
        unknown = [part for part in self.parts if part not in _PART_TITLES]
        if unknown:
            raise ValueError(f"PromptConfig.parts has unknown parts {unknown}; known: {', '.join(_PART_TITLES)}")


@dataclass
class Turn:
    """One past step as the prompt remembers it: what was seen and what the agent answered."""

    observation: Mapping[str, Any]
    action: str


@dataclass
class Generation:
    """One completion of a :class:`Policy`.

    Attributes:
        text: the generated text, after the prefill (the action is ``prefill + text``).
        token_logprobs: log-probabilities of the generated tokens under the sampling policy, if known.
        token_ids: the generated token ids, if the policy tokenizes (trainers reuse them).
        policy_version: the policy's version when it sampled (asynchronous training measures lag with it).
    """

    text: str
    token_logprobs: list[float] | None = None
    token_ids: list[int] | None = None
    policy_version: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Policy(Protocol):
    """Anything that answers a batch of prompts: a local model, an OpenAI endpoint, a scripted agent."""

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        """One completion per prompt, in order (a prompt ending in an assistant message is continued)."""
        ...


def system_prompt(describe_text: str, config: PromptConfig = PromptConfig()) -> str:
    """The system prompt: the role, then the offered actions and APIs (``env.describe()``).

    ``config.actions_text``, when set, replaces ``describe_text``.
    """
    actions = config.actions_text if config.actions_text is not None else describe_text
    return f"{config.system_role}\n\n# Actions\n{actions.strip()}"


def cut_lines(text: str, max_lines: int) -> str:
    """The first ``max_lines`` lines of ``text``, with a note saying how many were cut."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text
    return "\n".join([*lines[:max_lines], f"... ({len(lines) - max_lines} more nodes omitted)"])


def observation_text(observation: Mapping[str, Any], config: PromptConfig = PromptConfig()) -> str:
    """The text of one observation: each configured part under a ``## Title`` heading."""
    sections = []
    for part in config.parts:
        value = observation.get(part)
        if value is None or value == "":
            continue
        text = str(value)
        if part == "a11y_tree":
            text = cut_lines(text, config.a11y_max_nodes)
        elif part == "app_info":
            text = text[: config.app_info_max_chars]
        sections.append(f"## {_PART_TITLES[part]}\n{text}")
    return "\n\n".join(sections) or "(empty observation)"


def omitted_text(observation: Mapping[str, Any]) -> str:
    """What an old turn keeps: a note that the observation was omitted, and its result or error."""
    lines = ["(observation omitted)"]
    for part in ("last_action_result", "last_action_error"):
        if observation.get(part):
            lines.append(f"{_PART_TITLES[part]}: {str(observation[part])[:200]}")
    return "\n".join(lines)


def _user_message(observation: Mapping[str, Any], text: str, with_image: bool) -> Message:
    screenshot = observation.get("som_screenshot")  # the marked image, where the env draws one
    if screenshot is None:
        screenshot = observation.get("screenshot")
    if with_image and screenshot is not None:
        return {"role": "user", "content": [{"type": "image", "image": screenshot}, {"type": "text", "text": text}]}
    return {"role": "user", "content": text}


def build_messages(
    system: str,
    observation: Mapping[str, Any],
    history: Sequence[Turn] = (),
    config: PromptConfig = PromptConfig(),
) -> Messages:
    """The chat for the next action.

    Args:
        system: the system prompt (:func:`system_prompt`).
        observation: the current observation (a ``DesktopEnv`` observation dict).
        history: the episode's past turns, oldest first.
        config: what to show.

    Returns:
        OpenAI-style messages; the last one is the current user turn, or the prefill.
    """
    kept = list(history)[-config.max_history_turns :] if config.max_history_turns else []
    observations = [turn.observation for turn in kept] + [observation]
    first_full = len(observations) - 1 - config.history
    first_image = len(observations) - config.max_screenshots
    messages: Messages = [{"role": "system", "content": system}]
    for index, seen in enumerate(observations):
        text = observation_text(seen, config) if index >= first_full else omitted_text(seen)
        messages.append(_user_message(seen, text, config.vision and index >= first_image))
        if index < len(kept):
            messages.append({"role": "assistant", "content": kept[index].action})
    if config.prefill:
        messages.append({"role": "assistant", "content": config.prefill})
    return messages


def split_prefill(messages: Sequence[Message]) -> tuple[Messages, str]:
    """The messages without a trailing assistant prefill, and the prefill ("" when there is none)."""
    if messages and messages[-1]["role"] == "assistant":
        return list(messages[:-1]), str(messages[-1]["content"])
    return list(messages), ""


def text_only(messages: Sequence[Message]) -> Messages:
    """The messages with image blocks replaced by ``(screenshot)`` (for text-only models and logs)."""
    result: Messages = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            texts = [block["text"] if block.get("type") == "text" else "(screenshot)" for block in content]
            content = "\n".join(texts)
        result.append({**message, "content": content})
    return result


def encode_images(messages: Sequence[Message], fmt: str = "png") -> Messages:
    """The messages with image arrays as OpenAI ``image_url`` blocks (base64 data URLs)."""
    from PIL import Image

    result: Messages = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            blocks = []
            for block in content:
                if block.get("type") == "image" and isinstance(block.get("image"), np.ndarray):
                    buffer = io.BytesIO()
                    Image.fromarray(block["image"]).save(buffer, format=fmt.upper())
                    url = f"data:image/{fmt};base64,{base64.b64encode(buffer.getvalue()).decode()}"
                    blocks.append({"type": "image_url", "image_url": {"url": url}})
                else:
                    blocks.append(block)
            content = blocks
        result.append({**message, "content": content})
    return result
