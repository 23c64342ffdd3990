"""The README is a front page: short, the two commands first (and still true), no issue numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from desktop_gym.agents import agent_kinds
from desktop_gym.cli import main
from desktop_gym.tasks import list_tasks

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 250
FIRST_LINES = [
    "```bash",
    "bash scripts/install.sh && .venv/bin/desktop-gym run --task starter.calc_fill_totals --agent oracle",
    "bash scripts/test.sh",
    "```",
]
ISSUE_REFERENCE = re.compile(r"\bissues?\s*#?\d+|(?<![\w&])#\d+\b", re.IGNORECASE)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def readme_lines() -> list[str]:
    return README.read_text(encoding="utf-8").splitlines()


def test_readme_is_at_most_250_lines() -> None:
    assert len(readme_lines()) <= MAX_LINES, f"README.md has {len(readme_lines())} lines; move detail to docs/"


def test_readme_starts_with_the_two_commands() -> None:
    assert readme_lines()[: len(FIRST_LINES)] == FIRST_LINES


def test_the_two_commands_name_what_exists() -> None:
    assert (ROOT / "scripts" / "install.sh").is_file()
    assert (ROOT / "scripts" / "test.sh").is_file()
    assert "desktop-gym = desktop_gym.cli:main" in (ROOT / "setup.cfg").read_text(encoding="utf-8")
    assert "starter.calc_fill_totals" in list_tasks()
    assert "oracle" in agent_kinds()


def test_the_run_command_takes_the_readme_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--help"])
    assert exit_info.value.code == 0
    usage = capsys.readouterr().out
    assert "--task" in usage and "--agent" in usage


def test_readme_names_no_issue_numbers() -> None:
    found = [f"line {number}: {line}" for number, line in enumerate(readme_lines(), 1) if ISSUE_REFERENCE.search(line)]
    assert found == []


def test_readme_links_point_at_files_that_exist() -> None:
    targets = [target for target in LINK.findall(README.read_text(encoding="utf-8")) if "://" not in target]
    assert targets, "the README links to the docs pages"
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert missing == []


def test_issue_reference_pattern_finds_what_it_should() -> None:
    assert ISSUE_REFERENCE.search("the speed targets (issue 16)")
    assert ISSUE_REFERENCE.search("fixed in #23")
    assert not ISSUE_REFERENCE.search("a 1280x720 frame, `O_NOFOLLOW`, HTML &#39; entity")


@pytest.mark.slow
def test_the_ten_api_lines_run_on_a_real_desktop(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    api_lines = next(block for block in blocks if "gymnasium.make" in block)
    assert len([line for line in api_lines.splitlines() if line.strip()]) == 10
    namespace: dict[str, object] = {}
    exec(compile(api_lines, str(README), "exec"), namespace)  # our own README, not agent text
    assert "starter.calc_fill_totals" in capsys.readouterr().out
    assert namespace["reward"] == 0  # D2 = 42 is not the task's total: the verifier says why
    assert namespace["terminated"] is True
    assert isinstance(namespace["info"], dict) and namespace["info"]["verifier"]["reason"]
