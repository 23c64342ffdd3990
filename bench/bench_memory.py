"""Where a desktop's memory goes: PSS per process of one desktop with Calc, and of four at once.

Run: ``.venv/bin/python bench/bench_memory.py [--desktops 4]``. Each desktop is a local-backend
session with the Calc starter task open (screenshot-only observation). The table sums PSS
(``/proc/<pid>/smaps_rollup``) over each session's processes by program (Xvfb, openbox, the dbus
daemons, the at-spi daemons, the guest agent, soffice.bin), alone and with ``--desktops`` at once;
PSS splits a page shared by N processes N ways, so shared libraries get cheaper per desktop when
more desktops run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import USS_FIELDS, pss_by_program  # noqa: E402
from result_file import write_result_file  # noqa: E402
from targets import TargetTable  # noqa: E402

from desktop_gym import DesktopEnv  # noqa: E402
from desktop_gym.backends import local, session_user  # noqa: E402
from desktop_gym.guest.apps import lo_profile  # noqa: E402

CALC_TASK = "starter.calc_fill_totals"
MAX_DESKTOPS = 8
MAX_RESETS = 50
MAX_REPEAT = 10


@dataclass(frozen=True)
class Variant:
    """A launch option to measure: session environment variables and extra LibreOffice settings."""

    name: str
    env: dict[str, str] = field(default_factory=dict)
    settings: tuple[tuple[str, str, str, str], ...] = ()
    glibc_malloc: bool = False  # the session without local.SESSION_MALLOC_ENV (the launch before it)
    xvfb_glibc_malloc: bool = False  # Xvfb without local.XVFB_MALLOC_ENV


VARIANTS: dict[str, Variant] = {
    variant.name: variant
    for variant in (
        Variant("before-malloc-settings", glibc_malloc=True, xvfb_glibc_malloc=True),
        Variant("guest-not-forked", env={"DESKTOP_GYM_FORK_GUEST": "0"}),  # each guest a process of its own
        Variant("xvfb-moving-mmap-threshold", xvfb_glibc_malloc=True),
        Variant("malloc-arena-1", env={"MALLOC_ARENA_MAX": "1"}),
        Variant("mmap-threshold-128k", env={"MALLOC_MMAP_THRESHOLD_": "131072"}),
        Variant("trim-threshold-64k", env={"MALLOC_TRIM_THRESHOLD_": "65536"}),
        Variant(
            "graphic-cache-small",
            settings=(
                ("/org.openoffice.Office.Common/Cache/GraphicManager", "GraphicMemoryLimit", "xs:int", "20000000"),
            ),
        ),
        Variant("no-gio-dconf", env={"GSETTINGS_BACKEND": "memory", "GIO_USE_VFS": "local"}),
        Variant(
            "office-one-worker-thread",  # LibreOffice's thread pool and Calc's threaded formula groups
            env={"MAX_CONCURRENCY": "1"},
            settings=(
                (
                    "/org.openoffice.Office.Calc/Formula/Calculation",
                    "UseThreadedCalculationForFormulaGroups",
                    "xs:boolean",
                    "false",
                ),
            ),
        ),
    )
}


def variant_cache(variant: Variant, root: Path) -> Path:
    """A profile cache holding a template with ``variant``'s settings, where the guest looks for the default one."""
    cache = root / variant.name
    expected = lo_profile.template_path(cache)
    if expected.exists():
        return cache
    default = lo_profile.PROFILE_SETTINGS
    lo_profile.PROFILE_SETTINGS = default + variant.settings
    try:
        built = lo_profile.ensure_profile_template(root / f"{variant.name}-build")
    finally:
        lo_profile.PROFILE_SETTINGS = default
    expected.parent.mkdir(parents=True, exist_ok=True)
    built.rename(expected)
    return cache


