"""``tasks synth`` on a real desktop: it keeps only tasks its filters prove, the kept ones pass the
standard prover, and switching a filter's evidence off (a model that disagrees with the app, a
perturbed run that equals the oracle's) is caught."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from desktop_gym.cli import main
from desktop_gym.tasks import registry
from desktop_gym.tasks.mined_suite import read_index, register_mined
from desktop_gym.tasks.mining.apps import CALC
from desktop_gym.tasks.mining.calc_calls import BOLD, FILL
from desktop_gym.tasks.mining.dry_run import DryRunner
from desktop_gym.tasks.mining.programs import sample_group, task_definition
from desktop_gym.tasks.mining.synth import Miner, prove_offline, read_shard
from desktop_gym.testing import check_task

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def runner():
    with DryRunner() as shared:
        yield shared


def test_synth_writes_proven_tasks_an_index_and_a_report(tmp_path: Path, capsys) -> None:
    assert main(["tasks", "synth", "--app", "writer", "--n", "2", "--out", str(tmp_path), "--seed", "5"]) == 0
    kept = read_shard(tmp_path / "writer.jsonl")
    proofs = read_shard(tmp_path / "writer.proofs.jsonl")
    assert len(kept) == 2 and [p["id"] for p in proofs] == [d["id"] for d in kept]
    assert all(p["oracle"] == "passes" and p["perturbed"] == "fails" and p["null"] == "fails" for p in proofs)
    assert set(read_index(tmp_path)) == {d["id"] for d in kept}
    report = json.loads((tmp_path / "report.json").read_text())["runs"][-1]
    assert report["kept"] == 2 and report["episodes"] >= 2 and report["kept_per_minute"] > 0
    page = (tmp_path / "report.html").read_text()
    assert kept[0]["id"] in page and "Why candidates were dropped" in page
    # A kept task passes the standard prover too: api oracle, null, perturbed and every attack.
    register_mined(tmp_path)
    try:
        proof = check_task(kept[0]["id"], episode_attacks=True)
    finally:
        for definition in kept:  # other tests count the registered tasks
            registry._TASKS.pop(definition["id"], None)
            registry._ENTRY_POINTS.pop(definition["id"], None)
    assert proof.proven, proof.why_unproven()


def test_a_call_whose_model_disagrees_with_the_app_is_never_kept(tmp_path: Path, runner: DryRunner) -> None:
    # The model says set_bold also fills the cells yellow; the app does not: every oracle run fails.
    def bold_and_fill(model, args):
        BOLD.apply(model, args)
        for line in model.rows:
            for cell in line:
                if cell.bold:
                    cell.fill = "FFFF00"

    wrong = dataclasses.replace(CALC, kinds=(dataclasses.replace(BOLD, apply=bold_and_fill),))
    result = Miner(tmp_path, runner, np.random.default_rng(3), app=wrong).mine(1)
    assert result.kept == [] and result.dropped["oracle failed"] >= 2
    assert "fill" in " ".join(result.examples["oracle failed"])
    assert not (tmp_path / "calc.jsonl").exists()


def test_a_perturbed_run_equal_to_the_oracles_is_refused(runner: DryRunner) -> None:
    group = sample_group(np.random.default_rng(21), CALC, calls=1)
    definition = task_definition(group, 0)
    run = runner.run(definition)
    assert run.success and run.saved is not None
    _, problem = prove_offline(definition, CALC, run.saved)  # "perturbed" by the oracle's own document
    assert problem == "perturbed passed"
    other = runner.run(task_definition(group, 1))
    proof, problem = prove_offline(definition, CALC, other.saved)
    assert problem is None and proof["perturbed"] == "fails" and proof["null"] == "fails"


def test_an_instruction_that_does_not_fix_the_result_drops_its_tasks(tmp_path: Path, runner: DryRunner) -> None:
    # The sentence leaves the colour out, so siblings share seed and instruction but not the end state.
    vague = dataclasses.replace(FILL, describe=lambda args, model: f"colour {args['cell_range']}")
    result = Miner(tmp_path, runner, np.random.default_rng(5), app=dataclasses.replace(CALC, kinds=(vague,))).mine(1)
    assert result.kept == [] and result.dropped["ambiguous"] >= 1
    assert any("kept earlier" in example for example in result.examples["ambiguous"])
    assert read_shard(tmp_path / "calc.jsonl") == [] and read_shard(tmp_path / "calc.proofs.jsonl") == []
