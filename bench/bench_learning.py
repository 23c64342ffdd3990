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
        [--set bc_steps=12 ...] [--reuse-base bench/results/learning.json] [--resume] [--calibrate]

``--quick`` is a smoke run of every phase in minutes (not a result). The full run writes
``bench/results/learning.json`` and ``docs/img/learning.png``. ``--set`` overrides a field of
:class:`Plan`. ``--reuse-base FILE`` takes the base phase from an earlier result whose held-out split,
prompt and sampling were the same (the untrained model does not change; its held-out evaluation is
the slowest phase, five unparsed steps per episode); the result says so. The run saves its state
after every phase (the trainer's checkpoint, the reference, the phases so far) in ``--output``;
``--resume`` goes on from there. ``--calibrate`` measures, before any RL, how sure behavior cloning
makes the policy of the held-out oracle trajectories after growing numbers of BC steps (the
probability, at the sampling temperature, of each whole oracle episode): RL only learns when BC
leaves groups with both outcomes, so the plan's ``bc_steps`` is picked from it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
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
    bc_steps: int = 8  # from --calibrate: leaves the oracle episodes likely, not certain (RL needs both outcomes)
    bc_batch: int = 12
    bc_lr: float = 1e-4
    rl1_iterations: int = 4
    rl2_iterations: int = 3
    tasks_per_iteration: int = 4
    group_size: int = 4
    rl_lr: float = 1e-5
    sft_steps: int = 8
    sft_batch: int = 12
    sft_lr: float = 2e-5
    train_eval_episodes: int = 12  # sampled training instances played after each phase
    envs: int = 4


#: The plan fields each step uses: a resumed run may change only those of the steps still to run.
PHASE_FIELDS: dict[str, tuple[str, ...]] = {
    "base": ("train_seeds", "heldout_seeds", "envs"),
    "bc": ("bc_episodes", "bc_steps", "bc_batch", "bc_lr", "train_eval_episodes"),
    "rl1": ("rl1_iterations", "tasks_per_iteration", "group_size", "rl_lr"),
    "sft": ("sft_steps", "sft_batch", "sft_lr"),
    "rl2": ("rl2_iterations",),
}


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
            micro_batch=8,  # the shared prefix is expanded per row for the backward: 32 rows took 23 GB
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
        self.done: list[str] = []  # the steps finished (saved after each, for --resume)
        self.elapsed_before = 0.0  # wall seconds of the runs this one resumes
        self.notes: dict[str, Any] = {}

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
            "elapsed_seconds": round(self.elapsed(), 1),
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

    def reuse_base(self, path: Path) -> None:
        """Take the base phase from an earlier result of the same split, prompt and sampling.

        Raises:
            SystemExit: the file has no base phase, or its split, prompt or sampling differ.
        """
        earlier = json.loads(path.read_text())
        same = {
            "observation": list(OBSERVATION),
            "describe_format": "brief",
            "families": list(TRAIN_FAMILIES),
            "heldout_families": list(HELDOUT_FAMILIES),
        }
        for key, value in same.items():
            if earlier.get(key) != value:
                raise SystemExit(f"{path}: {key} is {earlier.get(key)!r}, this run's is {value!r}")
        for key in ("train_seeds", "heldout_seeds"):
            if earlier["plan"][key] != getattr(self.plan, key):
                raise SystemExit(f"{path}: plan.{key} differs; the held-out split would not be the same")
        base = [p for p in earlier["phases"] if p["name"] == "base"]
        if not base:
            raise SystemExit(f"{path}: no base phase to reuse")
        phase = dict(base[0])
        phase["reused_from"] = f"{path.name} of an earlier run (same model, prompt, sampling and held-out split)"
        self.phases.append(phase)
        print(f"[phase] base: reused, held-out {phase['heldout']['successes']}/{phase['heldout']['episodes']}")

    def calibrate(self, checkpoints: tuple[int, ...] = (4, 8, 12, 16, 24, 36), per_family: int = 6) -> None:
        """Print how likely the policy finds whole held-out oracle episodes after growing BC steps."""
        import torch

        from desktop_gym.train.bc import record_oracle
        from desktop_gym.train.model_ops import batch_tensors, model_device, token_logprobs
        from desktop_gym.train.rollout import EpisodeSpec

        first = self.plan.bc_episodes
        bc = [EpisodeSpec(task, seed, "bc") for task in TRAIN_FAMILIES for seed in self.split[task][0][:first]]
        held = [EpisodeSpec(task, seed, "cal") for task in TRAIN_FAMILIES for seed in self.split[task][1][:per_family]]
        recorded = record_oracle(self.envs, bc + held, self.trainer.prompt, "brief")
        samples = [self.trainer._sample(s) for t in recorded[: len(bc)] if t.success for s in t.steps]
        episodes = [(t.task_id, [self.trainer._sample(s) for s in t.steps]) for t in recorded[len(bc) :] if t.success]
        temperature = self.trainer.config.model.temperature
        done = 0
        for target in checkpoints:
            if target > done:
                self.trainer.sft(samples, target - done, self.plan.bc_batch, self.plan.bc_lr)
                done = target
            chances: dict[str, list[float]] = {}
            for task, steps in episodes:
                batch = batch_tensors(steps, self.trainer.tokenizer.pad_token_id or 0, model_device(self.trainer.model))
                with torch.no_grad():
                    logp, _ = token_logprobs(self.trainer.model, batch, False, temperature=temperature)
                chances.setdefault(task, []).append(math.exp(float((logp * batch["response_mask"]).sum())))
            row = {task: round(_mean(v), 3) for task, v in chances.items()}
            overall = _mean([c for v in chances.values() for c in v])
            print(f"[calib] bc_steps {target}: mean {overall:.3f} {row}", flush=True)

    def elapsed(self) -> float:
        return self.elapsed_before + time.time() - self.started

    def checkpoint(self, step: str) -> None:
        """Mark ``step`` done and save what --resume needs: the trainer's checkpoint, the reference, the phases."""
        import torch

        self.done.append(step)
        self.trainer.save_checkpoint()
        if self.trainer.reference is not None:
            torch.save(self.trainer.reference.state_dict(), self.output / "checkpoint" / "bench_reference.pt")
        state = {
            "done": self.done,
            "phases": self.phases,
            "clip_fractions": self.clip_fractions,
            "entropy_curve": self.entropy_curve,
            "bc_summary": getattr(self, "bc_summary", None),
            "elapsed": self.elapsed(),
            "notes": self.notes,
            "plan": self.plan.__dict__,
        }
        (self.output / "bench_state.json").write_text(json.dumps(state, indent=2))
        self.save()

    def resume(self) -> None:
        """Continue a run cut after some step (see :meth:`checkpoint`)."""
        import torch

        state = json.loads((self.output / "bench_state.json").read_text())
        used = {field for step in state["done"] for field in PHASE_FIELDS[step]}
        changed = sorted(f for f in used if state["plan"][f] != getattr(self.plan, f))
        if changed:
            raise SystemExit(f"--resume: {', '.join(changed)} differ from the saved run's (its done steps used them)")
        self.trainer.resume(self.output / "checkpoint")
        for group in self.trainer.optimizer.param_groups:  # the checkpoint's optimizer state carries its lr
            group["lr"] = self.plan.rl_lr
        if self.trainer.reference is not None:
            saved = torch.load(self.output / "checkpoint" / "bench_reference.pt", weights_only=True)
            self.trainer.reference.load_state_dict(saved)
        self.done, self.phases = state["done"], state["phases"]
        self.clip_fractions, self.entropy_curve = state["clip_fractions"], state["entropy_curve"]
        if state["bc_summary"]:
            self.bc_summary = state["bc_summary"]
        self.elapsed_before, self.notes = float(state["elapsed"]), state.get("notes", {})
        self.notes.setdefault("resumed", []).append({"after": list(self.done), "plan_then": state["plan"]})
        print(f"[resume] after {', '.join(self.done)} ({self.elapsed_before:.0f} s so far)", flush=True)

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
            "wall_seconds": round(self.elapsed(), 1),
            "cpus": os.cpu_count(),
            "complete": self.done[-1:] == ["rl2"] if self.done else False,
            **self.notes,
        }

    def save(self) -> None:
        (self.output / "learning.json").write_text(json.dumps(self.result(), indent=2))

    def close(self) -> None:
        self.trainer.close()
        for env in self.envs:
            env.close()


