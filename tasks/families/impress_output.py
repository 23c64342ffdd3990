"""Impress families on the look and the output: background, transitions, PDF and ODP copies, and an
infeasible request (deleting a slide that is not there)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    verify_odp_slide_titles,
    verify_pdf_pages,
    verify_pptx_background,
    verify_pptx_slide_titles,
    verify_pptx_transitions,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .impress_deck import (
    DONE,
    TOPICS,
    DeckTask,
    SlideTask,
    api_call,
    new_topic,
    other_choice,
    other_index,
    saved_by_api,
)

COLORS = {
    "yellow": "FFFF00", "light blue": "ADD8E6", "orange": "FFA500", "light green": "90EE90",
    "pink": "FFC0CB", "lavender": "E6E6FA", "gold": "FFD700",
}  # fmt: skip
# ImpressTools effect -> the element LibreOffice writes in <p:transition> of the saved pptx.
TRANSITIONS = {
    "fade": "fade", "push": "push", "wipe": "wipe", "cover": "cover", "dissolve": "dissolve",
    "split": "split", "random_bars": "randomBar", "circle": "circle", "zoom": "zoom",
}  # fmt: skip


class BackgroundColor(SlideTask):
    """Give one slide a solid background colour."""

    id = "impress.background_color"
    goal = "Give slide {slide} ('{title}') a solid {color_name} background (hex #{color})"
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        name = str(rng.choice(list(COLORS)))
        return {
            **params,
            "color_name": name,
            "color": COLORS[name],
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_background(self.saved(ctx), ctx.params["color"], slide=ctx.params["slide"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call("set_slide_background", slide=params["slide"], color=f"#{params['color']}")
        return saved_by_api(call)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        name = other_choice(rng, list(COLORS), params["color_name"])
        return {**params, "color_name": name, "color": COLORS[name]}


class SlideTransition(SlideTask):
    """Set the transition effect of one slide."""

    id = "impress.transition"
    goal = "Give slide {slide} ('{title}') the '{effect_name}' slide transition"
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        effect = str(rng.choice(list(TRANSITIONS)))
        return {
            **params,
            "effect": effect,
            "effect_name": effect.replace("_", " "),
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_pptx_transitions(self.saved(ctx), slide=p["slide"], transition_type=TRANSITIONS[p["effect"]])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(api_call("set_transition", slide=params["slide"], effect=params["effect"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "effect": other_choice(rng, list(TRANSITIONS), params["effect"])}


class ExportPdf(DeckTask):
    """Export the deck as a PDF file."""

    id = "impress.export_pdf"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Export it as a PDF file to {pdf_path}."
    )
    oracles = ("api",)
    max_steps = 15

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        return {**params, "pdf_path": f"~/Documents/handout_{rng.choice(TOPICS).lower()}.pdf"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pdf_pages(ctx.read_file(ctx.params["pdf_path"]), len(ctx.params["titles"]))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy([api_call("save", path=params["pdf_path"]), DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "pdf_path": params["pdf_path"].replace("handout_", "slides_")}


class SaveAsOdp(DeckTask):
    """Save a copy of the deck in OpenDocument format after retitling the first slide."""

    id = "impress.save_as_odp"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Change the title of slide 1 to '{new_title}', "
        "then save the presentation in ODF format (.odp) as {odp_path}."
    )
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        return {
            **params,
            "new_title": f"{new_topic(rng, params['titles'])} Summary",
            "odp_path": params["path"][:-5] + ".odp",
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_odp_slide_titles(ctx.read_file(p["odp_path"]), [p["new_title"], *p["titles"][1:]])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [api_call("set_title", slide=1, title=params["new_title"]), api_call("save", path=params["odp_path"]), DONE]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "new_title": params["new_title"].replace("Summary", "Overview")}


class DeleteMissingSlide(DeckTask):
    """Infeasible: delete a slide whose title no slide has. Success only by declaring FAIL."""

    id = "impress.delete_missing_slide"
    goal = "Delete the slide titled '{missing}'"
    max_steps = 10
    infeasible = True

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        return {**params, "missing": new_topic(rng, params["titles"])}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        # Not used to score (the env scores infeasible tasks by the FAIL declaration); the deck must be intact.
        return verify_pptx_slide_titles(self.saved(ctx), ctx.params["titles"])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # A title the deck does have: the request becomes feasible, so declaring FAIL would be wrong.
        return {**params, "missing": params["titles"][other_index(rng, len(params["titles"]), 1) - 1]}
