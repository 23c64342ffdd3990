"""The built-in trainer: step-level GRPO with Entropulse on torch + transformers, CPU or GPU.

One iteration: sample task instances (Frontier Sampling), collect G episodes of each, give step
rewards, compute step-level advantages, and update the policy with the clipped objective plus a
KL term to the reference model. After each RL iteration the Entropulse trigger may switch to an
SFT phase on successful rollouts (then the reference is reset to the SFT result). Metrics go to
``<output>/metrics.jsonl`` and ``training.png``; checkpoints to ``<output>/checkpoint``.
"""

from __future__ import annotations

import copy
import functools
import json
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from desktop_gym.episode.trajectory import Trajectory

from .checkpoint import (
    BUFFER_FILE,
    RNG_FILE,
    load_buffer,
    load_torch_rng,
    numpy_rng_state,
    save_buffer,
    save_torch_rng,
    set_numpy_rng_state,
)
from .config import TrainConfig, config_dict
from .entropulse import EntropulseTrigger, sample_sft_steps
from .grpo import group_weights, step_advantages, summarize_groups
from .metrics import MetricsLog, wilson_interval
from .model_ops import Sample, batch_tensors, check_context, chunks, model_device, step_sample, token_logprobs
from .plots import plot_metrics
from .policy_model import VersionedPolicy
from .prefix_policy import PrefixCachingPolicy
from .rollout import EpisodeSpec, RolloutCollector, RolloutStats, grouped_episodes
from .sampling import FrontierSampler
from .sft import sft_updates
from .update import UpdateOptions, grpo_update
from .vision import load_vision_model, vision_sample
from .vision_policy import VisionPolicy

__all__ = ["Trainer", "VersionedPolicy", "load_policy_model", "make_envs"]


def load_policy_model(path: str, device: str, bf16_weights: bool = False) -> tuple[Any, Any]:
    """``(tokenizer, model)`` for ``path`` (``default``: the offline SmolLM2-135M-Instruct) on ``device``.

    ``bf16_weights`` casts the weights to bfloat16 (else they keep their float32).
    """
    import torch

    from ..llm.model import load_default_model, load_model

    tokenizer, model = load_default_model() if path == "default" else load_model(path)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    model = model.to(device)
    return tokenizer, model.to(torch.bfloat16) if bf16_weights else model


def make_envs(config: TrainConfig) -> list[Any]:
    """The envs: ``RemoteEnv``s of ``env.server`` (token: ``$DESKTOP_GYM_TOKEN``) or in-process ``DesktopEnv``s."""
    section = config.env
    kwargs = {
        "observation": section.observation,
        "action_mode": section.action_mode,
        "max_steps": section.max_steps,
        "settle_timeout": section.settle_timeout,
    }
    if section.server:
        import os

        from ..cli_serve import TOKEN_ENV
        from ..serve.client import RemoteEnv

        token = os.environ.get(TOKEN_ENV)  # a secret: from the environment, never from the config file
        return [RemoteEnv(section.task_ids[0], section.server, token, **kwargs) for _ in range(section.envs)]
    from ..env import DesktopEnv

    return [DesktopEnv(section.task_ids[0], backend=section.backend, **kwargs) for _ in range(section.envs)]


