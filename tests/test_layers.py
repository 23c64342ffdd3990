"""The layers as the tree shows them: core <- apps <- serve <- train / eval / web.

A module may import its own layer and the ones below it, never one above: the env, actions, tasks,
verifiers, guest, backends, trajectories and prompts are the core; each app folder under
``desktop_gym/apps/<key>/`` is an app (and imports no other app); the env server sits on both; the
trainer, evaluation, web UI, local models, agents, API generation and the command line sit on top.
Imports under ``if TYPE_CHECKING:`` do not count (they never run).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "desktop_gym"
LAYERS = ("core", "apps", "serve", "top")
TOP = ("train", "evaluation", "web", "llm", "agents", "api_generators")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "apps" and (PACKAGE / "apps" / parts[2]).is_dir():
        return "apps"
    if len(parts) > 1 and parts[1] == "serve":
        return "serve"
    if len(parts) > 1 and (parts[1] in TOP or parts[1] == "cli" or parts[1].startswith("cli_")):
        return "top"
    return "core"


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def imports_of(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every desktop_gym module ``path`` imports (at any depth, outside TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    skipped = _type_checking_lines(tree)
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            names = [f"{target}.{alias.name}" for alias in node.names]
            found += [(node.lineno, name if _is_module(name) else target) for name in names]
    return [(line, name) for line, name in found if name.split(".")[0] == "desktop_gym"]


def _is_module(name: str) -> bool:
    relative = Path(*name.split("."))
    return (REPO / relative).with_suffix(".py").exists() or (REPO / relative / "__init__.py").exists()


def _sources() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if "protos" not in p.parts]


def test_no_layer_imports_a_higher_one() -> None:
    upward = []
    for path in _sources():
        own = module_name(path)
        for line, target in imports_of(path):
            if LAYERS.index(layer(target)) > LAYERS.index(layer(own)):
                upward.append(f"{path.relative_to(REPO)}:{line} ({layer(own)}) imports {target} ({layer(target)})")
    assert upward == [], "\n".join(upward)


def test_an_app_imports_no_other_app() -> None:
    crossing = []
    for path in _sources():
        own = module_name(path)
        if layer(own) != "apps":
            continue
        for line, target in imports_of(path):
            if layer(target) == "apps" and target.split(".")[2] != own.split(".")[2]:
                crossing.append(f"{path.relative_to(REPO)}:{line} imports {target}")
    assert crossing == [], "\n".join(crossing)


def test_the_host_env_path_needs_no_x_libraries() -> None:
    code = (
        "import json, sys\nimport desktop_gym.env, desktop_gym.serve.server, desktop_gym.serve.client\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('Xlib', 'mss', 'pyatspi'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == []


def test_the_layer_rule_sees_an_upward_import(tmp_path: Path) -> None:
    """The checks above would pass on nothing: an import of the trainer from the env is caught."""
    assert layer("desktop_gym.env") == "core" and layer("desktop_gym.train.trainer") == "top"
    assert layer("desktop_gym.apps.calc.tools") == "apps" and layer("desktop_gym.apps.spec") == "core"
    assert layer("desktop_gym.serve.client") == "serve" and layer("desktop_gym.cli_train") == "top"
    assert [t for _, t in imports_of(PACKAGE / "cli_train.py")] and any(
        t.startswith("desktop_gym.train") for _, t in imports_of(PACKAGE / "cli_train.py")
    )
