"""The ``desktop-gym tasks`` command group: list tasks, prove them, import OSWorld tasks."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _suite_tasks(suite: str | None) -> list[str]:
    """The tasks of ``suite``; without one, every task but the mined suite's (thousands: ask with --suite mined)."""
    from .tasks import list_tasks
    from .tasks.mined_suite import MINED_SUITE

    return list_tasks(suite) if suite is not None else [t for t in list_tasks() if not t.startswith(f"{MINED_SUITE}.")]


def cmd_list(args: argparse.Namespace) -> int:
    """Print every registered task with its Gymnasium id, apps, step budget, difficulty and domain."""
    from .task_tags import distribution, task_tags
    from .tasks import get_task, gym_id, list_tasks

    tags = {}
    for task_id in _suite_tasks(args.suite):
        task = get_task(task_id)
        tags[task_id] = tag = task_tags(task)
        steps = f"{tag.steps} step{'' if tag.steps == 1 else 's'}" if tag.steps is not None else "-"
        print(
            f"{gym_id(task_id):<50} apps={','.join(task.apps):<14} max_steps={task.max_steps:<4} "
            f"difficulty={tag.difficulty:<10} ({steps:>8})  domain={tag.domain}"
        )
    print(f"\n{len(tags)} tasks\n{distribution(tags)}")
    mined = len(list_tasks("mined")) if args.suite is None else 0
    if mined:
        print(f"(and {mined} mined tasks: desktop-gym tasks list --suite mined)")
    return 0


def _progress(total: int) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is a dependency; a stripped install still gets the table
        return None
    return tqdm(total=total, desc="checking tasks", unit="task", file=sys.stderr, dynamic_ncols=True)


