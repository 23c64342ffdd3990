"""Held-out task instances: seeds whose parameters never occur among the training seeds.

Two seeds of a task can draw the same parameters (a sheet name from a short list), so held-out
seeds alone do not make held-out instances. :func:`split_instances` reads each seed's parameters
the way ``DesktopEnv.reset(seed=...)`` draws them and gives disjoint training and held-out seeds.
"""

from __future__ import annotations

import json
from typing import Any

MAX_SEARCH = 100_000


def instance_params(task_id: str, seed: int) -> dict[str, Any]:
    """The parameters ``DesktopEnv.reset(seed=seed, options={"task_id": task_id})`` draws."""
    from gymnasium.utils import seeding

    from ..tasks import get_task

    rng, _ = seeding.np_random(seed)
    return get_task(task_id).sample_params(rng)


def instance_key(params: dict[str, Any]) -> str:
    """A canonical text of an instance's parameters (equal parameters, equal keys)."""
    return json.dumps(params, sort_keys=True, default=str)


def split_instances(
    task_id: str, train: int, heldout: int, heldout_share: float = 0.25, search: int = 5000
) -> tuple[list[int], list[int]]:
    """``train`` training seeds and ``heldout`` held-out seeds of ``task_id`` with disjoint parameters.

    Seeds are visited from 0; a seed's instance goes to the held-out side when its key hashes into
    the first ``heldout_share`` of the range (so the sides split the instance space, not the seeds),
    and a side takes a seed only while it needs more and only for an instance it has not taken yet.

    Raises:
        ValueError: ``search`` seeds hold too few distinct instances for the counts asked.
    """
    import hashlib

    if not 0 < heldout_share < 1:
        raise ValueError(f"heldout_share must be in (0, 1), got {heldout_share}")
    if search > MAX_SEARCH:
        raise ValueError(f"search is capped at {MAX_SEARCH} seeds, got {search}")
    sides: dict[bool, list[int]] = {False: [], True: []}
    keys: dict[bool, set[str]] = {False: set(), True: set()}
    wanted = {False: train, True: heldout}
    for seed in range(search):
        key = instance_key(instance_params(task_id, seed))
        side = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < heldout_share
        if len(sides[side]) < wanted[side] and key not in keys[side]:
            sides[side].append(seed)
            keys[side].add(key)
        if all(len(sides[s]) >= wanted[s] for s in sides):
            return sides[False], sides[True]
    raise ValueError(
        f"{task_id}: {search} seeds give {len(sides[False])} training and {len(sides[True])} held-out "
        f"distinct instances, fewer than the {train} and {heldout} asked"
    )
