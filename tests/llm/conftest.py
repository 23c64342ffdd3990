"""One SmolLM2-135M-Instruct per test session, and one local endpoint serving it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def smollm2() -> tuple[Any, Any]:
    """``(tokenizer, model)`` of the offline default model (converted once, then read from the cache)."""
    from desktop_gym.llm import configure_inference_threads, shared_default_model

    configure_inference_threads()
    return shared_default_model()


@pytest.fixture(scope="session")
def endpoint(smollm2: tuple[Any, Any]) -> Iterator[str]:
    """The base URL of ``desktop-gym llm serve``'s app serving SmolLM2 over real HTTP."""
    from desktop_gym.llm.server import local_endpoint

    tokenizer, model = smollm2
    with local_endpoint(model, tokenizer) as base_url:
        yield base_url
