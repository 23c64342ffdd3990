"""vLLM by configuration only: each trainer's own config code accepts the adapter's vLLM settings and routes to it.

vLLM needs a GPU, so no engine runs here: these tests check the config objects and the routing.
``StandInVllmGeneration`` (named so) stands in for TRL's ``VLLMGeneration``.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import sys
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from desktop_gym.train.adapters.engines import OPENRLHF_VLLM_ARGS, TRL_VLLM_CONFIG, VERL_VLLM_OVERRIDES

REPOSITORY = Path(__file__).resolve().parents[2]


class StandInVllmGeneration:
    """Stand-in for TRL's ``VLLMGeneration.generate`` (token ids in; ids and top-k log-probs out)."""

    def __init__(self, answer: list[int]) -> None:
        self.answer = answer
        self.prompts: list[list[int]] = []

    def generate(self, prompts, images, num_generations, profiler=None):  # noqa: ANN001, ANN201 - TRL's signature
        self.prompts.extend(prompts)
        return prompts, [list(self.answer)], [[[-0.5, -2.0] for _ in self.answer]], None


def test_trl_config_is_accepted_and_rollout_func_generates_with_the_trainers_vllm(tmp_path, smol) -> None:
    from trl import GRPOConfig

    from desktop_gym.train.adapters.standins import StandInGenerator
    from desktop_gym.train.adapters.trl_rollout import TrainerVllmSampler, sampler_for

    tokenizer, model = smol
    config = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False, **TRL_VLLM_CONFIG)
    assert config.use_vllm and config.vllm_mode == "server"
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    generation = StandInVllmGeneration([11, 12, end])
    # GRPOTrainer sets use_vllm from the config and builds vllm_generation from it (needs vLLM and a GPU).
    trainer = SimpleNamespace(use_vllm=config.use_vllm, vllm_generation=generation, model=model)
    sampler = sampler_for(trainer, tokenizer)
    assert isinstance(sampler, TrainerVllmSampler)
    sample = sampler.sample([1, 2, 3], max_new_tokens=8)
    assert generation.prompts == [[1, 2, 3]]
    assert sample.token_ids == [11, 12, end] and sample.logprobs == [-0.5] * 3 and sample.finish_reason == "stop"
    cut = sampler.sample([4], max_new_tokens=2)  # the adapter's per-turn cap still holds
    assert cut.token_ids == [11, 12] and cut.finish_reason == "length"
    plain = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False)
    assert not plain.use_vllm
    assert isinstance(sampler_for(SimpleNamespace(use_vllm=plain.use_vllm, model=model), tokenizer), StandInGenerator)


def test_verl_overrides_compose_into_verls_config_and_its_worker_finds_our_loop(monkeypatch) -> None:
    import hydra
    import verl
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from verl.utils.import_utils import resolve_config_path

    from desktop_gym.train.adapters.verl import DesktopGymAgentLoop

    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        config = compose(config_name="ppo_trainer", overrides=list(VERL_VLLM_OVERRIDES))
    rollout = config.actor_rollout_ref.rollout
    assert rollout.name == "vllm" and rollout.mode == "async"
    assert rollout.agent.default_agent_loop == "desktop_gym"
    # What verl's AgentLoopWorker does with agent_loop_config_path (run from the repository root).
    monkeypatch.chdir(REPOSITORY)
    entries = OmegaConf.load(resolve_config_path(rollout.agent.agent_loop_config_path))
    (entry,) = [entry for entry in entries if entry.name == rollout.agent.default_agent_loop]
    assert hydra.utils.get_class(entry._target_) is DesktopGymAgentLoop


def openrlhf_launcher_arguments(argv: list[str]) -> Any:
    """OpenRLHF's launcher (``openrlhf.cli.train_ppo_ray``) parsing ``argv``, without its GPU imports.

    The launcher imports vLLM, DeepSpeed and flash-attn at the top (GPU packages, not installed here), so
    its ``__main__`` block is run by itself: OpenRLHF's own parser, ``hierarchize`` and its checks up to
    the agent routing (``--train.agent_func_path`` sets ``reward.remote_url = "agent"``).
    """
    origin = importlib.util.find_spec("openrlhf.cli.train_ppo_ray").origin
    tree = ast.parse(Path(origin).read_text())
    (main,) = [node for node in tree.body if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)]
    body = []
    for statement in main.body:
        body.append(statement)
        if isinstance(statement, ast.If) and "agent_func_path" in ast.unparse(statement.test):
            break
    namespace: dict[str, Any] = {"argparse": argparse, "datetime": datetime, "os": os, "__name__": "openrlhf_launcher"}
    saved = sys.argv
    sys.argv = ["train_ppo_ray", *argv]
    try:
        exec(compile(ast.Module(body=body, type_ignores=[]), origin, "exec"), namespace)  # OpenRLHF's own code
    finally:
        sys.argv = saved
    return namespace["args"]


def test_openrlhf_arguments_are_accepted_and_route_the_agent_file_to_vllm_engines() -> None:
    import desktop_gym.train.adapters.openrlhf as adapter

    argv = ["--actor.model_name_or_path", "HuggingFaceTB/SmolLM2-135M-Instruct", "--data.prompt_dataset", "rows.jsonl"]
    args = openrlhf_launcher_arguments([*argv, *OPENRLHF_VLLM_ARGS, "--train.agent_func_path", adapter.__file__])
    assert args.vllm.num_engines == 1  # train() creates vLLM engines, each loading the agent file
    assert args.train.agent_func_path == adapter.__file__ and args.reward.remote_url == "agent"
    assert (args.data.input_key, args.data.label_key) == ("prompt", "label")
    with pytest.raises(SystemExit):  # a wrong flag is refused by the same parser
        openrlhf_launcher_arguments([*argv, "--vllm.engines", "1"])
