"""The package root is lazy and the guest agent imports no host-side code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HOST_ONLY = ("gymnasium", "desktop_gym.env", "desktop_gym.tasks", "desktop_gym.verifiers", "desktop_gym.actions")


def _modules_after(code: str) -> dict:
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return {"modules": json.loads(out.stdout.splitlines()[-1]), "stdout": out.stdout}


def _imported(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


def test_import_desktop_gym_imports_no_env_tasks_or_verifiers() -> None:
    modules = _modules_after("import desktop_gym")["modules"]
    assert _imported(modules, HOST_ONLY) == []


def test_guest_server_imports_no_host_side_code() -> None:
    modules = _modules_after("import desktop_gym.guest.server")["modules"]
    assert _imported(modules, (*HOST_ONLY, "jsonschema", "desktop_gym.backends")) == []


def test_tasks_register_ids_without_importing_families_or_verifiers() -> None:
    code = "import desktop_gym.tasks as t\nprint(len(t.list_tasks()))"
    result = _modules_after(code)
    assert int(result["stdout"].splitlines()[0]) > 50
    assert _imported(result["modules"], ("desktop_gym.tasks.families", "desktop_gym.verifiers")) == []


def test_gymnasium_first_then_desktop_gym_registers_the_gym_ids() -> None:
    code = "import gymnasium, desktop_gym\nprint(gymnasium.spec('desktop_gym/starter.calc_fill_totals-v0').entry_point)"
    assert "desktop_gym.env:DesktopEnv" in _modules_after(code)["stdout"]


def test_public_names_resolve_lazily() -> None:
    import desktop_gym

    for name in desktop_gym.__all__:
        assert getattr(desktop_gym, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = desktop_gym.no_such_name


@pytest.mark.parametrize("task_id", ["starter.calc_fill_totals", "os.count_lines"])
def test_get_task_imports_its_module_on_first_use(task_id: str) -> None:
    from desktop_gym.tasks import get_task, list_tasks

    assert task_id in list_tasks()
    assert get_task(task_id).id == task_id


def test_catalogue_is_up_to_date() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from desktop_gym.tasks.catalogue import main; sys.exit(main([]))"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
