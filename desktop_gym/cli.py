"""The ``desktop-gym`` command: run an agent on a task, list tasks, check the machine."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .cli_apigen import add_apigen_commands
from .cli_eval import add_eval_commands
from .cli_llm import add_llm_commands
from .cli_serve import add_serve_commands
from .cli_tasks import add_tasks_commands
from .cli_train import add_train_commands
from .cli_view import add_view_commands

DEFAULT_TASK = "starter.calc_fill_totals"


def _policy(agent: str, env: Any, info: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], str]:
    """The agent an agent string names (``desktop_gym.agents.make_agent``), started on this episode."""
    from .agents import EpisodeContext, UnknownAgentError, make_agent

    try:
        chosen = make_agent(agent)
    except UnknownAgentError as error:
        raise SystemExit(str(error)) from None
    context = EpisodeContext(
        task=env.unwrapped._task, params=info["params"], describe=env.describe, tool_schemas=env.tool_schemas
    )
    chosen.reset(info["instruction"], context)
    return lambda observation: chosen.act(observation, info)


def cmd_run(args: argparse.Namespace) -> int:
    """Run one episode per seed, print each step and the verdict, record the trajectory."""
    from desktop_gym.episode.recording import TrajectoryRecorder

    from . import DesktopEnv
    from .train.rollout import well_formed_checker

    env = DesktopEnv(task_id=args.task, backend=args.backend)
    failures = 0
    try:
        for seed in range(args.seed, args.seed + args.episodes):
            observation, info = env.reset(seed=seed)
            print(f"[reset] {args.task} seed={seed} in {info['reset_seconds']:.2f}s")
            print(f"[task ] {info['instruction']}")
            out = Path(args.out) / f"{args.task}-seed{seed}"
            recorder = TrajectoryRecorder(out, video=args.video)
            recorder.start(observation, {**info, "seed": seed}, describe=env.describe())
            well_formed = well_formed_checker(env)
            policy = _policy(args.agent, env, info)
            done = False
            while not done:
                action = policy(observation)
                started = time.perf_counter()
                observation, reward, terminated, truncated, step_info = env.step(action)
                elapsed = (time.perf_counter() - started) * 1000
                done = terminated or truncated
                recorder.record(action, observation, reward, terminated, truncated, step_info, well_formed(action))
                shown = action.replace("\n", " | ")
                error = f"  error: {observation['last_action_error']}" if observation.get("last_action_error") else ""
                print(f"[step {step_info['step']:>2}] {shown[:100]}  ({elapsed:.0f} ms){error}")
            verdict = step_info.get("verifier", {})
            status = "SUCCESS" if step_info.get("success") else "FAILURE"
            failures += not step_info.get("success")
            print(f"[verdict] {status} reward={reward:.1f}: {verdict.get('reason', step_info.get('crash', ''))}")
            print(f"[replay] {recorder.finish()}")
    finally:
        env.close()
    return 1 if failures and args.agent == "oracle" else 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check that the system pieces a local desktop needs are installed."""
    import shutil

    from .apps import APP_SPECS

    problems = 0
    checks = {"Xvfb": "xvfb", "openbox": "openbox", "dbus-daemon": "dbus"}  # the desktop itself
    for spec in APP_SPECS.values():  # then each app's programs, from its spec
        for program in spec.doctor:
            checks.setdefault(program, " ".join(spec.packages) or spec.key)
    for program, package in checks.items():
        found = shutil.which(program)
        print(f"{program:<12} {found or 'MISSING (apt-get install ' + package + ')'}")
        problems += found is None
    for module in ("uno", "pyatspi", "gi", "mss", "Xlib"):
        try:
            __import__(module)
            print(f"{module:<12} ok")
        except ImportError as error:
            print(f"{module:<12} MISSING ({error}); run: python -m desktop_gym.sysdeps")
            problems += 1
    return 1 if problems else 0


def cmd_image_build(args: argparse.Namespace) -> int:
    """Build the desktop image for the container backend (skipped when up to date)."""
    from .images import ImageBuildError, build_image

    if args.qemu_small or args.qemu:
        from .images.qemu_guest import build_guest_image
        from .images.qemu_recipes import DESKTOP, SMALL

        try:
            image = build_guest_image(DESKTOP if args.qemu else SMALL, force=args.force)
        except ImageBuildError as error:
            print(f"qemu guest build failed: {error}", file=sys.stderr)
            return 1
        print(image.disk)
        return 0
    try:
        tag = build_image(engine=args.engine, offline=args.offline, tag=args.tag, force=args.force)
    except ImageBuildError as error:
        print(f"image build failed: {error}", file=sys.stderr)
        return 1
    print(tag)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="desktop-gym", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run an agent on a task and record the trajectory")
    run.add_argument("--task", default=DEFAULT_TASK, help=f"task id (default {DEFAULT_TASK})")
    run.add_argument("--agent", default="oracle", help="oracle | null | random | hf:PATH | openai:MODEL@URL")
    run.add_argument("--backend", default="local")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--episodes", type=int, default=1)
    run.add_argument("--out", default="runs", help="folder for trajectories")
    run.add_argument("--video", action="store_true", help="also write each episode as a video (episode.webm)")
    run.set_defaults(handler=cmd_run)
    add_tasks_commands(sub)  # tasks [list | check | import-osworld]
    add_eval_commands(sub)  # eval
    add_llm_commands(sub)  # llm serve
    add_apigen_commands(sub)  # apigen
    add_serve_commands(sub)  # serve, cluster up|status|down
    add_train_commands(sub)  # train --config FILE | --demo | --bc DIR
    add_view_commands(sub)  # view DIR (trajectory viewer, training charts)
    doctor = sub.add_parser("doctor", help="check system dependencies")
    doctor.set_defaults(handler=cmd_doctor)
    image = sub.add_parser("image", help="desktop images for the container backend")
    image_sub = image.add_subparsers(dest="image_command", required=True)
    image_build = image_sub.add_parser("build", help="build the desktop image (skipped when up to date)")
    image_build.add_argument("--engine", choices=("podman", "docker"), default="podman")
    image_build.add_argument("--offline", action="store_true", help="debootstrap + import, no registry needed")
    image_build.add_argument("--tag", default=None, help="extra tag for the image (e.g. desktop-gym:latest)")
    image_build.add_argument("--force", action="store_true", help="rebuild even when up to date")
    image_build.add_argument(
        "--qemu-small", action="store_true", help="the small headless guest disk for the qemu backend (cached)"
    )
    image_build.add_argument("--qemu", action="store_true", help="the desktop guest disk for the qemu backend (KVM)")
    image_build.set_defaults(handler=cmd_image_build)
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
