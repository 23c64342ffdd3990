"""Training configs: the shipped demo file equals ``--demo``; bad keys and types are named."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_gym.train.config import ConfigError, load_config
from desktop_gym.train.demo import demo_config

REPO = Path(__file__).resolve().parents[2]


def test_demo_yaml_is_the_demo_config() -> None:
    assert load_config(REPO / "configs" / "train-demo.yaml") == demo_config()


def test_toml_and_errors_name_the_field(tmp_path: Path) -> None:
    good = tmp_path / "run.toml"
    good.write_text('output = "x"\n[rl]\ngroup_size = 4\nlearning_rate = 1\n[env]\ntask_ids = ["demo.enter_number"]\n')
    config = load_config(good)
    assert config.rl.group_size == 4 and config.rl.learning_rate == 1.0 and config.output == "x"
    bad_type = tmp_path / "bad.toml"
    bad_type.write_text('[rl]\ngroup_size = "eight"\n')
    with pytest.raises(ConfigError, match=r"rl\.group_size: expected int"):
        load_config(bad_type)
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("[grpo]\nclip = 0.1\n")
    with pytest.raises(ConfigError, match=r"grpo: unknown key\(s\) \['clip'\]"):
        load_config(unknown)
    invalid = tmp_path / "invalid.toml"
    invalid.write_text("[entropulse]\nwindow = 4\nmin_rl_iterations = 2\n")
    with pytest.raises(ConfigError, match="min_rl_iterations"):
        load_config(invalid)


def test_prompt_section_gives_the_prompt_config_of_rollouts_and_bc() -> None:
    from desktop_gym.episode.prompts import PromptConfig
    from desktop_gym.train.demo import DEMO_PREFILL, DEMO_ROLE

    prompt = demo_config().prompt.prompt_config()
    assert isinstance(prompt, PromptConfig)
    assert (prompt.prefill, prompt.system_role, prompt.history) == (DEMO_PREFILL, DEMO_ROLE, 0)
