"""The vision policy path on CPU with a tiny random LLaVA built from a config (no download).

Every test here fails if the images are dropped anywhere between the prompt and the loss: the
log-probs, the GRPO update and the SFT step are each shown to depend on the pixels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.episode.images import ImageStore, load_images, store_images
from desktop_gym.episode.prompts import PromptConfig, build_messages
from desktop_gym.episode.trajectory import Step
from desktop_gym.errors import ConfigError, PromptTooLongError
from desktop_gym.train.grpo import GRPOConfig
from desktop_gym.train.model_ops import Sample, batch_tensors, token_logprobs
from desktop_gym.train.sft import sft_updates
from desktop_gym.train.update import UpdateOptions, grpo_update
from desktop_gym.train.vision import PixelInputs, stack_pixel_inputs, vision_inputs, vision_sample
from desktop_gym.train.vision_policy import VisionPolicy

from .tiny_models import tiny_idefics3, tiny_vlm

torch = pytest.importorskip("torch")
PROMPT = PromptConfig(vision=True, history=0, prefill='CalcTools.set_cell_value(cell="')


def screen(seed: int) -> np.ndarray:
    """A random 90x160 'screenshot'."""
    return np.random.default_rng(seed).integers(0, 256, (90, 160, 3), dtype=np.uint8)


def step_with(image: np.ndarray, store: ImageStore, completion: str = 'B2", value=5)') -> Step:
    """A recorded vision step: its prompt kept with the screenshot as a PNG path, as rollouts keep it."""
    messages = build_messages("You operate Calc.", {"instruction": "Put 5 in B2", "screenshot": image}, (), PROMPT)
    return Step(
        index=1, action=PROMPT.prefill + completion, completion=completion, messages=store_images(messages, store)
    )


@pytest.fixture(scope="module")
def vlm() -> tuple[Any, Any]:
    return tiny_vlm(seed=0)


@pytest.fixture(scope="module", params=["llava", "idefics3"])
def any_vlm(request: pytest.FixtureRequest) -> tuple[Any, Any]:
    """Each tiny architecture: LLaVA (one image, fixed tokens) and SmolVLM's Idefics3 (tiles, a pixel mask)."""
    return tiny_vlm(seed=0) if request.param == "llava" else tiny_idefics3(seed=0)


def test_stored_screenshot_round_trips_to_the_same_pixels_once(tmp_path: Path) -> None:
    store = ImageStore(tmp_path)
    image = screen(1)
    step = step_with(image, store)
    again = step_with(image, store)
    path = step.messages[1]["content"][0]["image"]
    assert isinstance(path, str) and Path(path).parent == tmp_path.resolve()
    assert again.messages[1]["content"][0]["image"] == path and len(list(tmp_path.glob("*.png"))) == 1
    loaded = load_images(step.messages)[1]["content"][0]["image"]
    assert np.array_equal(loaded, image)
    rgba = np.dstack([image, np.full(image.shape[:2], 7, np.uint8)])
    assert np.array_equal(
        load_images([{"role": "user", "content": [{"type": "image", "image": rgba}]}])[0]["content"][0]["image"], image
    )


def test_bad_stored_images_raise(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="HxWx3"):
        ImageStore(tmp_path).save(np.zeros((4, 4), np.uint8))
    with pytest.raises(FileNotFoundError, match="missing"):
        load_images([{"role": "user", "content": [{"type": "image", "image": str(tmp_path / "gone.png")}]}])
    with pytest.raises(ValueError, match="png"):
        load_images([{"role": "user", "content": [{"type": "image", "image": "/etc/passwd"}]}])


def test_vision_prompt_expands_image_tokens_and_keeps_the_budget(vlm: tuple[Any, Any], tmp_path: Path) -> None:
    processor, _ = vlm
    step = step_with(screen(1), ImageStore(tmp_path))
    ids, pixels = vision_inputs(processor, step.messages, 512)
    image_id = processor.tokenizer.convert_tokens_to_ids("<image>")
    assert ids.count(image_id) == 16 and tuple(pixels["pixel_values"].shape) == (1, 3, 32, 32)
    assert processor.tokenizer.decode(ids).endswith(PROMPT.prefill)
    with pytest.raises(PromptTooLongError, match="image"):
        vision_inputs(processor, step.messages, len(ids) - 1)


