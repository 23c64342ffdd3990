"""What the Impress miner believes a deck holds: slides with a title, texts and speaker notes.

Like ``sheet_model`` for Calc: calls draw their arguments from it and apply to it, and its state is
compared with the saved presentation's (``verifiers.pptx_state``) after the real run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...verifiers.pptx_state import slide_state
from .model_base import DocumentModel

DECKS = ("Quarterly review", "Team kickoff", "Product roadmap", "Sales pitch", "Lab report", "Trip summary")
TITLES = ("{0} plan", "{0} results", "Next steps for {0}", "{0} at a glance", "Risks in {0}", "{0} timeline")
LINES = ("Ship the {0} build", "Hire for {0}", "Cut {0} costs", "Review {0} feedback", "Launch in {0}")
MIN_CONTENT, MAX_CONTENT = 2, 4


@dataclass
class Slide:
    """One slide of the model: its title, other texts (body lines joined by newlines) and notes."""

    title: str
    texts: list[str] = field(default_factory=list)
    notes: str = ""
    layout: str = "Title and Content"

    def state(self) -> dict[str, Any]:
        return slide_state(self.title, self.texts, self.notes)


@dataclass
class DeckModel(DocumentModel):
    """A deck: a title slide then content slides (slide numbers start at 1, as the API counts)."""

    slides: list[Slide]

    def title(self, rng: np.random.Generator) -> str:
        return TITLES[int(rng.integers(len(TITLES)))].format(self.fresh_word(rng))

    def line(self, rng: np.random.Generator) -> str:
        return LINES[int(rng.integers(len(LINES)))].format(self.fresh_word(rng))

    def numbers(self) -> list[int]:
        return list(range(1, len(self.slides) + 1))

    def state(self) -> dict[str, Any]:
        return {"slides": [slide.state() for slide in self.slides]}


def seed_deck(rng: np.random.Generator) -> tuple[DeckModel, str]:
    """A random seed deck and its path (``~/Documents/<name>.pptx``)."""
    name = DECKS[int(rng.integers(len(DECKS)))]
    model = DeckModel([Slide(name, layout="Title Slide")])
    for _ in range(int(rng.integers(MIN_CONTENT, MAX_CONTENT + 1))):
        lines = [model.line(rng) for _ in range(int(rng.integers(1, 4)))]
        model.slides.append(Slide(model.title(rng), ["\n".join(lines)]))
    return model, f"~/Documents/{name.lower().replace(' ', '_')}.pptx"


def deck_slides(model: DeckModel) -> list[dict[str, Any]]:
    """The deck as the ``slides`` of a ``put_file`` setup step."""
    slides = []
    for slide in model.slides:
        spec: dict[str, Any] = {"title": slide.title, "layout": slide.layout}
        if slide.texts:
            spec["body"] = slide.texts[0].split("\n")
        if slide.notes:
            spec["notes"] = slide.notes
        slides.append(spec)
    return slides
