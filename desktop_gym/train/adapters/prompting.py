"""What the model is told in every adapter: a tool filter, the system role, the action list, a prefill.

Adapters built by their trainer without arguments (verl's agent loops, OpenRLHF's agent instances)
read it from ``$DESKTOP_GYM_PROMPT`` (JSON of :class:`AdapterPrompt`); the others take it as an
argument. :meth:`AdapterPrompt.demo` is the learning demo's prompt (``desktop_gym.train.demo``): one
call described with an example, a role line, and the answer prefilled with
``CalcTools.set_cell_value(cell="``, where the untrained SmolLM2-135M solves ``demo.enter_number``
sometimes (mixed rewards from the first step)::

    export DESKTOP_GYM_PROMPT="$(python -m desktop_gym.train.adapters.prompting demo)"
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from desktop_gym.episode.prompts import SYSTEM_ROLE, PromptConfig, system_prompt
from desktop_gym.train.adapters.episode import PREFILL_VARIABLE, EnvSource, describe_actions

PROMPT_VARIABLE = "DESKTOP_GYM_PROMPT"
"""Environment variable holding an :class:`AdapterPrompt` as JSON."""
MAX_TOOLS = 256
MAX_TEXT_CHARS = 8000
_FIELDS = ("tools", "prefill", "system_role", "actions_text")


@dataclass(frozen=True)
class AdapterPrompt:
    """The system prompt and answer prefill an adapter uses.

    Args:
        tools: describe only these tool schemas (``"CalcTools__set_cell_value"``, ``"DONE"``) in the
            system prompt; None describes everything the env offers (~2,000 tokens for Calc). The env
            still accepts every action it offers.
        prefill: the start of every answer (``PromptConfig.prefill``); the action played is
            ``prefill + answer``.
        system_role: the system prompt's first paragraph (None: ``SYSTEM_ROLE``).
        actions_text: replaces the generated action list (None: ``describe_actions``).

    Raises:
        ValueError: more than :data:`MAX_TOOLS` tools, or a text over :data:`MAX_TEXT_CHARS` characters.
    """

    tools: tuple[str, ...] | None = None
    prefill: str = ""
    system_role: str | None = None
    actions_text: str | None = None

    def __post_init__(self) -> None:
        if self.tools is not None:
            object.__setattr__(self, "tools", tuple(str(tool) for tool in self.tools))
            if len(self.tools) > MAX_TOOLS:
                raise ValueError(f"AdapterPrompt.tools has {len(self.tools)} names; at most {MAX_TOOLS}")
        for name in ("prefill", "system_role", "actions_text"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or len(value) > MAX_TEXT_CHARS):
                raise ValueError(f"AdapterPrompt.{name} must be a string of at most {MAX_TEXT_CHARS} characters")

    @classmethod
    def demo(cls) -> AdapterPrompt:
        """The learning demo's prompt (``DEMO_ROLE``, ``DEMO_ACTIONS``, ``DEMO_PREFILL``)."""
        from desktop_gym.train.demo import DEMO_ACTIONS, DEMO_PREFILL, DEMO_ROLE

        return cls(
            tools=("CalcTools__set_cell_value",), prefill=DEMO_PREFILL, system_role=DEMO_ROLE, actions_text=DEMO_ACTIONS
        )

    def system(self, task_ids: Sequence[str], source: EnvSource, config: PromptConfig | None = None) -> str:
        """The system prompt for ``task_ids`` on ``source`` (``config`` gives defaults for role and actions).

        Raises:
            ValueError: a tool name the env does not offer on these tasks (lists the offered ones).
        """
        config = config or PromptConfig()
        describe = describe_actions(list(task_ids), source, list(self.tools) if self.tools is not None else None)
        role = self.system_role if self.system_role is not None else config.system_role or SYSTEM_ROLE
        actions = self.actions_text if self.actions_text is not None else config.actions_text
        return system_prompt(describe, PromptConfig(system_role=role, actions_text=actions))

    def to_json(self) -> str:
        """The prompt as JSON (for ``$DESKTOP_GYM_PROMPT``)."""
        data = asdict(self)
        data["tools"] = list(self.tools) if self.tools is not None else None
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> AdapterPrompt:
        """Read :meth:`to_json`'s text back.

        Raises:
            ValueError: not a JSON object of the known fields with the right types (names the field).
        """
        from desktop_gym.serve.wire import loads_object

        data: dict[str, Any] = loads_object(text, "AdapterPrompt JSON")
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise ValueError(f"AdapterPrompt JSON has unknown fields {unknown}; known: {', '.join(_FIELDS)}")
        tools = data.get("tools")
        if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)):
            raise ValueError("AdapterPrompt JSON field 'tools' must be a list of strings or null")
        if not isinstance(data.get("prefill", ""), str):
            raise ValueError("AdapterPrompt JSON field 'prefill' must be a string")
        return cls(**{key: data[key] for key in _FIELDS if key in data and data[key] is not None})


def prompt_from_environment() -> AdapterPrompt:
    """The :class:`AdapterPrompt` in ``$DESKTOP_GYM_PROMPT`` (default: everything described, no prefill).

    ``$DESKTOP_GYM_PREFILL``, when set, is the prefill of a prompt that names none.
    """
    text = os.environ.get(PROMPT_VARIABLE)
    prompt = AdapterPrompt.from_json(text) if text else AdapterPrompt()
    if not prompt.prefill and os.environ.get(PREFILL_VARIABLE):
        prompt = AdapterPrompt(
            tools=prompt.tools,
            prefill=os.environ[PREFILL_VARIABLE],
            system_role=prompt.system_role,
            actions_text=prompt.actions_text,
        )
    return prompt


if __name__ == "__main__":  # python -m desktop_gym.train.adapters.prompting demo: the demo prompt's JSON
    import sys

    if sys.argv[1:] != ["demo"]:
        sys.exit("usage: python -m desktop_gym.train.adapters.prompting demo")
    print(AdapterPrompt.demo().to_json())
