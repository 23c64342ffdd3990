"""Prime Intellect verifiers' own ``run_eval`` rolls out desktop episodes through our v1 env.

verifiers is imported only in child processes started outside the repository root: there, the
repository's top-level ``verifiers/`` folder (our task verifiers) cannot shadow the PyPI package,
which it does in this process (``python -m pytest`` puts the root on ``sys.path``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import DEMO_SOURCE, DEMO_TASK_ID, DEMO_TOOLS, TASK_ID, TOOLS
from .scripted import StandInScriptedModel, outage_endpoint, scripted_endpoint

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLE = REPOSITORY / "examples" / "verifiers_eval.py"
CHILD_TIMEOUT = 420
"""Seconds a child run may take (two model-driven desktop episodes on 2 shared CPU cores)."""


def run_outside_root(
    args: list[str], cwd: Path, timeout: float, program: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    """Run ``program`` (Python by default) with ``args`` in ``cwd``, without ``PYTHONPATH`` (so the root is
    not on its path)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.setdefault("OPENAI_API_KEY", "local")
    return subprocess.run(
        [program, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def venv_program(name: str) -> str:
    """The path of a console script installed next to this Python (``vf-eval``, ...)."""
    return str(Path(sys.executable).with_name(name))


def read_traces(folder: Path) -> list[dict]:
    """Every episode verifiers wrote under ``folder`` (its ``traces.jsonl`` files)."""
    return [json.loads(line) for path in folder.rglob("traces.jsonl") for line in path.open()]


def demo_example_args(open_dir: Path, episodes: int) -> list[str]:
    """The example's options for ``episodes`` one-step demo episodes with every tool described, writing its
    traces under ``open_dir / "runs"`` and its rows to ``open_dir / "rows.json"``."""
    args = [str(EXAMPLE), "--task", DEMO_TASK_ID, "--no-demo-prompt", "--tools", *DEMO_TOOLS]
    args += ["--episodes", str(episodes), "--max-steps", "1"]
    return [*args, "--output-dir", str(open_dir / "runs"), "--json", str(open_dir / "rows.json")]


def assert_only_the_correct_answer_earned_reward(scripted: StandInScriptedModel, runs: Path) -> None:
    """Of the two scripted answers (one right, one wrong), verifiers' traces reward exactly the right one: its
    trace reward is the task verifier's verdict on what the answer did to the sheet."""
    assert sorted(wrong for _, wrong in scripted.answers) == [False, True]
    correct = {text for text, wrong in scripted.answers if not wrong}
    traces = read_traces(runs)
    assert len(traces) == 2
    for episode in traces:
        (trace,) = episode["traces"]
        answer = next(node["message"]["content"] for node in trace["nodes"] if node["message"]["role"] == "assistant")
        assert trace["rewards"]["desktop_verifier"]["score"] == (1.0 if answer in correct else 0.0), trace["rewards"]


PLAN = f"""
import json
import verifiers.v1 as vf
from desktop_gym.train.adapters import verifiers_env as m
from verifiers.v1.utils.loaders import load_environment, resolve_env_config

config = m.env_config(["{TASK_ID}"], seeds=[3, 4], tools={TOOLS!r})
env = load_environment(resolve_env_config(config.model_dump()))  # verifiers' own plugin lookup
tasks = list(env.taskset)
try:
    list(load_environment(resolve_env_config(m.env_config(["{TASK_ID}"], tools=["NoSuchTool"]).model_dump())).taskset)
    bad_tools = "accepted"
except ValueError as error:
    bad_tools = str(error)
print(json.dumps({{
    "env": type(env).__name__,
    "harness": type(env._harnesses["player"]).__name__,
    "names": [t.data.name for t in tasks],
    "seeds": [t.data.seed for t in tasks],
    "prompts": [t.data.prompt for t in tasks],
    "system": tasks[0].data.system_prompt,
    "bad_tools": bad_tools,
    "verifiers_file": vf.__file__,
}}))
"""


@pytest.mark.stage_adapters
def test_verifiers_loads_our_env_by_id_without_starting_desktops(open_dir: Path) -> None:
    result = run_outside_root(["-c", PLAN], open_dir, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    plan = json.loads(result.stdout.strip().splitlines()[-1])
    assert "site-packages" in plan["verifiers_file"], plan["verifiers_file"]  # the PyPI package, not ours
    assert plan["env"] == "DesktopGymEnv" and plan["harness"] == "DesktopChatHarness"
    assert plan["names"] == [f"{TASK_ID}#3", f"{TASK_ID}#4"] and plan["seeds"] == [3, 4]
    assert plan["prompts"] == [None, None]  # the desktop's first observation opens each exchange
    assert "CalcTools.set_cell_value(cell=..., value=...)" in plan["system"]
    assert "CalcTools.insert_chart" not in plan["system"]  # only the kept tools are described
    assert "NoSuchTool" in plan["bad_tools"] and "CalcTools__save" in plan["bad_tools"]


@pytest.mark.stage_adapters
@pytest.mark.timeout(CHILD_TIMEOUT + 60)
def test_run_eval_rolls_out_desktop_episodes_against_the_local_endpoint(open_dir: Path) -> None:
    rows_path = open_dir / "rows.json"
    args = [str(EXAMPLE), "--task", TASK_ID, "--no-demo-prompt", "--tools", *TOOLS, "--prefill", "", "--episodes", "2"]
    args += ["--max-steps", "2", "--max-tokens", "24", "--output-dir", str(open_dir / "runs"), "--json", str(rows_path)]
    result = run_outside_root(args, open_dir, timeout=CHILD_TIMEOUT)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = json.loads(rows_path.read_text())
    assert len(rows) == 2, result.stdout[-2000:] + result.stderr[-3000:]
    assert sorted(row["task"] for row in rows) == [f"{TASK_ID}#0", f"{TASK_ID}#1"]
    for row in rows:
        assert row["errors"] == [], row["errors"]
        desktop = row["desktop"]
        # Each rollout played its own desktop until the env's 2-step budget (or DONE) ended it.
        assert 1 <= desktop["steps"] <= 2 and 1 <= row["turns"] <= 2, row
        assert row["reward"] == (1.0 if desktop["success"] else 0.0)  # the trace's reward is the verifier's
        assert "Episode over after" in desktop["summary"]
    # verifiers wrote its own traces: the model's turns and our reward, by name.
    traces = [json.loads(line) for path in (open_dir / "runs").rglob("traces.jsonl") for line in path.open()]
    assert len(traces) == 2
    for episode in traces:
        (trace,) = episode["traces"]
        assert set(trace["rewards"]) == {"desktop_verifier"}
        roles = [node["message"]["role"] for node in trace["nodes"]]
        assert roles[:3] == ["system", "user", "assistant"]
        assert "Enter the number" in trace["nodes"][1]["message"]["content"]


@pytest.mark.stage_adapters
@pytest.mark.timeout(CHILD_TIMEOUT + 60)
def test_run_eval_gives_reward_one_to_the_correct_episode_and_zero_to_the_wrong_one(open_dir: Path) -> None:
    scripted = StandInScriptedModel(wrong_episodes=frozenset({1}))
    args = [*demo_example_args(open_dir, episodes=2), "--prefill", ""]
    with scripted_endpoint(scripted) as base_url:
        result = run_outside_root([*args, "--base-url", base_url], open_dir, timeout=CHILD_TIMEOUT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert_only_the_correct_answer_earned_reward(scripted, open_dir / "runs")
    rows = json.loads((open_dir / "rows.json").read_text())
    assert sorted(row["reward"] for row in rows) == [0.0, 1.0]


@pytest.mark.stage_adapters
@pytest.mark.parametrize("program", ["vf-eval", "vf-validate", "vf-debug"])
def test_verifiers_command_line_tools_start_in_the_project_venv(program: str, open_dir: Path) -> None:
    result = run_outside_root(["--help"], open_dir, timeout=120, program=venv_program(program))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "usage" in result.stdout.lower()


@pytest.mark.stage_adapters
@pytest.mark.timeout(CHILD_TIMEOUT + 60)
def test_vf_eval_runs_the_desktop_environment_by_its_id(open_dir: Path) -> None:
    scripted = StandInScriptedModel(wrong_episodes=frozenset({1}))
    args = ["desktop_gym_verifiers", "--no-push", "-m", "scripted", "-c", "1", "-o", str(open_dir / "runs")]
    args += ["--env.taskset.task-ids", json.dumps([DEMO_TASK_ID]), "--env.taskset.seeds", "[0, 1]"]
    args += ["--env.taskset.tools", json.dumps(DEMO_TOOLS), "--env.taskset.source", DEMO_SOURCE.to_json()]
    with scripted_endpoint(scripted) as base_url:
        args += ["--client.base-url", base_url, "--client.api-key-var", "OPENAI_API_KEY"]
        result = run_outside_root(args, open_dir, timeout=CHILD_TIMEOUT, program=venv_program("vf-eval"))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert_only_the_correct_answer_earned_reward(scripted, open_dir / "runs")


@pytest.mark.stage_adapters
@pytest.mark.timeout(CHILD_TIMEOUT + 60)
def test_an_endpoint_outage_is_an_error_and_never_a_reward(open_dir: Path) -> None:
    args = demo_example_args(open_dir, episodes=1)
    with outage_endpoint() as base_url:
        result = run_outside_root([*args, "--base-url", base_url], open_dir, timeout=CHILD_TIMEOUT)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-3000:]  # the example fails loudly
    (row,) = json.loads((open_dir / "rows.json").read_text())
    assert row["reward"] is None and row["desktop"]["scored"] is False, row
    assert row["desktop"]["steps"] == 0  # nothing was played on the desktop for the failed call
    assert [error["status_code"] for error in row["errors"]] == [503], row["errors"]
    ((trace,),) = [episode["traces"] for episode in read_traces(open_dir / "runs")]
    assert "desktop_verifier" not in trace["rewards"] and trace["errors"]
