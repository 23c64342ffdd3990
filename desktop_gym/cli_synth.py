"""``desktop-gym tasks synth``: mine proven tasks from API programs run on a real desktop."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def cmd_synth(args: argparse.Namespace) -> int:
    """Mine ``--n`` proven tasks of ``--app`` into ``--out`` (appending), then rewrite its index and report."""
    import numpy as np

    from .tasks.mined_suite import write_index
    from .tasks.mining.dry_run import DryRunner
    from .tasks.mining.report import append_run, kept_by_shard, write_html
    from .tasks.mining.synth import Miner

    if args.n < 1:
        print("desktop-gym tasks synth: --n must be at least 1", file=sys.stderr)
        return 2
    out = Path(args.out)
    paraphraser = None
    if args.paraphrase_transcript:
        from .tasks.mining.paraphrase import RecordedParaphraser

        paraphraser = RecordedParaphraser(args.paraphrase_transcript)
    elif args.paraphrase_endpoint:
        from .tasks.mining.paraphrase import EndpointParaphraser

        paraphraser = EndpointParaphraser(args.paraphrase_endpoint, args.paraphrase_model)

    def progress(result: Any) -> None:
        print(
            f"[synth] {len(result.kept)}/{result.asked} kept, {result.candidates} run, "
            f"{sum(result.dropped.values())} dropped ({dict(result.dropped)}), {result.seconds:.0f} s",
            flush=True,
        )

    if args.jobs < 1:
        print("desktop-gym tasks synth: --jobs must be at least 1", file=sys.stderr)
        return 2
    runners = [DryRunner(args.backend, server=args.server) for _ in range(args.jobs)]
    try:
        rng = np.random.default_rng(args.seed)
        miner = Miner(out, runners, rng, app=args.app, progress=progress, paraphraser=paraphraser)
        result = miner.mine(args.n)
    finally:
        for runner in runners:
            runner.close()
    entries = write_index(out)
    where = f"server {args.server}" if args.server else args.backend
    run = {**result.to_dict(), "seed": args.seed, "backend": where, "desktops": args.jobs}
    report_dir = Path(args.report) if args.report else out
    report_dir.mkdir(parents=True, exist_ok=True)
    report = append_run(report_dir, run)
    page = write_html(report_dir, report, kept_by_shard(out))
    print(json.dumps({k: v for k, v in run.items() if k != "examples"}, indent=1))
    print(f"{len(result.kept)} task(s) kept; {len(entries)} in {out}; report: {page}")
    return 0 if result.kept else 1


def add_synth_command(group: Any) -> None:
    """Add ``tasks synth`` to the ``tasks`` command group."""
    synth = group.add_parser("synth", help="mine proven tasks from programs of API calls run on a real desktop")
    synth.add_argument(
        "--app", choices=("calc", "writer", "impress"), default="calc", help="the app whose API the programs call"
    )
    synth.add_argument("--n", type=int, default=10, help="proven tasks to add (default 10)")
    synth.add_argument("--out", default="mined_tasks", help="suite folder; <app>.jsonl there is appended to")
    synth.add_argument("--seed", type=int, default=0, help="seed of the draws (use a new one to add more)")
    synth.add_argument("--backend", default="local")
    synth.add_argument("--jobs", type=int, default=1, help="desktops mining at once (default 1), a group each")
    synth.add_argument(
        "--server",
        default=None,
        metavar="ADDRESS",
        help="run on an env server's desktops (token: $DESKTOP_GYM_TOKEN); the perturbed oracle is then an episode",
    )
    synth.add_argument("--report", default=None, help="folder for report.json/report.html (default: --out)")
    synth.add_argument(
        "--paraphrase-endpoint",
        default=None,
        metavar="URL",
        help="rewrite kept instructions with this OpenAI-compatible endpoint (a rewrite that loses a fact is refused)",
    )
    synth.add_argument("--paraphrase-model", default="default", help="the model the endpoint serves")
    synth.add_argument(
        "--paraphrase-transcript",
        default=None,
        metavar="FILE",
        help='replay recorded paraphrases (JSON lines {"instruction", "paraphrase", "model"}) instead',
    )
    synth.set_defaults(handler=cmd_synth)
