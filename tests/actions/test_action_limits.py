"""ActionLimits: one action or one step cannot cost the desktop more than its caps (RecordingGuestClient)."""

from __future__ import annotations

import math

import pytest

from desktop_gym.actions import (
    ActionLimits,
    ApiCall,
    Click,
    Press,
    Scroll,
    StepAllowance,
    SwitchWindow,
    TypeText,
    Wait,
    execute,
)

from .recording_client import RecordingGuestClient

SCREEN = (1280, 720)


def run(action, allowance: StepAllowance | None = None) -> tuple[str | None, list, list[float]]:
    client = RecordingGuestClient(SCREEN)
    sleeps: list[float] = []
    outcome = execute(action, client, SCREEN, sleep=sleeps.append, allowance=allowance)
    return outcome.error, client.calls, sleeps


@pytest.mark.parametrize(
    ("action", "cap"),
    [
        (Press("a", 2_147_483_647), "presses must be 1 to 100"),
        (Press("a", 0), "presses must be 1 to 100"),
        (Click(10, 10, num_clicks=1000), "num_clicks must be 1 to 3"),
        (Scroll(0, 10**6), "at most 50 notches"),
        (Scroll(-(10**6), 0), "at most 50 notches"),
        (Wait(math.nan), "finite"),
        (SwitchWindow(10**30), "not a window id"),
        (TypeText("x" * 1_000_000), "at most 10000 characters"),
    ],
)
def test_actions_over_a_cap_are_refused_before_reaching_the_desktop(action, cap: str) -> None:
    error, calls, sleeps = run(action)
    assert error is not None and cap in error
    assert calls == [] and sleeps == []


def test_waits_are_capped_per_step_not_per_wait() -> None:
    allowance = StepAllowance()
    slept = [run(Wait(5), allowance)[2] for _ in range(8)]
    assert sum(sum(s) for s in slept) == pytest.approx(5.0)  # was 8 x 5 s = 40 s


def test_typed_characters_are_charged_to_the_step() -> None:
    allowance = StepAllowance(ActionLimits(max_type_chars=10))
    assert run(TypeText("x" * 6), allowance)[0] is None
    error, calls, _ = run(TypeText("x" * 6), allowance)
    assert "4 left" in error and calls == []


def test_unsendable_values_of_typed_actions_become_errors() -> None:
    error, _, _ = run(ApiCall("CalcTools", "set_cell_value", {"value": b"x"}))
    assert error.startswith("CalcTools.set_cell_value: the action cannot be sent")


def test_limits_are_configurable_and_checked() -> None:
    assert run(Press("a", 500), StepAllowance(ActionLimits(max_presses=1000)))[0] is None
    with pytest.raises(ValueError, match="max_presses"):
        ActionLimits(max_presses=0)
    with pytest.raises(ValueError, match="max_wait_seconds"):
        ActionLimits(max_wait_seconds=math.inf)


def test_too_many_actions_in_one_step() -> None:
    with pytest.raises(ValueError, match="at most 50 actions"):
        StepAllowance().check_count(51)
    StepAllowance().check_count(50)
