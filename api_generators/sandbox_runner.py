"""Runs one candidate's generated tests INSIDE the sandbox desktop (a process of its own).

Started by :mod:`desktop_gym.api_generators.sandbox` through the guest's ``Exec`` in the
desktop's session (its display, its accessibility bus, ``HOME`` = the desktop's home); never
imported by the host. It loads the candidate module and the tests from files, then runs each test
on a fresh tool instance whose document has been emptied and saved, and writes one JSON line per
event to the result file as it goes, so a run killed mid-way still leaves what it saw.

Limits enforced here (the host adds a wall-clock limit over the whole process):
- each test gets ``--test-timeout`` seconds (an interval timer raises :class:`TestTimedOut`, a
  ``BaseException`` so ``except Exception`` in generated code cannot swallow it);
- an audit hook (PEP 578) refuses, and records, writing, creating, removing or renaming any path
  outside the home, and starting or signalling processes.

Lines written: ``{"event": "loaded"}``, ``{"event": "test", "name", "passed", "error", "seconds"}``,
``{"event": "forbidden", "what"}``, ``{"event": "invalid", "error"}``, ``{"event": "done"}``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
PATH_EVENTS = {
    "os.remove": 1,
    "os.rename": 2,
    "os.replace": 2,
    "os.rmdir": 1,
    "os.mkdir": 1,
    "os.chmod": 1,
    "os.chown": 1,
    "os.truncate": 1,
    "os.symlink": 2,
    "os.link": 2,
    "os.utime": 1,
    "shutil.rmtree": 1,
    "shutil.move": 2,
    "shutil.copyfile": 2,
}
"""Audit events that change a path -> how many leading arguments are paths."""
PROCESS_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.kill")
MAX_ERROR_CHARS = 1500


class TestTimedOut(BaseException):
    """A test ran past its time limit (a BaseException: generated ``except Exception`` cannot catch it)."""


class SandboxViolation(PermissionError):
    """The code under test did something the sandbox forbids."""


class Guard:
    """The audit hook: records and refuses writes outside ``home`` and process control."""

    def __init__(self, home: Path, report: Any) -> None:
        self.home = home.resolve()
        self.report = report
        self.armed = False
        self.violations: list[str] = []

    def _outside(self, path: Any) -> str | None:
        if isinstance(path, int) or path is None:
            return None
        try:
            resolved = Path(os.path.realpath(os.fsdecode(path)))
        except (TypeError, ValueError):
            return None
        return None if resolved == self.home or self.home in resolved.parents else str(resolved)

    def _refuse(self, what: str) -> None:
        self.violations.append(what)
        self.report({"event": "forbidden", "what": what})
        raise SandboxViolation(f"the sandbox forbids this: {what}")

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.armed:
            return
        if event == "open" and len(args) >= 3:
            path, mode, flags = args[0], args[1], args[2]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & WRITE_FLAGS
            )
            outside = self._outside(path) if writing else None
            if outside is not None:
                self._refuse(f"wrote to a file outside the home: {outside}")
        elif event in PATH_EVENTS:
            for path in args[: PATH_EVENTS[event]]:
                outside = self._outside(path)
                if outside is not None:
                    self._refuse(f"{event} on a path outside the home: {outside}")
        elif event.startswith(PROCESS_EVENTS):
            self._refuse(f"{event}: generated API code may not start or signal processes")


def _load(path: Path, name: str, extra: dict[str, Any] | None = None, rewrite: bool = False) -> ModuleType:
    """Import ``path`` as module ``name``; with ``rewrite``, asserts explain themselves as under pytest."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(extra or {})
    sys.modules[name] = module
    if not rewrite:
        spec.loader.exec_module(module)
        return module
    from _pytest.assertion.rewrite import rewrite_asserts

    source = path.read_bytes()
    tree = ast.parse(source, filename=str(path))
    rewrite_asserts(tree, source, str(path))
    exec(compile(tree, str(path), "exec"), module.__dict__)  # the generated tests, in the sandbox process
    return module


def _short_traceback(exc: BaseException) -> str:
    lines = traceback.format_exception(exc)
    text = "".join(lines[-6:]).strip()
    return text[-MAX_ERROR_CHARS:]


def _alarm(signum: int, frame: Any) -> None:
    raise TestTimedOut()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", required=True, type=Path)
    parser.add_argument("--tests", required=True, type=Path)
    parser.add_argument("--result", required=True, type=Path)
    parser.add_argument("--tool-class", required=True)
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--test-timeout", type=float, default=10.0)
    args = parser.parse_args(argv)
    sys.dont_write_bytecode = True
    out = args.result.open("w", encoding="utf-8", buffering=1)

    def report(event: dict[str, Any]) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    guard = Guard(args.home, report)
    sys.addaudithook(guard)
    try:
        import pytest  # noqa: F401 - the tests' pytest.raises; imported before the guard is armed

        from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError

        candidate = _load(args.candidate, "apigen_candidate")  # its base class brings sandbox_instance()
        tools_class = getattr(candidate, args.tool_class)
        shared = {"pytest": sys.modules["pytest"], "ApiArgumentError": ApiArgumentError, "ApiCallError": ApiCallError}
        tests = _load(args.tests, "apigen_tests", shared, rewrite=True)
        names = sorted(n for n in vars(tests) if n.startswith("test_") and callable(getattr(tests, n)))
        if not names:
            raise ValueError("the tests module defines no test_ functions")
    except BaseException as exc:
        report({"event": "invalid", "error": _short_traceback(exc)})
        return 2
    report({"event": "loaded", "tests": names})
    signal.signal(signal.SIGALRM, _alarm)
    for name in names:
        editor = tools_class.sandbox_instance(args.home)  # a fresh instance on an emptied, saved document
        started = time.monotonic()
        guard.armed = True
        error = ""
        try:
            signal.setitimer(signal.ITIMER_REAL, args.test_timeout)
            getattr(tests, name)(editor)
        except TestTimedOut:
            error = f"hung: did not return within {args.test_timeout:g} s"
        except AssertionError as exc:
            error = f"assertion failed: {str(exc)[:MAX_ERROR_CHARS]}" if str(exc) else _short_traceback(exc)
        except BaseException as exc:
            error = _short_traceback(exc)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            guard.armed = False
        report(
            {"event": "test", "name": name, "passed": not error, "error": error, "seconds": time.monotonic() - started}
        )
    report({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
