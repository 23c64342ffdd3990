"""The training config: every knob of ``desktop-gym train --config FILE`` (YAML or TOML), documented.

A config file holds the sections below; any key left out keeps its default, an unknown key or a
value of the wrong type is an error naming it (``rl.group_size: expected int, got 'eight'``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

import tomllib

from desktop_gym.episode.prompts import SYSTEM_ROLE, PromptConfig
from desktop_gym.errors import ConfigError

from .entropulse import EntropulseConfig
from .grpo import GRPOConfig


@dataclass(frozen=True)
class EnvSection:
    """The envs.

    Args:
        task_ids: task ids to train on (every seed of ``train_seeds`` of each is a task instance);
            shell-style patterns expand to the registered ids they match (``mined.calc_*``: the mined
            Calc tasks, so Frontier Sampling draws from the mined suite).
        envs: desktops running episodes at once.
        backend: backend name (``local``, ``container``, ...).
        server: an env server address (``host:port`` or ``unix:PATH``): use ``RemoteEnv``s from it
            instead of in-process envs; its token comes from ``$DESKTOP_GYM_TOKEN``.
        observation: observation parts the envs produce.
        action_mode: ``hybrid``, ``api`` or ``gui``.
        max_steps: step budget per episode.
        settle_timeout: seconds the env waits for the screen to settle after an action.
        prefetch: each env prepares its next episode on a second desktop while the current one
            runs (``reset(options={"prefetch": ...})``), so the rollout waits for a swap, not a
            launch; twice the desktops' memory, and their setup's CPU during the episodes.
    """

    task_ids: tuple[str, ...] = ("demo.enter_number",)
    envs: int = 4
    backend: str = "local"
    server: str | None = None
    observation: tuple[str, ...] = ("instruction", "last_action_result", "last_action_error")
    action_mode: str = "api"
    max_steps: int = 1
    settle_timeout: float = 0.0
    prefetch: bool = False

    def __post_init__(self) -> None:
        if any(ch in task for task in self.task_ids for ch in "*?["):
            from ..tasks import registry

            object.__setattr__(self, "task_ids", registry.expand_task_ids(self.task_ids))


@dataclass(frozen=True)
class PromptSection:
    """The prompt (see ``desktop_gym.episode.prompts.PromptConfig``).

    With ``vision`` the policy is a vision-language model (``model.path``: its folder, loaded with
    ``AutoModelForImageTextToText`` and ``AutoProcessor``) that sees the last ``max_screenshots``
    screenshots (``env.observation`` must include ``screenshot``); steps keep them as PNG files.
    """

    a11y_max_nodes: int = 60
    history: int = 2
    vision: bool = False
    max_screenshots: int = 1
    prefill: str | None = None
    actions_text: str | None = None
    system_role: str = SYSTEM_ROLE

    def prompt_config(self) -> PromptConfig:
        """The ``PromptConfig`` rollouts and behavior cloning build prompts with."""
        return PromptConfig(**dataclasses.asdict(self))


@dataclass(frozen=True)
class ModelSection:
    """The policy model.

    Args:
        path: a transformers model folder, or ``default`` (SmolLM2-135M-Instruct, offline).
        bf16: bfloat16 autocast for generation and training, on the model's device.
        bf16_weights: keep the weights themselves in bfloat16 (half the memory; on a GPU).
        lora_rank: train a LoRA adapter of this rank (peft) instead of all weights (0: full).
        lora_alpha: LoRA scaling.
        temperature: sampling temperature for rollouts.
        max_new_tokens: the longest action in tokens.
        max_prompt_tokens: the prompt budget, the same for sampling and training (the chat
            template, the prefill included); with ``max_new_tokens`` it must fit the model's context.
        prompt_overflow: what a prompt over the budget does, in sampling and training alike:
            ``error`` (a ``PromptTooLongError`` naming the sizes) or ``left`` (keep its last
            ``max_prompt_tokens`` tokens, with a warning).
        device: ``auto`` (CUDA when there, else CPU), ``cpu`` or ``cuda``.
        one_line: cut each sampled action at its first newline (the answer format is one line);
            the kept tokens end with end-of-turn, so the model is trained to stop there.
        prefix_cache: sample with the prompts' shared start (the system prompt) computed once per
            weights version (:class:`~desktop_gym.train.prefix_policy.PrefixCachingPolicy`).
        threads: torch CPU threads (0: torch's default). On a CPU shared with other work, 1
            thread was several times faster than 2 (threads waiting on each other at every op).
    """

    path: str = "default"
    bf16: bool = True
    bf16_weights: bool = False
    lora_rank: int = 0
    lora_alpha: int = 16
    temperature: float = 1.0
    max_new_tokens: int = 24
    max_prompt_tokens: int = 1024
    prompt_overflow: str = "error"
    device: str = "auto"
    one_line: bool = True
    threads: int = 0
    prefix_cache: bool = True


@dataclass(frozen=True)
class RLSection:
    """The RL loop.

    Args:
        iterations: RL + SFT iterations in all.
        tasks_per_iteration: task instances sampled per iteration (Frontier Sampling).
        group_size: G, episodes per task instance.
        train_seeds: seeds 0..N-1 of each task are the training instances.
        eval_seeds: held-out seeds (starting at ``eval_seed_offset``) for before/after evaluation.
        eval_seed_offset: first held-out seed.
        eval_group: episodes per held-out seed.
        learning_rate: AdamW learning rate of the RL phase.
        micro_batch: samples per forward/backward pass.
        mini_batch: samples per optimizer step (0: all of the iteration's samples, one step per pass).
        updates_per_iteration: passes over the iteration's samples (PPO epochs); the old log-probs
            are frozen once before the first, so from the second optimizer step on the ratio moves
            and the clip acts.
        skip_zero_advantage: drop samples whose advantage is 0 (their only gradient is the KL term).
        task_normalize: AgentRL's task normalization: every group (the G episodes of one task
            instance) weighs the same in the loss, however many steps its trajectories have (off:
            every step weighs the same, so long tasks dominate).
        reward_rule: ``computerrl``, ``computerrl_abnormal`` or ``verifier_score``.
        frontier: sample task instances with Frontier Sampling (else uniformly).
        asynchronous: collect the next batch while the learner updates.
        max_policy_lag: async samples more than this many versions old are dropped.
        seed: RNG seed of sampling and SFT picks.
        checkpoint_every: save a checkpoint every N iterations (0: only at the end).
        max_grad_norm: gradient clipping.
    """

    iterations: int = 12
    tasks_per_iteration: int = 4
    group_size: int = 8
    train_seeds: int = 200
    eval_seeds: int = 48
    eval_seed_offset: int = 100_000
    eval_group: int = 1
    learning_rate: float = 1e-5
    micro_batch: int = 8
    mini_batch: int = 0
    updates_per_iteration: int = 1
    skip_zero_advantage: bool = True
    task_normalize: bool = True
    reward_rule: str = "computerrl"
    frontier: bool = True
    asynchronous: bool = False
    max_policy_lag: int = 1
    seed: int = 0
    checkpoint_every: int = 0
    max_grad_norm: float = 1.0


@dataclass(frozen=True)
class TrainConfig:
    """A whole training run; ``output`` is where checkpoints, metrics, plots and trajectories go."""

    output: str = "runs/train"
    env: EnvSection = field(default_factory=EnvSection)
    prompt: PromptSection = field(default_factory=PromptSection)
    model: ModelSection = field(default_factory=ModelSection)
    rl: RLSection = field(default_factory=RLSection)
    grpo: GRPOConfig = field(default_factory=GRPOConfig)
    entropulse: EntropulseConfig = field(default_factory=EntropulseConfig)
    record_trajectories: bool = False

    def __post_init__(self) -> None:
        if self.prompt.vision and not {"screenshot", "som_screenshot"} & set(self.env.observation):
            raise ValueError("prompt.vision needs the screenshot: add 'screenshot' to env.observation")


def _coerce(value: Any, hint: Any, where: str) -> Any:
    origin = getattr(hint, "__origin__", None)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a section (mapping), got {value!r}")
        return build(hint, value, where)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        return tuple(str(v) for v in value)
    allowed = tuple(t for t in getattr(hint, "__args__", (hint,)) if isinstance(t, type))
    if value is None and type(None) in allowed:
        return None
    if float in allowed and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        names = " or ".join(t.__name__ for t in allowed)
        raise ConfigError(f"{where}: expected {names}, got {value!r}")
    return value


def build(cls: type, data: dict[str, Any], where: str = "") -> Any:
    """An instance of the config dataclass ``cls`` from a mapping, checking every key and type."""
    hints = get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{where or 'config'}: unknown key(s) {unknown}; known: {', '.join(sorted(known))}")
    values = {key: _coerce(value, hints[key], f"{where}.{key}" if where else key) for key, value in data.items()}
    try:
        return cls(**values)
    except ValueError as error:
        raise ConfigError(f"{where or 'config'}: {error}") from error


def load_config(path: str | Path) -> TrainConfig:
    """Read a YAML (``.yaml``/``.yml``) or TOML (``.toml``) training config."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        data = tomllib.loads(text)
    elif path.suffix in (".yaml", ".yml"):
        import yaml

        data = yaml.safe_load(text) or {}
    else:
        raise ConfigError(f"{path}: a training config must be .yaml, .yml or .toml")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections")
    try:
        return build(TrainConfig, data)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from error


def config_dict(config: TrainConfig) -> dict[str, Any]:
    """The config as plain data (written beside the run as ``config.json``)."""
    return dataclasses.asdict(config)