def summary_table(proofs: list[Any]) -> str:
    """The proof table: task, oracle kinds, null agent, perturbed oracle, time, verdict."""
    header = ("task", "oracles", "null", "perturbed", "attacks", "time", "verdict")
    rows = [
        (
            p.task_id,
            ",".join(kind if p.verdict(kind) == "ok" else f"{kind}:FAIL" for kind in p.oracle_kinds) or "-",
            p.verdict("null"),
            p.verdict("perturbed") if p.verdict("perturbed") != "-" else ("n/a" if "oracle" in p.oracle_kinds else "-"),
            p.attack_verdict(),
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
    from .tasks import UnknownTaskError, get_task

    task_ids = list(args.task) or _suite_tasks(args.suite)
    if not task_ids:
        print(f"no tasks to check (suite {args.suite!r})", file=sys.stderr)
        return 1
    for task_id in task_ids:
        try:
            get_task(task_id)
        except UnknownTaskError as error:
            print(f"desktop-gym tasks check: {error}", file=sys.stderr)
            return 2
    if args.changed or args.sample is not None:
        task_ids = _changed_and_sample(args, task_ids)
        if not task_ids:
            print("nothing to prove: no task changed since it was proven, and --sample 0")
            return 0
    episode_attacked = _episode_attack_tasks(args, task_ids)
    bar = _progress(len(task_ids))

    def advance(proof: Any) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{proof.task_id}: {'proven' if proof.proven else 'UNPROVEN'}")
            bar.update(1)

    try:
        proofs = check_tasks(
            task_ids,
            seeds=range(args.seeds),
            backend=args.backend,
            on_result=advance,
            jobs=args.jobs,
            file_attacks=args.attacks != "none",
            episode_attacks=episode_attacked,
        )
    finally:
        if bar is not None:
            bar.close()
    if args.jobs > 1:
        proofs = _recheck_alone(proofs, args, episode_attacked)
    print(summary_table(proofs))
    unproven = [p for p in proofs if not p.proven]
    for proof in unproven:
        print(f"\n{proof.task_id} is unproven:")
        for line in proof.why_unproven():
            print(f"  - {line}")
    print(f"\n{len(proofs) - len(unproven)}/{len(proofs)} tasks proven with {args.seeds} seed(s)")
    print(
        f"attacks: file-level on every task ({sum(p.attack_verdict() != 'n/a' for p in proofs)} judged), "
        f"episode-level on {len(episode_attacked)} ({args.attacks}); "
        f"{sum(p.attack_verdict() == 'FAIL' for p in proofs)} tasks passed an attack"
    )
    print(_tags_summary([p.task_id for p in proofs]))
    if args.json:
        Path(args.json).write_text(json.dumps([p.to_dict() for p in proofs], indent=2))
    if args.record:
        from .tasks.proof_record import record_path, write_record

        write_record([p.task_id for p in proofs if p.proven])
        print(f"recorded {len(proofs) - len(unproven)} proven task(s) in {record_path()}")
    return 1 if unproven else 0


def _changed_and_sample(args: argparse.Namespace, task_ids: list[str]) -> list[str]:
    """The tasks new or changed since the proof record (with ``--changed``), plus a rotating sample of the rest."""
    from .reward_attacks import rotating_sample
    from .tasks.proof_record import changed_tasks, read_record

    changed = changed_tasks(task_ids, read_record()) if args.changed else []
    rest = [task for task in task_ids if task not in changed]
    sample = rotating_sample(rest, args.sample or 0, _seed(args.sample_seed, "DESKTOP_GYM_PROOF_SEED"))
    print(
        f"proving {len(changed)} task(s) new or changed since the proof record"
        + (f" ({', '.join(changed[:8])}{', ...' if len(changed) > 8 else ''})" if changed else "")
        + f" and a rotating sample of {len(sample)} of the other {len(rest)}"
    )
    return [task for task in task_ids if task in changed or task in sample]


def _seed(given: int | None, variable: str) -> int:
    """``given``, else ``$variable``, else today's date: a sample that rotates daily unless pinned."""
    import datetime
    import os

    if given is not None:
        return given
    return int(os.environ.get(variable, datetime.date.today().toordinal()))


def _recheck_alone(proofs: list[Any], args: argparse.Namespace, episode_attacked: list[str]) -> list[Any]:
    """Check again, one desktop at a time, the tasks that failed beside other desktops.

    Parallel desktops share the CPU, and a step that times out under that load is not the task's fault;
    a task that also fails alone is unproven. The tasks proven only alone are named, since being
    sensitive to load is worth knowing.
    """
    from .task_check import check_tasks

    failed = [p.task_id for p in proofs if not p.proven]
    if not failed:
        return proofs
    print(f"rechecking alone what failed beside {args.jobs - 1} other desktop(s): {', '.join(failed)}")
    again = {
        proof.task_id: proof
        for proof in check_tasks(
            failed,
            seeds=range(args.seeds),
            backend=args.backend,
            file_attacks=args.attacks != "none",
            episode_attacks=[task for task in failed if task in episode_attacked],
        )
    }
    proven_alone = [task for task in failed if again[task].proven]
    if proven_alone:
        print(f"proven only when checked alone (load-sensitive): {', '.join(proven_alone)}")
    return [again.get(p.task_id, p) for p in proofs]


def _episode_attack_tasks(args: argparse.Namespace, task_ids: list[str]) -> list[str]:
    """The tasks that get episode-level attacks: none, a seeded rotating sample, or all."""
    from .reward_attacks import rotating_sample

    if args.attacks in ("none", "files"):
        return []
    if args.attacks == "all":
        return list(task_ids)
    # Rotates daily unless CI pins it; choosing which tasks to attack is not a task parameter.
    return rotating_sample(task_ids, args.attack_sample, _seed(args.attack_seed, "DESKTOP_GYM_ATTACK_SEED"))


def _tags_summary(task_ids: list[str]) -> str:
    from .task_tags import distribution, task_tags
    from .tasks import get_task

    return distribution({task_id: task_tags(get_task(task_id)) for task_id in task_ids})


def cmd_import_osworld(args: argparse.Namespace) -> int:
    """Convert OSWorld task files into our JSON tasks; print what could not be mapped.

    With ``--report FOLDER`` print instead how many of the tasks under FOLDER would map given their
    files, per domain, and why the others do not.
    """
    from .tasks.osworld_import import import_osworld_files

    if args.report is not None:
        from .tasks.osworld_report import DOMAINS, coverage

        domains = None if args.domains == ["all"] else tuple(args.domains or DOMAINS)
        print(coverage(Path(args.report), domains).describe())
        return 0
    if not args.files or args.cache is None:
        print("desktop-gym tasks import-osworld: give task files and --cache (or --report FOLDER)", file=sys.stderr)
        return 2

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
    """Add ``tasks`` (list), ``tasks check``, ``tasks import-osworld`` and ``tasks synth`` to the CLI's subparsers."""
    tasks = sub.add_parser("tasks", help="list, check and import tasks")
    tasks.add_argument("--suite", default=None)
    tasks.set_defaults(handler=cmd_list)
    group = tasks.add_subparsers(dest="tasks_command")
    listing = group.add_parser("list", help="list registered tasks")
    listing.add_argument("--suite", default=None)
    listing.set_defaults(handler=cmd_list)
    check = group.add_parser("check", help="prove tasks: oracles pass, null agent and perturbed oracle fail")
    check.add_argument(
        "--suite",
        default=None,
        help="only the tasks of this suite (default: every suite but mined, which is proven by its own stage)",
    )
    check.add_argument("--task", action="append", default=[], help="a task id (repeatable)")
    check.add_argument("--seeds", type=int, default=1, help="check seeds 0..N-1 (default 1)")
    check.add_argument("--backend", default="local")
    check.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="desktops checking tasks in parallel (default 1); a task failing beside others is rechecked alone",
    )
    check.add_argument("--json", default=None, metavar="OUT", help="also write the proofs as JSON")
    check.add_argument(
        "--attacks",
        choices=("none", "files", "sample", "all"),
        default="sample",
        help="reward hacking attacks: file-level on every task, plus episode-level on none ('files'), "
        "a seeded rotating sample ('sample', the default) or every task ('all'); 'none' skips them",
    )
    check.add_argument("--attack-sample", type=int, default=6, help="tasks in the episode-attack sample (default 6)")
    check.add_argument(
        "--attack-seed",
        type=int,
        default=None,
        help="seed of the sample (default: $DESKTOP_GYM_ATTACK_SEED, else the date)",
    )
    check.add_argument(
        "--changed",
        action="store_true",
        help="only the tasks new or changed since the proof record (tasks/proven.json), plus any --sample",
    )
    check.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="also (or only, without --changed) a rotating sample of N of the other tasks",
    )
    check.add_argument(
        "--sample-seed",
        type=int,
        default=None,
        help="seed of the proof sample (default: $DESKTOP_GYM_PROOF_SEED, else the date)",
    )
    check.add_argument(
        "--record",
        action="store_true",
        help="write the fingerprints of the proven tasks into the proof record (commit it after a full proof)",
    )
    check.set_defaults(handler=cmd_check)
    osworld = group.add_parser("import-osworld", help="convert OSWorld task JSON into desktop-gym tasks")
    osworld.add_argument("files", nargs="*", help="OSWorld task files")
    osworld.add_argument("--cache", default=None, help="folder with the tasks' downloaded files (by name)")
    osworld.add_argument(
        "--report",
        default=None,
        metavar="FOLDER",
        help="coverage report over OSWorld's evaluation_examples/examples folder instead of importing",
    )
    osworld.add_argument(
        "--domains", nargs="*", default=None, help="domains (subfolders) for --report; 'all' for every one"
    )
    osworld.add_argument("--out", default="osworld_tasks", help="output suite folder (JSON + assets/)")
    osworld.add_argument("--suite", default="osworld", help="suite part of the task ids")
    osworld.add_argument(
        "--allow-partial",
        action="store_true",
        help="write tasks even when some checks cannot be mapped (listed in the report and in the task's source)",
    )
    osworld.set_defaults(handler=cmd_import_osworld)
    from .cli_synth import add_synth_command

    add_synth_command(group)
