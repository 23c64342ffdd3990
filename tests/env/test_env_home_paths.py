"""What the agent reads names the session home as ``~``, never the host workdir (issue 32):
``EditorTools.save()`` answered ``saved /tmp/desktop-gym-.../home/...``."""

from __future__ import annotations

from desktop_gym import DesktopEnv


def test_api_results_and_app_info_say_tilde_not_the_host_home() -> None:
    env = DesktopEnv(
        "files.editor_append_line",
        observation=("last_action_result", "last_action_error", "app_info"),
        action_mode="hybrid",
    )
    try:
        observation, _info = env.reset(seed=0)
        home = env._handle.info["home"]
        assert home not in observation["app_info"], observation["app_info"]
        observation, *_ = env.step("EditorTools.save()")
        result = observation["last_action_result"]
        assert observation["last_action_error"] == "" and result.startswith("saved ~/"), result
        assert home not in observation["app_info"]
        observation, *_ = env.step('OSTools.read_text_file(path="~/no/such/file.txt")')
        assert home not in observation["last_action_error"]
    finally:
        env.close()