def plan_with(plan: Plan, overrides: list[str]) -> Plan:
    """``plan`` with ``FIELD=VALUE`` overrides (each value parsed as the field's type)."""
    changes: dict[str, Any] = {}
    types = {f.name: type(getattr(plan, f.name)) for f in dataclasses.fields(plan)}
    for item in overrides:
        name, _, value = item.partition("=")
        if name not in types:
            raise SystemExit(f"--set {item}: no plan field {name!r} (fields: {', '.join(types)})")
        changes[name] = types[name](value)
    return dataclasses.replace(plan, **changes)


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
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override a Plan field")
    parser.add_argument("--reuse-base", type=Path, help="take the base phase from this earlier result file")
    parser.add_argument("--resume", action="store_true", help="go on from the state saved in --output")
    parser.add_argument("--calibrate", action="store_true", help="measure BC's grip on held-out oracle episodes")
    args = parser.parse_args()
    plan = plan_with(QUICK if args.quick else Plan(), args.set)
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    run = Run(plan, output)
    if args.calibrate:
        try:
            run.calibrate()
        finally:
            run.close()
        return 0
    steps = {
        "base": lambda: run.reuse_base(args.reuse_base) if args.reuse_base else run.evaluate("base"),
        "bc": lambda: (run.behavior_cloning(), run.evaluate("bc")),
        "rl1": lambda: (run.rl(plan.rl1_iterations, "rl1"), run.evaluate("rl1")),
        "sft": lambda: (run.entropulse(), run.evaluate("sft")),
        "rl2": lambda: (run.rl(plan.rl2_iterations, "rl2"), run.evaluate("rl2")),
    }
    try:
        run.collect_instances()
        if args.resume:
            run.resume()
        for name, step in steps.items():
            if name not in run.done:
                step()
                run.checkpoint(name)
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
