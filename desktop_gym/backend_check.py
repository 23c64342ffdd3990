"""``check_backend(backend)``: the conformance suite a backend must pass.

It drives a real desktop from the backend through the guest: start, a screenshot of the right size
with something on it, keyboard input reaching an app (typed into a terminal, read back from the
file the shell wrote), a non-empty accessibility tree, exec, file put/get, the env's reset path
restoring the initial state (a file written in the home is gone, earlier apps are dead), and close
leaving nothing running. Every check is timed; a failure is recorded, not raised, so one report
shows all that is wrong.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from desktop_gym.errors import BackendCheckError

from .backends import Backend, DesktopHandle, make_backend
from .guest.client import GuestClient
from .guest.types import GuestError
from .polling import poll_until

RESET_TASK = "starter.terminal_write_file"
POLL_INTERVAL_S = 0.05


@dataclass
class CheckResult:
    """One conformance check: its name, verdict, duration and what was seen."""

    name: str
    ok: bool
    seconds: float
    detail: str = ""


@dataclass
class BackendReport:
    """Every check run on one backend; ``ok`` when all passed."""

    backend: str
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(check.ok for check in self.checks)

    def failures(self) -> list[CheckResult]:
        return [check for check in self.checks if not check.ok]

    def summary(self) -> str:
        """One line per check: ``PASS/FAIL name (ms): detail``."""
        lines = [f"backend {self.backend}: {'PASS' if self.ok else 'FAIL'}"]
        for check in self.checks:
            verdict = "PASS" if check.ok else "FAIL"
            lines.append(f"  {verdict} {check.name:<12} {check.seconds * 1000:8.0f} ms  {check.detail}")
        return "\n".join(lines)

    def raise_for_failures(self) -> None:
        """Raise :class:`BackendCheckError` listing the failed checks, if any."""
        if not self.ok:
            raise BackendCheckError(self.summary())


def _wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``condition`` until truthy; ``TimeoutError`` naming ``what`` (with the last error) otherwise."""
    return poll_until(condition, timeout, what, interval=POLL_INTERVAL_S, retry_on=(GuestError, OSError))


