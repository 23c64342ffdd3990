"""The apps the miner knows: per app, its seed documents, its calls, its strict verifier and its words.

Adding an app to ``tasks synth`` is one ``MinedApp``: a model of its document (``copy``, ``state``,
``fresh_word``), a seed drawer, a call table, a state reader for the saved file, and the setup
step that writes the seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...verifiers.docx_state import document_state
from ...verifiers.pptx_state import presentation_state
from ...verifiers.workbook_state import workbook_state
from ..artifacts import docx_bytes, pptx_bytes, xlsx_bytes
from .calc_calls import CALC_KINDS
from .calls import CallKind
from .impress_calls import IMPRESS_KINDS
from .impress_model import deck_slides, seed_deck
from .sheet_model import model_rows, seed_model
from .writer_calls import WRITER_KINDS
from .writer_model import seed_document


@dataclass(frozen=True)
class MinedApp:
    """One app's mining recipe.

    Attributes:
        name: the app (``calc``), also the suite shard's name and the ids' prefix.
        kinds: the calls programs are drawn from.
        seed: draws a seed document model and its path in the home.
        put_file: the ``put_file`` setup step (without ``type`` and ``path``) that writes a seed model.
        seed_bytes: the bytes that step writes (the null agent's document), from the step.
        verifier: the strict state verifier's name.
        state_of: reads a saved document's state (what ``verifier`` compares).
        opener: the instruction's first sentence, with ``{path}``.
        closing: its last sentence.
        save: the API call that saves the document.
    """

    name: str
    kinds: tuple[CallKind, ...]
    seed: Callable[[np.random.Generator], tuple[Any, str]]
    put_file: Callable[[Any], dict[str, Any]]
    seed_bytes: Callable[[dict[str, Any]], bytes]
    verifier: str
    state_of: Callable[[bytes | None], dict[str, Any]]
    opener: str
    closing: str
    save: str


CALC = MinedApp(
    name="calc",
    kinds=CALC_KINDS,
    seed=seed_model,
    put_file=lambda model: {"sheet": model.sheet, "rows": model_rows(model)},
    seed_bytes=lambda step: xlsx_bytes(step["rows"], sheet_title=step.get("sheet", "Sheet1")),
    verifier="xlsx_state",
    state_of=workbook_state,
    opener="The spreadsheet {path} is open in LibreOffice Calc.",
    closing="Then save the file in its current xlsx format.",
    save="CalcTools.save()",
)

WRITER = MinedApp(
    name="writer",
    kinds=WRITER_KINDS,
    seed=seed_document,
    put_file=lambda model: {"heading": model.paragraphs[0].text, "paragraphs": [p.text for p in model.paragraphs[1:]]},
    seed_bytes=lambda step: docx_bytes(step["paragraphs"], heading=step.get("heading")),
    verifier="docx_state",
    state_of=document_state,
    opener="The document {path} is open in LibreOffice Writer.",
    closing="Then save the file in its current docx format.",
    save="WriterTools.save()",
)

IMPRESS = MinedApp(
    name="impress",
    kinds=IMPRESS_KINDS,
    seed=seed_deck,
    put_file=lambda model: {"slides": deck_slides(model)},
    seed_bytes=lambda step: pptx_bytes(step["slides"]),
    verifier="pptx_state",
    state_of=presentation_state,
    opener="The presentation {path} is open in LibreOffice Impress.",
    closing="Then save the file in its current pptx format.",
    save="ImpressTools.save()",
)

MINED_APPS: dict[str, MinedApp] = {app.name: app for app in (CALC, WRITER, IMPRESS)}
