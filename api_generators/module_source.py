"""Writing the tool-class module and its test module from accepted method sources."""

from __future__ import annotations

import textwrap

from .targets import AppTarget

TEST_PRELUDE = """import pytest

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError  # noqa: F401
"""


def tool_module(target: AppTarget, methods: list[str], doc: str, class_doc: str = "") -> str:
    """A module defining ``target.tool_class`` with ``methods`` (each a dedented ``def`` source).

    Args:
        target: What to generate.
        methods: The method sources, in the order they should appear.
        doc: The module docstring.
        class_doc: The class docstring (default: one line naming the app).
    """
    class_doc = class_doc or f"{target.title[0].upper()}{target.title[1:]}: the agent's API for it."
    body = "\n\n".join(textwrap.indent(source.strip("\n"), "    ") for source in methods) or "    pass"
    return (
        f'"""{doc.strip()}\n"""\n\n'
        "from __future__ import annotations\n\n"
        f"from {target.base_module} import {target.base_class}\n"
        "from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError  # noqa: F401\n\n\n"
        f"class {target.tool_class}({target.base_class}):\n"
        f'    """{class_doc}"""\n\n'
        f"{body}\n"
    )


def cases_module(tests: list[str]) -> str:
    """One module holding the given test sources (their own imports kept), for the sandbox runner."""
    return TEST_PRELUDE + "\n\n" + "\n\n\n".join(source.strip("\n") for source in tests) + "\n"
