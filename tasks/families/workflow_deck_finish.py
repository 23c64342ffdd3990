"""Workflow tier, Impress: a deck finished in several distinct operations (a closing slide, one
background colour on every slide, one transition on every slide, speaker notes), checked on the
saved pptx. One Impress launch, API oracle (cheap to prove).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_pptx_background,
    verify_pptx_notes,
    verify_pptx_slide_titles,
    verify_pptx_transitions,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .impress_deck import DeckTask, api_call, sample_deck, saved_by_api

EFFECTS = ("fade", "push", "wipe", "cover")
BACKGROUNDS = ("DCE6F2", "FDEADA", "EBF1DE", "F2F2F2")
CLOSINGS = ("Thank you", "Questions?", "Next steps", "Contact us")
OPENING_NOTES = ("Welcome everyone and introduce the team.", "Start with the headline number.")


class DeckFinish(DeckTask):
    """Append a closing slide, colour every slide's background, set one transition everywhere, note slide 1.

    No GUI oracle: a background per slide via Slide Properties costs more proof time than the GUI budget left.
    """

    id = "workflow.deck_finish"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Finish it: add a slide at the end titled "
        '"{closing}", then give every slide (the new one too) the background colour #{background} and the '
        '"{effect}" slide transition, and give slide 1 the speaker notes "{note}". Then save the file in '
        "its current pptx format."
    )
    oracles = ("api",)
    tags = ("workflow", "impress", "domain:impress")
    max_steps = 30

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            **sample_deck(rng, min_slides=3, max_slides=4),
            "closing": str(rng.choice(CLOSINGS)),
            "background": str(rng.choice(BACKGROUNDS)),
            "effect": str(rng.choice(EFFECTS)),
            "note": str(rng.choice(OPENING_NOTES)),
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        return all_of(
            {
                "closing slide": verify_pptx_slide_titles(data, [*p["titles"], p["closing"]]),
                "backgrounds": verify_pptx_background(data, p["background"]),
                "transitions": verify_pptx_transitions(data, transition_type=p["effect"]),
                "notes on slide 1": verify_pptx_notes(data, 1, p["note"]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        count = len(params["titles"]) + 1
        backgrounds = [
            api_call("set_slide_background", slide=n, color=f"#{params['background']}") for n in range(1, count + 1)
        ]
        return saved_by_api(
            api_call("add_slide", layout="title_slide", title=params["closing"]),
            *backgrounds,
            api_call("set_transition", slide=None, effect=params["effect"]),
            api_call("set_speaker_notes", slide=1, text=params["note"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "effect": next(effect for effect in EFFECTS if effect != params["effect"])}
