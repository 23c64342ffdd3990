"""Shared parts of the OS suite: terminal task base, seeded names, GUI oracle scripts, folder listings.

Every OS family writes its input files through the guest (same seed, same bytes), starts a real
xterm, and verifies by reading the files and folders the agent left. GUI oracles only type into
the terminal; API oracles call ``OSTools`` (files, shell) and end with ``exit(success=True)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from ...guest.types import ExecResult
from ...verifiers import TREE_LISTING_COMMAND
from ..base import ScriptedPolicy, Task, TaskContext, TaskSetupError
from ..json_task import shell_path

WORDS = (
    "amber", "birch", "cedar", "cobalt", "coral", "delta", "ember", "falcon", "fjord", "garnet",
    "harbor", "hazel", "indigo", "jasper", "juniper", "kestrel", "lagoon", "lilac", "maple", "meadow",
    "nectar", "onyx", "orchid", "pebble", "quartz", "raven", "saffron", "sierra", "tundra", "willow",
)  # fmt: skip
PLACES = ("lisbon", "oslo", "kyoto", "quebec", "nairobi", "lima", "hanoi", "tromso", "cusco", "porto")
#: how long the GUI oracle lets a typed command run before declaring success (commands here take ms).
COMMAND_GRACE_S = 0.5


def distinct_words(rng: np.random.Generator, count: int, pool: Sequence[str] = WORDS) -> list[str]:
    """``count`` different words from ``pool``, in the order drawn."""
    return [str(pool[int(i)]) for i in rng.choice(len(pool), size=count, replace=False)]


def typed_commands(*commands: str) -> ScriptedPolicy:
    """A GUI oracle: type each command line into the focused terminal, then declare success."""
    actions = [f"type(text={command + chr(10)!r})" for command in commands]
    return ScriptedPolicy([*actions, f"wait(seconds={COMMAND_GRACE_S})", "exit(success=True)"])


def shell_oracle(command: str) -> ScriptedPolicy:
    """An API oracle: one ``OSTools.run_shell`` call, then declare success."""
    return ScriptedPolicy([f"OSTools.run_shell(command={command!r})", "exit(success=True)"])


def folder_listing(ctx: TaskContext, folder: str) -> ExecResult | None:
    """The relative paths under ``folder`` (``TREE_LISTING_COMMAND``), or None when it does not exist."""
    path = shell_path(folder)
    result = ctx.client.exec(
        f"if [ -d {path} ]; then {TREE_LISTING_COMMAND.format(path=path)}; else exit 3; fi", shell=True, timeout=30
    )
    return None if result.returncode == 3 else result


class TerminalTask(Task):
    """A task done in a terminal: ``setup`` writes ``input_files(params)`` and launches xterm."""

    apps: ClassVar[Sequence[str]] = ("terminal",)
    max_steps = 10
    tags: ClassVar[Sequence[str]] = ("os", "terminal")

    def input_files(self, params: dict) -> dict[str, bytes]:
        """Guest path -> bytes of every input file."""
        return {}

    def setup(self, ctx: TaskContext) -> None:
        for path, data in self.input_files(ctx.params).items():
            ctx.client.put_file(path, data)
        launched = ctx.client.launch_app("terminal")
        if not launched.alive:
            raise TaskSetupError("the terminal exited right after it started")
