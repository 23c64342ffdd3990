"""The sandbox on a real desktop: a good candidate passes; one that hangs, crashes, writes outside the
home, starts a process or does not load is rejected with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_gym.api_generators.models import FunctionSpec
from desktop_gym.api_generators.module_source import cases_module, tool_module
from desktop_gym.api_generators.sandbox import Sandbox
from desktop_gym.api_generators.stages.execute import execute
from desktop_gym.api_generators.targets import get_target

pytestmark = pytest.mark.stage_apigen

SPEC = FunctionSpec("append_line", "text: str", "str", "Append a line.")
GOOD = '''def append_line(self, text: str) -> str:
    """Append a line.

    Args:
        text: The line.
    """
    if "\\n" in text:
        raise ApiArgumentError("text must be one line")
    # BODY
    document = self.document
    document.insert(document.length(), text + "\\n")
    return "ok"
'''
TESTS = """def test_append(editor):
    editor.document.set_text("a\\n")
    assert editor.append_line("b") == "ok"
    assert editor.document.save().read_text() == "a\\nb\\n"


def test_bad_argument(editor):
    with pytest.raises(ApiArgumentError):
        editor.append_line("x\\ny")
"""


def candidate(body: str) -> str:
    return GOOD.replace("# BODY", body)


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(get_target("editor"), test_timeout_s=3.0, run_timeout_s=30.0) as box:
        yield box


def test_good_candidate_passes_and_runs_in_the_desktop_not_here(sandbox):
    run = execute(sandbox, SPEC, GOOD, TESTS)
    assert run.verdict == "passed", run.feedback()
    assert [o.name for o in run.outcomes] == ["test_append", "test_bad_argument"]
    assert "apigen_candidate" not in __import__("sys").modules  # nothing of the candidate was imported here


def test_wrong_result_fails_with_the_compared_values(sandbox):
    run = execute(sandbox, SPEC, GOOD.replace('text + "\\n"', "text"), TESTS)
    assert run.verdict == "failed" and "test_append" in run.reason
    error = next(o.error for o in run.outcomes if o.name == "test_append")
    assert "assert 'a\\nb' == 'a\\nb\\n'" in error


def test_hanging_function_is_rejected_and_the_next_test_still_runs(sandbox):
    run = execute(sandbox, SPEC, candidate("while True:\n        pass"), TESTS)
    assert run.verdict == "hung" and "did not return within 3 s" in run.reason
    assert [o.passed for o in run.outcomes] == [False, True]


def test_a_run_stuck_past_the_run_limit_is_killed(sandbox):
    sandbox.run_timeout_s, sandbox.test_timeout_s = 8.0, 60.0
    try:
        run = execute(sandbox, SPEC, candidate("import time\n    time.sleep(30)"), TESTS)
    finally:
        sandbox.run_timeout_s, sandbox.test_timeout_s = 30.0, 3.0
    assert run.verdict == "hung" and "killed after 8 s (stuck in test_append)" in run.reason
    assert run.seconds < 20


def test_crashing_function_is_rejected_with_the_exit_code(sandbox):
    run = execute(sandbox, SPEC, candidate("import os\n    os._exit(7)"), TESTS)
    assert run.verdict == "crashed" and "exit code 7 during test_append" in run.reason


def test_segfault_is_a_crash(sandbox):
    run = execute(sandbox, SPEC, candidate("import ctypes\n    ctypes.string_at(0)"), TESTS)
    assert run.verdict == "crashed" and "exit code -11" in run.reason


def test_writing_outside_the_home_is_refused_and_rejected(sandbox, tmp_path):
    target = tmp_path / "escaped.txt"
    run = execute(sandbox, SPEC, candidate(f"open({str(target)!r}, 'w').write('x')"), TESTS)
    assert run.verdict == "forbidden" and f"outside the home: {target}" in run.reason
    assert not target.exists()


def test_a_swallowed_refusal_is_still_rejected(sandbox):
    body = "try:\n        Path('/tmp/apigen-evil').unlink()\n    except Exception:\n        pass"
    run = execute(sandbox, SPEC, candidate("from pathlib import Path\n    " + body), TESTS)
    assert run.verdict == "forbidden" and "os.remove on a path outside the home: /tmp/apigen-evil" in run.reason


def test_starting_a_process_is_refused(sandbox):
    run = execute(sandbox, SPEC, candidate("import subprocess\n    subprocess.run(['true'])"), TESTS)
    assert run.verdict == "forbidden" and "subprocess.Popen" in run.reason


def test_writing_inside_the_home_is_allowed(sandbox):
    run = execute(sandbox, SPEC, candidate("(self.home / 'note.txt').write_text('fine')"), TESTS)
    assert run.verdict == "passed", run.feedback()
    assert (Path(sandbox.home) / "note.txt").read_text() == "fine"


def test_code_that_does_not_load_is_invalid(sandbox):
    run = sandbox.run(
        tool_module(sandbox.target, ["def append_line(self, text: str) -> str:\n    return ("], "x"),
        cases_module([TESTS]),
    )
    assert run.verdict == "invalid" and "SyntaxError" in run.reason


def test_app_killed_by_a_candidate_is_reopened_for_the_next(sandbox):
    sandbox.client.kill_apps()
    assert execute(sandbox, SPEC, GOOD, TESTS).verdict == "passed"
