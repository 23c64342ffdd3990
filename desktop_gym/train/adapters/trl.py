"""TRL adapter: ``GRPOTrainer(environment_factory=...)`` over real desktops.

Tested with trl 1.16.0 (transformers 5.24). One spec object, in the style of TRL's Harbor
integration, gives the trainer its three pieces::

    spec = DesktopGymSpec(["calc.enter_value"], seeds=range(8), source=EnvSource(options={"action_mode": "api"}))
    trainer = GRPOTrainer(model, args=GRPOConfig(...), train_dataset=spec.train_dataset,
                          environment_factory=spec.environment_factory, reward_funcs=spec.reward_funcs,
                          processing_class=with_tool_chat_template(tokenizer))

TRL makes one environment instance per rollout (pooled, reset between episodes) and turns every
public method of its class into a tool (schema from type hints and the Google docstring). The
environment class is built from the same tool schemas the env offers (GUI actions and app APIs),
so what the model may call never drifts from what the desktop runs. ``reset(task_id, seed)``
returns the instruction and first observation as text; each tool answers with the next
observation; ``get_reward()`` is the task verifier's score.

Pickling (TRL's async GRPO worker pickles ``environment_factory`` into a spawned child): the
factory is an :class:`EnvironmentFactory`, a module-level class holding only its recipe (task ids,
the :class:`EnvSource`: an address or env options, the tool names); the environment classes it
builds pickle as that recipe too (their metaclass is registered with ``copyreg``), and an instance
pickles without its desktop. The other side rebuilds the class and connects on its first ``reset``.

Vision (``vision=True``, for vision-language models; the source's observation must include
``screenshot``): ``reset`` and every tool return content blocks, the screenshot as
``{"type": "image", "image": <PIL image>}`` next to the text block, the multimodal tool response
TRL 1.16.0 passes through to the processor (it collects the images of ``"image"`` blocks).

Prefill: ``with_tool_chat_template(tokenizer, prefill=TOOL_CALL_PREFILL)`` makes the chat template
open every assistant turn with the start of a tool call (``<tool_call>\n{"name": "``), the
prompt builder's prefill in tool-call form; TRL's response parser reads the prompt's tail
(``parse_response(..., prefix=prompt_ids)``), so the prefilled call still parses.

TRL scores a whole trajectory with one scalar: step-level GRPO (ComputerRL's rewards per step)
needs desktop-gym's own trainer; ``desktop_gym.train.adapters.trl_rollout`` forwards per-step
rewards, but TRL still applies one advantage per sequence.
"""

from __future__ import annotations

import copyreg
import inspect
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, Union

from desktop_gym.train.adapters.episode import (
    TOOL_SYSTEM_PROMPT,
    DesktopEpisode,
    EnvSource,
    EpisodeNotRunningError,
    screenshot_image,
    task_rows,
    tool_schemas,
)

TESTED_VERSION = "1.16.0"
TOOL_CALL_PREFILL = '<tool_call>\n{"name": "'
"""The start of a Qwen2.5-style tool call: the prefill for :func:`with_tool_chat_template`."""
_GENERATION_PROMPT = "{{- '<|im_start|>assistant\\n' }}"
_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict,
    "null": type(None),
}


def python_type(schema: dict[str, Any]) -> Any:
    """The Python annotation of a JSON-schema property (what transformers turns back into the schema)."""
    if "enum" in schema:
        return Literal[tuple(schema["enum"])]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return Union[tuple(python_type(option) for option in schema[key])]  # noqa: UP007 - built at run time
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        return Union[tuple(python_type({**schema, "type": one}) for one in kind)]  # noqa: UP007
    if kind == "array":
        return list[python_type(schema["items"])] if "items" in schema else list
    return _JSON_TYPES.get(kind, str)


