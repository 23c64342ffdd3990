"""The trainer's sampling policy for a vision-language model: screenshots in, an action out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_gym.episode.prompts import Generation, Messages

from .policy_model import VersionedPolicy
from .vision import stack_pixel_inputs, vision_inputs


class VisionPolicy(VersionedPolicy):
    """A vision-language model as a ``Policy``: each prompt's screenshots go to the model as pixels.

    The prompt is built by :func:`~desktop_gym.train.vision.vision_inputs`, the function training
    rebuilds it with, so sampling and training see the same tokens and pixels.

    Args:
        model: the vision-language model (``AutoModelForImageTextToText``, on any device).
        tokenizer: the processor's tokenizer (decodes the answers).
        *args: as :class:`~desktop_gym.train.policy_model.VersionedPolicy` (temperature,
            max_new_tokens, one_line, max_prompt_tokens, prompt_overflow, bf16).
        processor: the model's processor (keyword only).
        **kwargs: as ``*args``.
    """

    def __init__(self, model: Any, tokenizer: Any, *args: Any, processor: Any, **kwargs: Any) -> None:
        super().__init__(model, tokenizer, *args, **kwargs)
        self.processor = processor

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        """One completion per prompt (image blocks hold arrays or stored PNG paths; a trailing prefill is continued).

        The prompts are sampled as one left-padded batch when their pixel inputs can be stacked
        (:func:`~desktop_gym.train.vision.stack_pixel_inputs`), else one at a time.
        """
        prompts = [vision_inputs(self.processor, messages, self.max_prompt_tokens) for messages in batch]
        if not prompts:
            return []
        stacked = stack_pixel_inputs([pixels for _, pixels in prompts])
        if stacked is not None:
            generations = self.generate_ids([ids for ids, _ in prompts], stacked)
        else:
            generations = [self.generate_ids([ids], pixels)[0] for ids, pixels in prompts]
        for generation in generations:
            generation.policy_version = self.version
            if self.one_line and "\n" in generation.text:
                self._cut_at_newline(generation)
        return generations
