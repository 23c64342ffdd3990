"""The fast reset (a reused office) starts episodes exactly as clean as a cold reset.

One Calc task, one seed: the first reset is cold (a fresh office) and is the reference. Each later
episode (the cases run in order on one desktop) is dirtied in one way, then reset; the new start
state must equal the reference: the same screenshot (pixel for pixel), the same accessibility tree
text, the same document (cell contents through the API, no unsaved change), the
same windows and an empty clipboard. Whether the office was reused or replaced (the hygiene check
refused it) shows in the office's pid.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from desktop_gym import DesktopEnv

TASK = "starter.calc_fill_totals"
SEED = 3
OBSERVATION = ("screenshot", "a11y_tree", "app_info")
SET_OPTION = """
import sys, uno
from com.sun.star.beans import PropertyValue
ctx = uno.getComponentContext()
resolver = ctx.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", ctx)
remote = resolver.resolve(f"uno:pipe,name={sys.argv[1]};urp;StarOffice.ComponentContext")
provider = remote.ServiceManager.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", remote)
path = PropertyValue(Name="nodepath", Value="/org.openoffice.Office.Calc/Layout/Line")
access = provider.createInstanceWithArguments("com.sun.star.configuration.ConfigurationUpdateAccess", (path,))
access.setPropertyValue("GridLine", False)
access.commitChanges()
"""


def _start_state(env: DesktopEnv, observation: dict) -> dict:
    client = env.client
    values = client.call_api("calc", "get_range_values", json.dumps({"cell_range": "A1:F12"}))
    return {
        "screenshot": observation["screenshot"],
        "a11y_tree": observation["a11y_tree"],
        "app_info": observation["app_info"],
        "cells": values,
        "modified": client.document_modified("calc"),
        "clipboard": client.exec("xclip -o -selection clipboard 2>/dev/null", shell=True).stdout,
        "windows": sorted((w.app, w.title, w.width, w.height) for w in client.windows()),
    }


def _assert_same_start(state: dict, reference: dict, case: str) -> None:
    changed = np.argwhere((state["screenshot"] != reference["screenshot"]).any(axis=2))
    assert not len(changed), f"{case}: {len(changed)} pixels differ, box {changed.min(0)}..{changed.max(0)}"
    for key in ("a11y_tree", "app_info", "cells", "modified", "clipboard", "windows"):
        assert state[key] == reference[key], f"{case}: {key} differs from the cold start"


def _office_pid(env: DesktopEnv) -> int:
    (office,) = [app for app in env.client.apps() if app.app == "calc" and app.alive]
    return office.pid


def _type_in_cell(env: DesktopEnv) -> None:
    env.client.type_text("dirty\n")
    env.client.call_api("calc", "set_cell_value", json.dumps({"cell": "B2", "value": "also dirty"}))


def _copy_cells(env: DesktopEnv) -> None:
    env.client.hotkey(["ctrl", "c"])
    env.client.wait_apps_idle()


def _open_dialog(env: DesktopEnv) -> None:
    before = len(env.client.windows())
    env.client.hotkey(["ctrl", "1"])  # Format Cells
    _wait(lambda: len(env.client.windows()) > before, "the Format Cells dialog")


def _second_document(env: DesktopEnv) -> None:
    before = len(env.client.windows())
    env.client.hotkey(["ctrl", "n"])
    _wait(lambda: len(env.client.windows()) > before, "a second Calc window")


def _change_option(env: DesktopEnv) -> None:
    ps = env.client.exec(["ps", "-o", "args=", "-g", str(_office_pid(env))]).stdout
    pipe = next(word for word in ps.split() if word.startswith("--accept=pipe,name="))
    script = env.client.put_file("~/set_option.py", SET_OPTION.encode())
    result = env.client.exec(["/usr/bin/python3", script, pipe.split("name=")[1].split(";")[0]])
    assert result.returncode == 0, result.stderr


def _wait(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.05)


def _reuse_load_hangs(env: DesktopEnv) -> int:
    """How many loads into a reused office the guest log shows hung (each fell back to a cold start)."""
    log = (env.backend.workdir / "logs" / "guest.log").read_text()
    return sum(1 for line in log.splitlines() if "reusing the calc office failed" in line and "did not return" in line)


@pytest.fixture(scope="module")
def env_and_reference() -> Iterator[tuple[DesktopEnv, dict]]:
    env = DesktopEnv(task_id=TASK, observation=OBSERVATION, backend_kwargs={"reuse_office": True})
    try:
        observation, _ = env.reset(seed=SEED)  # the first reset starts a fresh office: the reference
        yield env, _start_state(env, observation)
    finally:
        env.close()


# (case, how the previous episode is left, whether the office may be reused afterwards)
CASES = [
    ("untouched", lambda env: None, True),
    ("typed cell", _type_in_cell, True),
    ("clipboard", _copy_cells, True),
    ("open dialog", _open_dialog, False),
    ("second document", _second_document, False),
    ("changed option", _change_option, False),
]


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("case", "dirty", "reusable"), CASES, ids=[case for case, _, _ in CASES])
def test_fast_reset_start_state_equals_cold_start(env_and_reference, case, dirty, reusable) -> None:
    env, reference = env_and_reference
    pid = _office_pid(env)  # every case starts from the clean start the previous one checked
    dirty(env)
    hangs_before = _reuse_load_hangs(env)
    observation, info = env.reset(seed=SEED)
    reused = _office_pid(env) == pid
    # Open (issue 31): a load into a reused office sometimes hangs (~3 in 60 under load); the reset then
    # falls back to a cold start after 10 s, by design. The start state is still checked below.
    load_hung = reusable and not reused and _reuse_load_hangs(env) > hangs_before
    assert reused is reusable or load_hung, (
        f"{case}: office reused={reused}, expected {reusable}; guest log: {env.backend.logs()}"
    )
    _assert_same_start(_start_state(env, observation), reference, case)
    env.client.hotkey(["ctrl", "z"])  # a fresh undo stack: nothing of the previous episode to undo
    assert not env.client.document_modified("calc"), f"{case}: undo changed the fresh document"
    if load_hung:
        pytest.xfail("open (issue 31): the load into the reused office hung; the reset fell back to a cold start")


def test_cold_reset_when_reuse_is_off() -> None:
    env = DesktopEnv(
        task_id=TASK, observation=("screenshot",), settle_timeout=0, backend_kwargs={"reuse_office": False}
    )
    try:
        env.reset(seed=SEED)
        pid = _office_pid(env)
        _, info = env.reset(seed=SEED)
        assert _office_pid(env) != pid
        phases = info["reset_phase_seconds"]  # where the reset's time went
        assert set(phases) == {"desktop", "clear_session", "task_setup", "settle", "observe"}, phases
        assert all(seconds >= 0 for seconds in phases.values()) and sum(phases.values()) <= info["reset_seconds"]
        launches = (env.backend.workdir / "logs" / "guest.log").read_text().count("launched calc in start ")
        assert launches == 2, "each launch logs its seconds per phase"
    finally:
        env.close()
