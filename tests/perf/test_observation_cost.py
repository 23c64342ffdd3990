"""Per-part observation cost in ``info`` and the a11y tree read alongside the other parts."""

from __future__ import annotations

import threading

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.elements import number_elements
from desktop_gym.observation_cost import PartTimer, Prefetcher


def test_part_timer_adds_up_each_part_and_keeps_failing_parts():
    timer = PartTimer()
    timer.add("settle", 0.25)
    timer.add("settle", 0.5)
    with pytest.raises(RuntimeError), timer.part("screenshot"):
        raise RuntimeError("the guest failed")
    assert timer.seconds["settle"] == 0.75
    assert "screenshot" in timer.seconds  # a part that raised is still counted
    assert timer.rounded()["settle"] == 0.75


def test_prefetcher_runs_the_part_on_one_other_thread_and_times_it():
    timer, prefetcher = PartTimer(), Prefetcher()
    try:
        names = [prefetcher.submit(timer.timed("a11y_tree", lambda: threading.current_thread().name)) for _ in range(3)]
        threads = {future.result(timeout=5) for future in names}
    finally:
        prefetcher.close()
    assert len(threads) == 1 and threads != {threading.current_thread().name}
    assert timer.seconds["a11y_tree"] >= 0


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_reset_and_step_report_where_the_observation_time_went():
    env = DesktopEnv(task_id="starter.calc_fill_totals")
    try:
        observation, info = env.reset(seed=0)
        parts = info["observation_seconds"]
        assert {"settle", "screenshot", "a11y_tree", "app_info"} <= set(parts), parts
        assert all(0 <= seconds <= info["reset_seconds"] for seconds in parts.values()), parts
        observation, _, _, _, info = env.step("wait(seconds=0)")
        assert "observation_seconds" not in info  # step info stays deterministic (check_env)
        assert {"settle", "screenshot", "a11y_tree", "app_info"} <= set(env.unwrapped.observation_seconds)
        # The tree read on the worker thread is the tree a direct read sees on the still screen.
        assert "table" in observation["a11y_tree"]
        # (The observation writes the session home as ``~``; the direct read shows the real path.)
        # (It numbers the actionable lines: the element ids of the default action set.)
        direct = env.unwrapped._for_agent(env.client.a11y_tree(True, env.a11y_max_nodes))
        assert observation["a11y_tree"] == number_elements(direct)[0]
        assert observation in env.observation_space
    finally:
        env.close()
