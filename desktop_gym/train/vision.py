"""The vision policy's prompt: a chat with screenshots as a processor's token ids and pixel inputs.

With ``prompt.vision`` the trainer loads a vision-language model (``AutoModelForImageTextToText``)
and its ``AutoProcessor``. :func:`vision_inputs` is the one place a prompt becomes model inputs,
for sampling and training alike: the chat (image blocks as ``{"type": "image"}``) goes through the
processor's chat template with the assistant turn opened, the prefill is appended, and the
processor expands each image into its image tokens and computes the pixel inputs
(``pixel_values`` and, per model, ``pixel_attention_mask`` or ``image_grid_thw``). A recorded
step's screenshots are PNG files (:mod:`desktop_gym.episode.images`), read back with the pixels
the policy saw. An image's tokens cannot be cut, so a vision prompt over the budget is always a
:class:`~desktop_gym.errors.PromptTooLongError` (``model.prompt_overflow`` does not apply).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_gym.episode.images import load_images
from desktop_gym.episode.prompts import Message, split_prefill
from desktop_gym.episode.trajectory import Step

from ..errors import PromptTooLongError
from .model_ops import END_OF_TURN, Sample

# Per-image inputs a processor may return beside the token ids (concatenated over a batch's rows).
VISION_INPUTS = ("pixel_values", "pixel_attention_mask", "image_grid_thw", "image_sizes")


def _hf_message(message: Message) -> Message:
    """A message in the processor chat template's form: a list of text and (pixel-less) image blocks."""
    content = message["content"]
    if not isinstance(content, list):
        return {"role": message["role"], "content": [{"type": "text", "text": str(content)}]}
    blocks = [{"type": "image"} if block.get("type") == "image" else block for block in content]
    return {"role": message["role"], "content": blocks}


def vision_inputs(
    processor: Any, messages: Sequence[Message], max_prompt_tokens: int
) -> tuple[list[int], dict[str, Any]]:
    """The prompt's token ids (image tokens expanded) and its pixel inputs (CPU tensors).

    Args:
        processor: the model's processor (a tokenizer and an image processor, with a chat template).
        messages: the chat; image blocks hold arrays or stored PNG paths; a trailing assistant
            message is the prefill.
        max_prompt_tokens: the prompt budget (the same for sampling and training).

    Raises:
        PromptTooLongError: the prompt, image tokens included, is over ``max_prompt_tokens``.
    """
    chat, prefill = split_prefill(messages)
    chat = load_images(chat)
    images = [
        block["image"]
        for message in chat
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "image"
    ]
    text = processor.apply_chat_template([_hf_message(m) for m in chat], add_generation_prompt=True, tokenize=False)
    encoded = processor(
        text=[text + prefill], images=[images] if images else None, return_tensors="pt", add_special_tokens=False
    )
    ids = [int(i) for i in encoded["input_ids"][0].tolist()]
    if len(ids) > max_prompt_tokens:
        raise PromptTooLongError(
            f"a vision prompt has {len(ids)} tokens ({len(images)} image(s) included), over "
            f"model.max_prompt_tokens={max_prompt_tokens}; an image's tokens cannot be cut (lower "
            "prompt.max_screenshots or prompt.history, shorten the text, or raise the budget)"
        )
    return ids, {key: encoded[key] for key in VISION_INPUTS if key in encoded}


class PixelInputs:
    """A stored vision prompt's pixel inputs, recomputed from its PNG files whenever a batch needs them.

    A training sample holds this instead of the tensors, so an iteration's samples cost no pixel
    memory beyond the micro-batch being run (a SmolVLM screenshot is ~13 tiles of 512x512 floats,
    ~40 MB). The recomputation is :func:`vision_inputs` again: the same files, the same pixels.

    Args:
        processor: the model's processor.
        messages: the stored prompt (image blocks hold PNG paths).
        max_prompt_tokens: the prompt budget.
    """

    def __init__(self, processor: Any, messages: Sequence[Message], max_prompt_tokens: int) -> None:
        self.processor = processor
        self.messages = list(messages)
        self.max_prompt_tokens = max_prompt_tokens

    def load(self) -> dict[str, Any]:
        """The pixel inputs as CPU tensors (``pixel_values`` etc.)."""
        return vision_inputs(self.processor, self.messages, self.max_prompt_tokens)[1]

    def items(self) -> Any:
        """``load().items()`` (so error messages can show the shapes)."""
        return self.load().items()


def stack_pixel_inputs(inputs: Sequence[dict[str, Any] | PixelInputs]) -> dict[str, Any] | None:
    """Several prompts' pixel inputs as one batch's (each kind concatenated over the prompts, in order).

    ``PixelInputs`` are loaded first. None when they cannot share a batch: different kinds, or
    shapes that differ past the first dimension (e.g. SmolVLM prompts with different numbers of
    image tiles).
    """
    import torch

    inputs = [item.load() if isinstance(item, PixelInputs) else item for item in inputs]
    kinds = {tuple(sorted(item)) for item in inputs}
    if len(kinds) != 1:
        return None
    stacked = {}
    for key in kinds.pop():
        rows = [item[key] for item in inputs]
        if len({tuple(row.shape[1:]) for row in rows}) > 1:
            return None
        stacked[key] = torch.cat(rows, dim=0)
    return stacked


def vision_sample(processor: Any, step: Step, advantage: float = 0.0, max_prompt_tokens: int = 1024) -> Sample:
    """The ``Sample`` of a recorded vision step: its prompt rebuilt from the stored screenshots.

    The sample's ``vision`` is a :class:`PixelInputs`: the pixels are read again per batch.
    """
    prompt_ids, _ = vision_inputs(processor, step.messages, max_prompt_tokens)
    token_ids = step.info.get("token_ids")
    if token_ids:
        response_ids = [int(t) for t in token_ids]
        behavior = step.logprobs if step.logprobs and len(step.logprobs) == len(response_ids) else None
    else:
        response_ids = processor.tokenizer(step.completion + END_OF_TURN, add_special_tokens=False)["input_ids"]
        behavior = None
    pixels = PixelInputs(processor, step.messages, max_prompt_tokens)
    return Sample(prompt_ids, response_ids, advantage, behavior, step.policy_version, vision=pixels)


def model_inputs(inputs: dict[str, Any], model: Any) -> dict[str, Any]:
    """``inputs`` on the model's device; floating ones in the weights' dtype (bf16 weights take bf16 pixels)."""
    parameter = next(model.parameters())
    return {
        key: value.to(parameter.device, dtype=parameter.dtype)
        if value.is_floating_point()
        else value.to(parameter.device)
        for key, value in inputs.items()
    }


def load_vision_model(path: str, device: str, bf16_weights: bool = False) -> tuple[Any, Any]:
    """``(processor, model)`` of the vision-language model folder ``path`` on ``device``.

    Raises:
        ValueError: ``path`` is ``default`` (the offline model reads text only: name a VLM folder).
    """
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    if path == "default":
        raise ValueError("prompt.vision needs a vision-language model: set model.path to its folder")
    processor = AutoProcessor.from_pretrained(path)
    model = AutoModelForImageTextToText.from_pretrained(path)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    model = model.to(device)
    return processor, model.to(torch.bfloat16) if bf16_weights else model
