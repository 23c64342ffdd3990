"""VS Code workspace and extension families: rename an identifier across the project's Python files,
edit a config file, open a file, open a folder, install an extension from a .vsix, uninstall one.

Verifiers read the project's files byte for byte, the live workbench (folder, active editor), and
code-server's extension record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...apps.vscode.vsix import vsix_bytes
from ...verifiers import verify_text_file, verify_vscode_extensions, verify_vscode_workbench
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .vscode_base import EXTENSIONS_RECORD, IDENTIFIERS, PROJECTS, VSCodeTask, install_vsix, project_files, vscode_call

#: Extensions a task installs or removes: (publisher, name, display name).
EXTENSIONS = (
    ("gymtools", "tidy-notes", "Tidy Notes"),
    ("gymtools", "line-counter", "Line Counter"),
    ("acme", "todo-lens", "TODO Lens"),
    ("acme", "json-sorter", "JSON Sorter"),
    ("devkit", "quick-docs", "Quick Docs"),
    ("devkit", "color-names", "Color Names"),
)
#: The project files a family may open (relative to the project).
OPENABLE = ("app/core.py", "app/config.py", "tests/test_core.py", "README.md")


def _files_match(ctx: TaskContext, expected: Mapping[str, str]) -> VerifierResult:
    project = VSCodeTask.project(ctx.params)
    for relative, text in expected.items():
        result = verify_text_file(ctx.read_file(f"{project}/{relative}"), text, strip=False)
        if not result.success:
            return VerifierResult.failed(f"{relative}: {result.reason}", file=relative)
    return VerifierResult.passed(f"{', '.join(expected)} hold the expected text")


class RenameIdentifier(VSCodeTask):
    """An identifier renamed in every Python file of the project (search and replace across files)."""

    id = "vscode.rename_identifier"
    oracles = ("api",)
    goal = (
        "In the project {folder} open in VS Code, rename '{identifier}' to '{new_name}' in every Python file "
        "(definition and uses); change nothing else."
    )
    tags = ("vscode", "code", "search")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        identifier, new_name = pick(rng, IDENTIFIERS, 2)
        project = pick(rng, PROJECTS)
        return {"project": project, "folder": f"~/{project}", "identifier": identifier, "new_name": new_name}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        renamed = project_files(ctx.params["project"], ctx.params["new_name"])
        return _files_match(ctx, {k: v for k, v in renamed.items() if k.endswith(".py")})

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = vscode_call(
            "replace_in_files", text=params["identifier"], replacement=params["new_name"], include="*.py"
        )
        return api_calls(call)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "new_name": params["new_name"] + "s"}


class EditConfig(VSCodeTask):
    """Two values changed in the project's config module, the rest of the file kept."""

    id = "vscode.edit_config"
    oracles = ("api",)
    goal = "In VS Code, edit {folder}/app/config.py: turn DEBUG off (False) and set PORT to {port}. Save the file."
    tags = ("vscode", "code", "edit")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        project = pick(rng, PROJECTS)
        return {"project": project, "folder": f"~/{project}", "port": int(rng.integers(3000, 9999))}

    def start_file(self, params: Mapping[str, Any]) -> str:
        return f"{self.project(params)}/app/config.py"

    def verify(self, ctx: TaskContext) -> VerifierResult:
        text = f"DEBUG = False\nPORT = {ctx.params['port']}\nNAME = {ctx.params['project']!r}\n"
        return _files_match(ctx, {"app/config.py": text})

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        path = f"{self.project(params)}/app/config.py"
        return api_calls(
            vscode_call("edit_file", path=path, old_text="DEBUG = True", new_text="DEBUG = False"),
            vscode_call("edit_file", path=path, old_text="PORT = 8000", new_text=f"PORT = {params['port']}"),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "port": params["port"] + 1}