class _Checker:
    def __init__(self, backend: Backend, timeout: float, reset_task: str) -> None:
        self.backend, self.timeout, self.reset_task = backend, timeout, reset_task
        self.report = BackendReport(backend=backend.name)
        self.handle: DesktopHandle | None = None
        self.client: GuestClient | None = None

    def run(self, name: str, check: Callable[[], str]) -> bool:
        started = time.perf_counter()
        try:
            detail, ok = check(), True
        except Exception as exc:  # noqa: BLE001 - every failure goes into the report
            detail, ok = f"{type(exc).__name__}: {exc}", False
        self.report.checks.append(CheckResult(name, ok, time.perf_counter() - started, detail))
        return ok

    # -- the checks ------------------------------------------------------------------------------

    def start(self) -> str:
        self.handle = self.backend.start()
        self.client = GuestClient(self.handle.address, token=self.handle.token, timeout=30.0)
        self.client.wait_ready(timeout=self.timeout)
        assert self.handle.is_alive(), "the handle reports the desktop dead right after start"
        return f"{self.handle.address}"

    def screenshot(self) -> str:
        assert self.client is not None and self.handle is not None
        self.client.launch_app("terminal", timeout=self.timeout)  # something on screen besides the root
        expected = (self.backend.screen_size[1], self.backend.screen_size[0], 3)
        shot = self.client.screenshot()
        assert shot.shape == expected, f"screenshot shape {shot.shape}, expected {expected}"
        assert (self.handle.height, self.handle.width) == expected[:2], (
            f"handle size {self.handle.width}x{self.handle.height}"
        )
        assert int(shot.max()) > int(shot.min()), "the screenshot is one flat colour with a terminal open"
        colours = len(np.unique(shot[::8, ::8].reshape(-1, 3), axis=0))
        return f"{shot.shape[1]}x{shot.shape[0]}, {colours} colours in a 1/8 sample"

    def input(self) -> str:
        assert self.client is not None
        token = secrets.token_hex(6)
        self.client.exec("rm -f ~/check_input.txt", shell=True)
        terminal = next(w for w in self.client.windows() if w.app == "xterm")
        self.client.activate_window(terminal.window_id)
        self.client.click(terminal.x + terminal.width // 2, terminal.y + terminal.height // 2)
        self.client.type_text(f"echo {token} > ~/check_input.txt\n")
        text = _wait_for(
            lambda: self.client.get_file("~/check_input.txt").decode().strip(),  # type: ignore[union-attr]
            self.timeout,
            "the typed command to write ~/check_input.txt",
        )
        assert text == token, f"the terminal wrote {text!r}, typed {token!r}"
        return f"typed {token!r} into xterm, read it back"

    def a11y(self) -> str:
        assert self.client is not None
        self.client.launch_app("editor", timeout=self.timeout)  # a gtk3 app: has an accessibility tree
        tree = _wait_for(lambda: self.client.a11y_tree().strip(), self.timeout, "a non-empty a11y tree")  # type: ignore[union-attr]
        return f"{len(tree.splitlines())} lines"

    def exec(self) -> str:
        assert self.client is not None
        home = self.client.ping()["home"]
        result = self.client.exec(["sh", "-c", 'echo "$HOME"; exit 3'])
        assert result.returncode == 3, f"exit code {result.returncode}, expected 3"
        assert result.stdout.strip() == home, f"$HOME is {result.stdout.strip()!r}, the guest says {home!r}"
        return f"HOME={home}"

    def files(self) -> str:
        assert self.client is not None
        data = secrets.token_bytes(200_000)
        path = self.client.put_file("~/check-files/blob.bin", data)
        back = self.client.get_file("~/check-files/blob.bin")
        assert back == data, f"read back {len(back)} bytes differing from the {len(data)} written"
        return f"{len(data)} bytes via {path}"

    def reset(self) -> str:
        """The env's reset path on this backend: the marker file and the earlier apps must be gone."""
        from .env import DesktopEnv

        assert self.client is not None
        self.client.put_file("~/reset-marker.txt", b"left by the previous episode")
        before = {app.pid for app in self.client.apps() if app.alive}
        env = DesktopEnv(task_id=self.reset_task, backend=self.backend, observation=("screenshot",))
        try:
            env.reset(seed=0)
            client = env.unwrapped.client
            leftover = client.exec(["sh", "-c", "test -e ~/reset-marker.txt && echo present"]).stdout.strip()
            assert not leftover, "~/reset-marker.txt survived the env reset"
            survivors = before & {app.pid for app in client.apps() if app.alive}
            assert not survivors, f"apps of the previous episode survived the env reset: {sorted(survivors)}"
        finally:
            env.close()  # the env does not own a backend instance: the desktop stays up
        reset_desktop = getattr(self.backend, "reset_desktop", None)
        if reset_desktop is None:
            return f"env reset ({self.reset_task})"
        assert self.client is not None
        self.client.put_file("~/reset-marker.txt", b"left by the previous episode")
        self.handle = reset_desktop()
        self.client.close()
        self.client = GuestClient(self.handle.address, token=self.handle.token, timeout=30.0)
        self.client.wait_ready(timeout=self.timeout)
        leftover = self.client.exec(["sh", "-c", "test -e ~/reset-marker.txt && echo present"]).stdout.strip()
        assert not leftover, "~/reset-marker.txt survived reset_desktop()"
        return f"env reset ({self.reset_task}) and reset_desktop()"

    def close(self) -> str:
        assert self.handle is not None
        handle = self.handle
        if self.client is not None:
            self.client.close()
            self.client = None
        self.backend.close()
        assert not handle.is_alive(), "the handle still reports the desktop alive after close"
        probe = GuestClient(handle.address, token=handle.token, timeout=1.0)
        try:
            probe.ping()
            raise AssertionError(f"the guest still answers at {handle.address} after close")
        except GuestError:
            pass
        finally:
            probe.close()
        leftovers = _leftovers(self.backend, handle)
        assert not leftovers, f"still running after close: {leftovers}"
        return "nothing left running"


def _leftovers(backend: Backend, handle: DesktopHandle) -> list[str]:
    """What a closed desktop left behind: session processes (local) or containers (container)."""
    if handle.info.get("backend") == "local" and handle.info.get("session"):
        from .backends.local import processes_with_marker

        return [f"pid {pid}" for pid in processes_with_marker(handle.info["session"])]
    if handle.info.get("container"):
        return list(backend.containers_named(handle.info["container"]))  # type: ignore[attr-defined]
    return []


def check_backend(
    backend: Backend | str, timeout: float = 60.0, reset_task: str = RESET_TASK, **kwargs: Any
) -> BackendReport:
    """Run the backend conformance checks on a real desktop and return the report.

    Args:
        backend: A backend instance (closed at the end) or a registered name (``"local"``, ``"container"``).
        timeout: Bound on each wait (app launch, readiness, typed text showing up).
        reset_task: A task whose env reset the ``reset`` check runs.
        **kwargs: Backend arguments when ``backend`` is a name.

    Returns:
        A :class:`BackendReport`; ``report.raise_for_failures()`` turns failures into an exception.
    """
    backend = make_backend(backend, **kwargs) if isinstance(backend, str) else backend
    checker = _Checker(backend, timeout, reset_task)
    try:
        if checker.run("start", checker.start):
            for name in ("screenshot", "input", "a11y", "exec", "files", "reset"):
                checker.run(name, getattr(checker, name))
            checker.run("close", checker.close)
    finally:
        if checker.client is not None:
            checker.client.close()
        backend.close()
    return checker.report
