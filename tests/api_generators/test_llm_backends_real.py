"""The real LLM backends, one tiny call each: the offline SmolLM2 and an OpenAI-compatible endpoint
(``desktop_gym.llm``'s local server over the same model), both through the content-hash cache."""

from __future__ import annotations

import pytest

from desktop_gym.api_generators.llm import CachedClient, OfflineClient, OpenAIClient

pytestmark = pytest.mark.stage_apigen

PROMPT = [{"role": "user", "content": "Name one colour."}]


def test_offline_model_answers_and_a_rerun_is_served_from_the_cache(tmp_path):
    client = CachedClient(OfflineClient(max_new_tokens=8, threads=1), tmp_path)
    reply = client.complete(PROMPT, "smoke")
    assert reply.text.strip() and 0 < reply.completion_tokens <= 8 and reply.prompt_tokens > 0 and not reply.cached
    again = client.complete(PROMPT, "smoke")
    assert again.cached and again.text == reply.text and client.hits == 1


def test_openai_compatible_endpoint_answers(tmp_path):
    from desktop_gym.llm import shared_default_model
    from desktop_gym.llm.server import local_endpoint

    tokenizer, model = shared_default_model()
    with local_endpoint(model, tokenizer) as url:
        client = OpenAIClient(base_url=url, max_tokens=8)
        assert client.name.startswith(f"openai:{url} (model ")
        reply = client.complete(PROMPT, "smoke")
    assert reply.text.strip() and 0 < reply.completion_tokens <= 8 and reply.seconds > 0
