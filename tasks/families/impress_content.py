"""Impress families on what is on a slide: bullets, speaker notes, text box, shape, image, title size."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_pptx_notes, verify_pptx_shapes, verify_pptx_text
from ...verifiers.impress_extra import verify_pptx_autoshape, verify_pptx_slide_titles, verify_pptx_title_font_size
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .impress_deck import (
    CTRL_S,
    DONE,
    POINTS,
    PROJECTS,
    SAVE,
    DeckTask,
    api_call,
    edit_placeholder,
    go_to_slide,
    other_choice,
    other_index,
)

NOTES = (
    "Start with the numbers from last quarter.", "Ask the team for questions here.",
    "Mention the new deadline twice.", "Keep this part under two minutes.", "Thank the partners by name.",
)  # fmt: skip
CALLOUTS = ("Deadline: Friday", "Budget approved", "Now hiring", "Beta is live", "Ask me anything")
FONT_SIZES = (20, 24, 28, 32, 36, 40, 48, 54, 60)  # 44 (the master's size) is left out


def _content_slide(rng: np.random.Generator, params: Mapping[str, Any]) -> int:
    return int(rng.integers(2, len(params["titles"]) + 1))


class AddBullets(DeckTask):
    """Append bullet points to the body of a content slide."""

    id = "impress.add_bullets"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. On slide {slide} ('{title}'), add these "
        "bullet points after the existing ones, in this order: {listed}. Then save the file in its "
        "current pptx format."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = _content_slide(rng, params)
        unused = [p for p in POINTS if p not in params["bodies"][slide - 1]]
        new = [str(p) for p in rng.choice(unused, size=2, replace=False)]
        listed = ", ".join(f"'{p}'" for p in new)
        return {**params, "slide": slide, "title": params["titles"][slide - 1], "new_points": new, "listed": listed}

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
        return ScriptedPolicy(
            [api_call("set_placeholder_text", slide=params["slide"], placeholder="body", text=text), SAVE, DONE]
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Tab twice selects the body placeholder; Ctrl+End puts the cursor after its last bullet.
        return ScriptedPolicy(
            [
                *go_to_slide(params["slide"]),
                *edit_placeholder(2),
                'hotkey(keys=["ctrl", "end"])',
                f"type(text={''.join(chr(10) + point for point in params['new_points'])!r})",
                'press(key="escape")',
                'press(key="escape")',
                CTRL_S,
                DONE,
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        taken = {*params["bodies"][params["slide"] - 1], *params["new_points"]}
        replacement = str(rng.choice([p for p in POINTS if p not in taken]))
        return {**params, "new_points": [params["new_points"][0], replacement]}


class SpeakerNotes(DeckTask):
    """Write speaker notes for one slide."""

    id = "impress.speaker_notes"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Add the speaker notes '{notes_text}' to "
        "slide {slide} ('{title}'), then save the file in its current pptx format."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = int(rng.integers(1, len(params["titles"]) + 1))
        return {**params, "slide": slide, "title": params["titles"][slide - 1], "notes_text": str(rng.choice(NOTES))}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_notes(self.saved(ctx), ctx.params["slide"], ctx.params["notes_text"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call("set_speaker_notes", slide=params["slide"], text=params["notes_text"])
        return ScriptedPolicy([call, SAVE, DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "slide": other_index(rng, len(params["titles"]), params["slide"])}


class InsertTextBox(DeckTask):
    """Add a text box holding a given text to a slide."""

    id = "impress.insert_text_box"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Add a text box with the text '{text}' to "
        "slide {slide} ('{title}'), then save the file in its current pptx format."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = int(rng.integers(1, len(params["titles"]) + 1))
        text = f"{rng.choice(CALLOUTS)} ({rng.choice(PROJECTS)})"
        return {**params, "slide": slide, "title": params["titles"][slide - 1], "text": text}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        return all_of(
            {
                "text": verify_pptx_text(data, p["text"], slide=p["slide"]),
                "titles": verify_pptx_slide_titles(data, p["titles"]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call("add_text_box", slide=params["slide"], text=params["text"], x_cm=2.0, y_cm=14.0)
        return ScriptedPolicy([call, SAVE, DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "slide": other_index(rng, len(params["titles"]), params["slide"])}


SHAPES = {"rectangle": "rect", "ellipse": "ellipse"}  # ImpressTools kind -> DrawingML preset


class InsertShape(DeckTask):
    """Draw a rectangle or an ellipse with a label on a slide."""

    id = "impress.insert_shape"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Draw {article} {kind} on slide {slide} "
        "('{title}') with the text '{label}' inside it, then save the file in its current pptx format."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = int(rng.integers(1, len(params["titles"]) + 1))
        kind = str(rng.choice(list(SHAPES)))
        return {
            **params,
            "slide": slide,
            "title": params["titles"][slide - 1],
            "kind": kind,
            "article": "an" if kind == "ellipse" else "a",
            "label": str(rng.choice(CALLOUTS)),
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_pptx_autoshape(self.saved(ctx), p["slide"], SHAPES[p["kind"]], text=p["label"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call(
            "add_shape", slide=params["slide"], kind=params["kind"], x_cm=2.0, y_cm=12.0, width_cm=8.0,
            height_cm=4.0, text=params["label"],
        )  # fmt: skip
        return ScriptedPolicy([call, SAVE, DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "kind": other_choice(rng, list(SHAPES), params["kind"])}


IMAGE_NAMES = ("logo", "chart", "badge", "stamp")


def png_bytes(rng_colors: list[tuple[int, int, int]], size: tuple[int, int] = (120, 80)) -> bytes:
    """A small PNG of vertical colour bands (PIL writes no timestamps: same colours, same bytes)."""
    from PIL import Image

    image = Image.new("RGB", size)
    band = max(1, size[0] // len(rng_colors))
    for index, color in enumerate(rng_colors):
        image.paste(color, (index * band, 0, size[0] if index == len(rng_colors) - 1 else (index + 1) * band, size[1]))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


class InsertImage(DeckTask):
    """Insert a picture file (written by setup) into a slide."""

    id = "impress.insert_image"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Insert the picture {image} into slide "
        "{slide} ('{title}'), then save the file in its current pptx format."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = int(rng.integers(1, len(params["titles"]) + 1))
        colors = [[int(c) for c in rng.integers(0, 256, size=3)] for _ in range(3)]
        image = f"~/Pictures/{rng.choice(IMAGE_NAMES)}.png"
        return {**params, "slide": slide, "title": params["titles"][slide - 1], "image": image, "colors": colors}

    def write_inputs(self, ctx: TaskContext) -> None:
        ctx.client.put_file(ctx.params["image"], png_bytes([tuple(c) for c in ctx.params["colors"]]))

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_shapes(self.saved(ctx), ctx.params["slide"], kind="picture", min_count=1)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy([api_call("insert_image", slide=params["slide"], path=params["image"]), SAVE, DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "slide": other_index(rng, len(params["titles"]), params["slide"])}


class TitleFontSize(DeckTask):
    """Set the font size of one slide's title."""

    id = "impress.title_font_size"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Set the font size of the title of slide "
        "{slide} ('{title}') to {size} pt, then save the file in its current pptx format."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = int(rng.integers(1, len(params["titles"]) + 1))
        size = int(rng.choice(FONT_SIZES))
        # The title is the first shape of every slide of the input deck (get_shapes numbering).
        return {**params, "slide": slide, "title": params["titles"][slide - 1], "size": size, "title_shape": 1}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_title_font_size(self.saved(ctx), ctx.params["slide"], ctx.params["size"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call("set_font_size", slide=params["slide"], shape=params["title_shape"], size=params["size"])
        return ScriptedPolicy([call, SAVE, DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "size": int(rng.choice([s for s in FONT_SIZES if s != params["size"]]))}


CONTENT_TASKS = (AddBullets, SpeakerNotes, InsertTextBox, InsertShape, InsertImage, TitleFontSize)
