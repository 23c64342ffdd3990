"""Shared parts of the Writer suite: seeded document text, the document task base, GUI helpers.

Every Writer family opens one docx written by python-docx (deterministic bytes) in LibreOffice
Writer; the verifier reads the file the agent saved. GUI oracles are keyboard-first; where a
pointer is needed (a dialog's button or field), its position comes from the observation's
accessibility tree (:func:`~desktop_gym.tasks.gui_script.click_node`); the oracles are
:class:`~desktop_gym.tasks.gui_script.GuiScript` policies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ...guest.a11y_text import A11yLine, parse_tree
from ...guest.a11y_text import find_node as a11y_find_node
from ...verifiers import verify_document_text
from ...verifiers.result import VerifierResult
from ..artifacts import docx_bytes
from ..base import ScriptedPolicy, Task, TaskContext
from ..gui_script import CTRL_S, DONE, Computed, Step, click_node, saved_by_gui, tree_of, when_absent, when_present
from .samples import KEYWORDS, SUBJECTS, TITLES, sentences, title  # noqa: F401 - re-exported

__all__ = ["DONE", "SAVE", "Step", "click_node", "saved_by_gui", "when_absent", "when_present"]  # the suite's GUI kit


DOCUMENT_OPEN = "The document {path} is open in LibreOffice Writer."
SAVE_AS_DOCX = "Then save the document in its current docx format."


class WriterDocumentTask(Task):
    """A Writer task on one docx: ``params`` hold ``path``, ``heading`` (or None) and ``paragraphs``."""

    apps = ("writer",)
    max_steps = 15
    needs_save = True
    document: ClassVar[str] = "~/Documents/notes.docx"
    goal_frame = f"{DOCUMENT_OPEN} {{goal}} {SAVE_AS_DOCX}"

    def base_params(self, rng: np.random.Generator, count: int = 4, heading: bool = True) -> dict[str, Any]:
        """``path``, ``heading`` and ``paragraphs`` (``count`` sentences), drawn from ``rng``."""
        return {
            "path": self.document,
            "heading": title(rng) if heading else None,
            "paragraphs": sentences(rng, count),
        }

    def setup(self, ctx: TaskContext) -> None:
        p = ctx.params
        ctx.client.put_file(p["path"], docx_bytes(p["paragraphs"], heading=p["heading"], title=p.get("doc_title")))
        ctx.client.launch_app("writer", p["path"])

    def saved(self, ctx: TaskContext) -> bytes | None:
        """The bytes of the document as saved by the agent (None when missing)."""
        return ctx.read_file(ctx.params["path"])

    @staticmethod
    def body(params: Mapping[str, Any], paragraphs: Sequence[str] | None = None) -> list[str]:
        """The document's paragraphs in order: the heading (if any), then ``paragraphs``."""
        texts = list(params["paragraphs"] if paragraphs is None else paragraphs)
        return ([params["heading"]] if params["heading"] else []) + texts

    def verify_text_equals(self, ctx: TaskContext, paragraphs: Sequence[str]) -> VerifierResult:
        """The saved document's non-empty paragraphs are exactly ``paragraphs``."""
        return verify_document_text(self.saved(ctx), "\n".join(paragraphs), match="equals")


# --- GUI helpers -----------------------------------------------------------------------------------


def tree_nodes(tree: str) -> list[dict[str, Any]]:
    """The linearized a11y tree as dicts: ``depth``, ``role``, ``name``, ``rest``, ``box`` (or None)."""
    return [_as_dict(node) for node in parse_tree(tree)]


def _as_dict(node: A11yLine) -> dict[str, Any]:
    return {"depth": node.depth, "role": node.role, "name": node.name, "rest": node.tail, "box": node.box}


def find_node(
    tree: str, role: str, name: str | None, within: tuple[str, str] | None = None, enabled: bool = True
) -> dict[str, Any] | None:
    """The first on-screen node with ``role`` and ``name`` (any name when None) inside ``within`` = (role, name).

    With ``enabled``, disabled nodes are skipped.
    """
    node = a11y_find_node(tree, role, name, within, enabled_only=enabled)
    return None if node is None else _as_dict(node)


def click_beside(label: str, role: str, within: tuple[str, str] | None = None) -> Computed:
    """A step clicking the ``role`` node to the right of the label ``label`` on the same row (unnamed fields).

    The click lands a quarter into the node: a spin button's box includes its -/+ buttons.
    """

    def make(observation: Mapping[str, Any]) -> str | None:
        tree = tree_of(observation)
        anchor = find_node(tree, "label", label, within, enabled=False)
        if anchor is None:
            return None
        lx, ly, lw, lh = anchor["box"]
        row = ly + lh // 2
        beside = [
            node
            for node in tree_nodes(tree)
            if node["role"] == role
            and node["box"]
            and node["box"][1] <= row <= node["box"][1] + node["box"][3]
            and node["box"][0] >= lx + lw
        ]
        if not beside:
            return None
        x, y, width, height = min(beside, key=lambda node: node["box"][0])["box"]
        return f"click(coordinates=[{x + width // 4}, {y + height // 2}])"

    return Computed(make, f"a {role} beside the label {label!r}")


def keys(*combo: str) -> str:
    """``keys("ctrl", "b")`` -> ``'hotkey(keys=["ctrl", "b"])'`` (one key: ``press``)."""
    if len(combo) == 1:
        return f"press(key={json.dumps(combo[0])})"
    return f"hotkey(keys={json.dumps(list(combo))})"


def typed(text: str) -> str:
    """The action typing ``text``."""
    return f"type(text={json.dumps(text)})"


def find_and_select(text: str) -> list[Step]:
    """Steps selecting the first occurrence of ``text`` with Find & Replace (ctrl+h, Find Next, close)."""
    return [
        keys("ctrl", "h"),
        when_present("dialog", "Find and Replace", typed(text)),
        click_node("push button", "Find Next", within=("dialog", "Find and Replace")),
        click_node("push button", "Close", within=("dialog", "Find and Replace")),
    ]


SAVE = CTRL_S


def saved_by_api(*calls: str) -> ScriptedPolicy:
    """The API oracle playing ``calls``, then ``WriterTools.save()`` and declaring success."""
    return ScriptedPolicy([*calls, "WriterTools.save()", DONE])
