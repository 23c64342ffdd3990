"""Apps the pipeline can write an API for: the class to produce, its library, its sandbox setup.

A target names the tool class to generate, the base class it extends (the app's library, bound to
the live app), how to open a scratch document in the sandbox desktop, and where the accepted
module goes. The prompts describe the library from its own docstrings, so they cannot drift.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path

from desktop_gym.apps.editor.common import EditorDocument
from desktop_gym.errors import UnknownTargetError

APPS_DIR = Path(__file__).resolve().parent.parent / "desktop_gym" / "apps"  # one folder per app


@dataclass(frozen=True)
class AppTarget:
    """How to generate and test an API for one app.

    Attributes:
        app: The app key (``"editor"``), as the launcher knows it.
        title: A human name for prompts (``"the text editor (mousepad)"``).
        tool_class: The class to generate (``"EditorTools"``).
        base_module: The module of the base class (imported inside the sandbox only).
        base_class: The base class (``"EditorToolsBase"``).
        library: The library's API as prompt text.
        scratch_file: The file the sandbox opens in the app (home-relative).
        module_name: The generated module's file name in the output folder (installed as the app's
            ``desktop_gym/apps/<app>/tools.py``).
    """

    app: str
    title: str
    tool_class: str
    base_module: str
    base_class: str
    library: str
    scratch_file: str
    module_name: str

    @property
    def module_path(self) -> Path:
        """Where ``--install`` puts the tool module: the app folder's ``tools.py``."""
        return APPS_DIR / self.app / "tools.py"

    @property
    def spec_path(self) -> Path:
        """The app folder's ``__init__`` (its ``SPEC``), where ``--install`` names the tool class."""
        return APPS_DIR / self.app / "__init__.py"

    @property
    def tools_entry_point(self) -> str:
        """The ``AppSpec.tools`` value of the installed class."""
        return f"desktop_gym.apps.{self.app}.tools:{self.tool_class}"


def library_text(cls: type, attribute: str) -> str:
    """``cls``'s public methods as prompt lines: ``self.<attribute>.name(signature)`` + summary."""
    lines = []
    for name, function in inspect.getmembers(cls, inspect.isfunction):
        if name.startswith("_") or name == "find":
            continue
        signature = str(inspect.signature(function)).replace("'", "").replace("(self, ", "(").replace("(self)", "()")
        summary = (inspect.getdoc(function) or "").splitlines()[0]
        lines.append(f"self.{attribute}.{name}{signature}\n    {summary}")
    return "\n".join(lines)


TARGETS: dict[str, AppTarget] = {
    "editor": AppTarget(
        app="editor",
        title="the text editor (mousepad)",
        tool_class="EditorTools",
        base_module="desktop_gym.apps.editor.common",
        base_class="EditorToolsBase",
        library=library_text(EditorDocument, "document"),
        scratch_file="apigen/scratch.txt",
        module_name="editor",
    ),
}


def get_target(app: str) -> AppTarget:
    """The target for ``app``.

    Raises:
        UnknownTargetError: naming the apps the pipeline can target.
    """
    try:
        return TARGETS[app]
    except KeyError:
        raise UnknownTargetError(
            f"--app {app!r}: the pipeline has no generation target for it; targets: {', '.join(TARGETS)}"
        ) from None
