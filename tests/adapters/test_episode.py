"""The adapters' shared parts: EnvSource round trips and its parser's errors, dataset rows."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.train.adapters.episode import EnvSource, task_rows, tool_schemas

from .conftest import TASK_ID

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "action_mode": st.sampled_from(["gui", "api", "hybrid"]),
        "max_steps": st.integers(1, 50),
        "settle_timeout": st.floats(0, 5),
        "observation": st.lists(st.sampled_from(["instruction", "app_info", "screenshot"]), max_size=3).map(tuple),
    },
)


@given(
    address=st.one_of(st.none(), st.text(max_size=20)),
    token=st.one_of(st.none(), st.text(max_size=20)),
    options=OPTIONS,
)
def test_env_source_json_round_trip(address, token, options) -> None:
    source = EnvSource(address=address, token=token, options=options)
    assert EnvSource.from_json(source.to_json()) == source


@given(st.text(max_size=60))
def test_env_source_parser_raises_only_value_errors(text) -> None:
    try:
        EnvSource.from_json(text)
    except ValueError:
        pass


def test_env_source_names_bad_fields() -> None:
    with pytest.raises(ValueError, match="unknown keys \\['colour'\\]"):
        EnvSource(options={"colour": "red"})
    with pytest.raises(ValueError, match="unknown fields \\['port'\\]"):
        EnvSource.from_json(json.dumps({"port": 1}))
    with pytest.raises(ValueError, match="'backend' is chosen by the env server"):
        EnvSource(address="127.0.0.1:1", options={"backend": "local"})


def test_rows_and_tool_schemas_follow_the_tasks() -> None:
    assert task_rows([TASK_ID], seeds=[1, 2]) == [{"task_id": TASK_ID, "seed": 1}, {"task_id": TASK_ID, "seed": 2}]
    with pytest.raises(KeyError):
        task_rows(["no.such_task"])
    names = {
        schema["function"]["name"] for schema in tool_schemas([TASK_ID], EnvSource(options={"action_mode": "api"}))
    }
    assert "CalcTools__set_cell_value" in names and "OSTools__read_text_file" in names and "click" not in names
    gui = {schema["function"]["name"] for schema in tool_schemas([TASK_ID], EnvSource(options={"action_mode": "gui"}))}
    assert "click" in gui and not any("__" in name for name in gui)
