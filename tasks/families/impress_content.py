"""Impress families on the text of a slide: bullets, speaker notes, a text box, the title's font size."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_pptx_notes,
    verify_pptx_slide_titles,
    verify_pptx_text,
    verify_pptx_title_font_size,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .impress_deck import (
    POINTS,
    PROJECTS,
    SlideTask,
    api_call,
    edit_placeholder,
    go_to_slide,
    saved_by_api,
)
from .impress_gui import drag_on_slide, menu_path, saved_by_gui, type_and_leave

NOTES = (
    "Start with the numbers from last quarter.", "Ask the team for questions here.",
    "Mention the new deadline twice.", "Keep this part under two minutes.", "Thank the partners by name.",
)  # fmt: skip
CALLOUTS = ("Deadline: Friday", "Budget approved", "Now hiring", "Beta is live", "Ask me anything")
FONT_SIZES = (20, 24, 28, 32, 36, 40, 48, 54, 60)  # 44 (the master's size) is left out


class AddBullets(SlideTask):
    """Append bullet points to the body of a content slide."""

    id = "impress.add_bullets"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. On slide {slide} ('{title}'), add these bullet "
        "points after the existing ones, in this order: {listed}. Then save the file in its current pptx "
        "format."
    )
    oracles = ("api", "gui")

    first_slide = 2

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = params["slide"]
        unused = [p for p in POINTS if p not in params["bodies"][slide - 1]]
        new = [str(p) for p in rng.choice(unused, size=2, replace=False)]
        listed = ", ".join(f"'{p}'" for p in new)
        return {**params, "new_points": new, "listed": listed}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        # Slide text folds whitespace, so old and new points in one run means: appended, in order.
        points = " ".join([*p["bodies"][p["slide"] - 1], *p["new_points"]])
        return all_of(
            {
                "bullets": verify_pptx_text(data, points, slide=p["slide"]),
                "titles": verify_pptx_slide_titles(data, p["titles"]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        text = "\n".join([*params["bodies"][params["slide"] - 1], *params["new_points"]])
        return saved_by_api(api_call("set_placeholder_text", slide=params["slide"], placeholder="body", text=text))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Tab twice selects the body placeholder; Ctrl+End puts the cursor after its last bullet.
        return saved_by_gui(
            *go_to_slide(params["slide"]),
            *edit_placeholder(2),
            'hotkey(keys=["ctrl", "end"])',
            *type_and_leave("".join("\n" + point for point in params["new_points"])),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        taken = {*params["bodies"][params["slide"] - 1], *params["new_points"]}
        replacement = str(rng.choice([p for p in POINTS if p not in taken]))
        return {**params, "new_points": [params["new_points"][0], replacement]}


class SpeakerNotes(SlideTask):
    """Write speaker notes for one slide."""

    id = "impress.speaker_notes"
    goal = "Add the speaker notes '{notes_text}' to slide {slide} ('{title}')"
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        return {**params, "notes_text": str(rng.choice(NOTES))}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_notes(self.saved(ctx), ctx.params["slide"], ctx.params["notes_text"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call("set_speaker_notes", slide=params["slide"], text=params["notes_text"])
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # In the Notes view, Tab selects the slide picture, then the notes placeholder.
        return saved_by_gui(
            *go_to_slide(params["slide"]),
            *menu_path("View", "Notes"),
            *edit_placeholder(2),
            *type_and_leave(params["notes_text"]),
            *menu_path("View", "Normal"),
        )


class InsertTextBox(SlideTask):
    """Add a text box holding a given text to a slide."""

    id = "impress.insert_text_box"
    goal = "Add a text box with the text '{text}' to slide {slide} ('{title}')"
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        text = f"{rng.choice(CALLOUTS)} ({rng.choice(PROJECTS)})"
        return {**params, "text": text}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        return all_of(
            {
                "text": verify_pptx_text(data, p["text"], slide=p["slide"], match="shape"),
                "titles": verify_pptx_slide_titles(data, p["titles"]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call("add_text_box", slide=params["slide"], text=params["text"], x_cm=2.0, y_cm=14.0)
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Drawn in the strip below the body placeholder: pressed on a placeholder, the tool would edit it.
        return saved_by_gui(
            *go_to_slide(params["slide"]),
            *menu_path("Insert", "Text Box"),
            drag_on_slide((0.1, 0.9), (0.6, 0.97)),
            *type_and_leave(params["text"]),
        )


class TitleFontSize(SlideTask):
    """Set the font size of one slide's title."""

    id = "impress.title_font_size"
    goal = "Set the font size of the title of slide {slide} ('{title}') to {size} pt"
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        size = int(rng.choice(FONT_SIZES))
        # The title is the first shape of every slide of the input deck (get_shapes numbering).
        return {**params, "size": size, "title_shape": 1}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_title_font_size(self.saved(ctx), ctx.params["slide"], ctx.params["size"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call("set_font_size", slide=params["slide"], shape=params["title_shape"], size=params["size"])
        return saved_by_api(call)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "size": int(rng.choice([s for s in FONT_SIZES if s != params["size"]]))}
