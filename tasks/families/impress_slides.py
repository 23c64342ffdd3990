"""Impress families on the slide list: add, retitle, delete, duplicate, move, change layout.

Each has a GUI-only oracle: keyboard (Home / Page Down to reach a slide, Tab + Enter to edit a
placeholder) and menu items clicked where the accessibility tree shows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_pptx_layout, verify_pptx_slide_titles
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .impress_deck import (
    PROJECTS,
    DeckTask,
    SlideTask,
    api_call,
    edit_placeholder,
    go_to_slide,
    new_topic,
    other_choice,
    other_index,
    saved_by_api,
)
from .impress_gui import menu_path, saved_by_gui


class AddSlide(DeckTask):
    """Append a slide with a given title."""

    id = "impress.add_slide"
    goal = "Add a new slide at the end with the title '{new_title}'"
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        params["new_title"] = f"{new_topic(rng, params['titles'])} Next Steps"
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_slide_titles(self.saved(ctx), [*ctx.params["titles"], ctx.params["new_title"]])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(api_call("add_slide", title=params["new_title"]))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Ctrl+M inserts a slide after the shown one; Tab selects its title, Enter edits it.
        return saved_by_gui(
            'press(key="end")',
            'hotkey(keys=["ctrl", "m"])',
            *edit_placeholder(1),
            f"type(text={params['new_title']!r})",
            'press(key="escape")',
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "new_title": params["new_title"].replace("Next Steps", "Last Steps")}


class SetTitle(DeckTask):
    """Replace the title of one slide."""

    id = "impress.set_title"
    goal = "Change the title of slide {slide} (now '{old_title}') to '{new_title}'"
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = int(rng.integers(1, len(params["titles"]) + 1))
        new_title = f"Project {rng.choice(PROJECTS)} {new_topic(rng, params['titles'])}"
        return {**params, "slide": slide, "old_title": params["titles"][slide - 1], "new_title": new_title}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        titles = list(p["titles"])
        titles[p["slide"] - 1] = p["new_title"]
        return verify_pptx_slide_titles(self.saved(ctx), titles)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(api_call("set_title", slide=params["slide"], title=params["new_title"]))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_gui(
            *go_to_slide(params["slide"]),
            *edit_placeholder(1),
            'hotkey(keys=["ctrl", "a"])',
            f"type(text={params['new_title']!r})",
            'press(key="escape")',
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "slide": other_index(rng, len(params["titles"]), params["slide"])}


class _SlideCommandTask(SlideTask):
    """A command on one slide: the ``api`` call of that name, or the Slide menu's ``menu_item``."""

    api = ""
    menu_item = ""

    def titles_after(self, params: Mapping[str, Any]) -> list[str]:
        """The slide titles once the command has run."""
        raise NotImplementedError

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_slide_titles(self.saved(ctx), self.titles_after(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(api_call(self.api, slide=params["slide"]))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_gui(*go_to_slide(params["slide"]), *menu_path("Slide", self.menu_item))


class DeleteSlide(_SlideCommandTask):
    """Delete the slide with a given title."""

    id = "impress.delete_slide"
    goal = "Delete the slide titled '{title}'"
    oracles = ("api", "gui")

    first_slide = 2
    api = "delete_slide"
    menu_item = "Delete Slide"

    def titles_after(self, params: Mapping[str, Any]) -> list[str]:
        return [t for n, t in enumerate(params["titles"], 1) if n != params["slide"]]


class DuplicateSlide(_SlideCommandTask):
    """Duplicate one slide; the copy follows the original."""

    id = "impress.duplicate_slide"
    goal = "Duplicate slide {slide} ('{title}') so that the copy comes right after it"
    oracles = ("api", "gui")

    api = "duplicate_slide"
    menu_item = "Duplicate Slide"

    def titles_after(self, params: Mapping[str, Any]) -> list[str]:
        titles = list(params["titles"])
        titles.insert(params["slide"], params["title"])
        return titles


class MoveSlide(DeckTask):
    """Move a slide to another position."""

    id = "impress.move_slide"
    goal = "Move the slide titled '{title}' so that it becomes slide {target}"
    oracles = ("api", "gui")
    max_steps = 25

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        count = len(params["titles"])
        slide = int(rng.integers(2, count + 1))
        target = other_index(rng, count, slide, low=2)
        return {**params, "slide": slide, "target": target, "title": params["titles"][slide - 1]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        titles = list(p["titles"])
        titles.insert(p["target"] - 1, titles.pop(p["slide"] - 1))
        return verify_pptx_slide_titles(self.saved(ctx), titles)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(api_call("move_slide", slide=params["slide"], new_position=params["target"]))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Slide > Move > Slide Up/Down moves the shown slide one place; it stays the shown slide.
        item = "Slide Up" if params["target"] < params["slide"] else "Slide Down"
        moves = [
            step for _ in range(abs(params["target"] - params["slide"])) for step in menu_path("Slide", "Move", item)
        ]
        return saved_by_gui(*go_to_slide(params["slide"]), *moves)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        avoid = [params["target"], params["slide"]]
        choices = [n for n in range(2, len(params["titles"]) + 1) if n not in avoid] or [1]
        return {**params, "target": int(rng.choice(choices))}


# (menu label, ImpressTools layout name, the name LibreOffice writes into the pptx). "Title, Content"
# and "Blank" are left out: the input deck's content slides already read as one of them.
LAYOUT_CHOICES = {
    "Title Only": ("title_only", "Title Only"),
    "Centered Text": ("centered_text", "Centered Text"),
    "Title and 2 Content": ("title_two_content", "Title, 2 Content"),
    "Title Slide": ("title_slide", "Title Slide"),
}


class ChangeLayout(SlideTask):
    """Change the layout of one content slide."""

    id = "impress.change_layout"
    goal = "Change the layout of slide {slide} ('{title}') to '{layout}'"
    oracles = ("api", "gui")

    first_slide = 2

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        layout = str(rng.choice(list(LAYOUT_CHOICES)))
        return {**params, "layout": layout}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_pptx_layout(self.saved(ctx), p["slide"], LAYOUT_CHOICES[p["layout"]][1])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        layout = LAYOUT_CHOICES[params["layout"]][0]
        return saved_by_api(api_call("set_slide_layout", slide=params["slide"], layout=layout))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_gui(*go_to_slide(params["slide"]), *menu_path("Slide", "Layout", params["layout"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "layout": other_choice(rng, list(LAYOUT_CHOICES), params["layout"])}
