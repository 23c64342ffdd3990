"""The ``desktop-gym eval`` command: run an agent over a suite on many desktops, report, compare.

desktop-gym eval --suite starter --agent oracle --envs 2 --out runs/eval/oracle
desktop-gym eval --suite starter --agent openai:default@http://127.0.0.1:8000/v1 --action-mode gui
desktop-gym eval --compare runs/eval/gui runs/eval/hybrid --out runs/eval/ablation
desktop-gym eval --report runs/eval/oracle --oracle-steps runs/eval/oracle-api runs/eval/oracle-gui
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any


def add_eval_commands(subparsers: Any) -> None:
    """Add ``eval`` to the ``desktop-gym`` subcommands."""
    parser = subparsers.add_parser(
        "eval", help="evaluate an agent on tasks over N desktops; HTML/markdown report; --compare two runs"
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--suite", action="append", default=[], help="a task suite (repeatable), e.g. starter")
    what.add_argument("--task", nargs="+", default=[], help="task ids")
    what.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two result folders (writes into --out)")
    parser.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="--compare: compare the episodes both folders hold when their (task, seed, run) sets differ",
    )
    what.add_argument("--report", metavar="DIR", help="rewrite the report of a result folder")
    parser.add_argument(
        "--agent",
        default="oracle",
        help="oracle | oracle-api | oracle-gui | null | random | hf:PATH | openai:MODEL@URL",
    )
    parser.add_argument("--runs", type=int, default=1, help="passes over the tasks (mean ± std, pass@k over them)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="task seeds (default 0)")
    parser.add_argument("--envs", type=int, default=1, help="desktops in parallel")
    parser.add_argument("--action-mode", choices=("gui", "api", "hybrid"), default="hybrid")
    parser.add_argument(
        "--action-style",
        choices=("computerrl", "computer_13", "pyautogui", "all"),
        default=None,
        help="GUI action vocabulary offered and parsed (default: computerrl for LLM agents, the shortest "
        "prompt; all for the others)",
    )
    parser.add_argument("--backend", default="local", help="backend of in-process envs")
    parser.add_argument(
        "--servers", nargs="+", default=None, metavar="ADDR", help="env server addresses (instead of in-process envs)"
    )
    parser.add_argument("--server-token", default=None, help="the env servers' token (default $DESKTOP_GYM_TOKEN)")
    parser.add_argument("--max-steps", type=int, default=None, help="step budget for every task (default: each task's)")
    parser.add_argument(
        "--out", default=None, help="output folder (default runs/eval/<agent>-<mode>); a rerun resumes it"
    )
    parser.add_argument(
        "--oracle-steps",
        nargs="+",
        default=[],
        metavar="DIR",
        help="reference result folders whose steps per success the report shows",
    )
    llm = parser.add_argument_group("LLM agents")
    llm.add_argument("--max-tokens", type=int, default=64)
    llm.add_argument("--temperature", type=float, default=0.0)
    llm.add_argument("--sampling-seed", type=int, default=None)
    llm.add_argument("--prefill", default=None, help="the start of every answer, e.g. 'CalcTools.'")
    llm.add_argument("--vision", action="store_true", help="send screenshots (image-capable endpoints)")
    llm.add_argument("--tools", action="store_true", help="offer actions as function tools (openai: agents)")
    llm.add_argument("--history", type=int, default=2, help="past turns shown in full")
    llm.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable with the endpoint's key")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=cmd_eval)


def default_out(agent: str, action_mode: str) -> Path:
    """``runs/eval/<agent>-<mode>`` with the agent string made a safe folder name."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", agent).strip("_")[:80]
    return Path("runs") / "eval" / f"{safe}-{action_mode}"


def cmd_eval(args: argparse.Namespace) -> int:
    """Run, report or compare (see the module docstring)."""
    from .evaluation import read_records, write_comparison, write_report
    from .evaluation.compare import label

    if args.compare:
        out = Path(args.out or "runs/eval/compare")
        from .errors import ResultsError

        try:
            paths = write_comparison(
                out, read_records(args.compare[0]), read_records(args.compare[1]), args.allow_mismatch
            )
        except ResultsError as error:
            print(f"desktop-gym eval: {error}")
            return 2
        print((out / "compare.md").read_text(encoding="utf-8"))
        print(f"[report] {paths['html']}")
        return 0
    references = {label(records, str(d)): records for d, records in ((d, read_records(d)) for d in args.oracle_steps)}
    if args.report:
        paths = write_report(args.report, read_records(args.report), references)
        print(f"[report] {paths['html']}")
        return 0
    return _run(args, references)


def _run(args: argparse.Namespace, references: dict[str, Any]) -> int:
    from .agents import AgentOptions, UnknownAgentError, make_agent
    from .evaluation import EvalConfig, ResultsError, remote_env_factory, run_eval, write_report
    from .evaluation.report import overall_table
    from .evaluation.summary import summarize
    from .tasks import get_task, list_tasks

    tasks = list(args.task)
    for suite in args.suite:
        found = list_tasks(suite)
        if not found:
            suites = ", ".join(sorted({t.split(".")[0] for t in list_tasks()}))
            raise SystemExit(f"--suite {suite!r}: no such suite; suites: {suites}")
        tasks += found
    if not tasks:
        raise SystemExit("give --suite S or --task T ... (or --compare A B, or --report DIR)")
    for task in tasks:
        get_task(task)  # an unknown id fails here, naming the known ones
    options = AgentOptions(
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        seed=args.sampling_seed,
        prefill=args.prefill,
        vision=args.vision,
        tools=args.tools,
        history=args.history,
        api_key_env=args.api_key_env,
    )
    try:
        make_agent(args.agent, options)  # fail fast on a bad agent string (and load a model once)
        config = EvalConfig(
            tasks=tasks,
            agent=args.agent,
            out=Path(args.out) if args.out else default_out(args.agent, args.action_mode),
            runs=args.runs,
            seeds=args.seeds,
            envs=args.envs,
            action_mode=args.action_mode,
            action_style=args.action_style,
            backend=args.backend,
            max_steps=args.max_steps,
            agent_options=options,
        )
        factory = remote_env_factory(config, args.servers, args.server_token) if args.servers else None
        records = run_eval(config, env_factory=factory, progress=not args.quiet)
    except (UnknownAgentError, ResultsError, ValueError, RuntimeError) as error:
        print(f"desktop-gym eval: {error}", file=sys.stderr)
        return 2
    wanted = {(t, s, r) for t, s, r in config.episodes()}
    mine = [r for r in records if (r.task_id, r.seed, r.run) in wanted]
    paths = write_report(config.out, records, references)
    print(overall_table(summarize(mine)).markdown())
    print(f"[results] {config.out / 'results.jsonl'}")
    print(f"[report] {paths['html']}")
    return 0
