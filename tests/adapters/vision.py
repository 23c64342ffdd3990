"""``StandInVisionProcessor`` for the adapter tests: no vision-language model is available offline.

The stand-in is transformers' own ``LlavaProcessor`` over SmolLM2's tokenizer (with an
``<image>`` placeholder token added) and a CLIP image processor built from its defaults (no weights,
no download), shrunk to 56x56 pixels: the real processor code turns screenshots into
``pixel_values`` and placeholder tokens, so the tests check that the images reach each library's data
structures in the form its code consumes, though no model reads them.
"""

from __future__ import annotations

from typing import Any

IMAGE_TOKEN = "<image>"
PIXELS = 56
"""Side of the square the stand-in resizes every image to (4x4 patches of 14: 16 placeholder tokens)."""
CHATML_VISION_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<image>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""ChatML whose image blocks render as the ``<image>`` placeholder (SmolLM2's template has no images)."""


def stand_in_vision_processor() -> tuple[Any, Any]:  # the StandInVisionProcessor
    """``(tokenizer, processor)``: a fresh SmolLM2 tokenizer with ``<image>``, and the Llava processor over it."""
    from transformers import AutoTokenizer, LlavaProcessor
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    from desktop_gym.llm.model import default_model_dir

    tokenizer = AutoTokenizer.from_pretrained(default_model_dir())
    tokenizer.add_tokens([IMAGE_TOKEN])  # not a special token: verl decodes with skip_special_tokens=True
    tokenizer.chat_template = CHATML_VISION_TEMPLATE
    images = CLIPImageProcessorPil(size={"shortest_edge": PIXELS}, crop_size={"height": PIXELS, "width": PIXELS})
    processor = LlavaProcessor(
        image_processor=images,
        tokenizer=tokenizer,
        chat_template=CHATML_VISION_TEMPLATE,
        patch_size=14,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
    )
    return tokenizer, processor
