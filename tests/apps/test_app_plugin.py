"""An app from another package, added through the ``desktop_gym.apps`` entry point only: the host and
the guest both load it, the launcher starts it, its tools are offered when it is focused, and a task on
it is proven on a real desktop."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from desktop_gym.apps import plugins
from desktop_gym.apps.spec import APP_SPECS, launchable_apps, reload_apps
from desktop_gym.guest.apps import registry
from desktop_gym.tasks import registry as registry_of_tasks

pytestmark = pytest.mark.slow

SPEC_SOURCE = """
from desktop_gym.apps.spec import AppSpec

SPEC = AppSpec(
    key="notes",
    launch="command",
    command=("xmessage", "-center", "desktop-gym notes"),
    window_class="xmessage",
    aliases=("note taker",),
    opens_files=False,
    packages=("x11-utils",),
    doctor=("xmessage",),
    tools="dg_notes.tools:NotesTools",
)
"""
TOOLS_SOURCE = '''
from typing import ClassVar

from desktop_gym.apps.tools_base import ApiArgumentError, AppTools


class NotesTools(AppTools):
    """Notes kept as text files in ~/notes."""

    uses_uno: ClassVar[bool] = False

    def write_note(self, name: str, text: str) -> str:
        """Write a note, replacing one of that name.

        Args:
            name: The note's name: letters, digits, "-" or "_".
            text: What the note says.

        Returns:
            Where the note was saved.
        """
        if not name or not name.replace("-", "").replace("_", "").isalnum():
            raise ApiArgumentError(f"name must be letters, digits, '-' or '_', got {name!r}")
        folder = self.home / "notes"
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.txt"
        path.write_text(text)
        return f"saved {self.shown_path(path)}"
'''
TASK = {
    "id": "notesuite.write_note",
    "instruction": "Write a note named todo whose text is {token}, a space, then the word done.",
    "params": {"token": {"words": {"count": 2, "sep": "-"}}},
    "apps": ["notes"],
    "max_steps": 4,
    "setup": [{"type": "launch", "app": "notes"}],
    "verifier": {"name": "text_file", "file": "~/notes/todo.txt", "args": {"expected": "{token} done"}},
    "oracles": {"api": ["NotesTools.write_note(name='todo', text='{token} done')"]},
    "perturb": {"param": "token", "value": "{token}x"},
}


def _write_plugin(root: Path, with_entry_point: bool) -> None:
    package = root / "dg_notes"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(SPEC_SOURCE))
    (package / "tools.py").write_text(textwrap.dedent(TOOLS_SOURCE))
    info = root / "dg_notes-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dg-notes\nVersion: 0.1\n")
    if with_entry_point:
        (info / "entry_points.txt").write_text("[desktop_gym.apps]\nnotes = dg_notes:SPEC\n")
    for folder, _, files in os.walk(root):  # the desktop's session user imports it too
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder, name), stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)


@pytest.fixture
def plugin_on_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on this process's path and the guest's PYTHONPATH; the app table is read again after."""
    root = Path(tempfile.mkdtemp(prefix="dg-plugin-"))
    os.chmod(root, 0o755)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    try:
        yield root
    finally:
        for name in [m for m in sys.modules if m == "dg_notes" or m.startswith("dg_notes.")]:
            del sys.modules[name]
        monkeypatch.undo()
        reload_apps()
        registry._import_tools.cache_clear()
        shutil.rmtree(root, ignore_errors=True)


def test_without_the_entry_point_the_package_is_no_app(plugin_on_path: Path) -> None:
    _write_plugin(plugin_on_path, with_entry_point=False)
    reload_apps()
    assert "notes" not in APP_SPECS and "notes" not in launchable_apps()


def test_a_broken_entry_point_is_skipped_and_named(plugin_on_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    _write_plugin(plugin_on_path, with_entry_point=True)
    (plugin_on_path / "dg_notes-0.1.dist-info" / "entry_points.txt").write_text(
        "[desktop_gym.apps]\nnotes = dg_notes:MISSING\n"
    )
    reload_apps()
    assert "notes" not in APP_SPECS and "calc" in APP_SPECS
    assert "dg_notes:MISSING" in caplog.text


def test_an_app_added_by_its_entry_point_alone_is_launched_offered_and_proven(plugin_on_path: Path) -> None:
    from desktop_gym.env import DesktopEnv
    from desktop_gym.tasks import load_suite_dir
    from desktop_gym.testing import check_task

    _write_plugin(plugin_on_path, with_entry_point=True)
    reload_apps()
    assert ("notes", "dg_notes:SPEC") in [(ep.name, ep.value) for ep in metadata.entry_points(group=plugins.GROUP)]
    assert "notes" in launchable_apps() and registry.TOOL_CLASSES["notes"].__name__ == "NotesTools"

    suite = plugin_on_path / "suite"
    suite.mkdir()
    (suite / "write_note.json").write_text(json.dumps(TASK))
    load_suite_dir(suite)

    parts = ("screenshot", "last_action_result", "last_action_error")
    env = DesktopEnv(task_id="notesuite.write_note", observation=parts)
    try:
        obs, info = env.reset(seed=3)
        assert "NotesTools.write_note(" in env.describe(), "the focused plugin app's API is offered"
        result = env.step("NotesTools.write_note(name='bad/name', text='x')")[0]
        assert "name must be letters" in result["last_action_error"], "the guest ran the plugin's tool"
        proof = check_task("notesuite.write_note", seeds=(3,), env=env)
    finally:
        env.close()
        registry_of_tasks._TASKS.pop(TASK["id"], None)  # other tests count the built-in tasks
        registry_of_tasks._ENTRY_POINTS.pop(TASK["id"], None)
    assert proof.proven, proof.why_unproven()
