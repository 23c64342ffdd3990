"""Optional paraphrases of mined instructions, kept only when they keep every fact.

A template instruction names cells, ranges, quoted texts, numbers, colours and the file exactly;
a paraphrase from a language model may drop or change one. ``facts`` lists those tokens and
``keeps_facts`` refuses a paraphrase that lacks any of them, so a paraphrased task asks for the
same end state its verifier checks. Two sources, named in the task's tags:

- ``EndpointParaphraser``: any OpenAI-compatible chat endpoint (``--paraphrase-endpoint URL``);
- ``RecordedParaphraser``: a recorded transcript (JSON lines ``{"instruction", "paraphrase",
  "model"}``), replayed offline and deterministically (``--paraphrase-transcript FILE``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

_FACT = re.compile(
    r"'[^']*'"  # quoted texts: names, sentences, sheet names
    r"|~/\S+\.\w+"  # the file
    r"|#[0-9A-Fa-f]{6}"  # colours
    r"|=?[A-Z]+\([A-Z]+\d+:[A-Z]+\d+\)"  # formulas
    r"|\b[A-Z]{1,2}\d+(?::[A-Z]{1,2}\d+)?\b"  # cells and ranges
    r"|\b\d+(?:\.\d+)?\b"  # numbers: rows, slides, values, levels
)
_STEP_MARK = re.compile(r"\(\d\) ")  # "(2) " numbers the steps: a rewrite may order them in words
MAX_PARAPHRASE_CHARS = 2_000
PROMPT = (
    "Rewrite the following instruction for a desktop assistant in your own words. Keep every quoted "
    "text, file name, cell or range, number, colour code and formula exactly as written, and keep the "
    "order of the steps. Answer with the rewritten instruction only.\n\nInstruction: {instruction}"
)


def facts(instruction: str) -> list[str]:
    """The tokens a paraphrase must keep verbatim (quoted texts, the path, cells, numbers, colours, formulas)."""
    return [match.group(0) for match in _FACT.finditer(_STEP_MARK.sub("", instruction))]


def keeps_facts(original: str, paraphrase: str) -> bool:
    """Whether ``paraphrase`` is a usable rewrite: not empty, not too long, and every fact of ``original`` in it."""
    text = paraphrase.strip()
    if not text or len(text) > MAX_PARAPHRASE_CHARS or text == original.strip():
        return False
    remaining = text
    for fact in facts(original):
        if fact not in remaining:
            return False
        remaining = remaining.replace(fact, "\0", 1)  # a fact said twice must appear twice
    return True


class RecordedParaphraser:
    """Paraphrases replayed from a recorded transcript (``{"instruction", "paraphrase", "model"}`` lines)."""

    def __init__(self, transcript: str | Path) -> None:
        self.source = f"recorded:{Path(transcript).name}"
        self.table: dict[str, str] = {}
        for line in Path(transcript).read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                self.table[str(entry["instruction"])] = str(entry["paraphrase"])

    def __call__(self, instruction: str) -> str | None:
        return self.table.get(instruction)


class EndpointParaphraser:
    """Paraphrases from an OpenAI-compatible chat endpoint (one request per instruction)."""

    def __init__(self, base_url: str, model: str, temperature: float = 0.7) -> None:
        from openai import OpenAI

        self.source = f"endpoint:{model}"
        self.model = model
        self.temperature = temperature
        self.client = OpenAI(base_url=base_url, api_key="not-needed", timeout=60.0, max_retries=1)

    def __call__(self, instruction: str) -> str | None:
        try:
            response = self.client.chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": PROMPT.format(instruction=instruction)}],
                max_tokens=400,
                temperature=self.temperature,
            )
        except Exception:  # noqa: BLE001 - an endpoint that fails leaves the template instruction
            return None
        return response.choices[0].message.content or None


def apply_paraphrase(definition: dict[str, Any], paraphraser: Callable[[str], str | None] | None) -> bool:
    """Replace the definition's instruction by a paraphrase that keeps every fact; returns whether it did.

    The template instruction stays in the ``{{``-escaped form the task file needs; the source of the
    paraphrase is tagged (``paraphrase:endpoint:<model>`` or ``paraphrase:recorded:<file>``).
    """
    if paraphraser is None:
        return False
    original = definition["instruction"].replace("{{", "{").replace("}}", "}")
    rewritten = paraphraser(original)
    if rewritten is None or not keeps_facts(original, rewritten):
        return False
    definition["instruction"] = rewritten.strip().replace("{", "{{").replace("}", "}}")
    source = getattr(paraphraser, "source", "paraphrase")
    definition["tags"] = sorted({*definition["tags"], f"paraphrase:{source}"})
    return True
