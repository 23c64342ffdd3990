"""Execution in a real desktop: one candidate method and its tests, run in the sandbox."""

from __future__ import annotations

from ..models import FunctionSpec, SandboxRun
from ..module_source import cases_module, tool_module
from ..sandbox import Sandbox


def execute(sandbox: Sandbox, spec: FunctionSpec, code: str, tests: str) -> SandboxRun:
    """Run ``tests`` against a tool class holding only ``code`` (the candidate for ``spec``)."""
    module = tool_module(
        sandbox.target, [code], f"Candidate for {sandbox.target.tool_class}.{spec.name} (sandbox run)."
    )
    return sandbox.run(module, cases_module([tests]))
