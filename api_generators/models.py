"""The records the stages pass along: requested functions, candidates, test runs, results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ExampleTask:
    """A task the API should make easy: a suite task id, or free text.

    Attributes:
        ref: The task id (``"os.editor_fix_config"``) or ``"text:<n>"`` for free text.
        instruction: One concrete instruction (the task's template filled with seed-0 parameters).
    """

    ref: str
    instruction: str


@dataclass(frozen=True)
class FunctionSpec:
    """One function the requirement analysis asks for.

    Attributes:
        name: The method name (``"replace_line"``), a Python identifier.
        signature: The parameter list with type hints and defaults, without ``self``
            (``"line_number: int, text: str"``).
        returns: The return annotation (``"str"``).
        docstring: The Google-style docstring (summary, ``Args:``, ``Returns:``).
        tasks: The example tasks that need it.
        reuse: An existing registry method that already does it (``"OSTools.read_text_file"``);
            then nothing is generated.
    """

    name: str
    signature: str
    returns: str
    docstring: str
    tasks: tuple[str, ...] = ()
    reuse: str = ""

    def header(self) -> str:
        """The ``def`` line, e.g. ``def replace_line(self, line_number: int, text: str) -> str:``."""
        params = f"self, {self.signature}" if self.signature.strip() else "self"
        return f"def {self.name}({params}) -> {self.returns}:"


@dataclass
class TestOutcome:
    """One generated test's result in the sandbox.

    Attributes:
        name: The test function.
        passed: Whether it passed.
        error: The failure: an assertion message, a traceback's last lines, or a sandbox verdict.
        seconds: Its run time.
    """

    __test__ = False  # not a pytest test class

    name: str
    passed: bool
    error: str = ""
    seconds: float = 0.0


@dataclass
class SandboxRun:
    """One candidate's run in the sandbox.

    Attributes:
        outcomes: Per test.
        verdict: ``"passed"``, ``"failed"`` (some test failed), or a rejection by the sandbox:
            ``"hung"``, ``"crashed"``, ``"forbidden"`` (touched files outside the home, started a
            process), ``"invalid"`` (the code does not load or has no tests).
        reason: Why, in one line, for anything but ``"passed"``.
        seconds: Wall time of the run.
    """

    outcomes: list[TestOutcome] = field(default_factory=list)
    verdict: str = "failed"
    reason: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def feedback(self, max_chars: int = 3000) -> str:
        """The failures as text for the repair prompt."""
        lines = [f"Sandbox verdict: {self.verdict}" + (f" ({self.reason})" if self.reason else "")]
        lines += [f"- {o.name}: {'passed' if o.passed else 'FAILED: ' + o.error}" for o in self.outcomes]
        text = "\n".join(lines)
        return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


@dataclass
class RoundResult:
    """One implement-or-repair round of one function."""

    round: int
    code: str
    run: SandboxRun
    llm_seconds: float = 0.0
    tokens: int = 0


@dataclass
class FunctionResult:
    """Everything that happened to one requested function.

    Attributes:
        spec: What was asked for.
        tests: The generated test code.
        rounds: Each round's code and sandbox result.
        status: ``"accepted"``, ``"rejected"``, ``"reused"`` (an existing method does it) or
            ``"duplicate"`` (accepted, then dropped at registration: the registry has it).
        reason: Why it ended so.
        seconds: Total time (LLM + sandbox).
        tokens: Total tokens of its LLM calls.
        unusable_replies: Replies no code or tests could be read from (cut), for the report.
    """

    spec: FunctionSpec
    tests: str = ""
    rounds: list[RoundResult] = field(default_factory=list)
    status: str = "rejected"
    reason: str = ""
    seconds: float = 0.0
    tokens: int = 0
    unusable_replies: list[str] = field(default_factory=list)

    @property
    def code(self) -> str:
        """The last round's code."""
        return self.rounds[-1].code if self.rounds else ""

    @property
    def repair_rounds(self) -> int:
        return max(0, len(self.rounds) - 1)

    def as_dict(self) -> dict[str, Any]:
        """For the JSON report."""
        return {
            "name": self.spec.name,
            "signature": self.spec.header(),
            "status": self.status,
            "reason": self.reason,
            "tasks": list(self.spec.tasks),
            "reuse": self.spec.reuse,
            "repair_rounds": self.repair_rounds,
            "seconds": round(self.seconds, 2),
            "tokens": self.tokens,
            "rounds": [
                {"round": r.round, "verdict": r.run.verdict, "reason": r.run.reason, "seconds": round(r.run.seconds, 2)}
                for r in self.rounds
            ],
        }
