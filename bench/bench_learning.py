"""The ComputerRL pipeline on multi-step skills: BC, step-level GRPO, Entropulse SFT, GRPO again.

SmolLM2-135M-Instruct (offline) learns three multi-step Calc families from their API oracles
(behavior cloning), then trains with step-level GRPO, an Entropulse SFT phase on the RL phase's
successful rollouts, and GRPO again. The policy sees the whole hybrid action space as
``DesktopEnv.describe("brief")`` gives it (the ComputerRL GUI actions and every CalcTools API,
signatures without their one-line docs) and a compact observation (instruction, last result, last
error); there is **no prefill**: every token of every action is the model's.

Held out: seeds of the trained families whose parameters never occur among the training seeds
(:func:`desktop_gym.train.heldout.split_instances`), and a whole family never trained on. After
each phase (base, bc, rl1, sft, rl2) the policy plays the held-out episodes (sampled at the
training temperature) and a sample of training instances; the result file holds each phase's
held-out successes with Wilson 95% intervals, train success, entropy, the RL phases' clip
fractions, wall time and the load. A plot goes next to it.

    .venv/bin/python bench/bench_learning.py [--quick] [--output runs/bench-learning]

``--quick`` is a smoke run of every phase in minutes (not a result). The full run writes
``bench/results/learning.json`` and ``docs/img/learning.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TRAIN_FAMILIES = ("calc.rename_sheet", "calc.find_replace", "calc.insert_row")
HELDOUT_FAMILIES = ("calc.delete_sheet",)
OBSERVATION = ("instruction", "last_action_result", "last_action_error")
SYSTEM_ROLE = (
    "You operate a Linux desktop. Answer with exactly one action: one line of Python, a GUI action or an "
    "app API call. When the task is done, answer exit(success=True)."
)


@dataclass(frozen=True)
class Plan:
    """The sizes of one run."""

    train_seeds: int = 48  # training instances per family
    heldout_seeds: int = 15  # held-out instances per trained family (and of each held-out family)
    bc_episodes: int = 24  # oracle episodes per family for behavior cloning
    bc_steps: int = 36
    bc_batch: int = 12
    bc_lr: float = 1e-4
    rl1_iterations: int = 4
    rl2_iterations: int = 3
    tasks_per_iteration: int = 3
    group_size: int = 4
    rl_lr: float = 1e-5
    sft_steps: int = 8
    sft_batch: int = 12
    sft_lr: float = 2e-5
    train_eval_episodes: int = 12  # sampled training instances played after each phase
    envs: int = 4


QUICK = Plan(
    train_seeds=6,
    heldout_seeds=2,
    bc_episodes=2,
    bc_steps=2,
    bc_batch=4,
    rl1_iterations=1,
    rl2_iterations=1,
    tasks_per_iteration=2,
    group_size=2,
    sft_steps=1,
    sft_batch=4,
    train_eval_episodes=4,
    envs=2,
)


def train_config(plan: Plan, output: str) -> Any:
    from desktop_gym.train.config import EnvSection, ModelSection, PromptSection, RLSection, TrainConfig
    from desktop_gym.train.entropulse import EntropulseConfig
    from desktop_gym.train.grpo import GRPOConfig

    return TrainConfig(
        output=output,
        env=EnvSection(
            task_ids=TRAIN_FAMILIES,
            envs=plan.envs,
            observation=OBSERVATION,
            action_mode="hybrid",
            max_steps=5,
            settle_timeout=0.0,
        ),
        prompt=PromptSection(history=1, system_role=SYSTEM_ROLE),
        model=ModelSection(temperature=1.0, max_new_tokens=64, max_prompt_tokens=2400, threads=2),
        rl=RLSection(
            iterations=plan.rl1_iterations + plan.rl2_iterations,
            tasks_per_iteration=plan.tasks_per_iteration,
            group_size=plan.group_size,
            train_seeds=plan.train_seeds,
            learning_rate=plan.rl_lr,
            micro_batch=32,
            updates_per_iteration=2,
            frontier=False,
        ),
        grpo=GRPOConfig(kl_coef=0.02),
        entropulse=EntropulseConfig(
            sft_steps=plan.sft_steps, sft_per_task=2, sft_batch_size=plan.sft_batch, sft_learning_rate=plan.sft_lr
        ),
    )


def make_envs(plan: Plan) -> list[Any]:
    from desktop_gym.actions import ActionSet
    from desktop_gym.env import DesktopEnv

    return [
        DesktopEnv(
            TRAIN_FAMILIES[0],
            observation=OBSERVATION,
            action_set=ActionSet(style="computerrl", targets="coordinates"),
            action_mode="hybrid",
            max_steps=5,
            settle_timeout=0.0,
        )
        for _ in range(plan.envs)
    ]


class Run:
    """One benchmark run: the trainer, the instance split and the phase results."""

    def __init__(self, plan: Plan, output: Path) -> None:
        from desktop_gym.train.heldout import split_instances
        from desktop_gym.train.trainer import Trainer

        self.plan = plan
        self.output = output
        self.started = time.time()
        self.split: dict[str, tuple[list[int], list[int]]] = {
            task: split_instances(task, plan.train_seeds, plan.heldout_seeds) for task in TRAIN_FAMILIES
        }
        for task in HELDOUT_FAMILIES:
            self.split[task] = ([], list(range(plan.heldout_seeds)))
        self.envs = make_envs(plan)
        self.trainer = Trainer(train_config(plan, str(output)), envs=self.envs, progress=True)
        self.trainer.collector.describe_format = "brief"
        self.phases: list[dict[str, Any]] = []
        self.clip_fractions: list[float] = []
        self.entropy_curve: list[dict[str, Any]] = []

    # -------------------------------------------------------------- episodes
    def play(self, specs: list[Any], label: str) -> list[Any]:
        return self.trainer.collector.collect(specs, True, label)

    def heldout_specs(self) -> list[Any]:
        from desktop_gym.train.rollout import EpisodeSpec

        return [EpisodeSpec(task, seed, "heldout") for task, (_, held) in self.split.items() for seed in held]

    def train_specs(self, count: int) -> list[Any]:
        from desktop_gym.train.rollout import EpisodeSpec

        rng = self.trainer.rng
        return [
            EpisodeSpec(task, int(rng.choice(self.split[task][0])), "train-eval")
            for task in (TRAIN_FAMILIES[i % len(TRAIN_FAMILIES)] for i in range(count))
        ]

    def evaluate(self, name: str) -> dict[str, Any]:
        from desktop_gym.train.metrics import wilson_interval

        held = self.play(self.heldout_specs(), f"{name}: held-out")
        trained = self.play(self.train_specs(self.plan.train_eval_episodes), f"{name}: train")
        wins = sum(t.success for t in held)
        low, high = wilson_interval(wins, len(held))
        per_family: dict[str, dict[str, int]] = {}
        for trajectory in held:
            row = per_family.setdefault(trajectory.task_id, {"successes": 0, "episodes": 0})
            row["successes"] += int(trajectory.success)
            row["episodes"] += 1
        samples = [self.trainer._sample(step) for t in held + trained for step in t.steps][:64]
        phase = {
            "name": name,
            "heldout": {"successes": wins, "episodes": len(held), "ci95": [round(low, 3), round(high, 3)]},
            "heldout_by_family": per_family,
            "train_success": round(sum(t.success for t in trained) / max(len(trained), 1), 3),
            "entropy": round(self.trainer._entropy(samples), 4),
            "well_formed": round(_mean([s.well_formed for t in held for s in t.steps]), 3),
            "steps_per_episode": round(_mean([len(t.steps) for t in held]), 2),
            "elapsed_seconds": round(time.time() - self.started, 1),
            "load_1min": round(os.getloadavg()[0], 2),
        }
        self.phases.append(phase)
        print(
            f"[phase] {name}: held-out {wins}/{len(held)} (95% CI {low:.2f}-{high:.2f}), "
            f"train {phase['train_success']:.2f}, entropy {phase['entropy']:.3f}, "
            f"{phase['elapsed_seconds']:.0f} s",
            flush=True,
        )
        self.save()
        return phase

    # -------------------------------------------------------------- phases
    def behavior_cloning(self) -> None:
        from desktop_gym.train.bc import record_oracle
        from desktop_gym.train.rollout import EpisodeSpec

        specs = [
            EpisodeSpec(task, seed, "bc")
            for task in TRAIN_FAMILIES
            for seed in self.split[task][0][: self.plan.bc_episodes]
        ]
        trajectories = record_oracle(self.envs, specs, self.trainer.prompt, "brief")
        kept = [t for t in trajectories if t.success]
        samples = [self.trainer._sample(step) for t in kept for step in t.steps]
        print(f"[bc   ] {len(kept)}/{len(trajectories)} oracle episodes passed; {len(samples)} samples", flush=True)
        loss = self.trainer.sft(samples, self.plan.bc_steps, self.plan.bc_batch, self.plan.bc_lr)
        if self.trainer.reference is not None:  # the KL anchors RL to the cloned policy, not the base
            self.trainer.reference.load_state_dict(self.trainer.model.state_dict())
        self.bc_summary = {"oracle_episodes": len(trajectories), "kept": len(kept), "samples": len(samples)}
        self.bc_summary["loss"] = round(loss, 4)

    def rl(self, iterations: int, phase: str) -> None:
        trainer = self.trainer
        for _ in range(iterations):
            trainer.iteration += 1
            trajectories, stats = trainer.collect()
            trainer.rl_update(trajectories, stats)
            row = trainer.last
            if row.get("clip_fraction") is not None:
                self.clip_fractions.append(float(row["clip_fraction"]))
            self.entropy_curve.append(
                {"iteration": trainer.iteration, "phase": phase, "entropy": row["entropy"], "success": row["success"]}
            )

    def entropulse(self) -> None:
        self.trainer.sft_phase("Entropulse: SFT on the RL phase's successful rollouts (scheduled after rl1)")
        self.entropy_curve.append(
            {"iteration": self.trainer.iteration, "phase": "sft", "entropy": self.trainer.last["entropy"]}
        )

    def collect_instances(self) -> None:
        """Training draws only the training seeds of each family (held-out instances never occur)."""
        trainer = self.trainer
        split = self.split

        def collect() -> Any:
            import copy

            from desktop_gym.train.rollout import grouped_episodes

            rl = trainer.config.rl
            picked = [TRAIN_FAMILIES[int(i)] for i in trainer.rng.choice(len(TRAIN_FAMILIES), rl.tasks_per_iteration)]
            tasks = [(task, int(trainer.rng.choice(split[task][0]))) for task in picked]
            trajectories = trainer.collector.collect(grouped_episodes(tasks, rl.group_size), True, "rollouts")
            return trajectories, copy.copy(trainer.collector.stats)

        trainer.collect = collect  # type: ignore[method-assign]

    # -------------------------------------------------------------- output
    def result(self) -> dict[str, Any]:
        return {
            "families": list(TRAIN_FAMILIES),
            "heldout_families": list(HELDOUT_FAMILIES),
            "prefill": False,
            "action_space": "hybrid",
            "describe_format": "brief",
            "observation": list(OBSERVATION),
            "model": "SmolLM2-135M-Instruct",
            "plan": self.plan.__dict__,
            "instances": {task: {"train": len(tr), "heldout": len(ho)} for task, (tr, ho) in self.split.items()},
            "bc": getattr(self, "bc_summary", None),
            "phases": self.phases,
            "entropy_curve": self.entropy_curve,
            "max_clip_fraction": max(self.clip_fractions, default=0.0),
            "wall_seconds": round(time.time() - self.started, 1),
            "cpus": os.cpu_count(),
        }

    def save(self) -> None:
        (self.output / "learning.json").write_text(json.dumps(self.result(), indent=2))

    def close(self) -> None:
        self.trainer.close()
        for env in self.envs:
            env.close()


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def plot(result: dict[str, Any], path: Path) -> None:
    """Held-out success per phase with 95% intervals, and the entropy over iterations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    names = [p["name"] for p in result["phases"]]
    rates = [p["heldout"]["successes"] / max(p["heldout"]["episodes"], 1) for p in result["phases"]]
    lows = [r - p["heldout"]["ci95"][0] for r, p in zip(rates, result["phases"], strict=True)]
    highs = [p["heldout"]["ci95"][1] - r for r, p in zip(rates, result["phases"], strict=True)]
    left.bar(names, rates, yerr=[lows, highs], capsize=4, color="#4C72B0")
    left.plot(names, [p["train_success"] for p in result["phases"]], "o--", color="#DD8452", label="train instances")
    left.set_ylim(0, 1)
    left.set_ylabel("success")
    left.set_title(f"held-out success (n={result['phases'][0]['heldout']['episodes']}, 95% CI)")
    left.legend(loc="upper left")
    curve = result["entropy_curve"]
    right.plot([c["iteration"] for c in curve], [c["entropy"] for c in curve], "o-", color="#55A868")
    for point in curve:
        if point["phase"] == "sft":
            right.axvline(point["iteration"], color="grey", linestyle=":")
    right.set_xlabel("iteration (dotted: Entropulse SFT)")
    right.set_ylabel("policy entropy (nats/token)")
    right.set_title("entropy over RL iterations")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="runs/bench-learning")
    parser.add_argument("--quick", action="store_true", help="a smoke run of every phase (not a result)")
    args = parser.parse_args()
    plan = QUICK if args.quick else Plan()
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    run = Run(plan, output)
    try:
        run.collect_instances()
        run.evaluate("base")
        run.behavior_cloning()
        run.evaluate("bc")
        run.rl(plan.rl1_iterations, "rl1")
        run.evaluate("rl1")
        run.entropulse()
        run.evaluate("sft")
        run.rl(plan.rl2_iterations, "rl2")
        run.evaluate("rl2")
    finally:
        run.save()
        run.close()
    result = run.result()
    plot(result, output / "learning.png")
    if not args.quick:
        (ROOT / "bench/results/learning.json").write_text(json.dumps(result, indent=2) + "\n")
        plot(result, ROOT / "docs/img/learning.png")
    print(json.dumps({p["name"]: p["heldout"] for p in result["phases"]}))
    print(f"wall {result['wall_seconds']:.0f} s, max clip fraction {result['max_clip_fraction']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
