"""Fail the run on a skip that is not on the allowlist (``tests/skip_allowlist.txt``).

A test must not skip for something ``scripts/install.sh`` brings. The policy is on when
``DESKTOP_GYM_SKIP_ALLOWLIST`` names the allowlist file (``scripts/test.sh`` sets it for the core
run); each allowlist line is ``<node id glob> | <reason substring> | <why it may skip>``.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

ALLOWLIST_ENV = "DESKTOP_GYM_SKIP_ALLOWLIST"
MAX_ALLOWLIST_LINES = 50

_skipped: list[tuple[str, str]] = []


@dataclass(frozen=True)
class AllowedSkip:
    """One allowlist line."""

    node_glob: str
    reason_part: str
    why: str

    def matches(self, node_id: str, reason: str) -> bool:
        return fnmatch.fnmatch(node_id, self.node_glob) and self.reason_part in reason


def read_allowlist(path: Path) -> list[AllowedSkip]:
    """Parse the allowlist; comments (#) and blank lines are ignored.

    Raises:
        ValueError: a line without three ``|``-separated fields (naming the line), or too many lines.
    """
    entries: list[AllowedSkip] = []
    for number, line in enumerate(path.read_text().split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [field.strip() for field in line.split("|")]
        if len(fields) != 3 or not all(fields):
            raise ValueError(f"{path}:{number}: expected '<node id glob> | <reason substring> | <why>'")
        entries.append(AllowedSkip(*fields))
    if len(entries) > MAX_ALLOWLIST_LINES:
        raise ValueError(f"{path}: {len(entries)} allowed skips; the allowlist is meant to stay short")
    return entries


def unexpected_skips(skipped: list[tuple[str, str]], allowlist: list[AllowedSkip]) -> list[tuple[str, str]]:
    """The ``(node id, reason)`` pairs no allowlist line covers."""
    return [(node, reason) for node, reason in skipped if not any(a.matches(node, reason) for a in allowlist)]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        _skipped.append((report.nodeid, reason))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get(ALLOWLIST_ENV)
    if not path:
        return
    unexpected = unexpected_skips(_skipped, read_allowlist(Path(path)))
    if not unexpected:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", f"{len(unexpected)} skips not on {path}", red=True)
        for node, reason in unexpected:
            reporter.write_line(f"SKIPPED {node}: {reason}")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
