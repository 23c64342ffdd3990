"""Workflow tier, files in a terminal: a log triaged into reports and archived, and a Downloads folder
sorted into invoices and pictures with an index and the partial downloads deleted.

Each family needs three or more distinct operations (filter, count, write, make folders, move,
delete) in one xterm; API oracles run one shell command per operation, GUI oracles type them. Verifiers read only
files (every moved file must arrive unchanged and leave its old place), so the proofs are cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_file_absent, verify_text_file
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .os_base import PLACES, TerminalTask, distinct_words, typed_commands

LEVELS = ("INFO", "WARN", "ERROR")
EVENTS = (
    "disk usage at 71 percent", "cache rebuilt", "request timed out", "user login", "job queued",
    "connection reset by peer", "backup finished", "retrying upload", "config reloaded", "slow query",
)  # fmt: skip


def moved_unchanged(
    ctx: TaskContext, moves: Mapping[str, str], contents: Mapping[str, str]
) -> dict[str, VerifierResult]:
    """Checks that each ``source -> destination`` move happened: the content arrived, the source is gone."""
    checks: dict[str, VerifierResult] = {}
    for source, destination in moves.items():
        checks[f"{destination} arrived"] = verify_text_file(ctx.read_file(destination), contents[source], strip=False)
        checks[f"{source} gone"] = verify_file_absent(ctx.read_file(source))
    return checks


class ShellWorkflow(TerminalTask):
    """A terminal workflow done by shell commands, one per operation: run by ``OSTools`` (API) or typed (GUI)."""

    def commands(self, params: Mapping[str, Any]) -> list[str]:
        """The shell commands that do the task, one per operation."""
        raise NotImplementedError

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        calls = [f"OSTools.run_shell(command={command!r})" for command in self.commands(params)]
        return ScriptedPolicy([*calls, "exit(success=True)"])

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return typed_commands(*self.commands(params))


class LogTriage(ShellWorkflow):
    """Copy the ERROR lines into a report, count the WARN lines into a summary, archive the log by date."""

    id = "workflow.log_triage"
    instruction_template = (
        "Use the terminal to triage the log {log}: create the folder ~/reports; copy every line of the log that "
        "contains ERROR, in their order, into ~/reports/errors.txt; write the number of log lines that contain "
        'WARN into ~/reports/summary.txt as the single line "warnings: N"; then move the log into the folder '
        "~/logs/archive (create it), renamed {archived_name}."
    )
    oracles = ("api", "gui")
    tags = ("workflow", "os", "terminal", "files", "domain:os")
    max_steps = 20

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(8, 14))
        levels = [*LEVELS, *(str(level) for level in rng.choice(LEVELS, size=count - len(LEVELS)))]
        rng.shuffle(levels)
        lines = [
            f"2026-03-{day:02d} 0{hour}:{minute:02d} {level} {rng.choice(EVENTS)}"
            for day, hour, minute, level in zip(
                sorted(int(d) for d in rng.integers(1, 29, size=count)),
                rng.integers(0, 10, size=count),
                rng.integers(0, 60, size=count),
                levels,
                strict=True,
            )
        ]
        service = str(rng.choice(PLACES))
        stamp = f"2026-04-{int(rng.integers(1, 29)):02d}"
        return {"log": f"~/logs/{service}.log", "lines": lines, "archived_name": f"{service}-{stamp}.log"}

    @staticmethod
    def log_text(params: Mapping[str, Any]) -> str:
        return "\n".join(params["lines"]) + "\n"

    def input_files(self, params: dict) -> dict[str, bytes]:
        return {params["log"]: self.log_text(params).encode()}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        errors = [line for line in p["lines"] if "ERROR" in line]
        warnings = sum("WARN" in line for line in p["lines"])
        moves = {p["log"]: f"~/logs/archive/{p['archived_name']}"}
        return all_of(
            {
                "errors report": verify_text_file(ctx.read_file("~/reports/errors.txt"), "\n".join(errors)),
                "summary": verify_text_file(ctx.read_file("~/reports/summary.txt"), f"warnings: {warnings}"),
                **moved_unchanged(ctx, moves, {p["log"]: self.log_text(p)}),
            }
        )

    def commands(self, params: Mapping[str, Any]) -> list[str]:
        log = params["log"]
        return [
            "mkdir -p ~/reports ~/logs/archive",
            f"grep ERROR {log} > ~/reports/errors.txt",
            f'echo "warnings: $(grep -c WARN {log})" > ~/reports/summary.txt',
            f"mv {log} ~/logs/archive/{params['archived_name']}",
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "archived_name": params["archived_name"].replace("2026-04", "2026-05")}


class DownloadsSort(ShellWorkflow):
    """Invoices into a new folder with a sorted index, pictures into ~/Pictures, partial downloads deleted."""

    id = "workflow.downloads_sort"
    instruction_template = (
        "Use the terminal to clean up ~/Downloads: move every .pdf file into the folder {invoices} (create it), "
        "move every .jpg file into ~/Pictures, delete every .part file, and write the names of the moved pdf "
        "files, one per line in alphabetical order, into {invoices}/index.txt."
    )
    oracles = ("api", "gui")
    tags = ("workflow", "os", "terminal", "files", "domain:os")
    max_steps = 20

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        words = distinct_words(rng, 7)
        pdfs = [f"invoice_{word}.pdf" for word in words[:3]]
        jpgs = [f"photo_{word}.jpg" for word in words[3:5]]
        parts = [f"setup_{word}.part" for word in words[5:]]
        return {"pdfs": pdfs, "jpgs": jpgs, "parts": parts, "invoices": "~/Documents/invoices"}

    @staticmethod
    def contents(params: Mapping[str, Any]) -> dict[str, str]:
        names = [*params["pdfs"], *params["jpgs"], *params["parts"]]
        return {f"~/Downloads/{name}": f"{name}: downloaded content\n" for name in names}

    def input_files(self, params: dict) -> dict[str, bytes]:
        return {path: text.encode() for path, text in self.contents(params).items()}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        moves = {f"~/Downloads/{name}": f"~/Documents/invoices/{name}" for name in p["pdfs"]}
        moves |= {f"~/Downloads/{name}": f"~/Pictures/{name}" for name in p["jpgs"]}
        checks = moved_unchanged(ctx, moves, self.contents(p))
        checks |= {f"{name} deleted": verify_file_absent(ctx.read_file(f"~/Downloads/{name}")) for name in p["parts"]}
        index = ctx.read_file("~/Documents/invoices/index.txt")
        checks["index"] = verify_text_file(index, "\n".join(sorted(p["pdfs"])))
        return all_of(checks)

    def commands(self, params: Mapping[str, Any]) -> list[str]:
        folder = params["invoices"]
        return [
            f"mkdir -p {folder} ~/Pictures",
            f"mv ~/Downloads/*.pdf {folder}/",
            "mv ~/Downloads/*.jpg ~/Pictures/",
            "rm -f ~/Downloads/*.part",
            f"(cd {folder} && ls *.pdf | sort > index.txt)",
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "invoices": "~/Documents/bills"}