def test_log_probs_depend_on_the_pixels(any_vlm: tuple[Any, Any], tmp_path: Path) -> None:
    processor, model = any_vlm
    store = ImageStore(tmp_path)
    samples = [vision_sample(processor, step_with(screen(seed), store)) for seed in (1, 2)]
    assert samples[0].prompt_ids == samples[1].prompt_ids  # the same text: only the pixels differ
    batch = batch_tensors(samples, processor.tokenizer.pad_token_id)
    with torch.no_grad():
        logp, _ = token_logprobs(model, batch, bf16=False)
    mask = batch["response_mask"].bool()
    assert not torch.allclose(logp[0][mask[0]], logp[1][mask[1]], atol=1e-6)


@pytest.mark.parametrize("shapes", [[(90, 160)] * 3, [(90, 160), (20, 160), (40, 40)]], ids=["stacked", "mixed"])
def test_training_sees_the_prompt_sampling_saw(
    any_vlm: tuple[Any, Any], shapes: list[tuple[int, int]], tmp_path: Path
) -> None:
    """Sampled answers' behavior log-probs are recomputed from the stored steps, pixels and all.

    Three prompts of different lengths are sampled as one left-padded batch (same-size screens) or,
    where their pixel inputs cannot be stacked (SmolVLM tiles of differently shaped screens), one
    at a time; training recomputes them as one right-padded micro-batch or one by one.
    """
    processor, model = any_vlm
    policy = VisionPolicy(model, processor.tokenizer, 1.0, 6, False, 512, processor=processor, bf16=False)
    store = ImageStore(tmp_path)
    prompts = []
    for index, (height, width) in enumerate(shapes):
        image = np.random.default_rng(index).integers(0, 256, (height, width, 3), dtype=np.uint8)
        observation = {"instruction": "Put 5 in B2" + " now" * index * 3, "screenshot": image}
        prompts.append(build_messages("You operate Calc.", observation, (), PROMPT))
    torch.manual_seed(0)
    generations = policy.generate(prompts)
    samples = []
    for messages, generation in zip(prompts, generations, strict=True):
        step = Step(
            index=1,
            action=PROMPT.prefill + generation.text,
            completion=generation.text,
            messages=store_images(messages, store),
            logprobs=generation.token_logprobs,
            info={"token_ids": generation.token_ids},
        )
        samples.append(vision_sample(processor, step))
    assert len({len(s.prompt_ids) for s in samples}) == 3  # padding had work to do
    parts = [samples] if stack_pixel_inputs([s.vision for s in samples]) is not None else [[s] for s in samples]
    for part in parts:
        batch = batch_tensors(part, processor.tokenizer.pad_token_id)
        with torch.no_grad():
            logp, _ = token_logprobs(model, batch, bf16=False)
        for row, sample in enumerate(part):
            recomputed = logp[row][batch["response_mask"][row].bool()]
            assert torch.allclose(recomputed, torch.tensor(sample.behavior_logprobs), atol=1e-4)


def test_mixed_text_and_vision_batch_is_refused(vlm: tuple[Any, Any], tmp_path: Path) -> None:
    processor, _ = vlm
    vision = vision_sample(processor, step_with(screen(1), ImageStore(tmp_path)))
    with pytest.raises(ValueError, match="text row among vision rows"):
        batch_tensors([vision, Sample([1, 2], [3])], 0)


def _vision_tower(model: Any) -> list[Any]:
    return [p.detach().clone() for name, p in model.named_parameters() if "vision_tower" in name]


def _moved(before: list[Any], model: Any) -> bool:
    after = [p for name, p in model.named_parameters() if "vision_tower" in name]
    return any(not torch.equal(a, b) for a, b in zip(before, after, strict=True))


