"""The configuration that moves each adapter from the CPU stand-ins to vLLM on a GPU cluster.

Nothing in the adapters changes: each trainer already routes generation by its own config, and the
adapters use whatever engine the trainer hands them (verl's server manager, OpenRLHF's engine
actor, TRL's ``vllm_generation``, an OpenAI-compatible URL for verifiers). These constants are the
exact settings docs/adapters.md shows; ``tests/adapters/test_engines.py`` checks that each trainer's
own config code accepts them and routes to vLLM (vLLM itself needs a GPU, so it never runs here).
"""

from __future__ import annotations

from typing import Any

TRL_VLLM_CONFIG: dict[str, Any] = {
    "use_vllm": True,
    "vllm_mode": "server",  # a `trl vllm-serve --model ...` process; "colocate" shares the training GPUs
    "vllm_server_base_url": "http://127.0.0.1:8000",
}
"""``GRPOConfig`` keyword arguments: both TRL paths (``environment_factory``, ``rollout_func``) generate with vLLM."""

VERL_VLLM_OVERRIDES: tuple[str, ...] = (
    "actor_rollout_ref.rollout.name=vllm",
    "actor_rollout_ref.rollout.mode=async",
    "actor_rollout_ref.rollout.agent.default_agent_loop=desktop_gym",
    "actor_rollout_ref.rollout.agent.agent_loop_config_path=examples/verl/agent_loops.yaml",
    "actor_rollout_ref.rollout.multi_turn.enable=true",
)
"""verl's hydra overrides (``python -m verl.trainer.main_ppo ... <these>``), with ``$DESKTOP_GYM_SOURCE`` and
``$DESKTOP_GYM_PROMPT`` exported where ``ray start`` runs (the workers inherit that environment)."""

OPENRLHF_VLLM_ARGS: tuple[str, ...] = (
    "--vllm.num_engines",
    "1",
    "--vllm.tensor_parallel_size",
    "1",
    "--data.input_key",
    "prompt",
    "--data.label_key",
    "label",
)
"""``openrlhf.cli.train_ppo_ray`` arguments beside ``--train.agent_func_path <the adapter file>``: vLLM engines
run the agent executor (OpenRLHF's default path; the CPU runs here hand it ``StandInVllmEngine``)."""

VERIFIERS_VLLM_BASE_URL = "http://127.0.0.1:8000/v1"
"""``run_desktop_eval(base_url=...)`` / ``vf-eval --client.base-url``: any OpenAI-compatible server, e.g.
``vllm serve HuggingFaceTB/SmolLM2-135M-Instruct`` (the prefill needs ``continue_final_message``,
which the harness sends)."""
