"""OpenRLHF's own ``MultiTurnAgentExecutor`` plays desktop episodes through our agent file."""

from __future__ import annotations

import asyncio
import importlib.util
import json

import pytest

import desktop_gym.train.adapters.openrlhf as adapter
from desktop_gym.train.adapters.openrlhf import openrlhf_rows, parse_label
from desktop_gym.train.adapters.standins import (
    StandInCompletionOutput,
    StandInGenerator,
    StandInRequestOutput,
    StandInSamplingParams,
    StandInVllmEngine,
)

from .conftest import SOURCE, TASK_ID
from .scripted import oracle_turn


def load_agent_executor():
    """Load the agent file the way OpenRLHF's ``_load_agent_executor`` does (by path, as ``agent_module``)."""
    from openrlhf.utils.agent import AgentExecutorBase

    spec = importlib.util.spec_from_file_location("agent_module", adapter.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert issubclass(module.AgentExecutor, AgentExecutorBase)
    return module.AgentExecutor()


class ScriptedEngine:
    """Answers each turn with the oracle's next action (tokenized), in vLLM's output shape."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = oracle_turn(self.tokenizer, prompt_token_ids)
        return StandInRequestOutput([StandInCompletionOutput(ids, self.tokenizer.decode(ids[:-1]), "stop", None)])


class CutEngine:
    """Answers every turn with the start of the oracle's first call, cut as a spent token budget cuts it."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = oracle_turn(self.tokenizer, prompt_token_ids)[:-1][:4]  # no <|im_end|>: finish_reason "length"
        return StandInRequestOutput([StandInCompletionOutput(ids, self.tokenizer.decode(ids), "length", None)])


def test_rows_carry_task_and_seed_and_bad_labels_are_named() -> None:
    rows = openrlhf_rows([TASK_ID], seeds=[3, 4])
    assert [parse_label(row["label"]) for row in rows] == [(TASK_ID, 3), (TASK_ID, 4)]
    with pytest.raises(ValueError, match="task_id"):
        parse_label(json.dumps({"seed": 1}))
    with pytest.raises(ValueError, match="seed"):
        parse_label(json.dumps({"task_id": TASK_ID, "seed": "x"}))


@pytest.mark.stage_adapters
@pytest.mark.timeout(600)  # 83-124 s on a quiet machine, 275-400 s with the 2 cores shared ~10 ways
def test_multi_turn_executor_plays_desktop_episodes(smol, monkeypatch) -> None:
    tokenizer, model = smol
    monkeypatch.setenv(adapter.SOURCE_VARIABLE, SOURCE.to_json())
    executor = load_agent_executor()
    label_a, label_b = (row["label"] for row in openrlhf_rows([TASK_ID], seeds=[0, 1]))

    async def run_both():
        oracle = executor.execute(
            TASK_ID, label_a, StandInSamplingParams(logprobs=None), 4096, tokenizer, ScriptedEngine(tokenizer)
        )
        engine = StandInVllmEngine(StandInGenerator(model, tokenizer), max_new_tokens=16)
        sampled = executor.execute(TASK_ID, label_b, StandInSamplingParams(max_tokens=16), 4096, tokenizer, engine)
        return await asyncio.gather(oracle, sampled)

    oracle, sampled = asyncio.run(run_both())
    # The oracle's three actions end the episode with the verifier's full reward.
    assert oracle["reward"] == 1.0 and oracle["scores"] == 1.0, tokenizer.decode(oracle["observation_tokens"])[-1500:]
    assert len(oracle["action_ranges"]) == 3
    assert oracle["extra_logs"]["success"].item() == 1.0
    # The model-driven episode ran until done or the step budget (3), every step scored by the env.
    assert 1 <= len(sampled["action_ranges"]) <= 3
    assert sampled["reward"] in (0.0, 1.0)
    assert len(sampled["rollout_log_probs"]) == len(sampled["observation_tokens"])
    start, end = sampled["action_ranges"][0]
    assert any(value != 0.0 for value in sampled["rollout_log_probs"][start:end])  # real log-probs on model tokens
    text = tokenizer.decode(sampled["observation_tokens"])
    assert "Enter the number" in text and text.count("<|im_start|>assistant") >= len(sampled["action_ranges"])


@pytest.mark.stage_adapters
@pytest.mark.timeout(300)
def test_an_answer_cut_by_the_token_budget_is_closed_before_the_next_turn(smol, monkeypatch) -> None:
    tokenizer, _ = smol
    monkeypatch.setenv(adapter.SOURCE_VARIABLE, SOURCE.to_json())  # 3 steps an episode
    executor = load_agent_executor()
    (row,) = openrlhf_rows([TASK_ID], seeds=[0])
    engine = CutEngine(tokenizer)
    sampling = StandInSamplingParams(logprobs=None)
    result = asyncio.run(executor.execute(TASK_ID, row["label"], sampling, 4096, tokenizer, engine))
    assert len(result["action_ranges"]) == 3  # three cut answers, each an action error, until max_steps
    text = tokenizer.decode(result["observation_tokens"])
    for _start, end in result["action_ranges"][:-1]:
        after = tokenizer.decode(result["observation_tokens"][end:])
        assert after.startswith("<|im_end|>\n<|im_start|>user\n"), after[:80]  # the cut turn is closed
    # One end of turn each: the system turn, the 3 user turns, the 2 answers closed after them.
    assert text.count("<|im_start|>user") == 3 and text.count("<|im_end|>") == 1 + 3 + 2
    # An answer that ended with the model's own <|im_end|> gets no second one.
    (row,) = openrlhf_rows([TASK_ID], seeds=[1])
    oracle = asyncio.run(executor.execute(TASK_ID, row["label"], sampling, 4096, tokenizer, ScriptedEngine(tokenizer)))
    text = tokenizer.decode(oracle["observation_tokens"])
    assert oracle["reward"] == 1.0 and "<|im_end|><|im_end|>" not in text
    assert text.count("<|im_end|>\n<|im_start|>user\n") == 1 + 2  # after the system turn, after 2 answers
