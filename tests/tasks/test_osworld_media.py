"""The OSWorld importer on GIMP and VLC tasks: setup launches and opens the apps, each check maps to a
verifier of the same meaning, judged here on files written for it, and one imported VLC task is run on
the live player (the untouched player fails it, the asked setting passes it)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageOps

from desktop_gym.tasks.json_task import JsonTask
from desktop_gym.tasks.loader import TaskFileError, validate_definition
from desktop_gym.tasks.osworld_import import convert_osworld
from desktop_gym.tasks.osworld_report import coverage
from desktop_gym.verifiers import get_verifier


def task(evaluator: dict[str, Any], config: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A minimal OSWorld-format task."""
    return {
        "id": "0123abcd-0000-0000-0000-000000000000",
        "snapshot": "gimp",
        "instruction": "Do it.",
        "config": config if config is not None else [{"type": "launch", "parameters": {"command": ["gimp"]}}],
        "evaluator": evaluator,
    }


def convert(data: dict[str, Any], cache: Path | None = None) -> Any:
    report = convert_osworld(data, cache or Path("/nonexistent-cache"))
    assert report.task is not None
    return report


def config_rule(file_name: str, key: Any, value: str) -> dict[str, Any]:
    return {
        "func": "check_config_status",
        "result": {"type": "gimp_config_file", "file_name": file_name, "dest": file_name},
        "expected": {"type": "rule", "rules": {"type:": "key-value", "key": key, "value": value}},
    }


def judge(node: dict[str, Any], data: Any) -> bool:
    return get_verifier(node["name"])(data, **node.get("args", {})).success


def test_gimp_and_vlc_launches_open_their_files_and_viewers_follow_the_extension() -> None:
    config = [
        {"type": "launch", "parameters": {"command": ["gimp", "/home/user/Desktop/berry.png"]}},
        {"type": "launch", "parameters": {"command": "vlc"}},
        {"type": "open", "parameters": {"path": "/home/user/Desktop/clip.mp4"}},
        {"type": "open", "parameters": {"path": "/home/user/Desktop/photo.jpg"}},
    ]
    report = convert(task({"func": "infeasible"}, config))
    assert report.status == "ok", report.describe()
    assert report.task["setup"] == [
        {"type": "open", "app": "gimp", "path": "~/Desktop/berry.png"},
        {"type": "launch", "app": "vlc"},
        {"type": "open", "app": "vlc", "path": "~/Desktop/clip.mp4"},
        {"type": "open", "app": "gimp", "path": "~/Desktop/photo.jpg"},
    ]
    assert report.task["apps"] == ["gimp", "vlc"] and report.task["infeasible"]


@pytest.mark.parametrize(
    ("file_name", "key", "value", "good", "bad"),
    [
        ("gimprc", "theme", '"Light"', '(theme "Light")\n', '(theme "Dark")\n(theme-path "Light")\n'),
        ("gimprc", "undo-levels", "100", "# GIMP gimprc\n(undo-levels 100)\n", "(undo-levels 1000)\n"),
        ("sessionrc", "hide-docks", "yes", "(hide-docks yes)\n", "(hide-docks no)\n"),
        (
            "action-history",
            ["history-item", '"filters-vignette"'],
            "1",
            '(history-item "filters-vignette" 1)\n',
            '(history-item "filters-blur" 1)\n',
        ),
    ],
)
def test_gimp_config_checks_read_the_profile_file_as_osworld_does(
    file_name: str, key: Any, value: str, good: str, bad: str
) -> None:
    node = convert(task(config_rule(file_name, key, value))).task["verifier"]
    assert node["name"] == "file_regex" and node["file"] == f"~/.config/GIMP/2.10/{file_name}"
    assert judge(node, good.encode()) and not judge(node, bad.encode()) and not judge(node, None)


def test_a_gimp_config_file_outside_the_profile_is_refused() -> None:
    report = convert_osworld(task(config_rule("../../.bashrc", "theme", "x")), Path("/none"))
    assert report.status == "unsupported" and "names no file of GIMP's profile" in report.describe()


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def test_image_checks_map_to_size_and_cell_closeness_against_the_cached_original(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 60, size=(64, 96, 3)).astype(np.uint8)
    pixels[:32, :48] = (220, 40, 40)  # one bright corner: a mirror and a flip both move it
    original = Image.fromarray(pixels)
    (tmp_path / "berry.png").write_bytes(_png(original))
    result = {"type": "vm_file", "path": "/home/user/Desktop/berry_mirror.png", "dest": "berry_mirror.png"}
    expected = {"type": "vm_file", "path": "/home/user/Desktop/berry.png", "dest": "berry.png"}
    mirror = convert(task({"func": "check_image_mirror", "result": result, "expected": expected}), tmp_path)
    node = mirror.task["verifier"]
    assert node["name"] == "image_close_to" and node["file"] == "~/Desktop/berry_mirror.png"
    assert judge(node, _png(ImageOps.mirror(original))) and not judge(node, _png(original))
    similar = convert(task({"func": "check_structure_sim", "result": result, "expected": expected}), tmp_path)
    assert judge(similar.task["verifier"], _png(original)) and not judge(
        similar.task["verifier"], _png(ImageOps.flip(original))
    )
    size = convert(
        task({"func": "check_image_size", "result": result, "expected": {"type": "rule", "rules": {"height": 64}}})
    )
    assert judge(size.task["verifier"], _png(original)) and not judge(
        size.task["verifier"], _png(original.resize((96, 65)))
    )


