"""The stages without a desktop: task references, analysis against the registry, dedup, registration, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_gym.api_generators import prompting
from desktop_gym.api_generators.llm import RecordingClient
from desktop_gym.api_generators.models import FunctionResult, FunctionSpec, RoundResult, SandboxRun, TestOutcome
from desktop_gym.api_generators.pipeline import PipelineRun
from desktop_gym.api_generators.report import write_report
from desktop_gym.api_generators.stages.analyse import TaskReferenceError, analyse, example_tasks, existing_method
from desktop_gym.api_generators.stages.register import RegistrationError, add_registry_entry, deduplicate
from desktop_gym.api_generators.targets import AppTarget, UnknownTargetError, get_target

RECORDING = Path(__file__).resolve().parents[2] / "api_generators" / "recordings" / "editor_claude.json"
TARGET = get_target("editor")


def test_example_tasks_from_ids_and_free_text():
    tasks = example_tasks(["os.editor_fix_config", "text:Sort the lines.", "text:Save it."])
    assert tasks[0].ref == "os.editor_fix_config" and "port setting to" in tasks[0].instruction
    assert [t.ref for t in tasks[1:]] == ["text:1", "text:2"] and tasks[1].instruction == "Sort the lines."
    with pytest.raises(TaskReferenceError, match="no.such_task"):
        example_tasks(["no.such_task"])
    with pytest.raises(TaskReferenceError, match="at least one"):
        example_tasks([])


def test_unknown_target_names_the_targets():
    with pytest.raises(UnknownTargetError, match="targets: editor"):
        get_target("paint")


def test_prompts_fill_every_field_and_name_a_missing_one():
    messages = prompting.messages("repair", tool_class="T", library="L", code="C", tests="X", feedback="F", round=1)
    assert [m["role"] for m in messages] == ["system", "user"] and "round 1" in messages[1]["content"]
    with pytest.raises(prompting.PromptError, match="'feedback'"):
        prompting.messages("repair", tool_class="T", library="L", code="C", tests="X", round=1)


def test_analysis_from_the_recording_reuses_the_registry():
    client = RecordingClient(RECORDING)
    specs, _ = analyse(client, TARGET, example_tasks(json.loads(RECORDING.read_text())["tasks"]))
    # the analysis prompt lists OSTools: when its API grows, the recording replays with drift noted
    assert client.drifted in ([], ["analyse"])
    by_name = {spec.name: spec for spec in specs}
    assert by_name["read_text_file"].reuse == "OSTools.read_text_file"
    assert not by_name["set_config_value"].reuse and "os.editor_fix_config" in by_name["set_config_value"].tasks
    assert by_name["replace_text"].header() == "def replace_text(self, old: str, new: str, count: int = 0) -> str:"


def test_existing_method_matches_name_and_parameters_in_other_classes():
    same = FunctionSpec("read_text_file", "path: str, max_chars: int = 20000", "str", "Read.")
    other_params = FunctionSpec("read_text_file", "name: str", "str", "Read.")
    own_class = FunctionSpec("save", "", "str", "Save.")  # EditorTools.save: the target's own class is replaced
    assert existing_method(TARGET, same) == "OSTools.read_text_file"
    assert existing_method(TARGET, other_params) == ""
    assert existing_method(TARGET, own_class) == ""


def test_deduplicate_drops_registry_duplicates_and_repeats():
    def accepted(name, signature):
        return FunctionResult(FunctionSpec(name, signature, "str", "Doc."), status="accepted")

    results = [
        accepted("append_line", "text: str"),
        accepted("append_line", "text: str"),
        accepted("read_text_file", "path: str, max_chars: int = 20000"),
        FunctionResult(FunctionSpec("sort_lines", "", "str", "Doc."), status="rejected"),
    ]
    kept = deduplicate(TARGET, results)
    assert [r.spec.name for r in kept] == ["append_line"]
    assert results[1].status == "duplicate" and "earlier accepted" in results[1].reason
    assert results[2].status == "duplicate" and "OSTools.read_text_file" in results[2].reason
    assert results[3].status == "rejected"


def test_the_tool_class_is_named_once_in_its_apps_spec(tmp_path):
    table = tmp_path / "__init__.py"
    text = TARGET.spec_path.read_text()
    field = '    tools="EditorTools",\n'  # command_app("editor", ...): the class in the app's tools module
    assert text.count(field) == 1
    table.write_text(text.replace(field, ""))
    assert add_registry_entry(TARGET, table)
    assert not add_registry_entry(TARGET, table)
    assert table.read_text() == text, "the entry goes back where it was, inside the editor's spec"
    full = tmp_path / "full.py"  # an AppSpec(key=..., tools="module:Class") spec, as a plugin writes it
    full.write_text('SPEC = AppSpec(\n    key="editor",\n    launch="command",\n)\n')
    assert add_registry_entry(TARGET, full)
    assert 'tools="desktop_gym.apps.editor.tools:EditorTools",' in full.read_text()
    assert not add_registry_entry(TARGET, full)
    other = AppTarget(**{**TARGET.__dict__, "tool_class": "NotesTools", "module_name": "notes"})
    with pytest.raises(RegistrationError, match="already names another tool class"):
        add_registry_entry(other, table)
    unknown = AppTarget(**{**other.__dict__, "app": "notes"})
    with pytest.raises(RegistrationError, match='no AppSpec\\(key="notes"'):
        add_registry_entry(unknown, table)
    compile(table.read_text(), str(table), "exec")


def test_report_shows_each_round_and_the_numbers(tmp_path):
    spec = FunctionSpec("replace_text", "old: str, new: str", "str", "Replace.", ("text:1",))
    failed = SandboxRun([TestOutcome("test_all", False, "assertion failed: assert 'a' == 'b'")], "failed", "1 of 1")
    result = FunctionResult(
        spec,
        tests="def test_all(editor): ...",
        status="accepted",
        reason="passed in round 1",
        seconds=2.0,
        tokens=10,
        rounds=[
            RoundResult(0, "def replace_text(self): 0", failed),
            RoundResult(1, "def replace_text(self): 1", SandboxRun(verdict="passed")),
        ],
    )
    rejected = FunctionResult(
        FunctionSpec("undo", "", "str", "Undo."),
        status="rejected",
        reason="still hung",
        rounds=[RoundResult(0, "def undo(self): ...", SandboxRun(verdict="hung", reason="killed"))],
    )
    rejected.unusable_replies.append("I cannot write ```code``` today")
    run = PipelineRun(TARGET, "recording:x", example_tasks(["text:Replace."]), [result, rejected])
    numbers = write_report(run, tmp_path)
    assert numbers["acceptance_rate"] == 0.5 and numbers["mean_repair_rounds"] == 0.5
    markdown = (tmp_path / "report.md").read_text()
    assert "### Round 0: failed" in markdown and "assert 'a' == 'b'" in markdown and "### Round 1: passed" in markdown
    assert "| `undo` | rejected |" in markdown
    assert "### An unusable reply\n\n~~~~text\nI cannot write ```code``` today\n~~~~" in markdown
    assert "- `text:1`: Replace." in markdown
    page = (tmp_path / "report.html").read_text()
    assert "<h3>Round 1: passed</h3>" in page and "&#x27;a&#x27; == &#x27;b&#x27;" in page
    assert json.loads((tmp_path / "report.json").read_text())["functions"][0]["repair_rounds"] == 1
