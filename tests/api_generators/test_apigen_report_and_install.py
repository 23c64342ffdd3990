"""apigen's report and install rules (issue 32): tokens are counted when the analysis fails, an
install never shrinks an installed module, and the output does not depend on the cwd's ruff config."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from desktop_gym.api_generators.llm import LLMReply
from desktop_gym.api_generators.pipeline import generate_api
from desktop_gym.api_generators.stages.register import format_source, public_methods, register
from desktop_gym.api_generators.targets import AppTarget, get_target


class UnusableAnalysisClient:
    """An LLM stand-in (named so) whose one reply is not the JSON the analysis asks for."""

    name = "stand-in:unusable analysis"

    def complete(self, messages, key: str, prefill: str = "") -> LLMReply:  # noqa: ANN001
        return LLMReply("I would rather not say.", prompt_tokens=812, completion_tokens=9)


def test_the_report_counts_the_tokens_of_an_analysis_that_failed(tmp_path: Path) -> None:
    run = generate_api("editor", ["text:Replace a word."], UnusableAnalysisClient(), tmp_path, show_progress=False)
    assert run.error.startswith("the analysis reply was unusable")
    numbers = json.loads((tmp_path / "report.json").read_text())
    assert numbers["tokens"] == 821
    assert "tokens 821" in (tmp_path / "report.md").read_text()


SOURCE = 'def f(a,b):\n    return {"first": a, "second": b, "third": [a, b, a, b, a, b, a, b, a, b, a, b]}\n'


def test_the_formatted_module_is_the_same_whatever_the_cwd_says(tmp_path: Path) -> None:
    plain, configured = tmp_path / "plain", tmp_path / "configured"
    plain.mkdir()
    configured.mkdir()
    (configured / "ruff.toml").write_text('line-length = 40\n[format]\nquote-style = "single"\nindent-style = "tab"\n')
    outputs = []
    for folder in (plain, configured):
        module = folder / "generated.py"
        module.write_text(SOURCE)
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            assert format_source(module)
        finally:
            os.chdir(cwd)
        outputs.append(module.read_bytes())
    assert outputs[0] == outputs[1], outputs[1].decode()
    assert b'"first"' in outputs[0] and b"\t" not in outputs[0]


@dataclasses.dataclass(frozen=True)
class TargetInFolder(AppTarget):
    """The editor target with its installed module and app spec in a test folder, not the package."""

    folder: Path = Path()

    @property
    def module_path(self) -> Path:
        return self.folder / "tools.py"

    @property
    def spec_path(self) -> Path:
        return self.folder / "__init__.py"


INSTALLED = "class EditorTools:\n" + "".join(f"    def m{i}(self) -> str:\n        return ''\n\n" for i in range(7))


def test_an_install_never_replaces_a_module_with_fewer_methods(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    from desktop_gym.api_generators.stages import register as register_stage

    monkeypatch.setattr(register_stage, "CASES_DIR", tmp_path / "cases")  # a failing install writes here, not the repo
    installed = tmp_path / "package"
    installed.mkdir()
    (installed / "tools.py").write_text(INSTALLED)
    target = TargetInFolder(**{f.name: getattr(get_target("editor"), f.name) for f in dataclasses.fields(AppTarget)})
    target = dataclasses.replace(target, folder=installed)
    registration = register(target, [], tmp_path / "out", "doc", install=True)  # a run that accepted nothing
    assert not registration.installed
    assert "has 7 methods and this run's has 0" in registration.install_refused
    assert (installed / "tools.py").read_text() == INSTALLED
    assert public_methods(registration.module, "EditorTools") == 0
