"""The prompt builder: parts, cuts, history window, visual window, prefill."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_gym.episode.prompts import (
    PromptConfig,
    Turn,
    build_messages,
    encode_images,
    observation_text,
    split_prefill,
    system_prompt,
    text_only,
)


def _obs(n: int, shot: bool = False) -> dict:
    obs = {
        "instruction": "enter 5 into B2",
        "a11y_tree": "\n".join(f"node {i}" for i in range(10)),
        "last_action_result": f"result {n}",
        "last_action_error": "",
    }
    if shot:
        obs["screenshot"] = np.full((4, 6, 3), n, dtype=np.uint8)
    return obs


def test_observation_text_cuts_tree_and_skips_empty_parts() -> None:
    text = observation_text(_obs(1), PromptConfig(a11y_max_nodes=3))
    assert "## Task\nenter 5 into B2" in text
    assert "node 2" in text and "node 3" not in text and "7 more nodes omitted" in text
    assert "Last action error" not in text


def test_history_window_omits_old_observations_and_keeps_actions() -> None:
    history = [Turn(_obs(i), f"act{i}()") for i in range(3)]
    messages = build_messages(system_prompt("click(x, y)"), _obs(3), history, PromptConfig(history=1))
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert "# Actions\nclick(x, y)" in messages[0]["content"]
    assert messages[1]["content"].startswith("(observation omitted)") and "result 0" in messages[1]["content"]
    assert messages[3]["content"].startswith("(observation omitted)")
    assert messages[5]["content"].startswith("## Task")  # the one past turn in full
    assert [m["content"] for m in messages if m["role"] == "assistant"] == ["act0()", "act1()", "act2()"]


def test_visual_window_keeps_last_k_screenshots_and_prefill() -> None:
    history = [Turn(_obs(i, shot=True), f"a{i}()") for i in range(3)]
    config = PromptConfig(vision=True, max_screenshots=2, history=5, prefill='CalcTools.set_cell_value(cell="')
    messages = build_messages("sys", _obs(3, shot=True), history, config)
    users = [m for m in messages if m["role"] == "user"]
    with_image = [isinstance(m["content"], list) for m in users]
    assert with_image == [False, False, True, True]
    chat, prefill = split_prefill(messages)
    assert prefill == 'CalcTools.set_cell_value(cell="' and chat[-1]["role"] == "user"
    assert "(screenshot)" in text_only(messages)[-2]["content"]
    encoded = encode_images(messages)
    assert encoded[-2]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_bad_config_names_the_field() -> None:
    with pytest.raises(ValueError, match="history"):
        PromptConfig(history=-1)
    with pytest.raises(ValueError, match="parts"):
        PromptConfig(parts=("nope",))
