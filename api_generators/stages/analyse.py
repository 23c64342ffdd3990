"""Requirement analysis: example tasks -> the functions the app's API needs.

Existing methods are reused, not regenerated: the prompt lists the registry's APIs, and a
requested function that another registered class already has (same name and parameters) is
marked ``reuse`` whatever the LLM said.
"""

from __future__ import annotations

import numpy as np

from desktop_gym.errors import TaskReferenceError
from desktop_gym.guest.apps import registry
from desktop_gym.guest.apps.tool_schema import tool_methods

from .. import prompting
from ..llm import LLMClient, LLMReply
from ..models import ExampleTask, FunctionSpec
from ..parsing import ReplyFormatError, first_json_object, function_specs, parse_reply
from ..targets import AppTarget

MAX_TASKS = 20
MAX_TASK_CHARS = 2000


def example_tasks(refs: list[str]) -> list[ExampleTask]:
    """Resolve ``--tasks``: task ids (instruction filled with seed-0 parameters) or ``text:...``.

    Raises:
        TaskReferenceError: an unknown task id (with the closest ids), or too many tasks.
    """
    if not refs:
        raise TaskReferenceError("--tasks: give at least one task id or 'text:<instruction>'")
    if len(refs) > MAX_TASKS:
        raise TaskReferenceError(f"--tasks: at most {MAX_TASKS} tasks, got {len(refs)}")
    from desktop_gym.tasks import get_task

    tasks: list[ExampleTask] = []
    for ref in refs:
        if ref.startswith("text:"):
            number = sum(task.ref.startswith("text:") for task in tasks) + 1
            tasks.append(ExampleTask(f"text:{number}", ref.removeprefix("text:").strip()[:MAX_TASK_CHARS]))
            continue
        try:
            task = get_task(ref)
        except KeyError as exc:
            raise TaskReferenceError(f"--tasks {ref!r}: {exc.args[0] if exc.args else 'unknown task'}") from None
        instruction = task.instruction(task.sample_params(np.random.default_rng(0)))
        tasks.append(ExampleTask(ref, instruction[:MAX_TASK_CHARS]))
    return tasks


def registry_text(target: AppTarget) -> str:
    """The APIs offered next to the target's (``registry.always_offered()``) as prompt lines.

    Only those: an agent in the target app sees them, and the prompt stays the same when other
    apps' APIs grow. Deduplication still checks every registered class (:func:`existing_method`).
    """
    classes = [registry.TOOL_CLASSES[app] for app in registry.always_offered() if app != target.app]
    return "\n".join(registry.prompt_text(cls) for cls in classes)


def existing_method(target: AppTarget, spec: FunctionSpec) -> str:
    """The qualified name of a registered method that ``spec`` duplicates, or ``""``.

    A duplicate has the same name and the same parameter names in a registered class other than
    the target's own (which the generated module replaces whole).
    """
    wanted = [part.split(":")[0].split("=")[0].strip() for part in spec.signature.split(",") if part.strip()]
    for cls in registry.TOOL_CLASSES.values():
        method = tool_methods(cls).get(spec.name)
        if cls.__name__ != target.tool_class and method is not None and [p.name for p in method.params] == wanted:
            return method.qualified_name
    return ""


def analyse(client: LLMClient, target: AppTarget, tasks: list[ExampleTask]) -> tuple[list[FunctionSpec], LLMReply]:
    """Ask the LLM which functions ``target.tool_class`` needs for ``tasks``.

    Returns:
        The requested functions (``reuse`` set where the registry already has one) and the reply.

    Raises:
        ReplyFormatError: the reply is not the JSON asked for (names the field at fault).
    """
    task_lines = "\n".join(f"- [{task.ref}] {task.instruction}" for task in tasks)
    messages = prompting.messages(
        "analyse",
        app_title=target.title,
        tool_class=target.tool_class,
        tasks=task_lines,
        registry=registry_text(target),
        library=target.library,
    )
    reply = client.complete(messages, key="analyse", prefill='```json\n{"functions": [')
    specs = []
    try:
        items = parse_reply(lambda text: function_specs(first_json_object(text)), reply.text)
    except ReplyFormatError as exc:
        exc.tokens = reply.prompt_tokens + reply.completion_tokens  # the report counts what the call cost
        raise
    for item in items:
        spec = FunctionSpec(**item)
        duplicate = existing_method(target, spec)
        if duplicate and not spec.reuse:
            spec = FunctionSpec(**{**item, "reuse": duplicate})
        specs.append(spec)
    return specs, reply
