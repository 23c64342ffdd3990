"""The terminal workflow families judged without a desktop: a correct end state passes, near misses fail.

The home is ``StandInGuest``'s in-memory one; the end states are written the way the oracle's shell
commands leave them. The real proofs (oracles on xterm) run in ``desktop-gym tasks check``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from desktop_gym.reward_attacks import StandInGuest
from desktop_gym.tasks import get_task
from desktop_gym.tasks.base import TaskContext

Home = dict[str, bytes]


def judged(task_id: str, seed: int, finish: Callable[[Home, dict], None]) -> bool:
    """Set the task up in a stand-in home, let ``finish`` change the files, return the verdict."""
    task = get_task(task_id)
    guest = StandInGuest()
    ctx = TaskContext(
        client=guest, rng=np.random.default_rng(seed), params=task.sample_params(np.random.default_rng(seed))
    )  # type: ignore[arg-type]
    task.setup(ctx)
    finish(guest.files, ctx.params)
    return bool(task.verify(ctx).success)


def key(path: str) -> str:
    return StandInGuest._key(path)


def triage(home: Home, params: dict, *, keep_log: bool = False, errors_only: bool = True) -> None:
    log = home[key(params["log"])] if keep_log else home.pop(key(params["log"]))
    lines = log.decode().splitlines()
    chosen = [line for line in lines if "ERROR" in line] if errors_only else lines
    home[key("~/reports/errors.txt")] = ("\n".join(chosen) + "\n").encode()
    home[key("~/reports/summary.txt")] = f"warnings: {sum('WARN' in line for line in lines)}\n".encode()
    home[key(f"~/logs/archive/{params['archived_name']}")] = log


def sort_downloads(home: Home, params: dict, *, copy: bool = False, index_order: Callable = sorted) -> None:
    for name in [*params["pdfs"], *params["jpgs"]]:
        folder = "~/Documents/invoices" if name.endswith(".pdf") else "~/Pictures"
        source = key(f"~/Downloads/{name}")
        home[key(f"{folder}/{name}")] = home[source] if copy else home.pop(source)
    for name in params["parts"]:
        home.pop(key(f"~/Downloads/{name}"))
    home[key("~/Documents/invoices/index.txt")] = ("\n".join(index_order(params["pdfs"])) + "\n").encode()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_log_triage_end_states(seed: int) -> None:
    assert judged("workflow.log_triage", seed, triage)
    assert not judged("workflow.log_triage", seed, lambda home, p: triage(home, p, keep_log=True))  # copied
    assert not judged("workflow.log_triage", seed, lambda home, p: triage(home, p, errors_only=False))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_downloads_sort_end_states(seed: int) -> None:
    assert judged("workflow.downloads_sort", seed, sort_downloads)
    assert not judged("workflow.downloads_sort", seed, lambda home, p: sort_downloads(home, p, copy=True))
    reverse: Callable = lambda names: sorted(names, reverse=True)  # noqa: E731
    assert not judged("workflow.downloads_sort", seed, lambda home, p: sort_downloads(home, p, index_order=reverse))
