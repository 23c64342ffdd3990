"""verl's agent-loop machinery (registry + hydra, as its worker builds loops) runs ``desktop_gym`` on real desktops.

verl generates through vLLM/SGLang servers, which need a GPU: the loop talks to
``StandInVerlServerManager`` instead, a transformers-backed stand-in serving the same ``generate`` call.
"""

from __future__ import annotations

import asyncio

import pytest

from desktop_gym.train.adapters.episode import SOURCE_VARIABLE, EnvSource
from desktop_gym.train.adapters.standins import StandInGenerator, StandInVerlServerManager

from .conftest import DEMO_SOURCE, DEMO_TASK_ID, SOURCE, TASK_ID
from .scripted import DEMO_PREFILL, StandInScriptedModel, oracle_turn
from .vision import IMAGE_TOKEN, PIXELS, stand_in_vision_processor

VISION_SOURCE = EnvSource(
    options={**DEMO_SOURCE.options, "observation": ("instruction", "screenshot", "last_action_result")}
)


class ScriptedServerManager:
    """Answers each turn with the oracle's next action, in verl's ``TokenOutput`` shape."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    async def generate(self, request_id, *, prompt_ids, sampling_params, **_options):
        from verl.workers.rollout.replica import TokenOutput

        ids = oracle_turn(self.tokenizer, prompt_ids)
        return TokenOutput(token_ids=ids, log_probs=[0.0] * len(ids))


@pytest.mark.stage_adapters
@pytest.mark.timeout(600)  # 83-124 s on a quiet machine, 275-400 s with the 2 cores shared ~10 ways
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


class ScriptedDemoServer:
    """Answers with ``StandInScriptedModel``'s demo call (continuing the prefill), in verl's ``TokenOutput``
    shape, and keeps the ``image_data`` verl's loop sent with each request."""

    def __init__(self, tokenizer, model: StandInScriptedModel) -> None:
        self.tokenizer, self.model = tokenizer, model
        self.image_data: list = []

    async def generate(self, request_id, *, prompt_ids, sampling_params, image_data=None, **_options):
        from verl.workers.rollout.replica import TokenOutput

        self.image_data.append(image_data)
        text = self.model.answer(self.tokenizer.decode(prompt_ids))
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        ids += [self.tokenizer.convert_tokens_to_ids("<|im_end|>")]
        return TokenOutput(token_ids=ids, log_probs=[-0.1] * len(ids))


