"""The sandbox: a desktop of its own where candidate API code and its tests run.

One :class:`Sandbox` is a ``LocalBackend`` desktop (its own Xvfb, window manager, session bus and
guest agent) with only the app under test open on a scratch document. Each run copies the
candidate module, its tests and :mod:`.sandbox_runner` into the desktop's home and starts the
runner through the guest's ``Exec`` (a separate process in the desktop's session, killed with its
process group after ``run_timeout_s``). Nothing of the candidate is imported into this process.

Verdicts (:class:`~desktop_gym.api_generators.models.SandboxRun`): ``passed``, ``failed``,
``hung`` (a test passed its time limit, or the whole run was killed), ``crashed`` (the runner died
without finishing), ``forbidden`` (wrote outside the home, started a process), ``invalid``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from desktop_gym.backends.local import LocalBackend
from desktop_gym.errors import SandboxError
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .models import SandboxRun, TestOutcome
from .targets import AppTarget

RUNNER_SOURCE = Path(__file__).resolve().parent / "sandbox_runner.py"
DEFAULT_TEST_TIMEOUT_S = 10.0
DEFAULT_RUN_TIMEOUT_S = 90.0
APP_START_TIMEOUT_S = 30.0
MAX_STDERR_CHARS = 800
_ADDRESS = re.compile(r"0x[0-9a-f]{6,}")


def verdict_of(
    events: list[dict[str, Any]], returncode: int, timed_out: bool, run_timeout_s: float, stderr: str
) -> SandboxRun:
    """Turn the runner's event lines and exit status into a :class:`SandboxRun`."""
    run = SandboxRun()
    expected: list[str] = []
    for event in events:
        kind = event.get("event")
        if kind == "loaded":
            expected = list(event.get("tests", []))
        elif kind == "test":
            run.outcomes.append(
                TestOutcome(event["name"], bool(event["passed"]), event.get("error", ""), event.get("seconds", 0.0))
            )
        elif kind == "forbidden" and run.verdict != "forbidden":
            run.verdict, run.reason = "forbidden", event["what"]
        elif kind == "invalid":
            run.verdict, run.reason = "invalid", f"the candidate or its tests do not load: {event['error']}"
    if run.verdict in ("forbidden", "invalid"):
        return run
    finished = any(event.get("event") == "done" for event in events)
    running = expected[len(run.outcomes)] if len(run.outcomes) < len(expected) else "?"
    if timed_out:
        run.verdict = "hung"
        run.reason = f"the test run was killed after {run_timeout_s:g} s (stuck in {running})"
        run.outcomes.append(TestOutcome(running, False, "hung: the whole run was killed"))
    elif not finished:
        run.verdict = "crashed"
        run.reason = f"the test process died with exit code {returncode} during {running}"
        if stderr.strip():
            run.reason += f": {stderr.strip()[-MAX_STDERR_CHARS:]}"
        run.outcomes.append(TestOutcome(running, False, f"crashed (exit code {returncode})"))
    elif any(o.error.startswith("hung:") for o in run.outcomes):
        stuck = next(o for o in run.outcomes if o.error.startswith("hung:"))
        run.verdict, run.reason = "hung", f"{stuck.name}: {stuck.error}"
    elif not run.outcomes:
        run.verdict, run.reason = "invalid", "no test ran"
    elif all(o.passed for o in run.outcomes):
        run.verdict = "passed"
    else:
        failed = [o.name for o in run.outcomes if not o.passed]
        run.verdict, run.reason = "failed", f"{len(failed)} of {len(run.outcomes)} tests failed: {', '.join(failed)}"
    return run


