"""Repair: a failed run's tracebacks and wrong results go back to the LLM for a corrected method."""

from __future__ import annotations

from .. import prompting
from ..llm import LLMClient, LLMReply
from ..models import FunctionSpec, SandboxRun
from ..parsing import method_source, parse_reply
from ..targets import AppTarget
from .implement import method_prefill


def repair(
    client: LLMClient, target: AppTarget, spec: FunctionSpec, code: str, tests: str, run: SandboxRun, round_number: int
) -> tuple[str, LLMReply]:
    """Ask for a corrected ``spec`` method given the failed ``run`` of ``code``.

    Returns:
        (the corrected method's source, the reply).

    Raises:
        ReplyFormatError: the reply holds no method ``spec.name``.
    """
    messages = prompting.messages(
        "repair",
        tool_class=target.tool_class,
        library=target.library,
        code=code,
        tests=tests,
        feedback=run.feedback(),
        round=round_number,
    )
    reply = client.complete(messages, key=f"repair/{spec.name}/{round_number}", prefill=method_prefill(spec))
    return parse_reply(lambda text: method_source(text, spec.name), reply.text), reply
