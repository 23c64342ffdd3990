"""A hostile policy against a live env (issue 9): every bad action is ``last_action_error``, the
episode goes on, and no single action can hold the desktop for long."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from desktop_gym import DesktopEnv
from desktop_gym.actions import ActionLimits
from desktop_gym.backends.local import processes_with_marker
from desktop_gym.tasks import Task, register_task
from desktop_gym.tasks.registry import list_tasks
from desktop_gym.verifiers import VerifierResult

FAST_S = 0.1  # the worst action refused on the host must cost at most this much CPU time
GUEST_REFUSAL_S = 2.0  # ... and one the guest refused (a round trip)


class ProbeTask(Task):
    """No apps, no setup, a long budget: a desktop to throw actions at."""

    id = "security.hostile_probe"
    instruction_template = "Do nothing harmful."
    max_steps = 100_000

    def verify(self, ctx):  # noqa: ANN001, ANN201 - reached when an action declares the episode over
        return VerifierResult.failed("the probe task is never done")


if ProbeTask.id not in list_tasks():
    register_task(ProbeTask.id, ProbeTask)


@pytest.fixture(scope="module")
def env() -> Iterator[DesktopEnv]:
    environment = DesktopEnv(
        ProbeTask.id,
        observation=("last_action_error",),
        settle_timeout=0,
        action_limits=ActionLimits(max_wait_seconds=0.5),
    )
    environment.reset(seed=0)
    yield environment
    environment.close()


def step_error(env: DesktopEnv, action) -> tuple[str, float]:
    started = time.perf_counter()
    observation, _reward, terminated, truncated, info = env.step(action)
    elapsed = time.perf_counter() - started
    assert not terminated and not truncated, info
    return observation["last_action_error"], elapsed


HOSTILE = {
    "bytes kwarg": 'OSTools.write_text_file(path="~/x", text=b"x")',
    "set kwarg": "OSTools.write_text_file(path={1, 2}, text='x')",
    "mixed keys": "{1: 2, 'a': 3}",
    "deep JSON": "[" * 50_000 + "]" * 50_000,
    "400-digit float": "click(coordinates=[" + "9" * 400 + ", 5])",
    "5,000-digit JSON int": '{"name": "wait", "arguments": {"seconds": ' + "9" * 5000 + "}}",
    "NaN wait": '{"name": "wait", "arguments": {"seconds": NaN}}',
    "int beyond int64": "switch_window(window_id=" + "1" * 31 + ")",
    "int32 presses": "pyautogui.press('a', presses=2147483647)",
    "2**40 presses": f"pyautogui.press('a', presses={2**40})",
    "millions of presses": "pyautogui.press(['a', 'b'], presses=2000000)",
    "lone surrogate": 'type(text="\\ud800")',
    "huge scroll": "pyautogui.scroll(1000000)",
    "60k characters typed": "type(text='" + "x" * 60_000 + "')",
    "too many actions": "pyautogui.press('a')\n" * 51,
    "over max_length": "type(text='" + "x" * (64 * 1024) + "')",
    "64k spaces": "x\n" + " " * 65_000,
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_actions_are_errors_and_fast(env: DesktopEnv, text: str) -> None:
    steps_before = env._steps
    error, elapsed = step_error(env, text)
    assert error, "a hostile action must come back as last_action_error"
    assert elapsed < 1.0  # generous on a shared machine; the property test below checks 100 ms
    assert env._steps == steps_before + 1  # the step is spent, and reported, not lost in an exception


def test_typed_actions_with_unsendable_values_are_errors(env: DesktopEnv) -> None:
    from desktop_gym.actions import ApiCall, SwitchWindow, TypeText

    for action in (SwitchWindow(10**30), TypeText("\ud800"), ApiCall("OSTools", "path_exists", {"path": b"x"})):
        assert step_error(env, action)[0]


def test_waits_are_capped_per_step(env: DesktopEnv) -> None:
    error, elapsed = step_error(env, "wait(seconds=5)\n" * 8)  # was 40 s in one step
    assert error == "" and elapsed < 3.0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10,
)
names = st.sampled_from(
    [
        "click",
        "type",
        "pyautogui.press",
        "pyautogui.scroll",
        "pyautogui.hotkey",
        "switch_window",
        "OSTools.path_exists",
        "OSTools.write_text_file",
        "CalcTools.set_cell_value",
        "nothing",
    ]
)
keywords = st.sampled_from(["coordinates", "text", "presses", "keys", "clicks", "window_id", "path", "cell"])


@st.composite
def actions(draw: st.DrawFn) -> str:
    arguments = draw(st.dictionaries(keywords, json_values, max_size=3))
    if draw(st.booleans()):
        return json.dumps({"name": draw(names), "arguments": arguments}, allow_nan=True)
    return f"{draw(names)}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(st.one_of(actions(), st.text(max_size=200)))
@example("DONE")  # the declarations are text an agent (and hypothesis) can write
@example("FAIL")
def test_property_step_never_raises_and_refusals_are_fast(env: DesktopEnv, action: str) -> None:
    # Every example starts in a live episode: an example that ended it (a failure of its own) must not
    # leave the next example, or hypothesis's replay of it, a finished episode (that made a failure
    # look flaky: it ended the episode on its first run, and its replay hit the ended episode).
    if not env._episode_active:
        env.reset(seed=0)
    started, cpu_started = time.perf_counter(), time.thread_time()
    observation, _reward, terminated, truncated, info = env.step(action)
    elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
    # Only the agent's own declaration (DONE / FAIL, which text can spell) ends an episode; the next
    # example then starts a fresh one. Nothing else may end it: not a crash, not the budget.
    assert not truncated, (action, info)
    if terminated:
        assert "agent_declared" in info and not info["action_error"], (action, info)
        assert info["success"] is False and _reward == 0.0, (action, info)
    error = observation["last_action_error"]
    if error:
        # Nothing refused may hold the desktop: a call the guest refused (an API's argument check,
        # "CallApi: ...") costs one round trip, which a loaded 2-core machine can stretch.
        assert elapsed < GUEST_REFUSAL_S, (action, error, elapsed)
        if "CallApi:" not in error:
            # Refused on the host (parser, limits): cheap in the CPU time of the thread that stepped (the
            # process's also counts the env's background threads: 0.52 s for "0" once in CI). Its wall
            # time also holds the step's crash check (a guest round trip), 0.11 s at load 13.
            assert cpu < FAST_S, (action, error, cpu)


def test_a_task_app_killed_during_a_step_ends_the_episode_in_that_step(tmp_path: Path) -> None:
    environment = DesktopEnv("calc.enter_value", observation=("last_action_error",))
    try:
        environment.reset(seed=0)
        session = environment.backend.session_id
        office = [pid for pid in processes_with_marker(session) if _name(pid) == "soffice.bin"]
        assert office, "Calc is running"
        for pid in office:
            os.kill(pid, signal.SIGKILL)
        _obs, _reward, terminated, truncated, info = environment.step("wait(seconds=0)")
        assert truncated and not terminated, info  # was only noticed one step later
        assert "calc" in info["crash"]
    finally:
        environment.close()


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
