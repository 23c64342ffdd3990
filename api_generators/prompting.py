"""Stage prompts: files in ``prompts/`` with ``## system`` and ``## user`` parts and ``$name`` fields."""

from __future__ import annotations

import functools
import re
import string
from pathlib import Path
from typing import Any

from desktop_gym.errors import PromptError

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
_SECTION = re.compile(r"^## (system|user)\s*$", re.MULTILINE)


@functools.cache
def _template(stage: str) -> dict[str, string.Template]:
    path = PROMPTS_DIR / f"{stage}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PromptError(f"no prompt file {path}") from None
    parts = _SECTION.split(text)
    sections = {parts[i]: string.Template(parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)}
    if set(sections) != {"system", "user"}:
        raise PromptError(f"{path} needs one '## system' and one '## user' section")
    return sections


def messages(stage: str, **fields: Any) -> list[dict[str, str]]:
    """The chat messages of ``stage``'s prompt with ``fields`` filled in.

    Raises:
        PromptError: the prompt uses a field not given (names it).
    """
    out = []
    for role, template in _template(stage).items():
        try:
            out.append({"role": role, "content": template.substitute({k: str(v) for k, v in fields.items()})})
        except KeyError as exc:
            raise PromptError(f"prompt {stage}.md ({role}) needs the field {exc.args[0]!r}") from None
    return out
