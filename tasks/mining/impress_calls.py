"""The Impress calls the miner composes programs from (see ``calls.CallKind``).

Slides are named in instructions by number and title ("slide 3 ('Amber plan')"), the way a person
would point at them in the slide panel.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..family_kit import pick
from .calls import Args, CallKind
from .impress_model import DeckModel, Slide

_kind = functools.partial(CallKind, tools="ImpressTools")


def _named(model: DeckModel, number: int) -> str:
    return f"slide {number} ({model.slides[number - 1].title!r})"


def _unique_titles(model: DeckModel) -> bool:
    titles = [s.title for s in model.slides]
    return len(set(titles)) == len(titles)


def _content_slide(model: DeckModel, rng: np.random.Generator) -> int | None:
    numbers = model.numbers()[1:]
    return pick(rng, numbers) if numbers and _unique_titles(model) else None


def _other_numbers(key: str) -> Any:
    return lambda m, a, rng: [n for n in m.numbers()[1:] if n != a[key]]


def _other_titles(model: DeckModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return [model.title(rng) for _ in range(3)]


def _title_target(model: DeckModel, rng: np.random.Generator) -> Args | None:
    number = _content_slide(model, rng)
    return None if number is None else {"slide": number, "title": model.title(rng)}


def _set_title(model: DeckModel, args: Args) -> None:
    model.slides[args["slide"] - 1].title = args["title"]


SET_TITLE = _kind(
    "set_title", "set_title", _title_target, _set_title,
    lambda a, m: f"change the title of {_named(m, a['slide'])} to {a['title']!r}", "title", _other_titles, gui_steps=4,
)  # fmt: skip


def _add_target(model: DeckModel, rng: np.random.Generator) -> Args | None:
    if len(model.slides) > 7 or not _unique_titles(model):
        return None
    return {
        "position": pick(rng, model.numbers()[1:] + [len(model.slides) + 1]),
        "layout": "title_only",
        "title": model.title(rng),
    }


def _add(model: DeckModel, args: Args) -> None:
    model.slides.insert(args["position"] - 1, Slide(args["title"], layout="Title Only"))


def _say_add(args: Args, model: DeckModel) -> str:
    where = "at the end" if args["position"] > len(model.slides) else f"just before {_named(model, args['position'])}"
    return f"add a title-only slide titled {args['title']!r} {where}"


ADD_SLIDE = _kind(
    "add_slide", "add_slide", _add_target, _add, _say_add, "title", _other_titles, gui_steps=5,
)  # fmt: skip


def _delete_target(model: DeckModel, rng: np.random.Generator) -> Args | None:
    number = _content_slide(model, rng)
    return None if number is None or len(model.slides) < 3 else {"slide": number}


def _delete(model: DeckModel, args: Args) -> None:
    del model.slides[args["slide"] - 1]


DELETE_SLIDE = _kind(
    "delete_slide", "delete_slide", _delete_target, _delete, lambda a, m: f"delete {_named(m, a['slide'])}", "slide",
    _other_numbers("slide"), gui_steps=3,
)  # fmt: skip


def _move_target(model: DeckModel, rng: np.random.Generator) -> Args | None:
    number = _content_slide(model, rng)
    if number is None or len(model.slides) < 3:
        return None
    return {"slide": number, "new_position": pick(rng, [n for n in model.numbers()[1:] if n != number])}


def _move(model: DeckModel, args: Args) -> None:
    slide = model.slides.pop(args["slide"] - 1)
    model.slides.insert(args["new_position"] - 1, slide)


MOVE_SLIDE = _kind(
    "move_slide", "move_slide", _move_target, _move,
    lambda a, m: f"move {_named(m, a['slide'])} so that it becomes slide {a['new_position']}", "new_position",
    lambda m, a, rng: [n for n in m.numbers()[1:] if n not in (a["slide"], a["new_position"])], gui_steps=3,
)  # fmt: skip


def _notes_target(model: DeckModel, rng: np.random.Generator) -> Args | None:
    number = _content_slide(model, rng)
    return None if number is None else {"slide": number, "text": f"Remember to mention {model.fresh_word(rng)}."}


def _notes(model: DeckModel, args: Args) -> None:
    model.slides[args["slide"] - 1].notes = args["text"]


NOTES = _kind(
    "speaker_notes", "set_speaker_notes", _notes_target, _notes,
    lambda a, m: f"set the speaker notes of {_named(m, a['slide'])} to {a['text']!r}", "slide", _other_numbers("slide"),
    gui_steps=4,
)  # fmt: skip


def _body_target(model: DeckModel, rng: np.random.Generator) -> Args | None:
    number = _content_slide(model, rng)
    if number is None or model.slides[number - 1].layout != "Title and Content":
        return None
    return {"slide": number, "placeholder": "body", "text": "\n".join(model.line(rng) for _ in range(2))}


def _body(model: DeckModel, args: Args) -> None:
    model.slides[args["slide"] - 1].texts = [args["text"]]


def _other_bodies(model: DeckModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return ["\n".join(model.line(rng) for _ in range(2)) for _ in range(3)]


def _say_body(args: Args, model: DeckModel) -> str:
    first, second = args["text"].split("\n")
    return f"replace the body of {_named(model, args['slide'])} with the two lines {first!r} and {second!r}"


BODY = _kind(
    "body_text", "set_placeholder_text", _body_target, _body, _say_body, "text", _other_bodies, gui_steps=5,
)  # fmt: skip

IMPRESS_KINDS: tuple[CallKind, ...] = (SET_TITLE, ADD_SLIDE, DELETE_SLIDE, MOVE_SLIDE, NOTES, BODY)
