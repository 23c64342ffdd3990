"""The mined suite on disk: ids register from ``ids.txt`` without reading a shard, a definition is
validated on first use, broken shards fail naming the line, and the shipped suite holds what its
proofs say (re-checked here without a desktop: the null agent and the file attacks fail)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from desktop_gym.errors import TaskError
from desktop_gym.reward_attacks import run_file_attacks
from desktop_gym.tasks import get_task, list_tasks, mined_suite, registry
from desktop_gym.tasks.loader import TaskFileError, validate_definition
from desktop_gym.tasks.mined_suite import MINED_DIR, read_index, register_mined, write_index
from desktop_gym.tasks.mining.apps import MINED_APPS
from desktop_gym.tasks.mining.programs import sample_group, task_definition
from desktop_gym.tasks.mining.synth import read_shard, seed_key, state_key
from desktop_gym.verifiers import get_verifier

SHIPPED_MINIMUM = 1000
SAMPLE = 60  # shipped tasks re-proven offline per run (a rotating pick: the seed is the date)


def _definitions(app: str, count: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    found: list[dict] = []
    while len(found) < count:
        group = sample_group(rng, MINED_APPS[app])
        found += [task_definition(group, i) for i in range(len(group.siblings))]
    return found[:count]


@pytest.fixture
def scratch_suite(tmp_path: Path):
    definitions = _definitions("calc", 3, seed=11)
    (tmp_path / "calc.jsonl").write_text("".join(json.dumps(d) + "\n" for d in definitions))
    write_index(tmp_path)
    yield tmp_path, definitions
    for definition in definitions:
        registry._TASKS.pop(definition["id"], None)
        registry._ENTRY_POINTS.pop(definition["id"], None)


def test_ids_register_without_reading_a_shard_and_load_on_first_use(scratch_suite) -> None:
    folder, definitions = scratch_suite
    mined_suite._parse.cache_clear()
    assert register_mined(folder) == 3
    assert mined_suite._parse.cache_info().currsize == 0  # only ids.txt was read
    assert {d["id"] for d in definitions} <= set(list_tasks("mined"))
    task = get_task(definitions[1]["id"])
    assert task.definition == definitions[1] and task.source.endswith(f"calc.jsonl#{definitions[1]['id']}")
    assert mined_suite._parse.cache_info().currsize == 1


def test_a_broken_line_or_a_stale_index_fails_naming_the_shard(scratch_suite) -> None:
    folder, definitions = scratch_suite
    broken = dict(definitions[0], max_steps="many")
    (folder / "calc.jsonl").write_text(json.dumps(broken) + "\n{not json\n")
    mined_suite._parse.cache_clear()
    with pytest.raises(TaskError, match=r"calc.jsonl:2: not JSON"):
        mined_suite.load_mined(definitions[0]["id"], folder / "calc.jsonl")
    (folder / "calc.jsonl").write_text(json.dumps(broken) + "\n")
    mined_suite._parse.cache_clear()
    with pytest.raises(TaskFileError, match=r"calc.jsonl#mined.calc_\w+: max_steps"):
        mined_suite.load_mined(definitions[0]["id"], folder / "calc.jsonl")
    with pytest.raises(TaskError, match="the mined index is stale"):
        mined_suite.load_mined(definitions[2]["id"], folder / "calc.jsonl")
    (folder / "ids.txt").write_text("mined.calc_x\n")
    with pytest.raises(TaskError, match=r"ids.txt:1: expected '<task id> <shard>'"):
        read_index(folder)


def test_patterns_in_a_training_config_expand_to_the_mined_tasks(scratch_suite) -> None:
    from desktop_gym.train.config import EnvSection

    folder, definitions = scratch_suite
    register_mined(folder)
    section = EnvSection(task_ids=("demo.enter_number", "mined.calc_*"))
    assert section.task_ids[0] == "demo.enter_number" and {d["id"] for d in definitions} <= set(section.task_ids)
    with pytest.raises(registry.UnknownTaskError, match="matches"):
        EnvSection(task_ids=("mined.nothing_*",))


# -- the shipped suite ----------------------------------------------------------------------------------


def _shipped() -> list[dict]:
    return [d for shard in sorted(set(read_index().values())) for d in read_shard(MINED_DIR / shard)]


def _proofs() -> dict[str, dict]:
    proofs: dict[str, dict] = {}
    for path in sorted(MINED_DIR.glob("*.proofs.jsonl")):
        proofs.update({p["id"]: p for p in read_shard(path)})
    return proofs


def test_the_shipped_suite_is_large_distinct_unambiguous_and_proven_by_its_miner() -> None:
    shipped = _shipped()
    assert len(shipped) >= SHIPPED_MINIMUM
    assert len(read_index()) == len(shipped) and set(read_index()) <= set(list_tasks("mined"))
    assert {d["apps"][0] for d in shipped} == {"calc", "writer", "impress"}
    assert len({d["id"] for d in shipped}) == len(shipped)
    assert len({state_key(d) for d in shipped}) == len(shipped)  # no two tasks with one seed and one end state
    states: dict[str, set[str]] = {}
    for definition in shipped:
        states.setdefault(seed_key(definition), set()).add(state_key(definition))
    assert all(len(keys) == 1 for keys in states.values())  # one seed and instruction, one end state
    proofs = _proofs()
    for definition in shipped:
        proof = proofs[definition["id"]]
        assert (proof["oracle"], proof["perturbed"], proof["null"]) == ("passes", "fails", "fails")
        assert proof["file_attacks"] >= 1 and proof["perturbed_by"] != definition["id"]
    calls = Counter(int(next(t for t in d["tags"] if t.startswith("calls:"))[6:]) for d in shipped)
    assert set(calls) == set(range(1, 7))


def test_a_rotating_sample_of_shipped_tasks_is_valid_and_the_null_agent_and_attacks_fail() -> None:
    import datetime

    shipped = _shipped()
    picked = random.Random(datetime.date.today().toordinal()).sample(shipped, SAMPLE)
    for definition in picked:
        validate_definition(definition, definition["id"])
        app = MINED_APPS[definition["apps"][0]]
        expected = definition["verifier"]["args"]["expected"]
        assert not get_verifier(app.verifier)(app.seed_bytes(definition["setup"][0]), expected).success
        task = get_task(definition["id"])
        outcomes = [o for o in run_file_attacks(task, seed=0) if o.applicable]
        assert outcomes and not any(o.passed for o in outcomes), definition["id"]