def test_grpo_update_trains_through_the_pixels(tmp_path: Path) -> None:
    processor, model = tiny_vlm(seed=1)
    _, reference = tiny_vlm(seed=1)
    store = ImageStore(tmp_path)
    completions = ['B2", value=5)', 'C3", value=1)']
    samples = [
        vision_sample(processor, step_with(screen(seed), store, completions[seed % 2]), advantage=1.0 - 2 * (seed % 2))
        for seed in range(4)
    ]
    before = _vision_tower(model)
    options = UpdateOptions(passes=2, micro_batch=2, bf16=False, grpo=GRPOConfig(kl_coef=0.05))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    stats = grpo_update(
        model, reference, optimizer, samples, processor.tokenizer.pad_token_id, options, np.random.default_rng(0)
    )
    assert stats["optimizer_steps"] == 2 and np.isfinite(stats["loss"])
    assert max(stats["ratio_max"] - 1, 1 - stats["ratio_min"]) > 1e-4  # the second pass is off-policy
    assert _moved(before, model)  # the vision tower got gradients: the pixels reached the loss


def test_sft_step_trains_through_the_pixels(tmp_path: Path) -> None:
    processor, model = tiny_vlm(seed=2)
    store = ImageStore(tmp_path)
    samples = [vision_sample(processor, step_with(screen(seed), store)) for seed in range(2)]
    before = _vision_tower(model)
    loss = sft_updates(
        model,
        samples,
        steps=1,
        batch_size=2,
        learning_rate=1e-2,
        pad_id=processor.tokenizer.pad_token_id,
        rng=np.random.default_rng(0),
        bf16=False,
    )
    assert np.isfinite(loss) and _moved(before, model)


def test_vision_config_needs_the_screenshot_observation() -> None:
    from desktop_gym.train.config import TrainConfig, build

    with pytest.raises(ConfigError, match="screenshot"):
        build(TrainConfig, {"prompt": {"vision": True}})
    config = build(TrainConfig, {"prompt": {"vision": True}, "env": {"observation": ["instruction", "screenshot"]}})
    assert config.prompt.prompt_config().vision


@settings(max_examples=25, deadline=None)
@given(
    height=st.integers(1, 24),
    width=st.integers(1, 24),
    channels=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_screenshot_round_trips_through_its_png(
    tmp_path_factory: pytest.TempPathFactory, height: int, width: int, channels: int, seed: int
) -> None:
    image = np.random.default_rng(seed).integers(0, 256, (height, width, channels), dtype=np.uint8)
    message = {"role": "user", "content": [{"type": "image", "image": image}, {"type": "text", "text": "t"}]}
    stored = store_images([message], ImageStore(tmp_path_factory.mktemp("png")))
    assert isinstance(stored[0]["content"][0]["image"], str) and stored[0]["content"][1] == {
        "type": "text",
        "text": "t",
    }
    assert np.array_equal(load_images(stored)[0]["content"][0]["image"], image[:, :, :3])


def test_pixel_inputs_of_different_shapes_name_the_fix() -> None:
    samples = [Sample([1, 2], [3], vision={"pixel_values": torch.zeros(1, n, 3, 4, 4)}) for n in (1, 2)]
    with pytest.raises(ValueError, match="micro_batch: 1"):
        batch_tensors(samples, 0)


def test_threads_storing_the_same_screen_at_once_leave_one_file(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    image = screen(5)
    for attempt in range(30):  # a shared temporary name failed about one attempt in 20
        folder = tmp_path / str(attempt)
        with ThreadPoolExecutor(max_workers=8) as threads:
            paths = set(threads.map(lambda _, folder=folder: ImageStore(folder).save(image), range(16)))
        assert len(paths) == 1 and [p.name for p in folder.iterdir()] == [Path(paths.pop()).name]


def test_samples_hold_no_pixels_and_read_the_png_per_batch(vlm: tuple[Any, Any], tmp_path: Path) -> None:
    processor, _ = vlm
    step = step_with(screen(1), ImageStore(tmp_path))
    sample = vision_sample(processor, step)
    assert isinstance(sample.vision, PixelInputs)
    assert tuple(batch_tensors([sample], 0)["pixel_values"].shape) == (1, 3, 32, 32)
    next(tmp_path.glob("*.png")).unlink()
    with pytest.raises(FileNotFoundError, match="missing"):
        batch_tensors([sample], 0)
