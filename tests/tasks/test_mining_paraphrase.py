"""Paraphrases of mined instructions are kept only when every fact survives; their source is named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.tasks.mining.apps import MINED_APPS
from desktop_gym.tasks.mining.paraphrase import RecordedParaphraser, apply_paraphrase, facts, keeps_facts
from desktop_gym.tasks.mining.programs import Dropped, sample_group, task_definition

ORIGINAL = (
    "The spreadsheet ~/Documents/sales.xlsx is open in LibreOffice Calc. Do the following in order: (1) set cell B3 "
    "to 42; (2) fill A1:D1 with yellow (#FFFF00); (3) rename the sheet 'Sales' to 'Amber'. Then save the file."
)


def test_facts_are_the_path_cells_numbers_colours_and_quoted_texts() -> None:
    found = facts(ORIGINAL)
    assert {"~/Documents/sales.xlsx", "B3", "42", "A1:D1", "#FFFF00", "'Sales'", "'Amber'"} <= set(found)


def test_a_paraphrase_keeping_every_fact_is_kept_and_one_losing_a_fact_is_not() -> None:
    good = (
        "In ~/Documents/sales.xlsx (already open in Calc): first put 42 into B3, then give A1:D1 a #FFFF00 "
        "background (1), rename sheet 'Sales' as 'Amber' (2, 3), and save."
    )
    assert keeps_facts(ORIGINAL, good)
    assert not keeps_facts(ORIGINAL, good.replace("42", "24"))
    assert not keeps_facts(ORIGINAL, good.replace("'Amber'", "Amber"))
    assert not keeps_facts(ORIGINAL, "")
    assert not keeps_facts(ORIGINAL, ORIGINAL)  # no rewrite at all


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), app=st.sampled_from(sorted(MINED_APPS)), cut=st.integers(0, 10**6))
def test_dropping_any_fact_of_a_mined_instruction_refuses_the_paraphrase(seed: int, app: str, cut: int) -> None:
    try:
        group = sample_group(np.random.default_rng(seed), MINED_APPS[app])
    except Dropped:
        return
    instruction = task_definition(group, 0)["instruction"].replace("{{", "{").replace("}}", "}")
    found = facts(instruction)
    assert keeps_facts(instruction, "Please: " + instruction)
    fact = found[cut % len(found)]
    assert not keeps_facts(
        instruction, "Please: " + instruction.replace(fact, "", 1) if instruction.count(fact) == 1 else "x"
    )


def test_a_recorded_transcript_rewrites_and_tags_a_task(tmp_path: Path) -> None:
    group = sample_group(np.random.default_rng(4), MINED_APPS["calc"], calls=1)
    definition = task_definition(group, 0)
    original = definition["instruction"]
    transcript = tmp_path / "paraphrases.jsonl"
    transcript.write_text(
        json.dumps({"instruction": original, "paraphrase": "Please: " + original, "model": "m"}) + "\n"
    )
    paraphraser = RecordedParaphraser(transcript)
    assert apply_paraphrase(definition, paraphraser)
    assert definition["instruction"] == "Please: " + original
    assert "paraphrase:recorded:paraphrases.jsonl" in definition["tags"]
    untouched = task_definition(group, 1)
    assert not apply_paraphrase(untouched, paraphraser)  # not in the transcript: the template stays
