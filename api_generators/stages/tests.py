"""Test generation: one requested function -> test functions that check its effect in the app."""

from __future__ import annotations

from .. import prompting
from ..llm import LLMClient, LLMReply
from ..models import FunctionSpec
from ..parsing import parse_reply, parse_test_functions
from ..targets import AppTarget

TESTS_PREFILL = "```python\ndef test_"
"""How a tests answer starts (for backends that can prefill)."""


def generate_tests(client: LLMClient, target: AppTarget, spec: FunctionSpec) -> tuple[str, list[str], LLMReply]:
    """Ask the LLM for tests of ``spec``: set up the document, call, save, read the file back.

    Returns:
        (the tests' source, their names, the reply).

    Raises:
        ReplyFormatError: the reply defines no ``test_`` function.
    """
    messages = prompting.messages(
        "tests", tool_class=target.tool_class, library=target.library, header=spec.header(), docstring=spec.docstring
    )
    reply = client.complete(messages, key=f"tests/{spec.name}", prefill=TESTS_PREFILL)
    source, names = parse_reply(parse_test_functions, reply.text)
    return source, names, reply