def start_desktop(variant: Variant | None, root: Path) -> DesktopEnv:
    """One desktop on the Calc task, its session started with ``variant`` (``None``: today's options)."""
    env = DesktopEnv(task_id=CALC_TASK, observation=("screenshot",), settle_timeout=0)
    saved_environ, saved_cache = dict(os.environ), session_user.SHARED_CACHE
    saved_malloc, saved_xvfb_malloc = local.SESSION_MALLOC_ENV, local.XVFB_MALLOC_ENV
    try:
        if variant is not None:
            if variant.glibc_malloc:
                local.SESSION_MALLOC_ENV = {}
            if variant.xvfb_glibc_malloc:
                local.XVFB_MALLOC_ENV = {}
            os.environ.update(variant.env)
            if variant.settings:
                session_user.SHARED_CACHE = variant_cache(variant, root)
        env.reset(seed=0)  # starts the session with the environment and profile cache above
    finally:
        os.environ.clear()
        os.environ.update(saved_environ)
        session_user.SHARED_CACHE = saved_cache
        local.SESSION_MALLOC_ENV, local.XVFB_MALLOC_ENV = saved_malloc, saved_xvfb_malloc
    return env


def measured(handle: object) -> dict[str, float]:
    """PSS by program, plus each program's USS under ``"<program> (USS)"`` keys."""
    uss = {f"{name} (USS)": mib for name, mib in pss_by_program(handle, USS_FIELDS).items()}
    return {**pss_by_program(handle), **uss}


def measure(variants: list[Variant | None], resets: int, root: Path) -> list[dict[str, float]]:
    """PSS by program of one desktop per entry of ``variants``, all running and measured together.

    Each desktop is reset ``resets`` times on the Calc task (the first reset starts its session);
    the state after the last reset is measured.
    """
    envs: list[DesktopEnv] = []
    try:
        for variant in variants:
            envs.append(start_desktop(variant, root))
        with ThreadPoolExecutor(len(envs)) as pool:
            for seed in range(1, resets):
                list(pool.map(lambda env: env.reset(seed=seed), envs))  # noqa: B023 - used at once
        return [measured(env.unwrapped._handle) for env in envs]
    finally:
        for env in envs:
            env.close()


