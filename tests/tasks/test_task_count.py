"""One task count everywhere (issue 32: the README said 95 while ``tasks list`` said 119)."""

from __future__ import annotations

import re
from pathlib import Path

from desktop_gym.tasks.catalogue import read_catalogue

ROOT = Path(__file__).resolve().parents[2]
SUITE_COUNT = re.compile(r"(?:built-in )?suite has (\d+) tasks|\((\d+) ids:")


def test_the_readme_and_docs_state_the_count_tasks_list_prints() -> None:
    count = len(read_catalogue())  # the built-in tasks (other tests register their own)
    stated = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if page.is_file():
            text = page.read_text(encoding="utf-8")
            stated += [(page.name, int(a or b)) for a, b in SUITE_COUNT.findall(text)]
    assert stated, "no page states the suite's task count"
    assert all(number == count for _, number in stated), f"tasks list has {count}; the pages say {stated}"