def vlcrc_rule(func: str, key: str, value: Any) -> dict[str, Any]:
    return {
        "func": func,
        "result": {"type": "vlc_config", "dest": "vlcrc"},
        "expected": {"type": "rule", "rules": {key: value}},
    }


@pytest.mark.parametrize(
    ("func", "key", "value", "good", "bad"),
    [
        ("check_qt_bgcone", "expected_qt_bgcone", 0, "[qt]\nqt-bgcone=0\n", "[qt]\n#qt-bgcone=1\n"),
        ("check_qt_max_volume", "expected_qt_max_volume", 200, "qt-max-volume=200\n", "#qt-max-volume=125\n"),
        ("check_qt_minimal_view", "expected_qt_minimal_view", 1, "qt-minimal-view=1\n", "qt-minimal-view=0\n"),
        (
            "check_one_instance_when_started_from_file",
            "expected_one_instance_when_started_from_file",
            0,
            "one-instance-when-started-from-file=0\n",
            "#one-instance-when-started-from-file=1\n",
        ),
        (
            "check_global_key_play_pause",
            "expected_global_key_play_pause",
            1,
            "global-key-play-pause=Ctrl+Space\n",
            "global-key-play-pause=\n#global-key-play-pause=Ctrl+p\n",
        ),
    ],
)
def test_vlc_preference_checks_read_vlcrc(func: str, key: str, value: Any, good: str, bad: str) -> None:
    node = convert(task(vlcrc_rule(func, key, value), [])).task["verifier"]
    assert node["file"] == "~/.config/vlc/vlcrc"
    assert judge(node, good.encode()) and not judge(node, bad.encode())


def test_vlc_player_checks_read_the_live_player_and_load() -> None:
    playing = {
        "func": "is_vlc_playing",
        "result": {"type": "vlc_playing_info", "dest": "status.xml"},
        "expected": {"type": "rule", "rules": {"type": "file_name", "file_name": "clip.mp4"}},
    }
    definition = convert(task(playing, [{"type": "launch", "parameters": {"command": "vlc"}}])).task
    node = definition["verifier"]
    assert node == {
        "name": "vlc_status",
        "vlc": "get_status",
        "args": {"expected": {"state": "playing", "title": "clip.mp4"}},
    }
    validate_definition(definition, "t.json")
    assert judge(node, {"state": "playing", "title": "clip.mp4"}) and not judge(
        node, {"state": "paused", "title": "clip.mp4"}
    )
    with pytest.raises(TaskFileError, match="only the player verifiers"):
        validate_definition({**definition, "verifier": {"name": "file_exists", "vlc": "get_status"}}, "t.json")
    by_url = {**playing, "expected": {"type": "rule", "rules": {"type": "url", "url": "https://example.org/v"}}}
    assert "a URL needs the internet" in convert_osworld(task(by_url), Path("/none")).describe()


def test_the_report_reads_the_gimp_and_vlc_domains(tmp_path: Path) -> None:
    for domain, data in (
        ("gimp", task(config_rule("gimprc", "theme", '"Light"'))),
        ("vlc", task(vlcrc_rule("check_qt_bgcone", "expected_qt_bgcone", 0), [])),
        ("vlc", {**task({"func": "infeasible"}), "id": "ffff0000-0000"}),
        ("vlc", {**task("evaluation_dir"), "id": "eeee0000-0000"}),  # a malformed file OSWorld ships
    ):
        folder = tmp_path / domain
        folder.mkdir(exist_ok=True)
        (folder / f"{data['id']}.json").write_text(json.dumps(data))
    result = coverage(tmp_path)
    assert result.total["gimp"] == 1 and result.mapped["gimp"] == 1
    assert result.total["vlc"] == 3 and result.mapped["vlc"] == 2 and result.out_of_scope["vlc"] == 1


@pytest.mark.slow
def test_an_imported_vlc_preference_task_on_the_live_player(desktop, _session_guest) -> None:
    from desktop_gym.tasks.base import TaskContext

    definition = convert(
        task(
            vlcrc_rule("check_qt_max_volume", "expected_qt_max_volume", 200),
            [{"type": "launch", "parameters": {"command": "vlc"}}],
        )
    ).task
    validate_definition(definition, "t.json")
    imported = JsonTask(definition)
    _session_guest.kill_apps()
    _session_guest.clear_session()
    ctx = TaskContext(client=_session_guest, rng=np.random.default_rng(0), params={})
    try:
        imported.setup(ctx)
        assert not imported.verify(ctx).success  # the untouched player keeps VLC's default (125)
        _session_guest.call_api("VlcTools", "set_preferences", json.dumps({"values": {"qt-max-volume": 200}}))
        verdict = imported.verify(ctx)
        assert verdict.success, verdict.reason
    finally:
        _session_guest.kill_apps()
