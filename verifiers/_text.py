"""How text verifiers compare text: whitespace runs count as one space, case optionally ignored."""

from __future__ import annotations


def fold_text(text: str, ignore_case: bool = False) -> str:
    """``text`` with each whitespace run as one space and no space at either end; case-folded with ``ignore_case``."""
    text = " ".join(text.split())
    return text.casefold() if ignore_case else text
