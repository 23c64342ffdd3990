"""Local language models: the offline default model, generation, an OpenAI-compatible endpoint."""

from .generation import Completion, chat_prompt, content_text, generate, generate_chat
from .model import (
    DEFAULT_MODEL_NAME,
    ModelNotAvailableError,
    cache_root,
    configure_inference_threads,
    default_model_dir,
    load_default_model,
    load_model,
    shared_default_model,
)

__all__ = [
    "DEFAULT_MODEL_NAME",
    "Completion",
    "ModelNotAvailableError",
    "cache_root",
    "chat_prompt",
    "configure_inference_threads",
    "content_text",
    "default_model_dir",
    "generate",
    "generate_chat",
    "load_default_model",
    "load_model",
    "shared_default_model",
]
