"""A setup that fails is recovered inside reset; after the last try one ResetFailedError names each failure."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from desktop_gym import errors
from desktop_gym.env import DesktopEnv
from desktop_gym.reset_recovery import check_attempts, set_up_with_retries
from desktop_gym.tasks import Task, TaskContext, register_task
from desktop_gym.verifiers.result import VerifierResult


class FlakySetup(Task):
    """Its setup reads a file that does not exist (a real guest error) until ``fail_times`` tries failed."""

    id = "testing.flaky_setup"
    instruction_template = "Nothing to do ({token})"
    apps = ("terminal",)
    fail_times: ClassVar[int] = 1
    setups: ClassVar[list[dict[str, Any]]] = []

    def sample_params(self, rng) -> dict[str, Any]:
        return {"token": int(rng.integers(0, 10**9))}

    def setup(self, ctx: TaskContext) -> None:
        FlakySetup.setups.append(dict(ctx.params))
        if len(FlakySetup.setups) <= FlakySetup.fail_times:
            ctx.client.get_file("~/this-file-is-never-there.txt")
        ctx.client.launch_app("terminal")

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return VerifierResult.failed("nothing to verify")


register_task(FlakySetup.id, FlakySetup)


def test_unit_retries_then_one_typed_error_listing_each_try() -> None:
    calls: list[int] = []

    def set_up() -> str:
        calls.append(1)
        raise errors.GuestTimeoutError(f"UNO call load did not return (call {len(calls)})")

    with pytest.raises(errors.ResetFailedError) as caught:
        set_up_with_retries(set_up, lambda attempt: f"recovery {attempt}", 3, "reset of task x.y")
    message = str(caught.value)
    assert "reset of task x.y failed 3 times" in message
    assert "try 1: GuestTimeoutError" in message and "try 3:" in message and "then recovery 2" in message
    assert isinstance(caught.value.__cause__, errors.GuestTimeoutError)
    assert not isinstance(caught.value, errors.GuestError)


def test_unit_programming_errors_are_not_retried() -> None:
    calls: list[int] = []

    def buggy() -> None:
        calls.append(1)
        raise TypeError("a bug in the task")

    with pytest.raises(TypeError):
        set_up_with_retries(buggy, lambda attempt: "", 3, "reset")
    assert len(calls) == 1


@pytest.mark.parametrize("bad", [0, 11, 2.5, "3"])
def test_reset_attempts_is_checked(bad: Any) -> None:
    with pytest.raises(ValueError, match="reset_attempts"):
        check_attempts(bad)


@pytest.mark.slow
def test_failed_setup_is_retried_with_the_same_parameters_then_gives_up() -> None:
    env = DesktopEnv(task_id=FlakySetup.id, observation=("instruction",), reset_attempts=3)
    try:
        FlakySetup.fail_times, FlakySetup.setups[:] = 1, []
        _, info = env.reset(seed=7)
        assert info["setup_attempts"] == 2
        assert FlakySetup.setups[0] == FlakySetup.setups[1] == info["params"]  # same seed, same task

        FlakySetup.fail_times, FlakySetup.setups[:] = 99, []
        with pytest.raises(errors.ResetFailedError, match=r"failed 3 times: try 1: GuestFileNotFoundError") as caught:
            env.reset(seed=8)
        assert "then killed the apps" in str(caught.value) and "then restarted the desktop" in str(caught.value)
        assert len(FlakySetup.setups) == 3
        with pytest.raises(errors.EpisodeNotStartedError):
            env.step("wait(seconds=0)")

        FlakySetup.fail_times, FlakySetup.setups[:] = 0, []
        observation, info = env.reset(seed=9)  # the env is usable again
        assert info["setup_attempts"] == 1 and "Nothing to do" in observation["instruction"]
    finally:
        env.close()
