"""Implementation: one requested function -> the method's Python source, in tool-class style."""

from __future__ import annotations

from .. import prompting
from ..llm import LLMClient, LLMReply
from ..models import FunctionSpec
from ..parsing import method_source, parse_reply
from ..targets import AppTarget


def method_prefill(spec: FunctionSpec) -> str:
    """How a method answer starts: the fence, the ``def`` line and the docstring (both fixed by the analysis)."""
    docstring = spec.docstring.replace("\n", "\n    ")
    return f'```python\n{spec.header()}\n    """{docstring}\n    """\n'


def implement(client: LLMClient, target: AppTarget, spec: FunctionSpec) -> tuple[str, LLMReply]:
    """Ask the LLM for ``spec``'s method.

    Returns:
        (the method's source, dedented; the reply).

    Raises:
        ReplyFormatError: the reply holds no method ``spec.name`` with ``self`` and a docstring.
    """
    messages = prompting.messages(
        "implement",
        tool_class=target.tool_class,
        library=target.library,
        header=spec.header(),
        docstring=spec.docstring,
        tasks="\n".join(f"- {task}" for task in spec.tasks) or "- (none named)",
    )
    reply = client.complete(messages, key=f"implement/{spec.name}/0", prefill=method_prefill(spec))
    return parse_reply(lambda text: method_source(text, spec.name), reply.text), reply
