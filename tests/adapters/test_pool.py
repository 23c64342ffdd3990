"""The per-process desktop pool verl's loops and OpenRLHF's instances share (no desktop starts here)."""

from __future__ import annotations

import pytest

from desktop_gym.train.adapters.pool import DesktopPool
from desktop_gym.train.adapters.prompting import PROMPT_VARIABLE, AdapterPrompt

from .conftest import DEMO_SOURCE, SOURCE


def test_a_given_back_episode_is_reused_per_source_and_a_full_pool_closes_it() -> None:
    pool = DesktopPool(max_idle=1)
    first = pool.acquire(DEMO_SOURCE)
    busy = pool.acquire(DEMO_SOURCE)  # the first is still in use: a second one
    assert busy is not first and pool.started == 2
    pool.release(first)
    assert pool.acquire(SOURCE) is not first  # another source never gets it
    assert pool.acquire(DEMO_SOURCE) is first and pool.started == 3
    pool.release(first)
    pool.release(busy)  # over max_idle: closed, not kept
    assert busy.done and pool.acquire(DEMO_SOURCE) is first
    with pytest.raises(ValueError, match="max_idle"):
        DesktopPool(max_idle=-1)


def test_openrlhf_instances_take_the_prompt_from_the_environment_and_give_desktops_back(monkeypatch) -> None:
    from desktop_gym.train.adapters import openrlhf
    from desktop_gym.train.adapters.pool import DESKTOP_POOL

    monkeypatch.setenv(PROMPT_VARIABLE, AdapterPrompt.demo().to_json())
    monkeypatch.setattr(openrlhf, "DESKTOP_POOL", DesktopPool())
    instance = openrlhf.DesktopAgentInstance()
    assert instance.prompt == AdapterPrompt.demo() and instance.prefill == AdapterPrompt.demo().prefill
    episode = instance.episode
    instance._release()
    assert openrlhf.DESKTOP_POOL.acquire(instance.source) is episode  # the next prompt resets the same desktop
    assert openrlhf.DESKTOP_POOL is not DESKTOP_POOL
