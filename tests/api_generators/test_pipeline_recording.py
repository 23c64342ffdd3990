"""``desktop-gym apigen`` end to end with the committed recording: real sandbox desktop, real tests,
real registration into a scratch folder; the committed EditorTools module is exactly what it writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_gym.api_generators.stages.register import CASES_DIR
from desktop_gym.api_generators.targets import get_target

pytestmark = pytest.mark.stage_apigen

ROOT = Path(__file__).resolve().parents[2]
RECORDING = ROOT / "api_generators" / "recordings" / "editor_claude.json"
CLI = [sys.executable, "-m", "desktop_gym.cli"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("apigen")
    result = subprocess.run(
        [*CLI, "apigen", "--app", "editor", "--llm", f"recording:{RECORDING}", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "7 of 7 generated functions accepted" in result.stdout
    assert "functions: 100%" in result.stderr  # the progress display, per stage
    return out


def test_report_says_what_happened_to_each_function(run_dir):
    report = json.loads((run_dir / "report.json").read_text())
    assert report["llm"].startswith("recording:editor_claude.json (responses written by the developing model (Claude)")
    # only the analysis prompt may have drifted (it lists OSTools, which other work may extend)
    assert set(report["recording_drift"]) <= {"analyse"}
    statuses = {f["name"]: f["status"] for f in report["functions"]}
    assert statuses.pop("read_text_file") == "reused"
    assert set(statuses.values()) == {"accepted"} and len(statuses) == 7
    replace = next(f for f in report["functions"] if f["name"] == "replace_text")
    assert replace["repair_rounds"] == 1 and [r["verdict"] for r in replace["rounds"]] == ["failed", "passed"]
    markdown = (run_dir / "report.md").read_text()
    assert "test_replace_text_all_by_default: assertion failed" in markdown
    assert "<h1>API generation: EditorTools</h1>" in (run_dir / "report.html").read_text()


def test_committed_module_and_cases_are_what_the_pipeline_writes(run_dir):
    assert (run_dir / "editor.py").read_text() == get_target("editor").module_path.read_text()
    assert (run_dir / "editor_cases.py").read_text() == (CASES_DIR / "editor_cases.py").read_text()


def test_apigen_rejects_bad_options_by_name(tmp_path):
    result = subprocess.run(
        [
            *CLI,
            "apigen",
            "--app",
            "paint",
            "--tasks",
            "text:x",
            "--llm",
            f"recording:{RECORDING}",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 2 and "--app 'paint'" in result.stdout and "targets: editor" in result.stdout