class Trainer:
    """Runs a training config: evaluation, RL iterations, Entropulse SFT phases, checkpoints, plots.

    Args:
        config: the run's config.
        envs: envs to use (the trainer does not close them); built from ``config.env`` when None.
        model: ``(tokenizer, model)`` to train; loaded from ``config.model`` when None.
        progress: show progress bars.
    """

    def __init__(
        self,
        config: TrainConfig,
        envs: Sequence[Any] | None = None,
        model: tuple[Any, Any] | None = None,
        progress: bool = True,
    ) -> None:
        import torch

        if config.model.threads:
            torch.set_num_threads(config.model.threads)
        self.config = config
        self.output = Path(config.output)
        self.output.mkdir(parents=True, exist_ok=True)
        (self.output / "config.json").write_text(json.dumps(config_dict(config), indent=2))
        self.progress = progress
        self._owns_envs = envs is None
        self.envs = list(envs) if envs is not None else make_envs(config)
        section = config.model
        loader = load_vision_model if config.prompt.vision else load_policy_model
        first, self.model = model or loader(section.path, section.device, section.bf16_weights)
        # With prompt.vision the first item is the model's processor (it holds the tokenizer).
        self.processor = first if config.prompt.vision else None
        self.tokenizer = first.tokenizer if config.prompt.vision else first
        check_context(self.model, section.max_prompt_tokens, section.max_new_tokens)
        if config.model.lora_rank:
            from peft import LoraConfig, get_peft_model

            lora = LoraConfig(r=config.model.lora_rank, lora_alpha=config.model.lora_alpha, target_modules="all-linear")
            self.model = get_peft_model(self.model, lora)
        self.model.eval()  # no dropout in these models; eval mode keeps generation and training identical
        self.reference = copy.deepcopy(self.model) if config.grpo.kl_coef > 0 else None
        self.optimizer = torch.optim.AdamW(
            [p for p in self.model.parameters() if p.requires_grad], lr=config.rl.learning_rate
        )
        rl = config.rl
        self.prompt = config.prompt.prompt_config()
        self.policy = self._versioned_policy(self.model)
        self.sampler_policy = self.policy
        if rl.asynchronous:  # rollouts sample from a copy synced after each update
            self.sampler_policy = self._versioned_policy(copy.deepcopy(self.model))
        record = self.output / "trajectories" if config.record_trajectories else None
        self.collector = RolloutCollector(
            self.envs,
            self.sampler_policy,
            self.prompt,
            rl.reward_rule,
            record,
            image_dir=self.output / "images",
            prefetch=config.env.prefetch,
        )
        # Frontier Sampling keys by task id: a task's instances (seeds) share one success estimate, so
        # the estimate fills up (keyed by instance, most of 500 seeds are never seen twice).
        self.sampler = FrontierSampler(list(config.env.task_ids), seed=rl.seed)
        self.trigger = EntropulseTrigger(config.entropulse)
        self.rng = np.random.default_rng(rl.seed)
        self.metrics = MetricsLog(self.output / "metrics.jsonl")
        self.buffer: list[Trajectory] = []  # successful RL rollouts for Entropulse
        self._last_rl_samples: list[Sample] = []
        self.iteration = 0
        self.phase = "rl"

    def _versioned_policy(self, model: Any) -> VersionedPolicy:
        section = self.config.model
        policy = PrefixCachingPolicy if section.prefix_cache else VersionedPolicy
        if self.processor is not None:
            policy = functools.partial(VisionPolicy, processor=self.processor)  # type: ignore[assignment]
        return policy(
            model,
            self.tokenizer,
            section.temperature,
            section.max_new_tokens,
            section.one_line,
            section.max_prompt_tokens,
            section.prompt_overflow,
            section.bf16,
        )

    def _sample(self, step: Any, advantage: float = 0.0) -> Sample:
        """A step as a training sample, its prompt cut by the same budget and rule as sampling."""
        section = self.config.model
        if self.processor is not None:
            return vision_sample(self.processor, step, advantage, section.max_prompt_tokens)
        return step_sample(self.tokenizer, step, advantage, section.max_prompt_tokens, section.prompt_overflow)

    # ------------------------------------------------------------------ the run
    def run(self, evaluate: bool = True) -> dict[str, Any]:
        """Evaluate, train ``rl.iterations`` iterations, evaluate again; returns the summary."""
        started = time.time()
        summary: dict[str, Any] = {}
        if evaluate:
            summary["before"] = self.evaluate("before")
        pending: Future | None = None
        threads = ThreadPoolExecutor(max_workers=1) if self.config.rl.asynchronous else None
        try:
            while self.iteration < self.config.rl.iterations:
                self.iteration += 1
                if threads is None:
                    batch = self.collect()
                else:  # the next batch samples with the current weights while this one trains
                    batch = pending.result() if pending is not None else self.collect()
                    pending = None
                    self._sync_sampler()
                    if self.iteration < self.config.rl.iterations:  # no batch that nothing would train on
                        pending = threads.submit(self.collect)
                self.rl_update(*batch)
                reason = self.trigger.update(self.last["entropy"], self.last["success"])
                if reason and self.iteration < self.config.rl.iterations:
                    if pending is not None:  # sampled before SFT: only its successes are kept, for later SFT
                        self.buffer += [t for t in pending.result()[0] if t.success]
                        pending = None
                    self.sft_phase(reason)
                if self.config.rl.checkpoint_every and self.iteration % self.config.rl.checkpoint_every == 0:
                    self.save_checkpoint()
        finally:
            if threads is not None:
                threads.shutdown(wait=True)
        self._sync_sampler()  # the rollout copy lags one update behind: evaluate the trained weights
        if evaluate:
            summary["after"] = self.evaluate("after")
        self.save_checkpoint()
        summary["seconds"] = time.time() - started
        summary["plot"] = str(plot_metrics(self.output / "metrics.jsonl"))
        summary["sft_phases"] = self.trigger.phases_done
        (self.output / "summary.json").write_text(json.dumps(summary, indent=2))
        return summary

    def close(self) -> None:
        """Stop the collector; close the envs the trainer made."""
        self.collector.close()
        if self._owns_envs:
            for env in self.envs:
                env.close()

    # ------------------------------------------------------------------ RL
    def _sync_sampler(self) -> None:
        """Copy the learner's weights into the rollout model (asynchronous mode; call while it is idle)."""
        if self.sampler_policy is not self.policy:
            self.sampler_policy.model.load_state_dict(self.model.state_dict())
            self.sampler_policy.version = self.policy.version

    def collect(self) -> tuple[list[Trajectory], RolloutStats]:
        """One iteration's rollouts (G episodes of each sampled task instance) and what they cost.

        Tasks are drawn by Frontier Sampling (or uniformly), then each drawn task's seed uniformly
        from ``0..rl.train_seeds - 1``.
        """
        rl, task_ids = self.config.rl, list(self.config.env.task_ids)
        if rl.frontier:
            picked = self.sampler.sample(rl.tasks_per_iteration)
        else:
            picked = [task_ids[int(i)] for i in self.rng.choice(len(task_ids), rl.tasks_per_iteration)]
        seeds = self.rng.integers(0, rl.train_seeds, size=len(picked))
        tasks = [(task, int(seed)) for task, seed in zip(picked, seeds, strict=True)]
        trajectories = self.collector.collect(grouped_episodes(tasks, rl.group_size), self.progress, "rollouts")
        return trajectories, copy.copy(self.collector.stats)

    def rl_update(self, trajectories: list[Trajectory], stats: RolloutStats) -> None:
        """One GRPO update on an iteration's trajectories; logs the iteration's metrics.

        The logged ``entropy`` is the policy's mean per-token entropy (at the sampling temperature)
        over the response tokens of every step of the iteration, measured before its update.
        """
        rl, started = self.config.rl, time.perf_counter()
        steps = [(t, step) for t in trajectories for step in t.steps]
        rewards = [step.reward for _, step in steps]
        groups = [t.meta.get("group", t.task_id) for t, _ in steps]
        advantages = step_advantages(rewards, groups)
        lag = [self.policy.version - step.policy_version for _, step in steps]
        keep = [
            i
            for i in range(len(steps))
            if lag[i] <= rl.max_policy_lag and (not rl.skip_zero_advantage or advantages[i] != 0)
        ]
        weights = group_weights([groups[i] for i in keep], rl.task_normalize)
        samples = [self._sample(steps[i][1], float(advantages[i])) for i in keep]
        for sample, weight in zip(samples, weights, strict=True):
            sample.weight = float(weight)
        kept = set(keep)
        rest = [self._sample(steps[i][1]) for i in range(len(steps)) if i not in kept]
        self._last_rl_samples = [self._sample(s) for _, s in steps[:16]]
        update: dict[str, float] = {}
        if samples:
            update = grpo_update(
                self.model,
                self.reference,
                self.optimizer,
                samples,
                self.tokenizer.pad_token_id or 0,
                self._update_options(),
                self.rng,
                measure_only=rest,
            )
            self.policy.version += 1
        entropy = update.pop("entropy") if update else self._entropy(rest)
        per_task: dict[str, list[float]] = {}
        for trajectory in trajectories:
            per_task.setdefault(trajectory.task_id, []).append(float(trajectory.success))
        self.sampler.observe({key: float(np.mean(v)) for key, v in per_task.items()})
        self.buffer += [t for t in trajectories if t.success]
        success = float(np.mean([t.success for t in trajectories])) if trajectories else 0.0
        seconds = stats.seconds + time.perf_counter() - started
        lengths = [len(s.response_ids) for s in samples + rest]
        self.last = self.metrics.write(
            "iteration",
            iteration=self.iteration,
            phase="rl",
            success=success,
            reward=float(np.mean(rewards)) if rewards else 0.0,
            entropy=entropy,
            kl=update.get("kl"),  # None: no sample carried signal, no update
            loss=update.get("loss"),
            clip_fraction=update.get("clip_fraction"),
            ratio_mean=update.get("ratio_mean"),
            ratio_min=update.get("ratio_min"),
            ratio_max=update.get("ratio_max"),
            importance_weight=update.get("importance_weight"),
            grad_norm=update.get("grad_norm"),
            grad_norm_max=update.get("grad_norm_max"),
            optimizer_steps=int(update.get("optimizer_steps", 0)),
            response_tokens=float(np.mean(lengths)) if lengths else 0.0,
            steps_per_s=len(steps) / max(seconds, 1e-9),
            tokens_per_s=stats.tokens / max(stats.generate_seconds, 1e-9),
            policy_lag=float(np.mean(lag)) if lag else 0.0,
            samples=len(samples),
            episodes=len(trajectories),
            set_aside=len(self.sampler.set_aside),
            well_formed=float(np.mean([s.well_formed for _, s in steps])) if steps else 0.0,
            **summarize_groups(rewards, groups),
        )
        self._print(self.last)

    def _update_options(self) -> UpdateOptions:
        rl, section = self.config.rl, self.config.model
        return UpdateOptions(
            passes=rl.updates_per_iteration,
            mini_batch=rl.mini_batch,
            micro_batch=rl.micro_batch,
            temperature=section.temperature,
            bf16=section.bf16,
            max_grad_norm=rl.max_grad_norm,
            stale_correction=rl.asynchronous,
            grpo=self.config.grpo,
        )

    def _entropy(self, samples: list[Sample]) -> float:
        import torch

        if not samples:
            return 0.0
        section, total, tokens = self.config.model, 0.0, 0.0
        for part in chunks(samples, self.config.rl.micro_batch):
            batch = batch_tensors(part, self.tokenizer.pad_token_id or 0, model_device(self.model))
            with torch.no_grad():
                _, entropy = token_logprobs(
                    self.model, batch, section.bf16, with_entropy=True, temperature=section.temperature
                )
            mask = batch["response_mask"]
            total, tokens = total + float((entropy * mask).sum()), tokens + float(mask.sum())
        return total / max(tokens, 1.0)

    # ------------------------------------------------------------------ SFT (Entropulse and BC)
    def sft_phase(self, reason: str) -> None:
        """Entropulse: SFT on successful rollouts sampled per task, then reset the reference; logs both switches."""
        section = self.config.entropulse
        self.metrics.write("phase", iteration=self.iteration, phase="sft", reason=reason)
        print(f"[phase] RL -> SFT at iteration {self.iteration}: {reason}")
        picked = sample_sft_steps(self.buffer, section.sft_per_task, self.rng)
        samples = [self._sample(step) for _, step in picked]
        started = time.perf_counter()
        loss = self.sft(
            samples, section.sft_steps, section.sft_batch_size, section.sft_learning_rate, section.sft_label_smoothing
        )
        self.iteration += 1
        # Measured where the RL entropy was: on the last RL batch's sampled responses.
        entropy = self._entropy(self._last_rl_samples)
        self.last = self.metrics.write(
            "iteration",
            iteration=self.iteration,
            phase="sft",
            loss=loss,
            entropy=entropy,
            samples=len(samples),
            success=None,
            seconds=time.perf_counter() - started,
        )
        self._print(self.last)
        if self.reference is not None:
            self.reference.load_state_dict(self.model.state_dict())
        self.trigger.phases_done += 1
        self.trigger.start_rl_phase()
        self.buffer.clear()
        self.metrics.write("phase", iteration=self.iteration, phase="rl", reason="SFT phase done; reference reset")

    def sft(
        self, samples: list[Sample], steps: int, batch_size: int, learning_rate: float, label_smoothing: float = 0.0
    ) -> float:
        """SFT updates on ``samples`` (shared with behavior cloning); bumps the policy version."""
        loss = sft_updates(
            self.model,
            samples,
            steps=steps,
            batch_size=batch_size,
            learning_rate=learning_rate,
            pad_id=self.tokenizer.pad_token_id or 0,
            rng=self.rng,
            bf16=self.config.model.bf16,
            max_grad_norm=self.config.rl.max_grad_norm,
            label_smoothing=label_smoothing,
        )
        self.policy.version += 1
        self._sync_sampler()
        return loss

    # ------------------------------------------------------------------ evaluation and checkpoints
    def evaluate(self, label: str) -> dict[str, Any]:
        """Success on the held-out seeds (``rl.eval_seeds`` from ``rl.eval_seed_offset``) with a 95% CI."""
        rl = self.config.rl
        seeds = range(rl.eval_seed_offset, rl.eval_seed_offset + rl.eval_seeds)
        tasks = [(task, seed) for task in self.config.env.task_ids for seed in seeds]
        episodes = [EpisodeSpec(task, seed, f"eval-{label}") for task, seed in tasks for _ in range(rl.eval_group)]
        trajectories = self.collector.collect(episodes, self.progress, f"eval {label}")
        wins = sum(t.success for t in trajectories)
        low, high = wilson_interval(wins, len(trajectories))
        row = self.metrics.write(
            "eval",
            label=label,
            iteration=self.iteration,
            success=wins / max(len(trajectories), 1),
            ci_low=low,
            ci_high=high,
            episodes=len(trajectories),
            successes=wins,
        )
        print(f"[eval ] {label}: {wins}/{len(trajectories)} = {row['success']:.1%} (95% CI {low:.1%}-{high:.1%})")
        return row

    def save_checkpoint(self) -> Path:
        """Write the model, tokenizer, optimizer, reference (once SFT replaced it), RNGs, buffer and sampler.

        Goes to ``<output>/checkpoint`` through a staging folder renamed into place. See
        :mod:`desktop_gym.train.checkpoint` for the files.
        """
        import torch

        folder = self.output / "checkpoint"
        staging = self.output / ".checkpoint.tmp"
        if staging.exists():
            shutil.rmtree(staging)
        staging.mkdir(parents=True)
        self.model.save_pretrained(str(staging))
        (self.processor if self.processor is not None else self.tokenizer).save_pretrained(str(staging))
        torch.save(self.optimizer.state_dict(), staging / "optimizer.pt")
        # Until the first SFT phase the reference is the initial model, which a resumed trainer loads anyway.
        reference_saved = self.reference is not None and self.trigger.phases_done > 0
        if reference_saved:
            torch.save(self.reference.state_dict(), staging / "reference.pt")
        save_torch_rng(staging / RNG_FILE)
        save_buffer(staging / BUFFER_FILE, self.buffer)
        state = {
            "iteration": self.iteration,
            "policy_version": self.policy.version,
            "sft_phases": self.trigger.phases_done,
            "entropies": self.trigger.entropies,
            "successes": self.trigger.successes,
            "frontier": self.sampler.success,
            "set_aside": sorted(self.sampler.set_aside),
            "reference": "saved" if reference_saved else "initial",
            "rng": numpy_rng_state(self.rng),
            "sampler_rng": numpy_rng_state(self.sampler._rng),
        }
        (staging / "trainer_state.json").write_text(json.dumps(state))
        if folder.exists():
            shutil.rmtree(folder)
        staging.rename(folder)
        return folder

    def resume(self, folder: Path | str | None = None) -> None:
        """Continue from a checkpoint of :meth:`save_checkpoint`: the run goes on as if never cut.

        Call it on a trainer built with the run's config and its initial model (the reference of
        a run that has not had an SFT phase yet is that initial model).

        Raises:
            FileNotFoundError: ``folder`` holds no ``trainer_state.json``.
        """
        import torch
        from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

        folder = Path(folder) if folder else self.output / "checkpoint"
        state_file = folder / "trainer_state.json"
        if not state_file.exists():
            raise FileNotFoundError(f"{state_file}: no trainer checkpoint to resume from")
        state = json.loads(state_file.read_text())
        device = model_device(self.model)
        if self.config.model.lora_rank:
            from peft import set_peft_model_state_dict
            from safetensors.torch import load_file

            set_peft_model_state_dict(self.model, load_file(str(folder / "adapter_model.safetensors")))
        else:
            auto = AutoModelForImageTextToText if self.processor is not None else AutoModelForCausalLM
            loaded = auto.from_pretrained(str(folder))
            self.model.load_state_dict(loaded.state_dict())
        self.optimizer.load_state_dict(torch.load(folder / "optimizer.pt", map_location=device, weights_only=True))
        if self.reference is not None and state.get("reference") == "saved":
            self.reference.load_state_dict(torch.load(folder / "reference.pt", map_location=device, weights_only=True))
        self.iteration = int(state["iteration"])
        self.policy.version = int(state["policy_version"])
        self.trigger.phases_done = int(state["sft_phases"])
        self.trigger.entropies[:] = state["entropies"]
        self.trigger.successes[:] = state["successes"]
        self.sampler.success.clear()
        self.sampler.success.update(state["frontier"])
        self.sampler.set_aside.clear()
        self.sampler.set_aside.update(state.get("set_aside", []))
        if "rng" in state:
            set_numpy_rng_state(self.rng, state["rng"])
            set_numpy_rng_state(self.sampler._rng, state["sampler_rng"])
        if (folder / RNG_FILE).exists():
            load_torch_rng(folder / RNG_FILE)
        self.buffer[:] = load_buffer(folder / BUFFER_FILE)
        self._sync_sampler()

    def _print(self, row: dict[str, Any]) -> None:
        shown = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items() if k not in ("kind",)}
        print(f"[{row['phase']:<3}] " + " ".join(f"{k}={v}" for k, v in shown.items() if k != "phase"), flush=True)
