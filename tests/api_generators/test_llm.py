"""LLM backends: the recording (replay, drift, seal), the content-hash cache, the --llm spec."""

from __future__ import annotations

import json

import pytest

from desktop_gym.api_generators.llm import (
    CachedClient,
    LLMError,
    LLMReply,
    RecordingClient,
    RecordingMissError,
    make_client,
    prompt_sha256,
)

PROMPT = [{"role": "user", "content": "write f"}]


class StandInCountingClient:
    """A stand-in backend that counts calls (no model runs in these unit tests)."""

    name = "stand-in"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, key, prefill=""):
        self.calls += 1
        return LLMReply(text=f"reply {self.calls} to {messages[-1]['content']}", prompt_tokens=3, completion_tokens=2)


def write_recording(path, entries, **extra):
    path.write_text(json.dumps({"source": "test recording", "entries": entries, **extra}))
    return path


def test_recording_replays_by_key_and_names_itself(tmp_path):
    path = write_recording(tmp_path / "r.json", [{"key": "analyse", "response": ["line 1", "line 2"]}])
    client = RecordingClient(path)
    assert client.complete(PROMPT, "analyse").text == "line 1\nline 2"
    assert client.name.startswith("recording:r.json (test recording)")
    with pytest.raises(RecordingMissError, match="no response recorded for 'tests/f'"):
        client.complete(PROMPT, "tests/f")


def test_recording_seal_pins_the_prompt_and_drift_is_reported_or_refused(tmp_path):
    path = write_recording(tmp_path / "r.json", [{"key": "analyse", "response": "ok"}])
    RecordingClient(path, seal=True).complete(PROMPT, "analyse")
    sealed = json.loads(path.read_text())["entries"][0]
    assert sealed["prompt_sha256"] == prompt_sha256(PROMPT) and sealed["prompt"] == PROMPT
    lenient = RecordingClient(path)
    lenient.complete(PROMPT, "analyse")
    assert lenient.drifted == []
    other = [{"role": "user", "content": "write g"}]
    lenient.complete(other, "analyse")
    assert lenient.drifted == ["analyse"]
    with pytest.raises(RecordingMissError, match="recorded for another prompt"):
        RecordingClient(path, strict=True).complete(other, "analyse")


@pytest.mark.parametrize(
    ("content", "message"),
    [("not json", "not JSON"), ('{"entries": 3}', "'entries' list"), ('{"entries": [{"key": 1}]}', r"entries\[0\]")],
)
def test_recording_file_errors_name_the_problem(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(LLMError, match=message):
        RecordingClient(path)


def test_cache_answers_a_repeated_prompt_without_the_backend(tmp_path):
    inner = StandInCountingClient()
    client = CachedClient(inner, tmp_path / "cache")
    first = client.complete(PROMPT, "implement/f/0")
    again = client.complete(PROMPT, "implement/f/0")
    assert inner.calls == 1 and again.cached and again.text == first.text and again.prompt_tokens == 3
    client.complete([{"role": "user", "content": "other"}], "implement/f/0")
    assert inner.calls == 2 and len(list((tmp_path / "cache").glob("*.json"))) == 2
    # a fresh client over the same folder (a rerun) costs nothing
    rerun_inner = StandInCountingClient()
    CachedClient(rerun_inner, tmp_path / "cache").complete(PROMPT, "implement/f/0")
    assert rerun_inner.calls == 0


def test_cache_recovers_from_a_torn_entry(tmp_path):
    inner = StandInCountingClient()
    client = CachedClient(inner, tmp_path)
    client.complete(PROMPT, "k")
    next(tmp_path.glob("*.json")).write_text("{torn")
    assert not client.complete(PROMPT, "k").cached and inner.calls == 2


def test_make_client_specs(tmp_path):
    path = write_recording(tmp_path / "r.json", [])
    assert isinstance(make_client(f"recording:{path}", cache_dir=tmp_path / "c"), RecordingClient)
    assert isinstance(make_client("offline", cache_dir=tmp_path / "c"), CachedClient)
    with pytest.raises(LLMError, match="expected 'offline', 'recording:PATH' or an endpoint URL"):
        make_client("gpt-9")
