"""LLM agents on a real desktop: ``openai:`` against the local endpoint over HTTP, and ``hf:default``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_gym.agents import AgentOptions
from desktop_gym.evaluation import EvalConfig, run_eval

pytestmark = pytest.mark.slow
TASK = "starter.terminal_write_file"


def _steps(out: Path, trajectory: str | None) -> list[dict]:
    assert trajectory is not None
    rows = [json.loads(line) for line in (out / trajectory / "steps.jsonl").read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if row["kind"] == "step"]


@pytest.mark.parametrize("tools", [False, True], ids=["text", "tool-calls"])
def test_openai_agent_plays_through_the_local_endpoint(endpoint: str, tmp_path: Path, tools: bool) -> None:
    config = EvalConfig(
        tasks=[TASK],
        agent=f"openai:SmolLM2-135M-Instruct@{endpoint}",
        out=tmp_path,
        max_steps=1,
        action_mode="gui",
        agent_options=AgentOptions(max_tokens=12, tools=tools),
    )
    [record] = run_eval(config, progress=False)
    assert record.error is None, record.extra.get("traceback")
    steps = _steps(tmp_path, record.trajectory)
    assert record.steps == len(steps) >= 1
    assert record.completion_tokens > 0 and record.prompt_tokens > 200  # the prompt carries the action list
    # Whatever the small model wrote, a malformed answer is an action error, never a crash.
    assert record.action_errors == sum(1 for step in steps if not step["well_formed"])
    if tools:
        assert all(step["action"].startswith('{"tool_calls"') or not step["well_formed"] for step in steps)


def test_hf_agent_plays_with_the_offline_model(smollm2: object, tmp_path: Path) -> None:
    config = EvalConfig(
        tasks=[TASK],
        agent="hf:default",
        out=tmp_path,
        max_steps=1,
        agent_options=AgentOptions(max_tokens=12, prefill="type("),
    )
    [record] = run_eval(config, progress=False)
    assert record.error is None, record.extra.get("traceback")
    [step] = _steps(tmp_path, record.trajectory)
    assert step["action"].startswith("type(")
    assert 0 < record.completion_tokens <= 12 and record.generation_seconds > 0


def test_a_tool_call_answer_is_played_without_the_prefill_in_front(endpoint: str) -> None:
    """``eval --tools --prefill``: the endpoint answers with ``tool_calls``; the action is that call alone."""
    from desktop_gym.agents import EpisodeContext, make_agent
    from desktop_gym.train.adapters.episode import EnvSource, tool_schemas

    source = EnvSource(options={"action_mode": "api"})
    name = "CalcTools__set_cell_value"
    schemas = [s for s in tool_schemas(["calc.enter_value"], source) if s["function"]["name"] == name]
    # A prefill the greedy model closes into a whole call, which the endpoint returns as tool_calls.
    prefill = 'CalcTools.set_cell_value(cell="C3", value=5'
    agent = make_agent(f"openai:m@{endpoint}", AgentOptions(tools=True, prefill=prefill, max_tokens=2))
    agent.reset("Enter 5 into C3.", EpisodeContext(action_mode="api", tool_schemas=lambda: schemas))
    action = agent.act({"instruction": "Enter the number 5 into cell C3."}, {})
    assert agent.last_messages[-1] == {"role": "assistant", "content": prefill}  # the prefill was sent
    (call,) = json.loads(action)["tool_calls"]
    assert call["function"]["name"] == "CalcTools__set_cell_value"
    assert json.loads(call["function"]["arguments"]) == {"cell": "C3", "value": 5}
    # The env's own parser reads the action as that one API call.
    (parsed,) = source.exposure().parser.parse(action)
    assert "set_cell_value" in repr(parsed) and "C3" in repr(parsed)
