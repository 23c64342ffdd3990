"""TRL's own ``GRPOTrainer`` trains SmolLM2-135M for two optimizer steps against real desktops."""

from __future__ import annotations

import math
import pickle

import pytest

from desktop_gym.train.adapters.episode import EnvSource
from desktop_gym.train.adapters.trl import (
    TOOL_CALL_PREFILL,
    DesktopGymSpec,
    environment_class,
    with_tool_chat_template,
)

from .conftest import DEMO_SOURCE, DEMO_TASK_ID, DEMO_TOOLS, SOURCE, TASK_ID, TOOLS, cpu_grpo_args, train_grpo
from .scripted import demo_answer
from .vision import IMAGE_TOKEN, PIXELS, stand_in_vision_processor


def test_environment_class_pickles_without_a_desktop_and_exposes_only_the_chosen_tools() -> None:
    cls = environment_class([TASK_ID], SOURCE, tools=TOOLS)
    env = cls()
    copy = pickle.loads(pickle.dumps(env))
    assert type(copy).__name__ == cls.__name__ and copy.source == SOURCE
    public = sorted(name for name in vars(cls) if callable(vars(cls)[name]) and not name.startswith("_"))
    assert public == sorted(TOOLS)
    with pytest.raises(ValueError, match="not offered"):
        environment_class([TASK_ID], SOURCE, tools=["CalcTools__no_such_method"])


@pytest.mark.stage_adapters
@pytest.mark.timeout(600)  # 140 s on a quiet machine, over 300 s with the 2 cores shared ~10 ways
def test_grpo_trainer_runs_two_steps_on_real_desktops_with_verifier_rewards(smol, tmp_path) -> None:
    tokenizer, model = smol
    spec = DesktopGymSpec([TASK_ID], seeds=range(2), source=SOURCE, tools=TOOLS)
    args = cpu_grpo_args(tmp_path, max_completion_length=40, max_tool_calling_iterations=1)
    data = {"train_dataset": spec.train_dataset, "environment_factory": spec.environment_factory}
    trainer = train_grpo(model, with_tool_chat_template(tokenizer), args, spec, reward_funcs=spec.reward_funcs, **data)
    assert trainer.state.global_step == 2
    logged = [entry for entry in trainer.state.log_history if f"rewards/{spec.env_class.__name__}/mean" in entry]
    assert len(logged) == 2, trainer.state.log_history
    episodes = [reward for env in spec.instances for reward in env.rewards]
    assert len(episodes) == 4  # 2 steps x 2 rollouts, each scored by get_reward
    for env in spec.instances:
        if env.rewards:
            assert env.episode.verifier is not None  # the verifier judged the desktop
    logged_mean = sum(entry[f"rewards/{spec.env_class.__name__}/mean"] for entry in logged) / 2
    assert math.isclose(logged_mean, sum(episodes) / 4, abs_tol=1e-6)


@pytest.mark.stage_adapters
def test_prefilled_tool_template_opens_every_turn_with_the_call_and_trl_parses_it() -> None:
    from trl.chat_template_utils import parse_response

    tokenizer, _ = stand_in_vision_processor()  # a fresh SmolLM2 tokenizer (the template is changed in place)
    tokenizer = with_tool_chat_template(tokenizer, prefill=TOOL_CALL_PREFILL)
    env = environment_class([DEMO_TASK_ID], DEMO_SOURCE, tools=DEMO_TOOLS)()
    from transformers.utils import get_json_schema

    tools = [get_json_schema(env.CalcTools__set_cell_value)]
    chat = [{"role": "user", "content": "Enter the number 7 into cell B2."}]
    prompt = tokenizer.apply_chat_template(chat, tools=tools, add_generation_prompt=True, tokenize=False)
    assert prompt.endswith("<|im_start|>assistant\n" + TOOL_CALL_PREFILL)
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    rest = 'CalcTools__set_cell_value", "arguments": {"cell": "B2", "value": 7}}\n</tool_call><|im_end|>'
    parsed = parse_response(
        tokenizer, tokenizer(rest, add_special_tokens=False)["input_ids"], prefix=prompt_ids, tools=tools
    )
    (call,) = parsed["tool_calls"]  # TRL's parser reads the prefilled start of the call from the prompt
    assert call["function"] == {"name": "CalcTools__set_cell_value", "arguments": {"cell": "B2", "value": 7}}
    # After a tool answer, the template opens the next assistant turn with the prefill again.
    turn = [
        *chat,
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": call["function"]}]},
    ]
    turn.append({"role": "tool", "name": "CalcTools__set_cell_value", "content": "ok"})
    assert tokenizer.apply_chat_template(turn, tools=tools, add_generation_prompt=True, tokenize=False).endswith(
        "<|im_start|>assistant\n" + TOOL_CALL_PREFILL
    )
    with pytest.raises(ValueError, match="prefill"):
        with_tool_chat_template(tokenizer, prefill="{{ evil }}")


