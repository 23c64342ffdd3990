"""The ``desktop-gym tasks`` command group: list tasks, prove them, import OSWorld tasks."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def cmd_list(args: argparse.Namespace) -> int:
    """Print every registered task with its Gymnasium id, apps and step budget."""
    from .tasks import get_task, gym_id, list_tasks

    for task_id in list_tasks(args.suite):
        task = get_task(task_id)
        print(f"{gym_id(task_id):<50} apps={','.join(task.apps):<10} max_steps={task.max_steps}")
    return 0


def _progress(total: int) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is a dependency; a stripped install still gets the table
        return None
    return tqdm(total=total, desc="checking tasks", unit="task", file=sys.stderr, dynamic_ncols=True)


def summary_table(proofs: list[Any]) -> str:
    """The proof table: task, oracle kinds, null agent, perturbed oracle, time, verdict."""
    header = ("task", "oracles", "null", "perturbed", "time", "verdict")
    rows = [
        (
            p.task_id,
            ",".join(kind if p.verdict(kind) == "ok" else f"{kind}:FAIL" for kind in p.oracle_kinds) or "-",
            p.verdict("null"),
            p.verdict("perturbed") if p.verdict("perturbed") != "-" else ("n/a" if "oracle" in p.oracle_kinds else "-"),
            f"{p.seconds:.1f}s",
            "proven" if p.proven else "UNPROVEN",
        )
        for p in proofs
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)) for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def cmd_check(args: argparse.Namespace) -> int:
    """Prove tasks on one shared desktop; exit 1 when any task is unproven."""
    from .task_check import check_tasks
    from .tasks import UnknownTaskError, get_task, list_tasks

    task_ids = list(args.task) or list_tasks(args.suite)
    if not task_ids:
        print(f"no tasks to check (suite {args.suite!r})", file=sys.stderr)
        return 1
    for task_id in task_ids:
        try:
            get_task(task_id)
        except UnknownTaskError as error:
            print(f"desktop-gym tasks check: {error}", file=sys.stderr)
            return 2
    bar = _progress(len(task_ids))

    def advance(proof: Any) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{proof.task_id}: {'proven' if proof.proven else 'UNPROVEN'}")
            bar.update(1)

    try:
        proofs = check_tasks(task_ids, seeds=range(args.seeds), backend=args.backend, on_result=advance, jobs=args.jobs)
    finally:
        if bar is not None:
            bar.close()
    print(summary_table(proofs))
    unproven = [p for p in proofs if not p.proven]
    for proof in unproven:
        print(f"\n{proof.task_id} is unproven:")
        for line in proof.why_unproven():
            print(f"  - {line}")
    print(f"\n{len(proofs) - len(unproven)}/{len(proofs)} tasks proven with {args.seeds} seed(s)")
    if args.json:
        Path(args.json).write_text(json.dumps([p.to_dict() for p in proofs], indent=2))
    return 1 if unproven else 0


def cmd_import_osworld(args: argparse.Namespace) -> int:
    """Convert OSWorld task files into our JSON tasks; print what could not be mapped."""
    from .tasks.osworld_import import import_osworld_files

    reports = import_osworld_files(
        [Path(f) for f in args.files],
        cache_dir=Path(args.cache),
        out_dir=Path(args.out),
        suite=args.suite,
        allow_partial=args.allow_partial,
    )
    for report in reports:
        print(report.describe())
    failed = [r for r in reports if r.status not in ("ok", "partial")]
    written = sum(r.written is not None for r in reports)
    print(f"\n{written}/{len(reports)} tasks written to {args.out}")
    return 1 if failed else 0


def add_tasks_commands(sub: Any) -> None:
    """Add ``tasks`` (list), ``tasks check`` and ``tasks import-osworld`` to the CLI's subparsers."""
    tasks = sub.add_parser("tasks", help="list, check and import tasks")
    tasks.add_argument("--suite", default=None)
    tasks.set_defaults(handler=cmd_list)
    group = tasks.add_subparsers(dest="tasks_command")
    listing = group.add_parser("list", help="list registered tasks")
    listing.add_argument("--suite", default=None)
    listing.set_defaults(handler=cmd_list)
    check = group.add_parser("check", help="prove tasks: oracles pass, null agent and perturbed oracle fail")
    check.add_argument("--suite", default=None, help="only the tasks of this suite")
    check.add_argument("--task", action="append", default=[], help="a task id (repeatable)")
    check.add_argument("--seeds", type=int, default=1, help="check seeds 0..N-1 (default 1)")
    check.add_argument("--backend", default="local")
    check.add_argument("--jobs", type=int, default=1, help="desktops checking tasks in parallel (default 1)")
    check.add_argument("--json", default=None, metavar="OUT", help="also write the proofs as JSON")
    check.set_defaults(handler=cmd_check)
    osworld = group.add_parser("import-osworld", help="convert OSWorld task JSON into desktop-gym tasks")
    osworld.add_argument("files", nargs="+", help="OSWorld task files")
    osworld.add_argument("--cache", required=True, help="folder with the tasks' downloaded files (by name)")
    osworld.add_argument("--out", default="osworld_tasks", help="output suite folder (JSON + assets/)")
    osworld.add_argument("--suite", default="osworld", help="suite part of the task ids")
    osworld.add_argument(
        "--allow-partial",
        action="store_true",
        help="write tasks even when some checks cannot be mapped (listed in the report and in the task's source)",
    )
    osworld.set_defaults(handler=cmd_import_osworld)
