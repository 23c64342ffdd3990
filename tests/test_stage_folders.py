"""Each heavy stage of scripts/test.sh collects only its folders: every test carrying a stage's
marker must live in one of them, or that stage would silently never run it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGE_LINE = re.compile(r'^\s*"(\w+)\|\d+\|(stage_\w+)\|([^"]+)"\s*$', re.MULTILINE)
MARK_USE = re.compile(r"\bmark\.(stage_\w+)\b")


def stage_folders(script: str) -> dict[str, list[Path]]:
    """Marker -> the folders its stage collects, as scripts/test.sh lists them."""
    return {marker: [ROOT / part for part in folders.split()] for _, marker, folders in STAGE_LINE.findall(script)}


def misplaced(folders: dict[str, list[Path]], root: Path) -> list[str]:
    """``file: marker`` for each use of a stage marker outside that stage's folders (or of an unknown one)."""
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        if path.name == Path(__file__).name:  # this module names markers in its own example
            continue
        for marker in sorted(set(MARK_USE.findall(path.read_text(encoding="utf-8")))):
            if not any(path.is_relative_to(folder) for folder in folders.get(marker, [])):
                found.append(f"{path.relative_to(root)}: {marker}")
    return found


def test_every_stage_marked_test_is_in_its_stage_folders() -> None:
    folders = stage_folders((ROOT / "scripts" / "test.sh").read_text(encoding="utf-8"))
    assert set(folders) == {
        "stage_serve",
        "stage_train",
        "stage_adapters",
        "stage_browser",
        "stage_apigen",
        "stage_load",
    }
    assert all(folder.is_dir() for paths in folders.values() for folder in paths)
    assert misplaced(folders, ROOT) == []


def test_a_marked_test_outside_its_folders_is_found(tmp_path: Path) -> None:
    stray = tmp_path / "tests" / "env" / "test_stray.py"
    stray.parent.mkdir(parents=True)
    stray.write_text("import pytest\npytestmark = pytest.mark.stage_serve\n", encoding="utf-8")
    (tmp_path / "tests" / "serve").mkdir()
    inside = tmp_path / "tests" / "serve" / "test_ok.py"
    inside.write_text("@pytest.mark.stage_serve\ndef test_x(): ...\n", encoding="utf-8")
    folders = {"stage_serve": [tmp_path / "tests" / "serve"]}
    assert misplaced(folders, tmp_path) == ["tests/env/test_stray.py: stage_serve"]
