"""Train SmolLM2-135M with TRL's GRPOTrainer(environment_factory=...) on a real desktop task (CPU, minutes).

TRL drives the tool calls: the environment's tools are the env's actions (here only
``CalcTools__set_cell_value``), the chat template renders them, and ``get_reward()`` is the task
verifier's verdict, one scalar per completion (``environment_factory`` has no per-step reward;
``examples/trl_rollout.py`` forwards per-step rewards through ``rollout_func``). The demo's setup in
tool-call form: the answer is prefilled up to the cell (``<tool_call>\\n{"name":
"CalcTools__set_cell_value", "arguments": {"cell": "``), where the untrained model succeeds
sometimes::

    pip install -e ".[train,trl]"     # scripts/install.sh does this
    python examples/trl_grpo.py --steps 2 --group-size 4
    python examples/trl_grpo.py --env-server 127.0.0.1:50051 --token ...   # desktops on an env server
"""

from __future__ import annotations

import time

from adapter_example import demo_source, summary_line, train_and_report, trl_args, trl_config
from trl import GRPOTrainer

from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.trl import TOOL_CALL_PREFILL, DesktopGymSpec, with_tool_chat_template

DEMO_TOOL_PREFILL = TOOL_CALL_PREFILL + 'CalcTools__set_cell_value", "arguments": {"cell": "'
"""The demo's prefill (``CalcTools.set_cell_value(cell="``) as the start of a tool call."""
DEMO_TOOL_ROLE = (
    "You operate LibreOffice Calc. Answer with one tool call: the call that does the task. For example, for the "
    "task 'Enter the number 42 into cell D3 of the open spreadsheet.' the answer is\n<tool_call>\n"
    '{"name": "CalcTools__set_cell_value", "arguments": {"cell": "D3", "value": 42}}\n</tool_call>'
)
"""The demo's role with one worked example in tool-call form (SmolLM2 without it: ~1 success in 16 at
temperature 0.5, the number often lands in ``cell``; with it: 12/12 at 0.5, 2/12 at 1.0)."""


def main() -> None:
    args = trl_args(__doc__.splitlines()[0], temperature=0.8)

    started = time.monotonic()
    spec = DesktopGymSpec(
        [args.task],
        seeds=range(args.steps),
        source=demo_source(1, args.env_server, args.token),
        tools=["CalcTools__set_cell_value"],
        system_prompt=DEMO_TOOL_ROLE,
    )
    tokenizer, model = load_default_model()
    config = trl_config(
        args, "trl-desktop-", max_completion_length=32, max_tool_calling_iterations=1, temperature=args.temperature
    )
    trainer = GRPOTrainer(
        model=model,
        args=config,
        processing_class=with_tool_chat_template(tokenizer, prefill=DEMO_TOOL_PREFILL),
        train_dataset=spec.train_dataset,
        environment_factory=spec.environment_factory,
        reward_funcs=spec.reward_funcs,
    )
    norms = train_and_report(trainer, spec, lambda entry: f"reward {entry.get('reward')} (verifier)")
    rewards = [reward for env in spec.instances for reward in env.rewards]
    print(f"took {time.monotonic() - started:.0f} s")
    print(summary_line("trl_environment_factory", rewards, norms))


if __name__ == "__main__":
    main()
