"""The built-in apps: one folder each, listed by the entry-point group, read the same with or without
the package's metadata, and every list of apps derived from their specs."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from desktop_gym.apps import APP_SPECS, plugins
from desktop_gym.apps.packages import runtime_packages

REPO = Path(__file__).resolve().parents[2]
BUILTIN = ["calc", "chrome", "editor", "gimp", "impress", "os", "terminal", "thunderbird", "vlc", "vscode", "writer"]


def test_the_entry_point_group_lists_every_app_folder() -> None:
    names = sorted(ep.name for ep in metadata.entry_points(group=plugins.GROUP) if ep.value.startswith("desktop_gym."))
    assert names == plugins.builtin_app_folders() == BUILTIN
    assert list(APP_SPECS)[: len(BUILTIN)] == BUILTIN


def test_a_tree_without_metadata_finds_the_same_apps_by_folder() -> None:
    code = "import json; from desktop_gym.apps import APP_SPECS; print(json.dumps(list(APP_SPECS)))"
    result = subprocess.run([sys.executable, "-S", "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == BUILTIN


def test_every_launched_app_brings_its_packages_and_a_doctor_check() -> None:
    for key, spec in APP_SPECS.items():
        if spec.launchable:
            assert spec.packages and spec.doctor, f"{key}: a launched app names its Debian packages and programs"
            assert set(spec.packages) <= set(runtime_packages())
        assert spec.readiness in ("uno", "marker", "window", "none")
    assert APP_SPECS["terminal"].readiness == "marker" and APP_SPECS["calc"].readiness == "uno"


def test_doctor_checks_the_programs_the_specs_name() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "desktop_gym.cli", "doctor"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    checked = {line.split()[0] for line in result.stdout.splitlines() if line.strip()}
    assert {program for spec in APP_SPECS.values() for program in spec.doctor} <= checked
