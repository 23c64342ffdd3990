"""The counts the README and the docs' home page state are the code's: tasks, API methods, verifiers.

A count that drifts (the README once said 95 tasks while ``desktop-gym tasks list`` gave 119) fails
here, naming the file and the number to write.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from desktop_gym.guest.apps import registry
from desktop_gym.tasks.catalogue import read_catalogue
from desktop_gym.verifiers.registry import list_verifiers

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "index.md"]


def stated(pattern: str, page: Path) -> list[int]:
    text = " ".join(page.read_text(encoding="utf-8").split())  # counts may wrap across lines
    found = re.findall(pattern, text)
    assert found, f"{page.name}: no match for {pattern!r}"
    return [int(number) for match in found for number in (match if isinstance(match, tuple) else (match,))]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_task_count_is_the_registry_s(page: Path) -> None:
    assert stated(r"suite has (\d+) tasks", page) == [len(read_catalogue())]  # built-in tasks only


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_api_method_counts_are_the_tool_classes(page: Path) -> None:
    apps = ("calc", "writer", "impress", "os", "editor", "chrome", "gimp", "vlc", "vscode", "thunderbird")
    methods = {app: len(registry.api_tool_schemas(app)) for app in apps}
    assert stated(r"(\d+) Calc, (\d+) Writer and (\d+) Impress methods", page) == [
        methods["calc"],
        methods["writer"],
        methods["impress"],
    ]
    assert stated(r"(\d+) `OSTools`", page) == [methods["os"]]
    assert stated(r"(\d+) `EditorTools`", page) == [methods["editor"]]
    for app, tools in (
        ("chrome", "Chrome"),
        ("gimp", "Gimp"),
        ("vlc", "Vlc"),
        ("vscode", "VSCode"),
        ("thunderbird", "Thunderbird"),
    ):
        assert stated(rf"(\d+) `{tools}Tools`", page) == [methods[app]], tools


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_verifier_count_is_the_registry_s(page: Path) -> None:
    assert stated(r"(\d+) registered", page) == [len(list_verifiers())]
