"""The adapters' prompt options: tool filter, role, action text and prefill, as an object and as JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.train.adapters.episode import PREFILL_VARIABLE
from desktop_gym.train.adapters.prompting import PROMPT_VARIABLE, AdapterPrompt, prompt_from_environment
from desktop_gym.train.demo import DEMO_ACTIONS, DEMO_PREFILL, DEMO_ROLE

from .conftest import DEMO_SOURCE, DEMO_TASK_ID


def test_demo_prompt_is_the_learning_demos_and_much_shorter_than_every_tool() -> None:
    demo = AdapterPrompt.demo()
    system = demo.system([DEMO_TASK_ID], DEMO_SOURCE)
    assert system == f"{DEMO_ROLE}\n\n# Actions\n{DEMO_ACTIONS}" and demo.prefill == DEMO_PREFILL
    filtered = AdapterPrompt(tools=("CalcTools__set_cell_value",)).system([DEMO_TASK_ID], DEMO_SOURCE)
    everything = AdapterPrompt().system([DEMO_TASK_ID], DEMO_SOURCE)
    assert "CalcTools.set_cell_value(" in filtered and "CalcTools.save" not in filtered
    assert "CalcTools.save" in everything and len(filtered) * 5 < len(everything)
    with pytest.raises(ValueError, match="not offered"):
        AdapterPrompt(tools=("CalcTools__no_such",)).system([DEMO_TASK_ID], DEMO_SOURCE)


def test_json_round_trip_environment_variables_and_bad_input(monkeypatch) -> None:
    demo = AdapterPrompt.demo()
    assert AdapterPrompt.from_json(demo.to_json()) == demo
    monkeypatch.delenv(PROMPT_VARIABLE, raising=False)
    monkeypatch.setenv(PREFILL_VARIABLE, "X(")
    assert prompt_from_environment() == AdapterPrompt(prefill="X(")  # the older variable still sets the prefill
    monkeypatch.setenv(PROMPT_VARIABLE, demo.to_json())
    assert prompt_from_environment() == demo  # the prompt's own prefill wins
    for bad, field in [
        ('{"tools": "CalcTools__save"}', "tools"),
        ('{"prefill": 3}', "prefill"),
        ('{"role": "x"}', "unknown"),
        ("[1]", "AdapterPrompt"),
        ('{"system_role": "' + "x" * 9000 + '"}', "system_role"),
    ]:
        with pytest.raises(ValueError, match=field):
            AdapterPrompt.from_json(bad)
    with pytest.raises(ValueError, match="at most"):
        AdapterPrompt(tools=tuple(f"t{i}" for i in range(300)))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200) | st.dictionaries(st.text(max_size=12), st.none() | st.text(max_size=20)).map(json.dumps))
def test_from_json_returns_a_prompt_or_raises_value_error(text: str) -> None:
    try:
        prompt = AdapterPrompt.from_json(text)
    except ValueError:
        return
    assert isinstance(prompt, AdapterPrompt) and AdapterPrompt.from_json(prompt.to_json()) == prompt


def test_rollout_func_takes_the_prompt_whole_or_tools_and_prefill_never_both() -> None:
    from desktop_gym.train.adapters.trl_rollout import DesktopRolloutFunc

    rollout = DesktopRolloutFunc(DEMO_SOURCE, prompt=AdapterPrompt.demo())
    assert rollout.prefill == DEMO_PREFILL and rollout.tools == ["CalcTools__set_cell_value"]
    with pytest.raises(ValueError, match="through prompt"):
        DesktopRolloutFunc(DEMO_SOURCE, prompt=AdapterPrompt.demo(), prefill="x")
    # verifiers' env_config takes the same rule; it is checked in a child process (tests/adapters/test_verifiers.py
    # explains why), through examples/verifiers_eval.py's demo prompt.