class _OpenInWorkbench(VSCodeTask):
    """Open one path of a sampled project in the workbench; the classes differ only in data."""

    #: the parameter holding the path to open
    target: ClassVar[str]
    #: the project-relative paths the target is drawn from
    choices: ClassVar[tuple[str, ...]]
    #: the VS Code API call that opens the path
    call: ClassVar[str]
    #: the ``verify_vscode_workbench`` argument that must equal the path
    field: ClassVar[str]

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        project = pick(rng, PROJECTS)
        return {"project": project, self.target: f"~/{project}/{pick(rng, self.choices)}"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vscode_workbench(self.workbench(ctx), **{self.field: ctx.params[self.target]})

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vscode_call(self.call, path=params[self.target]))


class OpenFile(_OpenInWorkbench):
    """A file of the project in the active editor."""

    id = "vscode.open_file"
    oracles = ("api",)
    goal = "Open the file {path} in the VS Code editor (it should be the active editor)."
    tags = ("vscode", "navigation")
    target, choices, call, field = "path", OPENABLE, "open_file", "active_file"

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [f"~/{params['project']}/{name}" for name in OPENABLE]
        return {**params, "path": pick(rng, [p for p in others if p != params["path"]])}


class OpenFolder(_OpenInWorkbench):
    """Another folder as the workspace."""

    id = "vscode.open_folder"
    oracles = ("api",)
    goal = "Make VS Code show the folder {folder} as its workspace."
    tags = ("vscode", "navigation")
    target, choices, call, field = "folder", ("app", "tests"), "open_folder", "folder"

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "folder": self.project(params)}


class ExtensionTask(VSCodeTask):
    """A task on the user's extensions: two .vsix files in ~/Downloads (``chosen`` and a decoy)."""

    tags = ("vscode", "extensions")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        chosen, decoy = (list(e) for e in pick(rng, EXTENSIONS, 2))
        version = f"{int(rng.integers(1, 4))}.{int(rng.integers(0, 10))}.{int(rng.integers(0, 10))}"
        return {
            "project": pick(rng, PROJECTS),
            "chosen": chosen,
            "decoy": decoy,
            "version": version,
            "id": f"{chosen[0]}.{chosen[1]}",
            "decoy_id": f"{decoy[0]}.{decoy[1]}",
            "display": chosen[2],
            "file": f"~/Downloads/{chosen[1]}-{version}.vsix",
            "decoy_file": f"~/Downloads/{decoy[1]}-{version}.vsix",
        }

    def prepare(self, ctx: TaskContext) -> None:
        version = ctx.params["version"]
        for key in ("chosen", "decoy"):
            publisher, name, display = ctx.params[key]
            path = ctx.params["file" if key == "chosen" else "decoy_file"]
            ctx.client.put_file(path, vsix_bytes(publisher, name, version, display, f"{display}, for the gym."))


class InstallExtension(ExtensionTask):
    """An extension installed from its .vsix (offline), the decoy not."""

    id = "vscode.install_extension"
    oracles = ("api",)
    goal = (
        "Install the VS Code extension '{display}' from its .vsix file in ~/Downloads (the marketplace is "
        "offline). Do not install other extensions."
    )

    def verify(self, ctx: TaskContext) -> VerifierResult:
        installed = {ctx.params["id"]: ctx.params["version"]}
        return verify_vscode_extensions(
            ctx.read_file(EXTENSIONS_RECORD), installed=installed, absent=[ctx.params["decoy_id"]]
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vscode_call("install_extension", vsix_path=params["file"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "file": params["decoy_file"]}


class UninstallExtension(ExtensionTask):
    """One of two installed extensions uninstalled."""

    id = "vscode.uninstall_extension"
    oracles = ("api",)
    goal = "Uninstall the VS Code extension '{display}' ({id}); keep the other installed extension."

    def prepare(self, ctx: TaskContext) -> None:
        super().prepare(ctx)
        install_vsix(ctx, ctx.params["file"])
        install_vsix(ctx, ctx.params["decoy_file"])

    def verify(self, ctx: TaskContext) -> VerifierResult:
        kept = {ctx.params["decoy_id"]: ctx.params["version"]}
        return verify_vscode_extensions(ctx.read_file(EXTENSIONS_RECORD), installed=kept, absent=[ctx.params["id"]])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vscode_call("uninstall_extension", extension_id=params["id"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "id": params["decoy_id"]}
