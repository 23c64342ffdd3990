"""What the Writer miner believes a document holds: paragraphs with their style, alignment and marks.

Like ``sheet_model`` for Calc: calls draw their arguments from it and apply to it, and its state is
compared with the saved document's (``verifiers.docx_state``) after the real run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...verifiers.docx_state import MARKS, paragraph_state
from .model_base import DocumentModel

SENTENCES = (
    "The {0} team met the {1} group on Monday.",
    "Orders from {0} rose while {1} stayed flat.",
    "Please send the {0} draft to {1} by Friday.",
    "The {0} room is booked for the {1} review.",
    "Notes on {0} and {1} are in the shared folder.",
    "Budget for {0} moves to the {1} line.",
)
TOPICS = ("Field notes", "Weekly update", "Meeting minutes", "Project brief", "Travel plan", "Release notes")
MIN_PARAGRAPHS, MAX_PARAGRAPHS = 3, 6


@dataclass
class Paragraph:
    """One paragraph of the model."""

    text: str
    style: str = "Normal"
    align: str = "left"
    marks: dict[str, list[str]] = field(default_factory=dict)

    def state(self) -> dict[str, Any]:
        return paragraph_state(self.text, self.style, self.align, **{m: self.marks.get(m, []) for m in MARKS})


@dataclass
class DocModel(DocumentModel):
    """A document: a level-1 heading and body paragraphs (index 0 is the heading, as the API counts)."""

    paragraphs: list[Paragraph]

    def sentence(self, rng: np.random.Generator) -> str:
        """A new sentence naming two fresh words."""
        template = SENTENCES[int(rng.integers(len(SENTENCES)))]
        return template.format(self.fresh_word(rng), self.fresh_word(rng))

    def body(self) -> list[int]:
        """Indexes of the paragraphs under the heading."""
        return list(range(1, len(self.paragraphs)))

    def state(self) -> dict[str, Any]:
        return {"paragraphs": [p.state() for p in self.paragraphs]}


def seed_document(rng: np.random.Generator) -> tuple[DocModel, str]:
    """A random seed document and its path (``~/Documents/<topic>.docx``)."""
    topic = TOPICS[int(rng.integers(len(TOPICS)))]
    model = DocModel([Paragraph(topic, style="Heading 1")])
    for _ in range(int(rng.integers(MIN_PARAGRAPHS, MAX_PARAGRAPHS + 1))):
        model.paragraphs.append(Paragraph(model.sentence(rng)))
    return model, f"~/Documents/{topic.lower().replace(' ', '_')}.docx"