def _tool_method(schema: dict[str, Any]) -> Callable[..., Any]:
    """A method of the environment class that plays the tool call named in ``schema``."""
    function = schema["function"]
    name = function["name"]
    properties: dict[str, Any] = function.get("parameters", {}).get("properties", {})
    required = set(function.get("parameters", {}).get("required", []))

    def tool(self: DesktopToolEnv, **arguments: Any) -> Any:
        return self._play({"name": name, "arguments": arguments})

    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    arg_lines = []
    for arg, prop in properties.items():
        annotations[arg] = python_type(prop)
        default = inspect.Parameter.empty if arg in required else prop.get("default")
        parameters.append(
            inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotations[arg])
        )
        arg_lines.append(f"    {arg}: {' '.join(str(prop.get('description') or arg).split())}")
    tool.__name__ = tool.__qualname__ = name
    tool.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    tool.__annotations__ = annotations
    sections = [" ".join(str(function.get("description") or name).split())]
    if arg_lines:
        sections.append("Args:\n" + "\n".join(arg_lines))
    tool.__doc__ = "\n\n".join(sections) + "\n"
    return tool


class EnvironmentClassType(type):
    """Metaclass of the built environment classes: they pickle as their recipe (see ``copyreg`` below)."""

    _build_args: dict[str, Any]


def _reduce_environment_class(cls: EnvironmentClassType) -> Any:
    if not cls._build_args:  # the base class itself: pickled by name, as any module-level class
        return cls.__qualname__
    return _environment_class_for, (cls._build_args,)


copyreg.pickle(EnvironmentClassType, _reduce_environment_class)


class DesktopToolEnv(metaclass=EnvironmentClassType):
    """Base of the TRL environment classes: one desktop episode per ``reset``; tools are added per spec.

    Attributes:
        source: where the desktop comes from (class attribute of the built class).
        vision: whether tools also return the screenshot as an image block.
    """

    source: EnvSource = EnvSource()
    vision: bool = False
    _build_args: dict[str, Any] = {}

    def __init__(self) -> None:
        self._episode = DesktopEpisode(self.source)
        self.rewards: list[float] = []  # every finished episode's reward, for logs and tests

    def __reduce__(self) -> tuple[Any, ...]:
        # The class is built at run time: pickle its recipe (task ids, source), never a desktop.
        return (_restore_environment, (self._build_args, self.__dict__))

    def reset(self, task_id: str, seed: int = 0, **_row: Any) -> str | list[dict[str, Any]]:
        """Start the row's task on the desktop; the text (and, with vision, the screenshot) joins the prompt.

        Args:
            task_id: the task of the dataset row.
            seed: the row's seed (the same seed gives the same task parameters).
        """
        text = self._episode.start(task_id, seed)
        return self._content("\n\n" + text, self._episode.last_screenshot, image_first=False)

    def get_reward(self) -> float:
        """The task verifier's score for the episode (a still-running episode is ended as done first)."""
        reward = self._episode.finish()
        self.rewards.append(reward)
        return reward

    @property
    def episode(self) -> DesktopEpisode:
        """The episode this environment plays (its reward, verdict and step count)."""
        return self._episode

    def _play(self, call: dict[str, Any]) -> Any:
        try:
            outcome = self._episode.act(call)
        except EpisodeNotRunningError as error:
            raise RuntimeError(f"{call['name']}: {error}") from None
        return self._content(outcome.text, outcome.screenshot, image_first=True)

    def _content(self, text: str, screenshot: Any, image_first: bool) -> str | list[dict[str, Any]]:
        """``text``, or with vision and a screenshot TRL's content blocks (the image as a PIL image)."""
        if not self.vision or screenshot is None:
            return text
        blocks = [{"type": "text", "text": text}, {"type": "image", "image": screenshot_image(screenshot)}]
        return blocks[::-1] if image_first else blocks

    def _close(self) -> None:
        """Close the desktop (private: TRL turns every public method into a tool)."""
        self._episode.close()


