"""verl's agent-loop machinery (registry + hydra, as its worker builds loops) runs ``desktop_gym`` on real desktops.

verl generates through vLLM/SGLang servers, which need a GPU: the loop talks to
``StandInVerlServerManager`` instead, a transformers-backed stand-in serving the same ``generate`` call.
"""

from __future__ import annotations

import asyncio

import pytest

from desktop_gym.train.adapters.episode import SOURCE_VARIABLE
from desktop_gym.train.adapters.standins import StandInGenerator, StandInVerlServerManager

from .conftest import SOURCE, TASK_ID
from .scripted import oracle_turn


class ScriptedServerManager:
    """Answers each turn with the oracle's next action, in verl's ``TokenOutput`` shape."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    async def generate(self, request_id, *, prompt_ids, sampling_params, **_options):
        from verl.workers.rollout.replica import TokenOutput

        ids = oracle_turn(self.tokenizer, prompt_ids)
        return TokenOutput(token_ids=ids, log_probs=[0.0] * len(ids))


@pytest.mark.stage_adapters
def test_registered_loop_plays_episodes_and_returns_agent_loop_output(smol, monkeypatch) -> None:
    from desktop_gym.train.adapters.verl import local_agent_loop, verl_rows

    tokenizer, model = smol
    monkeypatch.setenv(SOURCE_VARIABLE, SOURCE.to_json())
    server = StandInVerlServerManager(StandInGenerator(model, tokenizer), response_length=16)
    rows = verl_rows([TASK_ID], seeds=[0, 1])
    sampling = {"temperature": 1.0, "top_p": 1.0, "logprobs": True}

    async def run_both():
        # verl builds one loop per sample inside its running event loop (the loop keeps a handle on it).
        oracle = local_agent_loop(ScriptedServerManager(tokenizer), tokenizer, response_length=512)
        sampled = local_agent_loop(server, tokenizer, response_length=256)
        return await asyncio.gather(
            oracle.run(dict(sampling), raw_prompt=rows[0]["prompt"], **rows[0]),
            sampled.run(dict(sampling), raw_prompt=rows[1]["prompt"], **rows[1]),
        )

    outputs = asyncio.run(run_both())
    # The oracle's three answers end the episode with the verifier's full reward.
    assert outputs[0].reward_score == 1.0 and outputs[0].extra_fields["success"]
    assert len(outputs[0].extra_fields["step_token_spans"]) == 3
    assert len(server.request_ids) >= 1 and len(set(server.request_ids)) == 1  # one sticky id per trajectory
    for output in outputs:
        assert len(output.response_ids) == len(output.response_mask) == len(output.response_logprobs)
        assert output.reward_score in (0.0, 1.0)
        assert output.num_turns >= 3
        spans = output.extra_fields["step_token_spans"]
        assert 1 <= len(spans) <= 3 and output.extra_fields["turn_scores"][-1] == output.reward_score
        for start, end in spans:  # model tokens carry mask 1; observation tokens between them carry 0
            assert all(output.response_mask[start:end])
        if len(spans) > 1:
            assert 0 in output.response_mask[spans[0][1] : spans[1][0]]
        tensors = output.as_dict()  # verl's own conversion into the batch fields
        assert tensors["rm_scores"][-1].item() == output.reward_score
