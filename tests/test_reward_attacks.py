"""Reward hacking attacks judged without a desktop, and the difficulty/domain tags of tasks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from desktop_gym.reward_attacks import (
    StandInGuest,
    episode_attack_policy,
    rotating_sample,
    run_file_attacks,
)
from desktop_gym.task_tags import bucket, distribution, task_domain, task_tags
from desktop_gym.tasks import ScriptedPolicy, Task, get_task
from desktop_gym.tasks.artifacts import xlsx_bytes
from desktop_gym.verifiers import verify_file_exists, verify_xlsx_cells


class _SheetTask(Task):
    """Enter a number into B2 of a workbook; ``lenient`` only checks the file exists."""

    id = "attacktest.sheet"
    instruction_template = "Enter {value} into B2 of ~/Documents/t.xlsx and save it."
    apps = ("calc",)
    lenient = False

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"value": int(rng.integers(100, 999))}

    def setup(self, ctx: Any) -> None:
        ctx.client.put_file("~/Documents/t.xlsx", xlsx_bytes([["Item", "Qty"], ["Tea", None]]))
        ctx.client.launch_app("calc", "~/Documents/t.xlsx")

    def verify(self, ctx: Any) -> Any:
        data = ctx.read_file("~/Documents/t.xlsx")
        if self.lenient:
            return verify_file_exists(data, non_empty=True)  # true of the untouched file
        return verify_xlsx_cells(data, {"B2": ctx.params["value"]})

    def api_oracle(self, params: Mapping[str, Any]) -> ScriptedPolicy:
        return ScriptedPolicy([f"CalcTools.set_cell_value(cell='B2', value={params['value']})", "CalcTools.save()"])


class _LenientSheetTask(_SheetTask):
    lenient = True


def test_a_strict_verifier_rejects_every_file_attack() -> None:
    outcomes = run_file_attacks(_SheetTask(), seed=3)
    assert {o.attack for o in outcomes} == {
        "untouched input saved as the answer",
        "empty file",
        "content deleted",
        "parameter strings typed into empty cells / appended",
    }
    assert all(o.applicable and not o.passed for o in outcomes), outcomes
    typed = next(o for o in outcomes if o.attack.startswith("parameter strings"))
    assert "B2" in typed.reason  # the number typed as text lands in the first empty cell, and fails


def test_a_lenient_verifier_is_caught_by_the_untouched_file() -> None:
    outcomes = {o.attack: o for o in run_file_attacks(_LenientSheetTask(), seed=3)}
    assert outcomes["untouched input saved as the answer"].passed
    assert not outcomes["empty file"].passed


def test_tasks_that_need_a_live_desktop_are_reported_not_applicable() -> None:
    outcomes = run_file_attacks(get_task("files.project_tree"), seed=0)
    assert len(outcomes) == 1 and not outcomes[0].applicable
    assert "without a desktop" in outcomes[0].reason
    infeasible = run_file_attacks(get_task("calc.export_psd"), seed=0)
    assert not infeasible[0].applicable and "infeasible" in infeasible[0].reason


def test_registered_tasks_resist_the_file_attacks() -> None:
    for task_id in ("calc.sort_rows", "starter.writer_append_paragraph", "impress.insert_text_box"):
        outcomes = run_file_attacks(get_task(task_id), seed=0)
        passed = [o for o in outcomes if o.passed]
        assert not passed, f"{task_id}: {passed}"


def test_stand_in_guest_keeps_files_and_refuses_live_calls() -> None:
    guest = StandInGuest()
    guest.put_file("~/a/b.txt", b"x")
    assert guest.get_file("/home/user/a/b.txt") == b"x"
    assert guest.reads == ["/home/user/a/b.txt"]
    try:
        guest.windows()
    except RuntimeError as error:
        assert "windows()" in str(error)
    else:  # pragma: no cover - the stand-in must refuse
        raise AssertionError("windows() should not be available")


def test_episode_attacks_and_the_rotating_sample() -> None:
    assert episode_attack_policy(["{save}", "exit(success=True)"], ["calc"]) == [
        "CalcTools.save()",
        "exit(success=True)",
    ]
    assert episode_attack_policy(["{save}"], ["terminal"]) is None
    ids = [f"t{n}" for n in range(20)]
    sample = rotating_sample(ids, 5, seed=1)
    assert len(sample) == 5 and sample == rotating_sample(ids, 5, seed=1)
    assert sample != rotating_sample(ids, 5, seed=2)
    assert rotating_sample(ids[:3], 5, seed=1) == ids[:3]


def test_difficulty_and_domain_tags() -> None:
    assert [bucket(n) for n in (1, 3, 4, 7, 8, None)] == ["easy", "easy", "medium", "medium", "hard", "unknown"]
    assert task_domain(["calc", "writer"]) == "multi_app"
    assert task_domain(["terminal", "editor"]) == "os"
    assert task_domain(["calc"], tags=("domain:finance",)) == "finance"
    tags = task_tags(_SheetTask())
    assert (tags.steps, tags.difficulty, tags.domain) == (2, "easy", "calc")
    assert task_tags(get_task("calc.export_psd")).difficulty == "infeasible"
    summary = distribution({"a": tags, "b": task_tags(get_task("calc.export_psd"))})
    assert "easy 1, infeasible 1" in summary and "calc 2" in summary