def environment_class(
    task_ids: Sequence[str],
    source: EnvSource | None = None,
    *,
    tools: Sequence[str] | None = None,
    vision: bool = False,
    name: str = "DesktopGymEnv",
) -> type[DesktopToolEnv]:
    """A TRL environment class whose tools are what the env offers on ``task_ids``.

    Args:
        task_ids: the tasks the class will play (their apps decide which app APIs become tools).
        source: where desktops come from (default: an in-process ``DesktopEnv``).
        tools: keep only these tool names (``"CalcTools__set_cell_value"``, ``"DONE"``, ...); every
            tool renders into the prompt, so small models want few. None keeps all.
        vision: tools also return the screenshot as an image block (for vision-language models).
        name: the class name (TRL logs the reward under it).

    Raises:
        ValueError: a name in ``tools`` that the env does not offer (lists the offered ones).
    """
    source = source or EnvSource()
    schemas = {schema["function"]["name"]: schema for schema in tool_schemas(task_ids, source)}
    if tools is not None:
        unknown = [tool for tool in tools if tool not in schemas]
        if unknown:
            raise ValueError(f"tools {unknown} are not offered on these tasks; offered: {', '.join(schemas)}")
        schemas = {tool: schemas[tool] for tool in tools}
    tools = list(tools) if tools is not None else None
    build_args = {"task_ids": list(task_ids), "source": source, "tools": tools, "vision": vision, "name": name}
    methods: dict[str, Any] = {"source": source, "vision": vision, "_build_args": build_args, "__module__": __name__}
    for tool_name, schema in schemas.items():
        methods[tool_name] = _tool_method(schema)
    return type(name, (DesktopToolEnv,), methods)


_built: dict[str, type[DesktopToolEnv]] = {}  # recipe JSON -> class, so one process builds each class once
_built_lock = threading.Lock()


def _recipe_key(build_args: dict[str, Any]) -> str:
    return json.dumps({**build_args, "source": build_args["source"].to_json()}, sort_keys=True)


def _environment_class_for(build_args: dict[str, Any]) -> type[DesktopToolEnv]:
    """The environment class of a recipe (``environment_class``'s arguments), built once per process."""
    key = _recipe_key(build_args)
    with _built_lock:
        if key not in _built:
            _built[key] = environment_class(**build_args)
        return _built[key]


def _restore_environment(build_args: dict[str, Any], state: dict[str, Any]) -> DesktopToolEnv:
    """Unpickle an environment: rebuild its class, then its state (the desktop reconnects lazily)."""
    cls = _environment_class_for(build_args)
    instance = cls.__new__(cls)
    instance.__dict__.update(state)
    return instance


class EnvironmentFactory:
    """``environment_factory=`` for TRL: each call returns a fresh environment; pickles as its recipe.

    Module-level and small on purpose: TRL's async GRPO worker pickles the factory into a spawned
    process (``AsyncRolloutWorker.start``), which rebuilds the environment class from the recipe;
    desktops start only on an environment's first ``reset``, in the process that calls it.

    Args:
        task_ids, source, tools, vision, name: as for :func:`environment_class`.
    """

    def __init__(
        self,
        task_ids: Sequence[str],
        source: EnvSource | None = None,
        *,
        tools: Sequence[str] | None = None,
        vision: bool = False,
        name: str = "DesktopGymEnv",
    ) -> None:
        self.build_args: dict[str, Any] = {
            "task_ids": list(task_ids),
            "source": source or EnvSource(),
            "tools": list(tools) if tools is not None else None,
            "vision": vision,
            "name": name,
        }
        self.env_class = _environment_class_for(self.build_args)  # checks the tool names now
        self.instances: list[DesktopToolEnv] = []  # the environments made in this process (to close them)

    def __call__(self) -> DesktopToolEnv:
        instance = self.env_class()
        self.instances.append(instance)
        return instance

    def __getstate__(self) -> dict[str, Any]:
        return {"build_args": self.build_args}  # the copy's environments are its own

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state["build_args"])

    def close(self) -> None:
        """Close every desktop this factory's environments opened (in this process)."""
        for instance in self.instances:
            instance._close()


