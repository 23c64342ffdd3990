"""The whole pipeline: analyse -> (implement -> tests -> execute -> repair)* -> deduplicate -> register.

:func:`generate_api` runs it for one app and writes the report; ``desktop-gym apigen`` is its CLI.
Progress shows per stage (tqdm on stderr).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from .llm import LLMClient, LLMReply
from .models import ExampleTask, FunctionResult, FunctionSpec, RoundResult, SandboxRun
from .parsing import MAX_FUNCTIONS, ReplyFormatError
from .report import write_report
from .sandbox import Sandbox
from .stages.analyse import analyse, example_tasks
from .stages.execute import execute
from .stages.implement import implement
from .stages.register import Registration, deduplicate, register
from .stages.repair import repair
from .stages.tests import generate_tests
from .targets import AppTarget, get_target

DEFAULT_REPAIR_ROUNDS = 2
MAX_REPAIR_ROUNDS = 5


@dataclass
class PipelineRun:
    """The outcome of one :func:`generate_api` run (what the report shows)."""

    target: AppTarget
    llm: str
    tasks: list[ExampleTask]
    results: list[FunctionResult] = field(default_factory=list)
    analysis_seconds: float = 0.0
    analysis_tokens: int = 0
    error: str = ""
    registration: Registration | None = None
    seconds: float = 0.0
    analysis_reply: str = ""
    """The analysis reply's text when it was unusable (shown in the report)."""
    drifted: list[str] = field(default_factory=list)
    """Recording keys replayed for a prompt that changed since the recording was sealed."""

    def count(self, status: str) -> int:
        return sum(1 for result in self.results if result.status == status)

    @property
    def attempted(self) -> list[FunctionResult]:
        """The functions the pipeline tried to generate (not the reused ones)."""
        return [r for r in self.results if r.status != "reused"]


def _tokens(reply: LLMReply) -> int:
    return reply.prompt_tokens + reply.completion_tokens


def _invalid(reason: str) -> SandboxRun:
    return SandboxRun(verdict="invalid", reason=reason)


def build_function(
    client: LLMClient, sandbox: Sandbox, spec: FunctionSpec, repair_rounds: int, progress: tqdm | None = None
) -> FunctionResult:
    """Implement, test and repair one function until its tests pass or the rounds run out."""
    target = sandbox.target
    result = FunctionResult(spec)
    started = time.monotonic()

    def stage(name: str) -> None:
        if progress is not None:
            progress.set_postfix_str(f"{spec.name}: {name}")

    stage("tests")
    try:
        result.tests, _, reply = generate_tests(client, target, spec)
        result.tokens += _tokens(reply)
    except ReplyFormatError as exc:
        result.reason = f"no usable tests: {exc}"
        result.unusable_replies.append(exc.reply)
        result.seconds = time.monotonic() - started
        return result
    code = ""
    for round_number in range(repair_rounds + 1):
        stage("implement" if round_number == 0 else f"repair {round_number}")
        llm_started = time.monotonic()
        try:
            if round_number == 0:
                code, reply = implement(client, target, spec)
            else:
                code, reply = repair(client, target, spec, code, result.tests, result.rounds[-1].run, round_number)
        except ReplyFormatError as exc:
            result.rounds.append(RoundResult(round_number, code, _invalid(f"unusable reply: {exc}")))
            result.unusable_replies.append(exc.reply)
            continue
        llm_seconds = time.monotonic() - llm_started
        result.tokens += _tokens(reply)
        stage(f"execute (round {round_number})")
        run = execute(sandbox, spec, code, result.tests)
        result.rounds.append(RoundResult(round_number, code, run, llm_seconds, _tokens(reply)))
        if run.passed:
            result.status, result.reason = "accepted", f"all {len(run.outcomes)} tests passed in round {round_number}"
            break
    else:
        last = result.rounds[-1].run if result.rounds else _invalid("no round ran")
        result.reason = f"still {last.verdict} after {repair_rounds} repair rounds: {last.reason}"
    result.seconds = time.monotonic() - started
    return result


def generate_api(
    app: str,
    task_refs: list[str],
    client: LLMClient,
    out_dir: str | Path,
    repair_rounds: int = DEFAULT_REPAIR_ROUNDS,
    install: bool = False,
    show_progress: bool = True,
    analysis_client: LLMClient | None = None,
    max_functions: int = MAX_FUNCTIONS,
) -> PipelineRun:
    """Generate ``app``'s API from example tasks, test it in a sandbox desktop, register what passed.

    Args:
        app: The app key (see :data:`~desktop_gym.api_generators.targets.TARGETS`).
        task_refs: Task ids or ``text:<instruction>``.
        client: The LLM backend.
        out_dir: Where the module, its test cases and the report (``report.md/.html/.json``) go.
        repair_rounds: Repair rounds per function after the first implementation (at most 5).
        install: Also copy the module into the package and add its registry entry.
        show_progress: Show tqdm bars per stage.
        analysis_client: Another backend for the requirement analysis (default: ``client``), e.g. a
            recording's analysis with the offline model implementing.
        max_functions: Generate at most this many functions (the first ones the analysis asked for).

    Returns:
        The run (also written as the report).

    Raises:
        ValueError: ``repair_rounds`` out of range.
        UnknownTargetError, TaskReferenceError: a bad ``app`` or task reference.
    """
    if not 0 <= repair_rounds <= MAX_REPAIR_ROUNDS:
        raise ValueError(f"repair_rounds must be between 0 and {MAX_REPAIR_ROUNDS}, got {repair_rounds}")
    if not 1 <= max_functions <= MAX_FUNCTIONS:
        raise ValueError(f"max_functions must be between 1 and {MAX_FUNCTIONS}, got {max_functions}")
    out = Path(out_dir)
    target = get_target(app)
    started = time.monotonic()
    llm = client.name if analysis_client is None else f"{client.name}; analysis: {analysis_client.name}"
    run = PipelineRun(target, llm, example_tasks(task_refs))
    try:
        with tqdm(total=1, desc="analyse", disable=not show_progress, leave=True) as bar:
            analysis_started = time.monotonic()
            try:
                specs, reply = analyse(analysis_client or client, target, run.tasks)
            finally:
                run.analysis_seconds = time.monotonic() - analysis_started
            run.analysis_tokens = _tokens(reply)
            bar.update(1)
        run.results = [
            FunctionResult(spec, status="reused", reason=f"reuses {spec.reuse}") for spec in specs if spec.reuse
        ]
        todo = [spec for spec in specs if not spec.reuse][:max_functions]
        with Sandbox(target) as sandbox, tqdm(todo, desc="functions", disable=not show_progress) as bar:
            for spec in bar:
                run.results.append(build_function(client, sandbox, spec, repair_rounds, bar))
        with tqdm(total=1, desc="register", disable=not show_progress) as bar:
            accepted = deduplicate(target, run.results)
            doc = (
                f"``{target.tool_class}``: {target.title}, an API generated by ``desktop-gym apigen``.\n\n"
                f"LLM: {client.name}.\nExample tasks: {', '.join(t.ref for t in run.tasks)}.\n"
                "Each method passed its generated tests in a sandbox desktop; the run's report says how."
            )
            run.registration = register(target, accepted, out, doc, install=install)
            bar.update(1)
    except ReplyFormatError as exc:
        run.error = f"the analysis reply was unusable: {exc}"
        run.analysis_reply = exc.reply
        run.analysis_tokens = run.analysis_tokens or exc.tokens
    run.drifted = [*getattr(client, "drifted", []), *getattr(analysis_client, "drifted", [])]
    run.seconds = time.monotonic() - started
    write_report(run, out)
    return run
