"""The agent registry and the model-free agents."""

from __future__ import annotations

import pytest

from desktop_gym.actions import ActionSet
from desktop_gym.agents import EpisodeContext, OracleAgent, UnknownAgentError, agent_kinds, make_agent, register_agent
from desktop_gym.tasks import get_task


def test_registry_resolves_every_builtin_kind() -> None:
    assert {"oracle", "oracle-api", "oracle-gui", "null", "random", "hf", "openai"} <= set(agent_kinds())
    assert make_agent("null").act({}, {}) == "done()"
    assert isinstance(make_agent("oracle-gui"), OracleAgent)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("gpt4", "unknown agent 'gpt4'; known kinds"), ("hf:", "hf: name a model"), ("openai:", "openai: name the model")],
)
def test_bad_agent_strings_say_what_is_expected(spec: str, message: str) -> None:
    with pytest.raises(UnknownAgentError, match=message):
        make_agent(spec)


def test_a_registered_kind_gets_the_text_after_the_colon() -> None:
    seen = []

    @register_agent("test-echo")
    def _factory(argument: str, options: object) -> object:
        seen.append(argument)
        return make_agent("null")

    make_agent("test-echo:abc:def")
    assert seen == ["abc:def"]


def test_random_agent_actions_are_well_formed_and_repeat_per_seed() -> None:
    parser = ActionSet()
    agent = make_agent("random")
    agent.reset("x", EpisodeContext(seed=7))
    first = [agent.act({}, {}) for _ in range(12)]
    for action in first[:-2]:
        assert parser.parse(action), action
    assert first[-1] == "done()"
    agent.reset("x", EpisodeContext(seed=7))
    assert [agent.act({}, {}) for _ in range(12)] == first


def test_oracle_kinds_pick_the_api_or_gui_solution() -> None:
    task = get_task("starter.calc_fill_totals")
    params = task.sample_params(__import__("numpy").random.default_rng(0))
    api, gui = make_agent("oracle-api"), make_agent("oracle-gui")
    api.reset("", EpisodeContext(task=task, params=params))
    gui.reset("", EpisodeContext(task=task, params=params, action_mode="gui"))
    assert api.act({}, {}).startswith("CalcTools.")
    assert gui.act({}, {}) == 'hotkey(keys=["ctrl", "home"])'
    plain = make_agent("oracle")
    plain.reset("", EpisodeContext(task=task, params=params, action_mode="gui"))
    assert plain.act({}, {}) == 'hotkey(keys=["ctrl", "home"])'  # the GUI oracle in GUI mode
    plain.reset("", EpisodeContext(task=task, params=params, action_mode="hybrid"))
    assert plain.act({}, {}).startswith("CalcTools.")
    with pytest.raises(ValueError, match="needs the task"):
        make_agent("oracle").reset("", EpisodeContext())
