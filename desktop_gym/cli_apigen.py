"""The ``desktop-gym apigen`` command: generate an app's API from example tasks."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any


def cmd_apigen(args: argparse.Namespace) -> int:
    """Run the API generation pipeline and print where the report is."""
    from .api_generators.llm import LLMError, make_client
    from .api_generators.pipeline import generate_api
    from .api_generators.stages.analyse import TaskReferenceError
    from .api_generators.targets import UnknownTargetError

    out = Path(args.out)
    cache = None if args.no_cache else Path(args.cache or out / "llm-cache")
    try:
        client = make_client(
            args.llm, cache_dir=cache, seal_recording=args.seal_recording, strict_recording=args.strict_recording
        )
        analysis = make_client(args.analysis_llm, cache_dir=cache) if args.analysis_llm else None
        recorded = getattr(analysis, "data", None) or getattr(client, "data", None) or {}
        tasks = args.tasks if args.tasks is not None else list(recorded.get("tasks", []))
        run = generate_api(
            args.app,
            tasks,
            client,
            out,
            repair_rounds=args.repair_rounds,
            install=args.install,
            analysis_client=analysis,
            max_functions=args.max_functions,
        )
    except (LLMError, TaskReferenceError, UnknownTargetError, ValueError) as exc:
        print(f"desktop-gym apigen: {exc}")
        return 2
    accepted = [r.spec.name for r in run.results if r.status == "accepted"]
    print(f"{len(accepted)} of {len(run.attempted)} generated functions accepted: {', '.join(accepted) or 'none'}")
    if run.error:
        print(f"error: {run.error}")
    if run.registration is not None:
        where = (
            f"installed as {run.target.module_path}" if run.registration.installed else f"in {run.registration.module}"
        )
        print(f"{run.target.tool_class} ({len(run.registration.methods)} methods) {where}")
        if run.registration.install_refused:
            print(f"not installed: {run.registration.install_refused}")
    print(f"report: {out / 'report.md'} and {out / 'report.html'}")
    return 1 if run.error else 0


def add_apigen_commands(sub: Any) -> None:
    """Add ``apigen`` to the CLI's subparsers."""
    apigen = sub.add_parser("apigen", help="generate an app API from example tasks (LLM, sandbox tests, repair)")
    apigen.add_argument("--app", required=True, help="the app to write an API for (e.g. editor)")
    apigen.add_argument(
        "--tasks", nargs="+", default=None, help="task ids, or 'text:<an instruction>' (default: a recording's tasks)"
    )
    apigen.add_argument(
        "--llm",
        default=os.environ.get("DESKTOP_GYM_APIGEN_LLM", "offline"),
        help="offline | recording:PATH | an OpenAI-compatible URL (http://host:port/v1, '#MODEL' to pick a model)",
    )
    apigen.add_argument(
        "--analysis-llm", default=None, help="another --llm for the requirement analysis (e.g. a recording)"
    )
    apigen.add_argument("--out", required=True, help="folder for the module, its tests and the report")
    apigen.add_argument("--repair-rounds", type=int, default=2, help="repair rounds per function (0-5, default 2)")
    apigen.add_argument("--max-functions", type=int, default=20, help="generate at most N functions (1-20)")
    apigen.add_argument("--install", action="store_true", help="copy the module into the package and register it")
    apigen.add_argument("--cache", default=None, help="LLM reply cache folder (default OUT/llm-cache)")
    apigen.add_argument("--no-cache", action="store_true", help="ask the LLM again even for cached prompts")
    apigen.add_argument(
        "--seal-recording", action="store_true", help="pin unsealed recording entries to this run's prompts"
    )
    apigen.add_argument(
        "--strict-recording", action="store_true", help="fail when a recorded response was made for another prompt"
    )
    apigen.set_defaults(handler=cmd_apigen)