class DesktopGymSpec:
    """``train_dataset``, ``environment_factory`` and ``reward_funcs`` for ``GRPOTrainer``, from task ids.

    Args:
        task_ids: the tasks to train on.
        seeds: seeds per task (one dataset row per task and seed).
        source: where desktops come from (env options or an env server address).
        tools: keep only these tool names (see :func:`environment_class`).
        vision: tools return screenshots as image blocks too.
        system_prompt: the system message of every prompt (tools are rendered by the chat template).
    """

    def __init__(
        self,
        task_ids: Sequence[str],
        seeds: Iterable[int] = range(8),
        source: EnvSource | None = None,
        *,
        tools: Sequence[str] | None = None,
        vision: bool = False,
        system_prompt: str = TOOL_SYSTEM_PROMPT,
    ) -> None:
        self.task_ids = list(task_ids)
        self.rows = task_rows(self.task_ids, seeds)
        self.source = source or EnvSource()
        self.system_prompt = system_prompt
        self._factory = EnvironmentFactory(self.task_ids, self.source, tools=tools, vision=vision)
        self.env_class = self._factory.env_class

    @property
    def instances(self) -> list[DesktopToolEnv]:
        """Every environment TRL asked for in this process (closed by :meth:`close`)."""
        return self._factory.instances

    @property
    def train_dataset(self) -> Any:
        """A ``datasets.Dataset`` of ``prompt`` (system + empty user turn), ``task_id`` and ``seed`` rows."""
        from datasets import Dataset

        prompt = [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": "Task:"}]
        return Dataset.from_list([{"prompt": prompt, **row} for row in self.rows])

    @property
    def environment_factory(self) -> EnvironmentFactory:
        """Zero-argument callable returning a fresh environment (for ``environment_factory=``); it pickles."""
        return self._factory

    @property
    def reward_funcs(self) -> list[Callable[..., list[float | None]]]:
        """Extra reward functions: none, since the environment's ``get_reward`` is the verifier's score."""
        return []

    def close(self) -> None:
        """Close every desktop the trainer's environments opened."""
        self._factory.close()


def with_tool_chat_template(tokenizer: Any, prefill: str | None = None) -> Any:
    """Give a ChatML tokenizer without tool support (SmolLM2) TRL's Qwen2.5 tool-calling template.

    SmolLM2-Instruct speaks ChatML (``<|im_start|>``/``<|im_end|>``) but its template drops tools.
    Qwen2.5's template is ChatML with tools (``<tool_call>{json}</tool_call>``), and TRL knows how to
    parse its responses (``add_response_schema``). A tokenizer whose template already renders tool
    calls is returned unchanged (unless ``prefill`` is given).

    Args:
        tokenizer: the tokenizer (changed in place and returned).
        prefill: text every generation prompt ends with (e.g. :data:`TOOL_CALL_PREFILL`), or None.
            The template keeps TRL's Qwen2.5 response template, which parses the prefilled call.

    Raises:
        ValueError: the template is not ChatML, or ``prefill`` contains a template delimiter.
    """
    from importlib import resources

    from trl.chat_template_utils import add_response_schema, supports_tool_calling

    if supports_tool_calling(tokenizer) and not prefill:
        return tokenizer
    if "<|im_start|>" not in (tokenizer.chat_template or ""):
        raise ValueError(
            "with_tool_chat_template: the tokenizer's chat template is not ChatML; set a tool-calling template yourself"
        )
    template = resources.files("trl").joinpath("chat_templates/qwen2_5.jinja").read_text()
    tokenizer.chat_template = template
    if prefill:
        if any(mark in prefill for mark in ("{{", "}}", "{%", "%}", "<|im_start|>", "<|im_end|>")):
            raise ValueError(f"with_tool_chat_template: prefill must not hold template delimiters, got {prefill!r}")
        if template.count(_GENERATION_PROMPT) != 1:
            raise ValueError("with_tool_chat_template: TRL's Qwen2.5 template changed; cannot place the prefill")
        add_response_schema(tokenizer)  # recognises the unchanged template; the prefilled one it would not
        escaped = json.dumps(prefill)[1:-1].replace("'", "\\'")
        tokenizer.chat_template = template.replace(
            _GENERATION_PROMPT, "{{- '<|im_start|>assistant\\n" + escaped + "' }}"
        )
    return tokenizer
