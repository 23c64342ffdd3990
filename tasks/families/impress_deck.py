"""What the Impress families share: a seeded slide deck, its setup, and oracle building blocks.

Every family opens ``~/Documents/<name>.pptx`` (written by python-pptx, byte-identical for a seed)
in Impress. The deck is a title slide followed by content slides ("Title and Content", a title and
a few bullet points), all with distinct titles so that the verifiers can check the slide order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ...verifiers.result import VerifierResult
from ..artifacts import pptx_bytes
from ..base import ScriptedPolicy, Task, TaskContext

TOPICS = (
    "Budget", "Hiring", "Roadmap", "Security", "Marketing", "Logistics", "Research", "Training",
    "Partners", "Revenue", "Support", "Design", "Quality", "Outreach", "Facilities", "Compliance",
)  # fmt: skip
PROJECTS = ("Atlas", "Beacon", "Cedar", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Juniper", "Nova")
POINTS = (
    "Review open items", "Cut waiting times", "Hire two engineers", "Ship the beta", "Train the new team",
    "Audit supplier contracts", "Update the style guide", "Move to the new office", "Survey our customers",
    "Lower support costs", "Publish the report", "Renew the licences", "Test the backup plan",
    "Visit three partners", "Close the old tickets", "Plan the spring launch",
)  # fmt: skip
DECK_NAMES = ("review", "kickoff", "update", "briefing", "planning")
SAVE = "ImpressTools.save()"
DONE = "exit(success=True)"
CTRL_S = 'hotkey(keys=["ctrl", "s"])'


def sample_deck(rng: np.random.Generator, min_slides: int = 4, max_slides: int = 6) -> dict[str, Any]:
    """Deck parameters: ``path``, ``titles`` (one per slide) and ``bodies`` (bullet lines; [] on slide 1)."""
    count = int(rng.integers(min_slides, max_slides + 1))
    topics = [str(t) for t in rng.choice(TOPICS, size=count - 1, replace=False)]
    project = str(rng.choice(PROJECTS))
    bodies: list[list[str]] = [[]]
    for _ in topics:
        size = int(rng.integers(1, 4))
        bodies.append([str(p) for p in rng.choice(POINTS, size=size, replace=False)])
    return {
        "path": f"~/Documents/{rng.choice(DECK_NAMES)}.pptx",
        "titles": [f"Project {project} Review", *topics],
        "bodies": bodies,
    }


def deck_slides(params: Mapping[str, Any]) -> list[dict[str, object]]:
    """The ``pptx_bytes`` slide specs of a sampled deck (with ``notes`` when the params carry them)."""
    notes = params.get("notes") or [""] * len(params["titles"])
    slides: list[dict[str, object]] = []
    for number, (title, body, note) in enumerate(zip(params["titles"], params["bodies"], notes, strict=True)):
        spec: dict[str, object] = {"layout": "Title Slide" if number == 0 else "Title and Content", "title": title}
        if body:
            spec["body"] = body
        if note:
            spec["notes"] = note
        slides.append(spec)
    return slides


def other_index(rng: np.random.Generator, count: int, avoid: int, low: int = 1) -> int:
    """A number in ``[low, count]`` other than ``avoid`` (for perturbations)."""
    choices = [n for n in range(low, count + 1) if n != avoid]
    return int(rng.choice(choices))


def other_choice(rng: np.random.Generator, options: Sequence[str], avoid: str) -> str:
    """One of ``options`` other than ``avoid``."""
    return str(rng.choice([o for o in options if o != avoid]))


def new_topic(rng: np.random.Generator, titles: Sequence[str]) -> str:
    """A topic that none of ``titles`` is."""
    return str(rng.choice([t for t in TOPICS if t not in titles]))


def api_call(method: str, **kwargs: Any) -> str:
    """The action text ``ImpressTools.method(k=v, ...)`` (values written as Python literals)."""
    return f"ImpressTools.{method}({', '.join(f'{key}={value!r}' for key, value in kwargs.items())})"


def saved_by_api(*calls: str) -> ScriptedPolicy:
    """The API oracle playing ``calls``, then saving the deck and declaring success."""
    return ScriptedPolicy([*calls, SAVE, DONE])


def go_to_slide(slide: int) -> list[str]:
    """Keys that show slide ``slide`` in the edit view: Home, then Page Down one key per step."""
    return ['press(key="home")', *['press(key="pagedown")'] * (slide - 1)]


def edit_placeholder(tab_presses: int) -> list[str]:
    """Keys that select the ``tab_presses``-th object of the shown slide and enter its text."""
    return [*['press(key="tab")'] * tab_presses, 'press(key="enter")']


DECK_OPEN = "The presentation {path} is open in LibreOffice Impress."
SAVE_AS_PPTX = ", then save the file in its current pptx format."


class DeckTask(Task):
    """A task on a seeded deck open in Impress; the verifier reads the saved pptx."""

    apps = ("impress",)
    max_steps = 20
    tags: Sequence[str] = ("impress",)
    needs_save = True
    goal_frame = f"{DECK_OPEN} {{goal}}{SAVE_AS_PPTX}"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return sample_deck(rng)

    def write_inputs(self, ctx: TaskContext) -> None:
        """Extra input files (images, ...); none by default."""

    def setup(self, ctx: TaskContext) -> None:
        ctx.client.put_file(ctx.params["path"], pptx_bytes(deck_slides(ctx.params)))
        self.write_inputs(ctx)
        ctx.client.launch_app("impress", ctx.params["path"])

    def saved(self, ctx: TaskContext) -> bytes | None:
        """The deck as the agent saved it (None if it is gone)."""
        return ctx.read_file(ctx.params["path"])

    def verify(self, ctx: TaskContext) -> VerifierResult:
        raise NotImplementedError


class SlideTask(DeckTask):
    """A task on one slide of the deck: ``slide`` (drawn from ``first_slide`` on) and its ``title``.

    Subclasses add their own parameters after these; the default perturbation picks another slide.
    """

    #: 2 keeps the title slide out (a content slide, or one that may be deleted or moved).
    first_slide: ClassVar[int] = 1

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        slide = int(rng.integers(self.first_slide, len(params["titles"]) + 1))
        return {**params, "slide": slide, "title": params["titles"][slide - 1]}

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "slide": other_index(rng, len(params["titles"]), params["slide"], low=self.first_slide)}
