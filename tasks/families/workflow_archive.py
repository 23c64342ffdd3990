"""Workflow tier, a terminal archive with a report: a project folder cleaned of temporary files, packed
into a dated gzip tar, listed in a manifest, and removed.

Four distinct operations (delete by pattern, archive, list, remove) in one xterm; the API oracle runs
one shell command per operation, the GUI oracle types them. The verifier reads only files: the
archive's members and their text, the manifest, and that the originals are gone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_file_absent, verify_tar_archive, verify_text_file
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .os_base import PLACES, distinct_words
from .workflow_files import ShellWorkflow


class ArchiveReport(ShellWorkflow):
    """Delete a project's .tmp files, pack it into a dated .tar.gz, list the archive, remove the folder."""

    id = "workflow.archive_report"
    instruction_template = (
        "Use the terminal to archive the project folder ~/project/{project}: first delete every .tmp file in it "
        "(subfolders too); then pack the folder into the gzip-compressed tar archive "
        "~/backups/{archive_name}.tar.gz (create ~/backups), with the folder itself at the top of the archive "
        "({project}/...); write the paths of the files in the archive, as stored in it and one per line in "
        "alphabetical order (no folder lines), into ~/backups/{archive_name}.txt; finally delete the folder "
        "~/project/{project}."
    )
    oracles = ("api", "gui")
    tags = ("workflow", "os", "terminal", "files", "archive", "domain:os")
    max_steps = 20

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        first, second, scratch, cache = distinct_words(rng, 4)
        project = f"{rng.choice(PLACES)}_site"
        # All lowercase, and the folder levels start with distinct letters: byte order (LC_ALL=C) and
        # the usual locale collation list the manifest the same way.
        kept = {
            "data.csv": f"day,visits\n1,{int(rng.integers(10, 99))}\n2,{int(rng.integers(10, 99))}\n",
            f"notes/{first}.txt": f"{first}: check the {second} page\n",
            f"notes/{second}.txt": f"{second}: {int(rng.integers(2, 9))} open items\n",
            "readme.md": f"{project} pages, built with make\n",
        }
        temporary = {f"{scratch}.tmp": "scratch\n", f"notes/{cache}.tmp": "cache\n"}
        stamp = f"2026-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}"
        return {"project": project, "kept": kept, "temporary": temporary, "archive_name": f"{project}-{stamp}"}

    def input_files(self, params: dict) -> dict[str, bytes]:
        files = {**params["kept"], **params["temporary"]}
        return {f"~/project/{params['project']}/{path}": text.encode() for path, text in files.items()}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        members = {f"{p['project']}/{path}": text for path, text in p["kept"].items()}
        base = f"~/backups/{p['archive_name']}"
        checks = {
            "archive": verify_tar_archive(ctx.read_file(f"{base}.tar.gz"), list(members), contents=members),
            "manifest": verify_text_file(ctx.read_file(f"{base}.txt"), "\n".join(sorted(members))),
        }
        for path in [*p["kept"], *p["temporary"]]:
            checks[f"{path} removed"] = verify_file_absent(ctx.read_file(f"~/project/{p['project']}/{path}"))
        return all_of(checks)

    def commands(self, params: Mapping[str, Any]) -> list[str]:
        folder, base = f"~/project/{params['project']}", f"~/backups/{params['archive_name']}"
        return [
            f"find {folder} -name '*.tmp' -delete",
            f"mkdir -p ~/backups && tar -czf {base}.tar.gz -C ~/project {params['project']}",
            f"tar -tzf {base}.tar.gz | grep -v '/$' | LC_ALL=C sort > {base}.txt",
            f"rm -r {folder}",
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "archive_name": params["archive_name"].replace("2026-", "2025-")}
