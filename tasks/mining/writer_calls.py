"""The Writer calls the miner composes programs from (see ``calls.CallKind``).

Paragraphs are named in instructions by their opening words (the API's index is 0 for the
heading), so an agent finds them the way a person would.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..family_kit import pick
from .calls import Args, CallKind
from .writer_model import DocModel, Paragraph

ALIGNMENTS = ("center", "right", "justify")
OPENING_WORDS = 4


def _named(model: DocModel, index: int) -> str:
    """How an instruction names paragraph ``index``: the heading, or the one starting with its first words."""
    if index == 0 and model.paragraphs[0].style.startswith("Heading") and len(model.paragraphs) > 1:
        return f"the heading {model.paragraphs[0].text!r}"
    words = model.paragraphs[index].text.split()
    opening = " ".join(words[:OPENING_WORDS])
    return f"the paragraph starting {opening!r}"


def _unique_openings(model: DocModel) -> bool:
    openings = [" ".join(p.text.split()[:OPENING_WORDS]) for p in model.paragraphs]
    return len(set(openings)) == len(openings)


def _body_index(model: DocModel, rng: np.random.Generator) -> int | None:
    body = model.body()
    return pick(rng, body) if body and _unique_openings(model) else None


def _other_body(model: DocModel, args: Args, rng: np.random.Generator, key: str = "paragraph") -> list[Any]:
    return [i for i in model.body() if i != args[key]]


_kind = functools.partial(CallKind, tools="WriterTools")

# -- text ---------------------------------------------------------------------------------------------


def _append_target(model: DocModel, rng: np.random.Generator) -> Args | None:
    return {"text": model.sentence(rng)}


def _append(model: DocModel, args: Args) -> None:
    model.paragraphs.append(
        Paragraph(args["text"], style=model.paragraphs[-1].style if len(model.paragraphs) > 1 else "Normal")
    )


def _other_sentences(model: DocModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return [model.sentence(rng) for _ in range(3)]


APPEND = _kind(
    "append_paragraph", "append_paragraph", _append_target, _append,
    lambda a, m: f"add a new last paragraph reading {a['text']!r}", "text", _other_sentences, gui_steps=3,
)  # fmt: skip


def _insert_target(model: DocModel, rng: np.random.Generator) -> Args | None:
    index = _body_index(model, rng)
    return None if index is None else {"index": index, "text": model.sentence(rng)}


def _insert(model: DocModel, args: Args) -> None:
    model.paragraphs.insert(args["index"], Paragraph(args["text"], style=model.paragraphs[args["index"]].style))


INSERT = _kind(
    "insert_paragraph", "insert_paragraph", _insert_target, _insert,
    lambda a, m: f"insert a new paragraph reading {a['text']!r} just before {_named(m, a['index'])}", "index",
    lambda m, a, rng: _other_body(m, a, rng, "index"), gui_steps=4,
)  # fmt: skip


def _rewrite_target(model: DocModel, rng: np.random.Generator) -> Args | None:
    index = _body_index(model, rng)
    return None if index is None or model.paragraphs[index].marks else {"paragraph": index, "text": model.sentence(rng)}


def _rewrite(model: DocModel, args: Args) -> None:
    model.paragraphs[args["paragraph"]].text = args["text"]


REWRITE = _kind(
    "set_paragraph_text", "set_paragraph_text", _rewrite_target, _rewrite,
    lambda a, m: f"replace the whole text of {_named(m, a['paragraph'])} with {a['text']!r}", "text",
    _other_sentences, gui_steps=4,
)  # fmt: skip


def _delete_target(model: DocModel, rng: np.random.Generator) -> Args | None:
    return None if len(model.body()) < 3 else (None if (i := _body_index(model, rng)) is None else {"paragraph": i})


def _delete(model: DocModel, args: Args) -> None:
    del model.paragraphs[args["paragraph"]]


DELETE = _kind(
    "delete_paragraph", "delete_paragraph", _delete_target, _delete,
    lambda a, m: f"delete {_named(m, a['paragraph'])}", "paragraph", _other_body, gui_steps=3,
)  # fmt: skip


def _replace_target(model: DocModel, rng: np.random.Generator) -> Args | None:
    words = sorted(
        {w.strip(".,") for p in model.paragraphs for w in p.text.split() if w.strip(".,") in model.words_used}
    )
    if not words or any(p.marks for p in model.paragraphs):
        return None
    return {"find": pick(rng, words), "replace": model.fresh_word(rng), "match_case": True, "whole_words": True}


def _replace(model: DocModel, args: Args) -> None:
    for paragraph in model.paragraphs:
        paragraph.text = " ".join(
            word.replace(args["find"], args["replace"]) if word.strip(".,") == args["find"] else word
            for word in paragraph.text.split(" ")
        )


def _other_words(model: DocModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return [model.fresh_word(rng) for _ in range(3)]


REPLACE = _kind(
    "replace", "find_replace", _replace_target, _replace,
    lambda a, m: f"replace the word {a['find']!r} with {a['replace']!r} everywhere in the document", "replace",
    _other_words, gui_steps=5,
)  # fmt: skip

# -- formatting ---------------------------------------------------------------------------------------


def _mark_kind(mark: str, method: str) -> CallKind:
    def target(model: DocModel, rng: np.random.Generator) -> Args | None:
        index = _body_index(model, rng)
        if index is None or model.paragraphs[index].marks.get(mark):
            return None
        return {"paragraph": index}

    def apply(model: DocModel, args: Args) -> None:
        model.paragraphs[args["paragraph"]].marks[mark] = [model.paragraphs[args["paragraph"]].text]

    word = {"bold": "bold", "italic": "italic", "underline": "underlined"}[mark]
    return _kind(
        mark, method, target, apply, lambda a, m: f"make all of {_named(m, a['paragraph'])} {word}", "paragraph",
        lambda m, a, rng: [i for i in _other_body(m, a, rng) if not m.paragraphs[i].marks.get(mark)], gui_steps=3,
    )  # fmt: skip


BOLD, ITALIC, UNDERLINE = (
    _mark_kind("bold", "set_bold"),
    _mark_kind("italic", "set_italic"),
    _mark_kind("underline", "set_underline"),
)


def _align_target(model: DocModel, rng: np.random.Generator) -> Args | None:
    index = _body_index(model, rng)
    return None if index is None else {"alignment": pick(rng, ALIGNMENTS), "paragraph": index}


def _align(model: DocModel, args: Args) -> None:
    model.paragraphs[args["paragraph"]].align = args["alignment"]


def _say_align(args: Args, model: DocModel) -> str:
    if args["alignment"] == "justify":
        return f"justify {_named(model, args['paragraph'])}"
    return (
        f"align {_named(model, args['paragraph'])} to the {args['alignment']}"
        if args["alignment"] != "center"
        else (f"center {_named(model, args['paragraph'])}")
    )


ALIGN = _kind(
    "alignment", "set_alignment", _align_target, _align, _say_align, "alignment",
    lambda m, a, rng: [x for x in ALIGNMENTS if x != a["alignment"]], gui_steps=3,
)  # fmt: skip


def _heading_target(model: DocModel, rng: np.random.Generator) -> Args | None:
    index = _body_index(model, rng)
    if index is None or model.paragraphs[index].style.startswith("Heading"):
        return None
    return {"paragraph": index, "level": int(rng.integers(2, 4))}


def _heading(model: DocModel, args: Args) -> None:
    model.paragraphs[args["paragraph"]].style = f"Heading {args['level']}"


HEADING = _kind(
    "heading", "set_heading", _heading_target, _heading,
    lambda a, m: f"turn {_named(m, a['paragraph'])} into a level {a['level']} heading (Heading {a['level']})", "level",
    lambda m, a, rng: [x for x in (2, 3, 4) if x != a["level"]], gui_steps=3,
)  # fmt: skip

WRITER_KINDS: tuple[CallKind, ...] = (APPEND, INSERT, REWRITE, DELETE, REPLACE, BOLD, ITALIC, UNDERLINE, ALIGN, HEADING)
