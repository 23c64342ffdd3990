"""The learning demo's config: SmolLM2-135M learns ``demo.enter_number`` on CPU in minutes.

Why these choices: one API call solves the task, so an episode is one step (reset ~2-3 s on a
loaded 2-core machine, the step under 1 s); the prompt lists only that call and prefills
``CalcTools.set_cell_value(cell="`` so the model's first tokens are the cell; success needs the
right cell and the value as a number (the untrained model often quotes it as text or picks the
wrong cell), which gives GRPO groups with mixed rewards from the first iteration. Two passes per
iteration over the batch: the second is off-policy by one optimizer step, so the clip acts.
"""

from __future__ import annotations

from .config import EnvSection, ModelSection, PromptSection, RLSection, TrainConfig
from .entropulse import EntropulseConfig
from .grpo import GRPOConfig

DEMO_ACTIONS = (
    "CalcTools.set_cell_value(cell: str, value: float | str)\n"
    '    Write a number or text into one cell, e.g. CalcTools.set_cell_value(cell="B2", value=5)'
)
DEMO_ROLE = "You operate LibreOffice Calc. Answer with one line of Python: the call that does the task."
DEMO_PREFILL = 'CalcTools.set_cell_value(cell="'


def demo_config(output: str = "runs/train-demo") -> TrainConfig:
    """The config ``desktop-gym train --demo`` runs (also in ``configs/train-demo.yaml``)."""
    return TrainConfig(
        output=output,
        env=EnvSection(task_ids=("demo.enter_number",), envs=4, max_steps=1, settle_timeout=0.0),
        prompt=PromptSection(prefill=DEMO_PREFILL, actions_text=DEMO_ACTIONS, system_role=DEMO_ROLE, history=0),
        model=ModelSection(temperature=1.0, max_new_tokens=14, max_prompt_tokens=512, threads=1),
        rl=RLSection(
            iterations=8,
            tasks_per_iteration=2,
            group_size=6,
            train_seeds=500,
            eval_seeds=20,
            learning_rate=5e-5,
            micro_batch=16,
            updates_per_iteration=2,
        ),
        grpo=GRPOConfig(kl_coef=0.02),
        # The plateau rule over windows of one iteration (this task is learned in 3-4 iterations); the
        # fallback only if success never levels off. SFT is plain next-token SFT on diverse successes
        # of the whole phase, sampled per task instance (label smoothing stays an option, off).
        entropulse=EntropulseConfig(
            window=1,
            entropy_drop=0.5,
            plateau_tolerance=0.1,
            min_rl_iterations=3,
            max_rl_iterations=6,
            sft_steps=4,
            sft_per_task=2,
            sft_batch_size=8,
            sft_learning_rate=2e-5,
            sft_label_smoothing=0.0,
            max_phases=1,
        ),
    )
