"""What a task is: metadata as data, plus small lifecycle hooks (sample, set up, verify, oracle)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..errors import GuestFileNotFoundError, TaskSetupError  # noqa: F401 - TaskSetupError re-exported
from ..verifiers.result import VerifierResult
from .gui_script import GuiScript as ScriptedPolicy  # a fixed list of action texts is a script without gates

if TYPE_CHECKING:
    from ..guest.client import GuestClient

Policy = Callable[[Mapping[str, Any]], str]

#: The oracle kinds a task may declare, in the order ``Task.oracle`` prefers them.
ORACLE_KINDS = ("api", "gui")
#: Classes defined in this package register themselves when created; others call ``register_task``.
BUILTIN_PACKAGE = "desktop_gym.tasks."


def _overrides(cls: type, hook: str) -> bool:
    return getattr(cls, hook) is not getattr(Task, hook)


def _check_task_class(cls: type[Task]) -> None:
    """Enforce a concrete task class's metadata; fill in ``oracles`` from its hooks when undeclared.

    Raises:
        TypeError: naming the class and the field at fault.
    """
    from .registry import check_task_id  # registry imports gymnasium: only when a task class is made

    name = f"task class {cls.__qualname__}"
    try:
        check_task_id(cls.id)
    except ValueError as error:
        raise TypeError(f"{name}: field 'id': {error}") from None
    if not isinstance(getattr(cls, "instruction_template", None), str):
        raise TypeError(f"{name} ({cls.id}): field 'instruction_template' must be a str")
    if isinstance(cls.apps, str) or not all(isinstance(app, str) for app in cls.apps):
        raise TypeError(f"{name} ({cls.id}): field 'apps' must be a sequence of app keys, not {cls.apps!r}")
    if not isinstance(cls.max_steps, int) or cls.max_steps < 1:
        raise TypeError(f"{name} ({cls.id}): field 'max_steps' must be a positive int, not {cls.max_steps!r}")
    declared = getattr(cls, "oracles", None)
    if declared is None:  # a task written before oracles were declared: its overridden hooks say
        declared = () if cls.infeasible else tuple(k for k in ORACLE_KINDS if _overrides(cls, f"{k}_oracle"))
        cls.oracles = declared
    if isinstance(declared, str) or len(set(declared)) != len(declared) or not set(declared) <= set(ORACLE_KINDS):
        raise TypeError(f"{name} ({cls.id}): field 'oracles' must be distinct kinds of {ORACLE_KINDS}: {declared!r}")
    if cls.infeasible and declared:
        raise TypeError(f"{name} ({cls.id}): an infeasible task declares no oracles (its oracle is fail())")
    for kind in declared:
        if not _overrides(cls, f"{kind}_oracle"):
            raise TypeError(f"{name} ({cls.id}): declares a {kind!r} oracle but does not define {kind}_oracle()")


@dataclass
class TaskContext:
    """What a task's hooks may touch: the live desktop (through its guest) and the episode's RNG."""

    client: GuestClient
    rng: np.random.Generator
    params: dict[str, Any] = field(default_factory=dict)

    def read_file(self, path: str) -> bytes | None:
        """The bytes of a file in the desktop, or None when it does not exist."""
        try:
            return self.client.get_file(path)
        except GuestFileNotFoundError:
            return None


class Task:
    """Base class of every task and task family.

    Subclasses set the class attributes and override ``sample_params``, ``setup``, ``verify`` and
    the oracles they declare in ``oracles``. A class that sets ``id`` is a concrete task: its
    definition is its one record (id, instruction or goal, tags, oracles, apps, step budget), checked
    when the class is created (``TypeError`` naming the field); a built-in one is registered then too. All randomness
    comes from the RNG the env passes in, so the same seed gives the same task, byte for byte.
    """

    id: ClassVar[str]
    instruction_template: ClassVar[str]
    apps: ClassVar[Sequence[str]] = ()
    max_steps: ClassVar[int] = 15
    tags: ClassVar[Sequence[str]] = ()
    #: the instruction asks the agent to save; the verifier reads the saved file, never saves itself.
    needs_save: ClassVar[bool] = False
    #: the task cannot be done; success only if the agent declares FAIL (``fail()``).
    infeasible: ClassVar[bool] = False
    #: the oracle kinds this task has (``"api"``, ``"gui"``); ``task_check`` plays each one.
    #: Undeclared, they are the hooks the class overrides; an infeasible task declares none.
    oracles: ClassVar[tuple[str, ...]]
    #: what to do; set, the instruction template is ``goal_frame`` with ``{goal}`` replaced by it.
    goal: ClassVar[str]
    #: the sentences around a ``goal`` (a family base says which app has which file open, say).
    goal_frame: ClassVar[str] = "{goal}"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "goal" in cls.__dict__:
            cls.instruction_template = cls.goal_frame.replace("{goal}", cls.goal)
        if "id" in cls.__dict__:
            _check_task_class(cls)
            if cls.__module__.startswith(BUILTIN_PACKAGE):  # a built-in class is its own registration
                from .registry import register_task

                register_task(cls)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        """Draw this episode's parameters from ``rng``."""
        return {}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The goal shown to the agent: the template filled with the parameters."""
        return self.instruction_template.format(**params)

    def setup(self, ctx: TaskContext) -> None:
        """Write input files and start apps. Raise ``TaskSetupError`` on failure."""

    def verify(self, ctx: TaskContext) -> VerifierResult:
        """Decide success by reading the real artifacts."""
        raise NotImplementedError

    def api_oracle(self, params: Mapping[str, Any]) -> Policy | None:
        """A policy that solves the task using app APIs where they exist (None if the task has none)."""
        return None

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy | None:
        """A GUI-only policy that solves the task (None if the task has none).

        Positions come from the observation's accessibility tree or keyboard navigation, never from
        hard-coded coordinates.
        """
        return None

    def oracle(self, params: Mapping[str, Any]) -> Policy:
        """A policy that solves the task: the API oracle, else the GUI oracle."""
        if self.infeasible:
            return ScriptedPolicy(["fail()"])
        for kind in getattr(self, "oracles", ORACLE_KINDS):  # a task without ``id`` on its class may not declare
            policy = self.oracle_of_kind(kind, params)
            if policy is not None:
                return policy
        raise NotImplementedError(f"task {self.id!r} has no oracle")

    def oracle_of_kind(self, kind: str, params: Mapping[str, Any]) -> Policy | None:
        """The ``api`` or ``gui`` oracle for ``params``.

        Raises:
            ValueError: ``kind`` is not one of ``ORACLE_KINDS``.
        """
        if kind not in ORACLE_KINDS:
            raise ValueError(f"oracle kind {kind!r} is not one of {ORACLE_KINDS}")
        return self.api_oracle(params) if kind == "api" else self.gui_oracle(params)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        """Parameters with exactly one value the oracle uses made wrong.

        The env is set up with the true ``params``; an oracle built from the perturbed ones must then
        fail the verifier (the proof that the verifier checks that value).
        """
        raise NotImplementedError(f"task {self.id!r} does not define perturb()")

    def perturbed_oracle(self, params: Mapping[str, Any], rng: np.random.Generator) -> Policy:
        """The oracle playing with one wrong value; the verifier must reject its result."""
        if self.infeasible:
            return ScriptedPolicy(["exit(success=True)"])
        return self.oracle(self.perturb(params, rng))


def null_policy(observation: Mapping[str, Any]) -> str:
    """The null agent: declares it is done without touching anything."""
    return "done()"
