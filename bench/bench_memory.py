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

from memory import pss_by_program  # noqa: E402

from desktop_gym import DesktopEnv  # noqa: E402
from desktop_gym.backends import session_user  # noqa: E402
from desktop_gym.guest.apps import lo_profile  # noqa: E402

CALC_TASK = "starter.calc_fill_totals"
MAX_DESKTOPS = 8
MAX_RESETS = 50


def open_desktops(count: int, resets: int) -> list[DesktopEnv]:
    """``count`` desktops, each reset ``resets`` times on the Calc task (the last one is measured)."""
    envs = [DesktopEnv(task_id=CALC_TASK, observation=("screenshot",), settle_timeout=0) for _ in range(count)]
    with ThreadPoolExecutor(count) as pool:
        for seed in range(resets):
            list(pool.map(lambda env: env.reset(seed=seed), envs))  # noqa: B023 - used at once
    return envs


@dataclass(frozen=True)
class Variant:
    """A launch option to measure: session environment variables and extra LibreOffice settings."""

    name: str
    env: dict[str, str] = field(default_factory=dict)
    settings: tuple[tuple[str, str, str, str], ...] = ()


VARIANTS: dict[str, Variant] = {
    variant.name: variant
    for variant in (
        Variant("malloc-arena-2", env={"MALLOC_ARENA_MAX": "2"}),
        Variant("mmap-threshold-128k", env={"MALLOC_MMAP_THRESHOLD_": "131072"}),
        Variant("malloc-arena-2+mmap-128k", env={"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072"}),
        Variant(
            "graphic-cache-small",
            settings=(
                ("/org.openoffice.Office.Common/Cache/GraphicManager", "GraphicMemoryLimit", "xs:int", "20000000"),
            ),
        ),
        Variant("no-gio-dconf", env={"GSETTINGS_BACKEND": "memory", "GIO_USE_VFS": "local"}),
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
    try:
        if variant is not None:
            os.environ.update(variant.env)
            if variant.settings:
                session_user.SHARED_CACHE = variant_cache(variant, root)
        env.reset(seed=0)  # starts the session with the environment and profile cache above
    finally:
        os.environ.clear()
        os.environ.update(saved_environ)
        session_user.SHARED_CACHE = saved_cache
    return env


def compare(variant: Variant, resets: int, root: Path) -> dict[str, dict[str, float]]:
    """PSS by program of a default desktop and a ``variant`` desktop, running and measured together."""
    envs = [start_desktop(None, root), start_desktop(variant, root)]
    try:
        with ThreadPoolExecutor(len(envs)) as pool:
            for seed in range(1, resets):
                list(pool.map(lambda env: env.reset(seed=seed), envs))  # noqa: B023 - used at once
        return {"today": mean_breakdown(envs[:1]), variant.name: mean_breakdown(envs[1:])}
    finally:
        for env in envs:
            env.close()


def mean_breakdown(envs: list[DesktopEnv]) -> dict[str, float]:
    """Mean PSS in MiB per program over the desktops ``envs`` (programs of all of them)."""
    totals: dict[str, float] = defaultdict(float)
    for env in envs:
        for program, mib in pss_by_program(env.unwrapped._handle).items():
            totals[program] += mib / len(envs)
    return dict(totals)


def render(columns: dict[str, dict[str, float]]) -> str:
    """One row per program, one column per measured case, a total row at the end."""
    programs = sorted(
        {p for column in columns.values() for p in column},
        key=lambda p: -max(column.get(p, 0.0) for column in columns.values()),
    )
    header = f"  {'program':<24}" + "".join(f"{name:>16}" for name in columns)
    lines = [header, "  " + "-" * (24 + 16 * len(columns))]
    for program in programs:
        lines.append(
            f"  {program:<24}" + "".join(f"{column.get(program, 0.0):>12.1f} MiB" for column in columns.values())
        )
    lines.append(f"  {'total':<24}" + "".join(f"{sum(column.values()):>12.1f} MiB" for column in columns.values()))
    return "\n".join(lines)


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
    args = parser.parse_args()
    if not 1 <= args.resets <= MAX_RESETS:
        parser.error(f"--resets must be 1..{MAX_RESETS}, got {args.resets}")
    if not 1 <= args.desktops <= MAX_DESKTOPS:
        parser.error(f"--desktops must be 1..{MAX_DESKTOPS}, got {args.desktops}")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"PSS per desktop by program ({os.cpu_count()} cores, load average {load})")
    if args.compare:
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as root:
            for name in args.compare:
                print(f"\n{name}: {VARIANTS[name]}")
                print(render(compare(VARIANTS[name], args.resets, Path(root))), flush=True)
        return
    columns: dict[str, dict[str, float]] = {}
    envs = open_desktops(1, args.resets)
    try:
        columns["alone"] = mean_breakdown(envs)
    finally:
        for env in envs:
            env.close()
    envs = open_desktops(args.desktops, args.resets)
    try:
        columns[f"{args.desktops} at once"] = mean_breakdown(envs)
    finally:
        for env in envs:
            env.close()
    print(render(columns))


if __name__ == "__main__":
    main()
