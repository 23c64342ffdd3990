"""Programs of 1-6 API calls over a seed document, and the sibling tasks one program gives.

A program is drawn call by call from the model of the document, so later calls use what earlier
ones made (a new row, a renamed sheet). Calls that change nothing are redrawn; a program whose end
state equals a state it passed through (a later call undid an earlier one) is dropped. The last call
has one free argument (``CallKind.var``): each value it may take gives one sibling task, and a
sibling's value is another sibling's perturbation (the same program with that one argument
changed), so one real run per sibling serves as its oracle run and its neighbour's perturbed run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ProgramDropped as Dropped  # the report's reasons: no-op, undone, no perturbation
from .apps import CALC, MinedApp
from .calls import CallKind

MAX_CALLS = 6
CALL_WEIGHTS = (0.22, 0.24, 0.2, 0.14, 0.1, 0.1)  # 1..6 calls: mostly short programs, some long ones
MAX_DRAWS = 30  # draws of one call before the program is given up
SIBLINGS = 3


@dataclass
class Call:
    """One call of a program: its kind, arguments and instruction sentence (said of the model before it)."""

    kind: CallKind
    args: dict[str, Any]
    said: str = ""

    def text(self, var_template: str | None = None) -> str:
        return self.kind.text(self.args, var_template)


@dataclass
class Sibling:
    """One task of a group: the program with its last call's free argument set to ``value``."""

    value: Any
    calls: list[Call]
    model: Any

    @property
    def state(self) -> dict[str, Any]:
        return self.model.state()


@dataclass
class Group:
    """A seed document, a program and its siblings (at least two)."""

    seed: Any
    path: str
    prefix: list[Call]
    last: CallKind
    app: MinedApp = CALC
    siblings: list[Sibling] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return len(self.prefix) + 1


def _draw_call(model: Any, rng: np.random.Generator, kinds: tuple[CallKind, ...]) -> Call:
    before = model.state()
    for _ in range(MAX_DRAWS):
        kind = kinds[int(rng.integers(len(kinds)))]
        if kind.structural and model.formulas:
            continue
        args = kind.sample(model, rng)
        if args is None:
            continue
        after = model.copy()
        kind.apply(after, args)
        if after.state() != before:
            return Call(kind, args, kind.describe(args, model))
    raise Dropped("no-op", "no call that changes the document could be drawn")


def sample_group(rng: np.random.Generator, app: MinedApp = CALC, calls: int | None = None) -> Group:
    """Draw a seed document and a program of ``calls`` calls (drawn 1-6 when None), with its siblings.

    Raises:
        Dropped: the program was a no-op, undid itself, or its last call had no other values.
    """
    seed, path = app.seed(rng)
    kinds = app.kinds
    count = calls or int(rng.choice(np.arange(1, MAX_CALLS + 1), p=np.array(CALL_WEIGHTS)))
    model = seed.copy()
    seen = [json.dumps(model.state(), sort_keys=True)]
    prefix: list[Call] = []
    for _ in range(count - 1):
        call = _draw_call(model, rng, kinds)
        call.kind.apply(model, call.args)
        prefix.append(call)
        seen.append(json.dumps(model.state(), sort_keys=True))
    last = _draw_call(model, rng, kinds)
    group = Group(seed=seed, path=path, prefix=prefix, last=last.kind, app=app)
    values = [last.args[last.kind.var], *last.kind.others(model, last.args, rng)]
    states: set[str] = set()
    for value in values:
        args = {**last.args, last.kind.var: value}
        after = model.copy()
        last.kind.apply(after, args)
        state = json.dumps(after.state(), sort_keys=True)
        if state in seen or state in states:
            continue  # a no-op, an undo of an earlier call, or the same result as a sibling
        calls = [*prefix, Call(last.kind, args, last.kind.describe(args, model))]
        if undone_call(seed, calls) is not None:
            continue  # a later call wipes out an earlier one's effect
        states.add(state)
        group.siblings.append(Sibling(value, calls, after))
        if len(group.siblings) == SIBLINGS:
            break
    if not group.siblings:
        raise Dropped("undone", "the last call undoes an earlier one or changes nothing")
    if len(group.siblings) < 2:
        raise Dropped("no perturbation", f"{last.kind.name}: no other value of {last.kind.var!r} changes the result")
    return group


def undone_call(seed: Any, calls: list[Call]) -> int | None:
    """The index of a call whose effect the rest of the program wipes out (the end state is the same
    without it), or None. Calls are applied to the model with the same arguments."""
    full = model_after(seed, calls).state()
    for skipped in range(len(calls) - 1):
        try:
            without = model_after(seed, calls[:skipped] + calls[skipped + 1 :]).state()
        except (ValueError, IndexError, KeyError):
            continue  # a later call needs this one (it renames what it names): not undone
        if without == full:
            return skipped
    return None


def model_after(seed: Any, calls: list[Call]) -> Any:
    """The model after applying ``calls`` to a copy of ``seed``."""
    model = seed.copy()
    for call in calls:
        call.kind.apply(model, call.args)
    return model


def _sentence(calls: list[Call]) -> str:
    said = [call.said for call in calls]
    if len(said) == 1:
        return said[0][0].upper() + said[0][1:] + "."
    return "Do the following in order: " + "; ".join(f"({i}) {s}" for i, s in enumerate(said, 1)) + "."


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def task_definition(group: Group, index: int) -> dict[str, Any]:
    """The JSON task of sibling ``index``: setup, instruction, strict verifier, API oracle, perturbation, tags."""
    sibling = group.siblings[index]
    other = group.siblings[(index + 1) % len(group.siblings)]
    app = group.app
    program = [call.text() for call in sibling.calls[:-1]] + [sibling.calls[-1].text("{v!r}")]
    gui_steps = sum(call.kind.gui_steps for call in sibling.calls) + 1
    instruction = f"{app.opener.format(path=group.path)} {_sentence(sibling.calls)} {app.closing}"
    body = {
        "instruction": _escape(instruction),
        "params": {"v": sibling.value},
        "apps": [app.name],
        "max_steps": max(10, 3 * gui_steps),
        "setup": [
            {"type": "put_file", "path": group.path, **app.put_file(group.seed)},
            {"type": "open", "app": app.name, "path": group.path},
        ],
        "verifier": {"name": app.verifier, "file": group.path, "args": {"expected": sibling.state}},
        "tags": sorted(
            {"mined", app.name, f"calls:{len(sibling.calls)}", f"gui_steps:{gui_steps}"}
            | {f"call:{call.kind.name}" for call in sibling.calls}
        ),
        "needs_save": True,
        "oracles": {"api": [*program, app.save]},
        "perturb": {"param": "v", "value": other.value},
    }
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    return {"id": f"mined.{app.name}_{digest}", **body}
