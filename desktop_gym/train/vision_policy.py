"""The trainer's sampling policy for a vision-language model: screenshots in, an action out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_gym.episode.prompts import Generation, Messages

from .policy_model import VersionedPolicy
from .vision import vision_inputs


class VisionPolicy(VersionedPolicy):
    """A vision-language model as a ``Policy``: each prompt's screenshots go to the model as pixels.

    The prompt is built by :func:`~desktop_gym.train.vision.vision_inputs`, the function training
    rebuilds it with, so sampling and training see the same tokens and pixels. Prompts are sampled
    one at a time (their images differ in number and size).

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
        """One completion per prompt (image blocks hold arrays or stored PNG paths; a trailing prefill is continued)."""
        generations = []
        for messages in batch:
            ids, pixels = vision_inputs(self.processor, messages, self.max_prompt_tokens)
            generation = self.generate_ids([ids], pixels)[0]
            generation.policy_version = self.version
            if self.one_line and "\n" in generation.text:
                self._cut_at_newline(generation)
            generations.append(generation)
        return generations
