"""CI's adapters stage runs the five trainer examples as users would and reads their summary lines.

Each example plays ``demo.enter_number`` on real desktops with the learning demo's prompt (the
untrained SmolLM2-135M succeeds sometimes) and ends with ``SUMMARY <name>: reward-1 episodes N of M``
(the task verifier's verdicts), plus ``optimizer steps with nonzero gradient norm K of L`` where a
trainer steps. The stage fails unless N > 0 and K > 0. Sampling is seeded, so a run repeats.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from .test_verifiers import run_outside_root

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_TIMEOUT = 900  # 1-2 min each on a quiet machine, 5-7 min with the 2 cores shared ~8 ways
SUMMARY = re.compile(
    r"^SUMMARY (?P<name>\S+): reward-1 episodes (?P<wins>\d+) of (?P<episodes>\d+)"
    r"(?:; optimizer steps with nonzero gradient norm (?P<steps>\d+) of (?P<all_steps>\d+))?$",
    re.MULTILINE,
)
EXTRA_ARGS = {"verifiers": ["--output-dir", "runs"]}
CASES = [
    ("trl_grpo.py", "trl_environment_factory", True),
    ("trl_rollout.py", "trl_rollout", True),
    ("verl_agent_loop.py", "verl", True),
    ("openrlhf_agent.py", "openrlhf", True),
    ("verifiers_eval.py", "verifiers", False),
]


def parse_summary(output: str) -> dict[str, int | str | None]:
    """The example's summary line as numbers (``steps`` is None where no trainer steps).

    Raises:
        AssertionError: no summary line in ``output``.
    """
    found = list(SUMMARY.finditer(output))
    assert found, f"no SUMMARY line in the example's output: {output[-2000:]!r}"
    last = found[-1].groupdict()
    return {key: value if key == "name" or value is None else int(value) for key, value in last.items()}


def test_summary_lines_parse() -> None:
    line = "SUMMARY verl: reward-1 episodes 2 of 8; optimizer steps with nonzero gradient norm 1 of 2"
    assert parse_summary("noise\n" + line + "\n") == {
        "name": "verl",
        "wins": 2,
        "episodes": 8,
        "steps": 1,
        "all_steps": 2,
    }
    assert parse_summary("SUMMARY verifiers: reward-1 episodes 3 of 8")["steps"] is None
    with pytest.raises(AssertionError, match="no SUMMARY"):
        parse_summary("SUMMARY verl: reward 1")


@pytest.mark.stage_adapters
@pytest.mark.timeout(EXAMPLE_TIMEOUT + 60)
@pytest.mark.parametrize(("script", "name", "trains"), CASES, ids=[case[1] for case in CASES])
def test_example_earns_verifier_rewards_and_gradients(script: str, name: str, trains: bool, open_dir: Path) -> None:
    started = time.monotonic()
    # Outside the repository root (verifiers' package would be shadowed by our verifiers/ folder there), in
    # a folder the desktop's apps (run as the session user) may enter.
    result = run_outside_root([str(EXAMPLES / script), *EXTRA_ARGS.get(name, [])], open_dir, timeout=EXAMPLE_TIMEOUT)
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    summary = parse_summary(result.stdout)
    print(f"{script}: {seconds:.0f} s; {summary}")
    assert summary["name"] == name
    assert summary["wins"] > 0, f"no episode earned the verifier's reward 1: {result.stdout[-2000:]}"
    if trains:
        assert summary["steps"] is not None and summary["steps"] > 0, f"no gradient: {result.stdout[-2000:]}"
