"""``desktop-gym train``: the built-in trainer (``--config FILE``, ``--demo``, ``--bc DIR``)."""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any


def cmd_train(args: argparse.Namespace) -> int:
    """Run a training config, the learning demo, or behavior cloning on recorded trajectories."""
    from .train.config import load_config
    from .train.demo import demo_config

    if sum(bool(x) for x in (args.config, args.demo)) != 1 and not args.bc:
        raise SystemExit("desktop-gym train: give exactly one of --config FILE, --demo or --bc DIR")
    config = demo_config() if args.demo or not args.config else load_config(args.config)
    if args.output:
        config = dataclasses.replace(config, output=args.output)
    if args.iterations is not None:
        config = dataclasses.replace(config, rl=dataclasses.replace(config.rl, iterations=args.iterations))
    if args.bc:
        from .train.sft import behavior_clone

        folder = behavior_clone(config, args.bc, steps=args.bc_steps)
        print(f"[bc] model written to {folder}")
        return 0
    from .train.trainer import Trainer

    started = time.time()
    trainer = Trainer(config, progress=not args.no_progress)
    try:
        if args.resume:
            trainer.resume()
        summary = trainer.run(evaluate=not args.no_eval)
    finally:
        trainer.close()
    _print_summary(summary, time.time() - started)
    return 0


def _print_summary(summary: dict[str, Any], seconds: float) -> None:
    for label in ("before", "after"):
        if label in summary:
            row = summary[label]
            print(
                f"[result] {label:<6} {row['successes']}/{row['episodes']} = {row['success']:.1%} "
                f"(95% CI {row['ci_low']:.1%}-{row['ci_high']:.1%})"
            )
    print(f"[result] SFT phases: {summary.get('sft_phases', 0)}; wall time {seconds / 60:.1f} min")
    print(f"[result] plot: {summary.get('plot')}")


def add_train_commands(sub: Any) -> None:
    """Add ``train`` to the CLI's subparsers."""
    train = sub.add_parser("train", help="train a policy: GRPO + Entropulse (--config FILE | --demo | --bc DIR)")
    train.add_argument("--config", default=None, help="a YAML or TOML training config")
    train.add_argument("--demo", action="store_true", help="the learning demo (SmolLM2-135M on demo.enter_number)")
    train.add_argument("--bc", default=None, metavar="DIR", help="behavior cloning on the successes recorded in DIR")
    train.add_argument("--bc-steps", type=int, default=20, help="SFT steps of --bc (default 20)")
    train.add_argument("--output", default=None, help="run folder (overrides the config's output)")
    train.add_argument("--iterations", type=int, default=None, help="override rl.iterations")
    train.add_argument("--resume", action="store_true", help="continue from <output>/checkpoint")
    train.add_argument("--no-eval", action="store_true", help="skip the held-out evaluations")
    train.add_argument("--no-progress", action="store_true", help="no progress bars")
    train.set_defaults(handler=cmd_train)