@pytest.mark.stage_adapters
def test_vision_loop_carries_screenshots_and_prefill_and_the_verifier_judges(monkeypatch) -> None:
    import numpy as np
    import torch
    from PIL import Image
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker

    from desktop_gym.train.adapters.verl import local_agent_loop, verl_rows

    tokenizer, processor = stand_in_vision_processor()
    monkeypatch.setenv(SOURCE_VARIABLE, VISION_SOURCE.to_json())
    monkeypatch.setenv("DESKTOP_GYM_PREFILL", DEMO_PREFILL)
    scripted = StandInScriptedModel(prefill=DEMO_PREFILL, wrong_episodes=frozenset({1}))
    server = ScriptedDemoServer(tokenizer, scripted)
    rows = verl_rows([DEMO_TASK_ID], seeds=[0, 1])
    sampling = {"temperature": 1.0, "top_p": 1.0, "logprobs": True}

    async def run_both():
        loops = [
            local_agent_loop(server, tokenizer, response_length=128, hf_model_type="llava", processor=processor)
            for _ in rows
        ]
        assert all(loop.vision and loop.prefill == DEMO_PREFILL for loop in loops)
        return await asyncio.gather(
            *(loop.run(dict(sampling), raw_prompt=row["prompt"], **row) for loop, row in zip(loops, rows, strict=True))
        )

    outputs = asyncio.run(run_both())
    answers = dict(scripted.answers)
    assert sorted(answers.values()) == [False, True]
    for output in outputs:
        prompt_text, response_text = tokenizer.decode(output.prompt_ids), tokenizer.decode(output.response_ids)
        assert prompt_text.endswith(DEMO_PREFILL)  # the prompt builder's prefill opens the answer
        (played,) = [text for text in answers if text[len(DEMO_PREFILL) :] in response_text]
        # The verifier judged the action prefill + answer: the oracle's call earns 1, the value + 1 earns 0.
        assert output.reward_score == (0.0 if answers[played] else 1.0), output.extra_fields
        # The screenshot of the real desktop rides in verl's multi_modal_data, as the PIL image its code takes.
        (image,) = output.multi_modal_data["images"]
        assert isinstance(image, Image.Image) and image.size[0] >= 640 and image.size[1] >= 480
        assert np.asarray(image).std() > 0  # a real screen, not a blank frame
        assert output.prompt_ids.count(tokenizer.convert_tokens_to_ids(IMAGE_TOKEN)) == (PIXELS // 14) ** 2
    assert all(data is not None and len(data) == 1 for data in server.image_data)  # sent with each request
    # verl's own worker step turns the output's images into the processor's pixel inputs.
    worker = AgentLoopWorker.__new__(AgentLoopWorker)
    worker.processor, worker.tokenizer, worker.mm_processor_kwargs = processor, tokenizer, None
    output = outputs[0]
    inputs = worker._compute_multi_modal_inputs(output, torch.tensor([output.prompt_ids + output.response_ids]))
    assert tuple(inputs["pixel_values"].shape) == (1, 3, PIXELS, PIXELS)


@pytest.mark.stage_adapters
@pytest.mark.timeout(300)
def test_loop_describes_only_the_chosen_tools_and_resets_one_desktop_across_trajectories(monkeypatch) -> None:
    from desktop_gym.train.adapters.pool import DESKTOP_POOL
    from desktop_gym.train.adapters.prompting import PROMPT_VARIABLE, AdapterPrompt
    from desktop_gym.train.adapters.verl import local_agent_loop, verl_rows

    tokenizer, _ = stand_in_vision_processor()  # SmolLM2's tokenizer
    monkeypatch.setenv(SOURCE_VARIABLE, DEMO_SOURCE.to_json())
    monkeypatch.setenv(
        PROMPT_VARIABLE, AdapterPrompt(tools=("CalcTools__set_cell_value",), prefill=DEMO_PREFILL).to_json()
    )
    scripted = StandInScriptedModel(prefill=DEMO_PREFILL, wrong_episodes=frozenset({1}))
    server = ScriptedDemoServer(tokenizer, scripted)
    rows = verl_rows([DEMO_TASK_ID], seeds=[0, 1])
    sampling = {"temperature": 1.0, "top_p": 1.0, "logprobs": True}
    started_before = DESKTOP_POOL.started
    envs = []

    async def one_after_another():
        outputs = []
        for row in rows:  # verl builds a new loop per sample; the desktop stays in the pool
            loop = local_agent_loop(server, tokenizer, response_length=128)
            outputs.append(await loop.run(dict(sampling), raw_prompt=row["prompt"], **row))
            envs.append(DESKTOP_POOL._idle[DEMO_SOURCE.to_json()][-1].env)
        return outputs

    try:
        outputs = asyncio.run(one_after_another())
    finally:
        DESKTOP_POOL.close()
    assert DESKTOP_POOL.started - started_before == 1 and envs[0] is envs[1]  # one desktop, reset per trajectory
    assert [output.reward_score for output in outputs] == [1.0, 0.0], [o.extra_fields for o in outputs]
    prompt = tokenizer.decode(outputs[0].prompt_ids)
    assert "CalcTools.set_cell_value(" in prompt and "CalcTools.save" not in prompt  # the tool filter
    assert len(outputs[0].prompt_ids) < 400, len(outputs[0].prompt_ids)  # every Calc tool: ~2,157 tokens
