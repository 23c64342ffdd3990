"""The browser's launch hook without a browser: its command line, its profile, and the per-launch
site data (a task's seed moved out of the home, bad seeds refused naming the part)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_gym.apps.chrome import launch
from desktop_gym.apps.chrome.profile import profile_dir
from desktop_gym.apps.chrome.sites.store import SUBMISSIONS_FILE, read_submissions
from desktop_gym.errors import TaskSetupError


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, runtime = tmp_path / "home", tmp_path / "runtime"
    home.mkdir()
    (runtime / "0001-chrome").mkdir(parents=True)
    return home, runtime / "0001-chrome"


def test_argv_uses_the_session_profile_the_site_proxy_and_a_private_devtools_port(dirs) -> None:
    home, launch_dir = dirs
    argv = launch.browser_argv(home, launch_dir, None)
    try:
        assert argv[0] == "chromium" and argv[-1] == "about:blank"
        assert f"--user-data-dir={profile_dir(home)}" in argv
        assert "--remote-debugging-port=0" in argv  # Chromium picks a free loopback port
        proxy = next(a for a in argv if a.startswith("--proxy-server="))
        server = launch.site_server(launch_dir.parent / "sites")
        assert proxy == f"--proxy-server=http://{server.address}"
        preferences = json.loads((profile_dir(home) / "Default" / "Preferences").read_text())
        assert preferences["download"] == {"default_directory": str(home / "Downloads"), "prompt_for_download": False}
        assert (profile_dir(home) / "First Run").exists()
    finally:
        launch.site_server(launch_dir.parent / "sites").close()  # type: ignore[attr-defined]


def test_a_file_is_opened_as_a_file_url(dirs) -> None:
    home, launch_dir = dirs
    page = home / "page.html"
    page.write_text("<title>x</title>")
    assert launch.browser_argv(home, launch_dir, str(page))[-1] == page.as_uri()
    launch.site_server(launch_dir.parent / "sites").close()  # type: ignore[attr-defined]


def test_a_seed_is_moved_out_of_the_home_and_old_submissions_are_cleared(dirs) -> None:
    home, launch_dir = dirs
    data = launch_dir.parent / "sites"
    data.mkdir()
    (data / SUBMISSIONS_FILE).write_text(json.dumps({"path": "/contact", "fields": {}}) + "\n")
    seed = home / launch.SITE_SEED
    seed.parent.mkdir(parents=True)
    seed.write_text(json.dumps({"users": {"zoe": "secret-1"}}))
    launch.fresh_site_data(data, home)
    assert not seed.exists()  # the agent cannot read the seeded passwords or files back
    assert json.loads((data / "site.json").read_text())["users"] == {"zoe": "secret-1"}
    assert read_submissions(data) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("{not json", "not valid JSON"), ("[1, 2]", "JSON object"), (json.dumps({"products": [{"sku": 1}]}), "products")],
)
def test_a_bad_seed_fails_the_setup_naming_what_is_wrong(dirs, text: str, expected: str) -> None:
    home, launch_dir = dirs
    seed = home / launch.SITE_SEED
    seed.parent.mkdir(parents=True)
    seed.write_text(text)
    with pytest.raises(TaskSetupError, match=expected):
        launch.fresh_site_data(launch_dir.parent / "sites", home)
    assert not seed.exists()
