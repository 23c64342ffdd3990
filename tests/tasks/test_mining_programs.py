"""Mined programs without a desktop: every drawn group gives valid, distinct, perturbable tasks whose
oracle parses into API calls, and programs that undo themselves are caught."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.actions import ActionSet, ApiCall
from desktop_gym.apps.calc.tools import CalcTools
from desktop_gym.apps.impress.tools import ImpressTools
from desktop_gym.apps.writer.tools import WriterTools
from desktop_gym.tasks.json_params import fill
from desktop_gym.tasks.loader import validate_definition
from desktop_gym.tasks.mining.apps import CALC, MINED_APPS
from desktop_gym.tasks.mining.calc_calls import DELETE_ROW, SET_NUMBER
from desktop_gym.tasks.mining.programs import MAX_CALLS, Call, Dropped, sample_group, task_definition, undone_call
from desktop_gym.tasks.mining.sheet_model import seed_model

# The real classes: a call to a method they lack, or with an argument it does not take, fails to parse.
APIS = ActionSet(api_classes={"CalcTools": CalcTools, "WriterTools": WriterTools, "ImpressTools": ImpressTools})


@pytest.mark.parametrize("app", sorted(MINED_APPS))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_drawn_group_gives_valid_distinct_perturbable_tasks(app: str, seed: int) -> None:
    try:
        group = sample_group(np.random.default_rng(seed), MINED_APPS[app])
    except Dropped as dropped:
        assert dropped.reason in ("no-op", "undone", "no perturbation")
        return
    definitions = [task_definition(group, i) for i in range(len(group.siblings))]
    values = [d["params"]["v"] for d in definitions]
    states = [json.dumps(d["verifier"]["args"]["expected"], sort_keys=True) for d in definitions]
    assert len(definitions) >= 2 and len(set(states)) == len(states)  # siblings differ in their end state
    assert 1 <= group.calls <= MAX_CALLS
    for definition in definitions:
        validate_definition(definition, definition["id"])
        assert definition["perturb"]["value"] in values and definition["perturb"]["value"] != definition["params"]["v"]
        actions = fill(definition["oracles"]["api"], definition["params"])
        parsed = [action for text in actions for action in APIS.parse(text)]
        assert len(parsed) == len(actions) and all(isinstance(a, ApiCall) for a in parsed), actions
        for call in parsed:  # the arguments bind to the real method's signature
            inspect.signature(getattr(APIS.api_classes[call.app_class], call.method)).bind(None, **call.kwargs)
        assert actions[-1] == MINED_APPS[app].save
        assert f"calls:{group.calls}" in definition["tags"] and definition["id"].startswith(f"mined.{app}_")
    for sibling in group.siblings:
        assert undone_call(group.seed, sibling.calls) is None


def test_a_program_whose_later_call_wipes_out_an_earlier_one_is_caught() -> None:
    model, _ = seed_model(np.random.default_rng(0))
    set_b3 = Call(SET_NUMBER, {"cell": "B3", "value": 999})
    assert undone_call(model, [set_b3, Call(DELETE_ROW, {"row": 3})]) == 0
    assert undone_call(model, [set_b3, Call(DELETE_ROW, {"row": 4})]) is None


def test_ids_are_content_hashes_so_the_same_draw_gives_the_same_task() -> None:
    first = sample_group(np.random.default_rng(7), CALC)
    again = sample_group(np.random.default_rng(7), CALC)
    assert task_definition(first, 0) == task_definition(again, 0)
