"""OS families that inspect or package files: the largest file, a CSV column, a .tar.gz of a folder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_tar_archive, verify_text_file
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .os_base import PLACES, WORDS, TerminalTask, distinct_words, shell_oracle, typed_commands
from .samples import distinct_ints

FIRST_NAMES = ("Ada", "Alan", "Barbara", "Edsger", "Grace", "Ken", "Linus", "Margaret", "Niklaus", "Radia")
CSV_COLUMNS = ("id", "name", "city", "score")


class LargestFile(TerminalTask):
    """Find the largest file in a folder and write its name into a file."""

    id = "os.largest_file"
    instruction_template = (
        "In the open terminal, find the largest file (in bytes) in ~/reports and write just its file name (for "
        "example notes.log) as the only line of ~/largest.txt."
    )
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(5, 8))
        names = [f"{word}.log" for word in distinct_words(rng, count)]
        sizes = distinct_ints(rng, 200, 20000, count)
        return {"files": dict(zip(names, sizes, strict=True))}

    def input_files(self, params: dict) -> dict[str, bytes]:
        line = b"2024-01-01 00:00:00 INFO service heartbeat ok\n"
        return {f"~/reports/{name}": (line * (size // len(line) + 1))[:size] for name, size in params["files"].items()}

    @staticmethod
    def _largest(params: Mapping[str, Any]) -> str:
        return max(params["files"], key=params["files"].get)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_text_file(ctx.read_file("~/largest.txt"), self._largest(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                f"OSTools.write_text_file(path='~/largest.txt', text={self._largest(params) + chr(10)!r})",
                "exit(success=True)",
            ]
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return typed_commands("ls -S ~/reports | head -n 1 > ~/largest.txt")

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # The runner-up becomes the largest: the oracle then names the wrong file.
        files = dict(params["files"])
        ranked = sorted(files, key=files.get, reverse=True)
        files[ranked[1]] = files[ranked[0]] + 1
        return {**params, "files": files}


class CsvColumn(TerminalTask):
    """Extract one column of a CSV file (without its header) into a text file with a command."""

    id = "os.csv_column"
    instruction_template = (
        "In the open terminal, write the values of the '{column}' column of ~/data/{stem}.csv (without the "
        "header) into ~/data/{column}.txt, one value per line, in the order they appear in the CSV file."
    )
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(5, 9))
        names = [str(n) for n in rng.choice(FIRST_NAMES, size=count, replace=False)]
        rows = [
            [str(100 + i), name, str(PLACES[int(rng.integers(len(PLACES)))]).title(), str(int(rng.integers(40, 100)))]
            for i, name in enumerate(names)
        ]
        index = int(rng.integers(1, len(CSV_COLUMNS)))  # name, city or score: never the id column
        return {
            "stem": f"{distinct_words(rng, 1)[0]}_scores",
            "column": CSV_COLUMNS[index],
            "field": index + 1,
            "rows": rows,
        }

    def input_files(self, params: dict) -> dict[str, bytes]:
        lines = [",".join(CSV_COLUMNS), *(",".join(row) for row in params["rows"])]
        return {f"~/data/{params['stem']}.csv": ("\n".join(lines) + "\n").encode()}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        index = CSV_COLUMNS.index(p["column"])
        expected = "\n".join(row[index] for row in p["rows"])
        return verify_text_file(ctx.read_file(f"~/data/{p['column']}.txt"), expected)

    def _command(self, params: Mapping[str, Any]) -> str:
        p = params
        return f"cut -d, -f{p['field']} ~/data/{p['stem']}.csv | tail -n +2 > ~/data/{p['column']}.txt"

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return shell_oracle(self._command(params))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return typed_commands(self._command(params))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # The neighbouring field: the oracle cuts the wrong column.
        return {**params, "field": params["field"] % len(CSV_COLUMNS) + 1}


class CompressFolder(TerminalTask):
    """Pack a project folder into a gzip-compressed tar archive."""

    id = "os.compress_folder"
    instruction_template = (
        "In the open terminal, compress the folder ~/projects/{project} into the gzip-compressed tar archive "
        "~/backups/{project}.tar.gz. The archive must contain the folder itself ({project}/...) with all its "
        "files."
    )
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        project, module, note = distinct_words(rng, 3, WORDS)
        files = {
            "README.md": f"# {project}\n\nBuild with make.\n",
            f"src/{module}.py": f"def {module}():\n    return {int(rng.integers(1, 1000))}\n",
            "docs/notes.txt": f"remember the {note} release\n",
        }
        return {"project": f"{project}_app", "files": files, "tar_flags": "-czf"}

    def input_files(self, params: dict) -> dict[str, bytes]:
        return {f"~/projects/{params['project']}/{path}": text.encode() for path, text in params["files"].items()}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        members = {f"{p['project']}/{path}": text for path, text in p["files"].items()}
        return verify_tar_archive(
            ctx.read_file(f"~/backups/{p['project']}.tar.gz"), list(members), contents=members, compression="gzip"
        )

    def _command(self, params: Mapping[str, Any]) -> str:
        p = params
        return (
            f"mkdir -p ~/backups && tar {p['tar_flags']} ~/backups/{p['project']}.tar.gz -C ~/projects {p['project']}"
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return shell_oracle(self._command(params))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return typed_commands(self._command(params))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # A plain (uncompressed) tar under the .tar.gz name: the verifier checks the compression.
        return {**params, "tar_flags": "-cf"}
