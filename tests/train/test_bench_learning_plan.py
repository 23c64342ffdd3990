"""The learning benchmark's plan overrides and its resume rule (pure functions; the run itself is a benchmark)."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_learning.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_learning_under_test", BENCH)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def test_set_overrides_parse_as_the_fields_type_and_unknown_fields_are_named() -> None:
    bench = load_bench()
    plan = bench.plan_with(bench.Plan(), ["bc_steps=12", "rl_lr=2e-5"])
    assert plan.bc_steps == 12 and isinstance(plan.bc_steps, int)
    assert plan.rl_lr == pytest.approx(2e-5)
    assert plan.group_size == bench.Plan().group_size
    with pytest.raises(SystemExit, match="no plan field 'bc_stpes'"):
        bench.plan_with(bench.Plan(), ["bc_stpes=3"])
    with pytest.raises(ValueError):
        bench.plan_with(bench.Plan(), ["bc_steps=many"])


def test_every_plan_field_belongs_to_exactly_one_step() -> None:
    """--resume lets a run change the fields of the steps still to run, so each field needs one owner."""
    bench = load_bench()
    owners = [field for fields in bench.PHASE_FIELDS.values() for field in fields]
    assert sorted(owners) == sorted(f.name for f in dataclasses.fields(bench.Plan))
    assert list(bench.PHASE_FIELDS) == ["base", "bc", "rl1", "sft", "rl2"]
