"""What a task is: metadata as data, plus small lifecycle hooks (sample, set up, verify, oracle)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..errors import GuestFileNotFoundError, TaskSetupError  # noqa: F401 - TaskSetupError re-exported
from ..verifiers.result import VerifierResult

if TYPE_CHECKING:
    from ..guest.client import GuestClient

Policy = Callable[[Mapping[str, Any]], str]


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
    ``oracle``. All randomness comes from the RNG the env passes in, so the same seed gives the
    same task, byte for byte.
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
        policy = self.api_oracle(params)
        if policy is None:
            policy = self.gui_oracle(params)
        if policy is None:
            raise NotImplementedError(f"task {self.id!r} has no oracle")
        return policy

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


class ScriptedPolicy:
    """Plays a fixed list of action texts, then ``done()`` forever."""

    def __init__(self, actions: Sequence[str]) -> None:
        self._actions = list(actions)
        self._index = 0

    def __call__(self, observation: Mapping[str, Any]) -> str:
        if self._index < len(self._actions):
            self._index += 1
            return self._actions[self._index - 1]
        return "done()"


def null_policy(observation: Mapping[str, Any]) -> str:
    """The null agent: declares it is done without touching anything."""
    return "done()"
