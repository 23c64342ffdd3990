"""Workflow tier, Writer: a memo tidied in several distinct operations (alignment, emphasis, spacing,
an appended closing line), each checked on the saved document together with its unchanged text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_docx_alignment,
    verify_docx_font,
    verify_docx_has_paragraph,
    verify_docx_line_spacing,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from ..gui_script import click_node
from .samples import SUBJECTS
from .writer_base import WriterDocumentTask, find_and_select, keys, saved_by_gui, typed

CLOSINGS = (
    "Questions go to the project office.",
    "The next review is in two weeks.",
    "Please confirm by Friday.",
    "Minutes follow by email.",
    "Thank you all for the quick replies.",
)


class MemoCleanup(WriterDocumentTask):
    """Centre the heading, bold a name, space one paragraph at 1.5 lines and append a closing line."""

    id = "workflow.memo_cleanup"
    instruction_template = (
        'The memo {path} is open in LibreOffice Writer. Tidy it up: centre the heading "{heading}", make '
        '"{subject}" bold where it appears in the paragraph that starts with it, set the line spacing of that '
        'same paragraph to 1.5 lines, and add "{closing}" as a new last paragraph. Change nothing else, then '
        "save the file in its current docx format."
    )
    oracles = ("api", "gui")
    tags = ("workflow", "writer", "format", "domain:writer")
    max_steps = 30

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(3, 6)))
        target = int(rng.integers(0, len(params["paragraphs"])))
        sentence = params["paragraphs"][target]
        subject = next(name for name in SUBJECTS if sentence.startswith(name))
        closing = str(rng.choice(CLOSINGS))
        return {**params, "target": target, "subject": subject, "sentence": sentence, "closing": closing}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        return all_of(
            {
                "text unchanged, closing appended": self.verify_text_equals(ctx, [*self.body(p), p["closing"]]),
                "closing is last": verify_docx_has_paragraph(data, p["closing"], last=True),
                "heading centred": verify_docx_alignment(data, p["heading"], "center"),
                "name bold": verify_docx_font(data, p["subject"], bold=True),
                "spacing": verify_docx_line_spacing(data, p["sentence"], multiple=1.5),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        paragraph = params["target"] + 1  # the heading is paragraph 0
        return ScriptedPolicy(
            [
                "WriterTools.set_alignment(alignment='center', paragraph=0)",
                f"WriterTools.set_bold(bold=True, paragraph={paragraph}, match_text={params['subject']!r})",
                f"WriterTools.set_line_spacing(spacing=1.5, paragraph={paragraph})",
                f"WriterTools.append_paragraph(text={params['closing']!r})",
                "WriterTools.save()",
                "exit(success=True)",
            ]
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # The closing first (the new last paragraph); then Ctrl+E on the heading; then, from the start of
        # the target paragraph, Find Next selects its subject for Ctrl+B, and Format > Spacing sets 1.5 lines.
        moves = [keys("ctrl", "down")] * (params["target"] + 1)
        return saved_by_gui(
            keys("ctrl", "end"),
            keys("enter"),
            typed(params["closing"]),
            keys("ctrl", "home"),
            keys("ctrl", "e"),
            *moves,
            *find_and_select(params["subject"]),
            keys("ctrl", "b"),
            keys("alt", "o"),
            click_node("menu", "Spacing"),
            click_node("check menu item", "Line Spacing: 1.5", within=("menu", "Spacing")),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [closing for closing in CLOSINGS if closing != params["closing"]]
        return {**params, "closing": str(rng.choice(others))}