class Sandbox:
    """A desktop with only the target app open, for running candidates (use as a context manager).

    Args:
        target: The app and the class under generation.
        test_timeout_s: Limit per test.
        run_timeout_s: Limit for one candidate's whole run (the process group is killed after it).
    """

    def __init__(
        self,
        target: AppTarget,
        test_timeout_s: float = DEFAULT_TEST_TIMEOUT_S,
        run_timeout_s: float = DEFAULT_RUN_TIMEOUT_S,
    ) -> None:
        self.target = target
        self.test_timeout_s, self.run_timeout_s = test_timeout_s, run_timeout_s
        self.backend: LocalBackend | None = None
        self.client: GuestClient | None = None
        self.home = ""
        self.runs = 0

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the desktop and open the app on the scratch document.

        Raises:
            SandboxError: the desktop or the app did not start (the cause is in the message).
        """
        self.backend = LocalBackend()
        try:
            handle = self.backend.start()
            self.client = GuestClient(handle.address, handle.token)
            self.home = str(handle.info["home"])
            self.client.put_file(f"~/{self.target.scratch_file}", b"")
            self._open_app()
        except Exception as exc:
            self.close()
            raise SandboxError(f"the sandbox desktop did not start: {exc}") from exc

    def _open_app(self) -> None:
        assert self.client is not None
        self.client.kill_apps()
        self.client.launch_app(self.target.app, file=f"~/{self.target.scratch_file}", timeout=APP_START_TIMEOUT_S)

    def _ensure_app(self) -> None:
        """Reopen the app if a previous candidate left it dead (each candidate starts alike)."""
        assert self.client is not None
        if not any(app.app == self.target.app and app.alive for app in self.client.apps()):
            self._open_app()

    def run(self, module_source: str, parse_test_functions: str) -> SandboxRun:
        """Run ``parse_test_functions`` against the tool class in ``module_source`` inside the desktop.

        Raises:
            SandboxError: the desktop died (not a verdict on the candidate).
        """
        if self.client is None or self.backend is None:
            raise SandboxError("the sandbox is not started (use it as a context manager)")
        self.runs += 1
        folder = f"~/apigen/run-{self.runs:03d}"
        started = time.monotonic()
        try:
            self._ensure_app()
            candidate = self.client.put_file(f"{folder}/candidate.py", module_source.encode("utf-8"))
            tests = self.client.put_file(f"{folder}/tests.py", parse_test_functions.encode("utf-8"))
            runner = self.client.put_file(f"{folder}/runner.py", RUNNER_SOURCE.read_bytes())
            result_path = f"{folder}/result.jsonl"
            command = [
                self.backend.guest_python, runner, "--candidate", candidate, "--tests", tests,
                "--result", str(Path(self.home) / result_path.removeprefix("~/")),
                "--tool-class", self.target.tool_class, "--home", self.home,
                "--test-timeout", str(self.test_timeout_s),
            ]  # fmt: skip
            result = self.client.exec(command, timeout=self.run_timeout_s, cwd=self.home)
            try:
                lines = self.client.get_file(result_path).decode("utf-8").splitlines()
            except GuestError:
                lines = []
        except GuestError as exc:
            raise SandboxError(f"the sandbox desktop failed during run {self.runs}: {exc}") from exc
        events = []
        for line in lines:
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                break  # the last line was cut by a kill
        run = verdict_of(events, result.returncode, result.timed_out, self.run_timeout_s, result.stderr)
        run.seconds = time.monotonic() - started
        return self._portable(run)

    def _portable(self, run: SandboxRun) -> SandboxRun:
        """Errors without what differs between sandboxes (the home's path, object addresses).

        They go into repair prompts: the same failure must give the same prompt, or a recording
        (and the content-hash cache) could not answer it.
        """

        def clean(text: str) -> str:
            return _ADDRESS.sub("0x...", text.replace(self.home, "~"))

        run.reason = clean(run.reason)
        for outcome in run.outcomes:
            outcome.error = clean(outcome.error)
        return run

    def close(self) -> None:
        """Stop the desktop and everything in it."""
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.backend is not None:
            self.backend.close()
            self.backend = None