def compare(variant: Variant, resets: int, root: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Mean PSS by program of a default and a ``variant`` desktop, running and measured together ``repeat`` times."""
    pairs = [measure([None, variant], resets, root) for _ in range(repeat)]
    return {
        "today": mean_breakdown([pair[0] for pair in pairs]),
        variant.name: mean_breakdown([pair[1] for pair in pairs]),
    }


def mean_breakdown(breakdowns: list[dict[str, float]]) -> dict[str, float]:
    """Mean PSS in MiB per program over several desktops' breakdowns (programs of all of them)."""
    totals: dict[str, float] = defaultdict(float)
    for breakdown in breakdowns:
        for program, mib in breakdown.items():
            totals[program] += mib / len(breakdowns)
    return dict(totals)


USS_SUFFIX = " (USS)"


def pss_total(column: dict[str, float]) -> float:
    """The PSS of a whole desktop: the sum over its programs (the USS rows left out)."""
    return sum(mib for name, mib in column.items() if not name.endswith(USS_SUFFIX))


def render(columns: dict[str, dict[str, float]]) -> str:
    """One PSS row per program, one column per measured case, the total, then each program's USS."""
    names = {p for column in columns.values() for p in column}
    by_size = sorted(names, key=lambda p: -max(column.get(p, 0.0) for column in columns.values()))

    def line(label: str, values: list[float]) -> str:
        return f"  {label:<30}" + "".join(f"{value:>18.1f} MiB" for value in values)

    lines = [f"  {'PSS by program':<30}" + "".join(f" {name:>21}" for name in columns), "  " + "-" * 120]
    lines += [line(p, [c.get(p, 0.0) for c in columns.values()]) for p in by_size if not p.endswith(USS_SUFFIX)]
    lines.append(line("total", [pss_total(column) for column in columns.values()]))
    lines.append("  USS (pages no other process maps now; library pages count while no other process maps them):")
    lines += [line(p, [c.get(p, 0.0) for c in columns.values()]) for p in by_size if p.endswith(USS_SUFFIX)]
    return "\n".join(lines)


def result_tables(columns: dict[str, dict[str, float]], targets: TargetTable) -> list[dict]:
    """The run as result-file tables: PSS and USS per program per column, then the targets."""
    names = {p for column in columns.values() for p in column}
    by_size = sorted(names, key=lambda p: -max(column.get(p, 0.0) for column in columns.values()))
    header = ["program", *columns]

    def rows(uss: bool) -> list[list[str]]:
        picked = [p for p in by_size if p.endswith(USS_SUFFIX) == uss and not p.startswith("gone")]
        return [[p, *(f"{c.get(p, 0.0):.1f} MiB" for c in columns.values())] for p in picked]

    total = ["total", *(f"{pss_total(c):.1f} MiB" for c in columns.values())]
    target_rows = [
        [t.name, "n/a" if t.now is None else f"{t.now:.1f} {t.unit}", f"< {t.target:g} {t.unit}", t.note]
        + ([] if t.ratio is None else [f"{t.ratio:.2f}"])
        for t in targets.rows
    ]
    return [
        {"caption": "PSS per program of one Calc desktop (mean over a column's desktops)", "columns": header,
         "rows": [*rows(uss=False), total]},
        {"caption": "USS per program", "columns": header, "rows": rows(uss=True)},
        {"caption": "Targets", "columns": ["what", "measured", "target", "note", "ratio"], "rows": target_rows},
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--desktops", type=int, default=4, help=f"desktops at once for the second column (max {MAX_DESKTOPS})"
    )
    parser.add_argument("--resets", type=int, default=2, help=f"resets before measuring (max {MAX_RESETS})")
    parser.add_argument(
        "--compare",
        action="append",
        choices=sorted(VARIANTS),
        default=[],
        help="measure a launch option beside today's (two desktops at once; repeatable)",
    )
    parser.add_argument("--repeat", type=int, default=1, help=f"pairs measured per --compare (max {MAX_REPEAT})")
    parser.add_argument("--json", type=Path, help="also write a result file (bench/results/log format)")
    args = parser.parse_args()
    if not 1 <= args.repeat <= MAX_REPEAT:
        parser.error(f"--repeat must be 1..{MAX_REPEAT}, got {args.repeat}")
    if not 1 <= args.resets <= MAX_RESETS:
        parser.error(f"--resets must be 1..{MAX_RESETS}, got {args.resets}")
    if not 1 <= args.desktops <= MAX_DESKTOPS:
        parser.error(f"--desktops must be 1..{MAX_DESKTOPS}, got {args.desktops}")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"PSS per desktop by program ({os.cpu_count()} cores, load average {load})")
    if args.compare:
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as root:
            os.chmod(root, 0o755)  # session users read the variant profile templates in it
            for name in args.compare:
                print(f"\n{name}: {VARIANTS[name]}")
                print(render(compare(VARIANTS[name], args.resets, Path(root), args.repeat)), flush=True)
        return
    before = VARIANTS["guest-not-forked"]
    columns: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as root:
        for count in (1, args.desktops):  # today's launch, then guests of their own, one right after the other
            label = "alone" if count == 1 else f"{count} at once"
            columns[label] = mean_breakdown(measure([None] * count, args.resets, Path(root)))
            columns[f"{label}, before"] = mean_breakdown(measure([before] * count, args.resets, Path(root)))
            print(render(columns), flush=True)
    targets = TargetTable()
    for label, target in (("alone", 200), (f"{args.desktops} at once", 150)):
        now, old = pss_total(columns[label]), pss_total(columns[f"{label}, before"])
        targets.add(f"PSS of one desktop with Calc, {label}", now, target, "MiB", f"guest not forked {old:.0f} MiB")
    print("\nmemory targets (issues 16, 31)")
    print(targets.render())
    if args.json is not None:
        write_result_file(
            args.json,
            __file__,
            "Where a desktop's memory goes, guests forked from a zygote against guests of their own",
            f".venv/bin/python bench/bench_memory.py --desktops {args.desktops} --resets {args.resets}",
            f"load average {load} at the start, {os.getloadavg()[0]:.1f} at the end",
            [],
            result_tables(columns, targets),
        )


if __name__ == "__main__":
    main()
