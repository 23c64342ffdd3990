"""Workflow tier, Impress: a deck reorganised in several distinct operations (delete, move, retitle,
speaker notes), checked on the saved pptx as the final slide order plus the notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_pptx_notes, verify_pptx_slide_titles
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .impress_deck import DONE, SAVE, DeckTask, api_call, sample_deck
from .samples import distinct_ints

NOTE_LINES = (
    "Ask for questions before moving on.",
    "Mention the budget freeze here.",
    "Hand over to the finance lead.",
    "Keep this part under two minutes.",
)


class DeckReorganise(DeckTask):
    """Delete one slide, move another to the end, retitle the first and add speaker notes to the last.

    No GUI oracle: deleting and moving slides needs per-slide pointer work, more proof time than the GUI budget left.
    """

    id = "workflow.deck_reorganise"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Reorganise it: delete the slide titled "
        '"{drop}", move the slide titled "{move}" to the end, change the title of slide 1 to '
        '"{new_title}", and give the last slide the speaker notes "{note}". Then save the file in its '
        "current pptx format."
    )
    oracles = ("api",)
    tags = ("workflow", "impress")
    max_steps = 30

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = sample_deck(rng, min_slides=5, max_slides=6)
        drop, move = distinct_ints(rng, 2, len(params["titles"]), 2)
        return {
            **params,
            "drop": params["titles"][drop - 1],
            "move": params["titles"][move - 1],
            "new_title": params["titles"][0].replace("Review", "Kick-off"),
            "note": str(rng.choice(NOTE_LINES)),
        }

    def final_titles(self, params: Mapping[str, Any]) -> list[str]:
        titles = [t for t in params["titles"] if t not in (params["drop"], params["move"])]
        return [params["new_title"], *titles[1:], params["move"]]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        titles = self.final_titles(p)
        return all_of(
            {
                "slide order": verify_pptx_slide_titles(data, titles),
                "notes on the last slide": verify_pptx_notes(data, len(titles), p["note"]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        titles = list(params["titles"])
        drop = titles.index(params["drop"]) + 1
        titles.remove(params["drop"])
        move = titles.index(params["move"]) + 1
        return ScriptedPolicy(
            [
                api_call("delete_slide", slide=drop),
                api_call("move_slide", slide=move, new_position=len(titles)),
                api_call("set_title", slide=1, title=params["new_title"]),
                api_call("set_speaker_notes", slide=len(titles), text=params["note"]),
                SAVE,
                DONE,
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "note": next(line for line in NOTE_LINES if line != params["note"])}
