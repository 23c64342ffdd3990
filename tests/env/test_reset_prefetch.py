"""Prefetched resets (issue 31): the next episode is prepared on a second desktop, and the reset swaps.

A prefetched reset must be the episode a cold reset gives (parameters, instruction, first
observation) and must go on as one (its steps act on the swapped-in desktop and the verifier reads
it); a reset that names another episode falls back to an ordinary one; a malformed request fails
before anything starts, naming its field.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym import DesktopEnv
from desktop_gym.episode_prefetch import PrefetchRequest
from desktop_gym.tasks import get_task
from desktop_gym.testing import screen_difference

TASK = "starter.calc_fill_totals"
PARTS = ("screenshot", "a11y_tree", "app_info", "last_action_error")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300)
@given(value=json_values | st.dictionaries(st.sampled_from(["task_id", "seed", "params", "x"]), json_values))
def test_parse_raises_only_value_error_naming_prefetch(value: Any) -> None:
    try:
        request = PrefetchRequest.parse(value, default_task=TASK)
    except ValueError as error:
        assert "options['prefetch']" in str(error)
    else:
        assert isinstance(request.seed, int) and isinstance(request.task_id, str)


def test_parse_and_match() -> None:
    request = PrefetchRequest.parse({"seed": 4, "params": {"a": 1}}, default_task=TASK)
    assert request == PrefetchRequest(TASK, 4, {"a": 1})
    assert request.matches(TASK, 4, {"a": 1})
    assert (
        not request.matches(TASK, 5, {"a": 1})
        and not request.matches(TASK, 4, {})
        and not request.matches("x", 4, {"a": 1})
    )
    with pytest.raises(ValueError, match=r"\['seed'\] must be an int"):
        PrefetchRequest.parse({"task_id": TASK}, default_task=None)
    with pytest.raises(ValueError, match="unknown keys"):
        PrefetchRequest.parse({"seed": 1, "sed": 2}, default_task=TASK)


def test_prefetch_needs_an_env_that_owns_its_backend(desktop) -> None:
    env = DesktopEnv(task_id=TASK, backend=desktop)
    try:
        with pytest.raises(ValueError, match="backend by name"):
            env.reset(seed=0, options={"prefetch": {"seed": 1}})
    finally:
        env.close()


@pytest.fixture(scope="module")
def envs() -> Iterator[tuple[DesktopEnv, DesktopEnv]]:
    """A prefetching env and a reference env that only ever resets cold."""
    prefetching = DesktopEnv(task_id=TASK, observation=PARTS)
    cold = DesktopEnv(task_id=TASK, observation=PARTS)
    try:
        yield prefetching, cold
    finally:
        prefetching.close()
        cold.close()


def _same_start(observation: dict, info: dict, reference: dict, reference_info: dict) -> None:
    assert info["params"] == reference_info["params"] and info["instruction"] == reference_info["instruction"]
    difference = screen_difference(observation["screenshot"], reference["screenshot"])
    assert difference.within_caret_mask, f"the prefetched first screenshot differs from a cold reset's: {difference}"
    assert observation["a11y_tree"] == reference["a11y_tree"] and observation["app_info"] == reference["app_info"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_prefetched_reset_is_the_cold_reset_and_its_episode_runs(envs) -> None:
    env, cold = envs
    _, info = env.reset(seed=1, options={"prefetch": {"seed": 2}})
    assert "prefetched" not in info
    first_backend = env.backend
    env.step("type(text='dirty\\n')")  # the episode being replaced leaves its desktop dirty
    observation, info = env.reset(seed=2, options={"prefetch": {"seed": 3}})
    assert info["prefetched"] is True and info["prefetch_seconds"] > info["reset_seconds"]
    assert env.backend is not first_backend  # the other desktop
    reference, reference_info = cold.reset(seed=2)
    _same_start(observation, info, reference, reference_info)
    # The episode goes on on the swapped-in desktop: the API oracle solves it, and the verifier agrees.
    policy = get_task(TASK).api_oracle(info["params"])
    for _ in range(info["max_steps"]):
        observation, reward, terminated, truncated, step_info = env.step(policy(observation))
        assert not observation["last_action_error"], observation["last_action_error"]
        if terminated or truncated:
            break
    assert step_info["success"] is True and reward > 0
    # The next reset swaps back to the first desktop, cleaned: seed 3 as a cold reset gives it.
    observation, info = env.reset(seed=3)
    assert info["prefetched"] is True and env.backend is first_backend
    reference, reference_info = cold.reset(seed=3)
    _same_start(observation, info, reference, reference_info)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_reset_to_another_episode_falls_back_to_an_ordinary_one(envs) -> None:
    env, cold = envs
    env.reset(seed=5, options={"prefetch": {"seed": 6}})
    observation, info = env.reset(seed=7)  # not the prefetched seed 6
    assert "prefetched" not in info
    reference, reference_info = cold.reset(seed=7)
    _same_start(observation, info, reference, reference_info)