@pytest.mark.stage_adapters
def test_vision_environment_returns_screenshots_as_trl_image_blocks_and_the_verifier_judges() -> None:
    from PIL import Image
    from trl.data_utils import prepare_multimodal_messages

    source = EnvSource(options={**DEMO_SOURCE.options, "observation": ("instruction", "screenshot")})
    env = environment_class([DEMO_TASK_ID], source, tools=DEMO_TOOLS, vision=True)()
    try:
        first = env.reset(task_id=DEMO_TASK_ID, seed=0)
        texts = [block["text"] for block in first if block["type"] == "text"]
        feedback = env.CalcTools__set_cell_value(**_call_arguments(demo_answer(texts[0], wrong=False)))
        reward = env.get_reward()
    finally:
        env._close()
    assert reward == 1.0, env.episode.verifier  # the oracle's call, judged by the task verifier
    images = [block["image"] for blocks in (first, feedback) for block in blocks if block["type"] == "image"]
    assert len(images) == 2 and all(isinstance(image, Image.Image) for image in images)
    assert images[0].size[0] >= 640 and images[0].size[1] >= 480
    # TRL's prompt shape: the reset blocks join the user turn, the tool answer is a multimodal tool message.
    chat = [
        {"role": "user", "content": [{"type": "text", "text": "Task:"}, *first]},
        {"role": "tool", "name": "CalcTools__set_cell_value", "content": feedback},
    ]
    chat = prepare_multimodal_messages(chat)
    tokenizer, processor = stand_in_vision_processor()
    text = processor.apply_chat_template(chat, tokenize=False)
    inputs = processor(text=[text], images=images, return_tensors="pt")
    assert tuple(inputs["pixel_values"].shape) == (2, 3, PIXELS, PIXELS)
    image_id = tokenizer.convert_tokens_to_ids(IMAGE_TOKEN)
    assert int((inputs["input_ids"] == image_id).sum()) == 2 * (PIXELS // 14) ** 2


def _call_arguments(call: str) -> dict:
    """``{"cell": ..., "value": ...}`` from ``CalcTools.set_cell_value(cell="B2", value=7)``."""
    import re

    cell, value = re.fullmatch(r'CalcTools\.set_cell_value\(cell="(\w+)", value=(\d+)\)', call).groups()
    return {"cell": cell, "value": int(value)}


def test_the_factory_pickles_and_builds_environments_with_the_same_tools_on_the_other_side() -> None:
    spec = DesktopGymSpec([DEMO_TASK_ID], seeds=[0], source=DEMO_SOURCE, tools=DEMO_TOOLS)
    factory = pickle.loads(pickle.dumps(spec.environment_factory))
    env = factory()
    assert type(env).__name__ == "DesktopGymEnv" and env.source == DEMO_SOURCE
    assert env.episode._env is None  # no desktop until the first reset
    assert pickle.loads(pickle.dumps(spec.env_class)) is spec.env_class  # the class pickles as its recipe
    assert callable(env.CalcTools__set_cell_value) and not hasattr(env, "CalcTools__save")
    assert spec.instances == [] and factory.instances == [env]  # each process closes its own


@pytest.mark.stage_adapters
@pytest.mark.timeout(400)
def test_trl_async_worker_pickles_the_factory_into_its_child_process(smol, monkeypatch) -> None:
    import os

    import trl.experimental.async_grpo.async_rollout_worker as worker_module
    from accelerate.state import PartialState

    from .trl_probe import ProbeWorker

    PartialState()  # as the trainer's Accelerator does: TRL's worker logs through accelerate

    # vLLM cannot be installed here (GPU only); the child never calls it: only the import check is bypassed.
    monkeypatch.setattr(worker_module, "is_vllm_available", lambda: True)
    tokenizer = with_tool_chat_template(smol[0])
    spec = DesktopGymSpec([DEMO_TASK_ID], seeds=[0, 1], source=DEMO_SOURCE, tools=DEMO_TOOLS)
    worker = ProbeWorker(
        child_ready_timeout=300,
        model_name="SmolLM2-135M-Instruct",
        dataset=spec.train_dataset,
        reward_funcs=spec.reward_funcs,
        processing_class=tokenizer,
        eos_token_ids=[tokenizer.eos_token_id],
        environment_factory=spec.environment_factory,
        vllm_server_url="http://127.0.0.1:9",
    )
    try:
        worker.start()  # TRL's own path: pickle.dumps(loop kwargs), spawn, unpickle, build the loop
        report = worker.metrics_queue.get(timeout=120)
    finally:
        worker.stop()
    assert report["pid"] != os.getpid()
    assert report["class"] == "desktop_gym.train.adapters.trl.DesktopGymEnv"
    assert report["tools"] == DEMO_TOOLS  # TRL's probe of the rebuilt class found the same tools
    assert report["reward_columns"] == ["DesktopGymEnv"]  # get_reward is the reward source
    assert report["connected"] is False and report["source"] == DEMO_SOURCE.to_json()
