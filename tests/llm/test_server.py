"""``desktop-gym llm serve``'s endpoint through the real ``openai`` client over HTTP."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.llm.server import parse_tool_calls

TOOLS = [
    {"type": "function", "function": {"name": "click", "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {"name": "CalcTools__set_cell_value", "parameters": {"type": "object"}}},
]


@pytest.fixture(scope="module")
def client(endpoint: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=endpoint, api_key="unused", max_retries=0)


def test_models_and_a_plain_answer_with_logprobs(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["SmolLM2-135M-Instruct"]
    response = client.chat.completions.create(
        model="anything",
        messages=[{"role": "user", "content": "Say hello."}],
        max_tokens=5,
        temperature=0,
        logprobs=True,
    )
    choice = response.choices[0]
    assert choice.message.content and choice.finish_reason in ("stop", "length")
    assert len(choice.logprobs.content) == response.usage.completion_tokens <= 5
    assert all(item.logprob <= 0 for item in choice.logprobs.content)
    assert response.usage.prompt_tokens > 0


def test_n_choices_and_streaming(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "Count."}]
    response = client.chat.completions.create(model="m", messages=messages, max_tokens=3, n=2, temperature=1.0, seed=1)
    assert [c.index for c in response.choices] == [0, 1]
    chunks = list(
        client.chat.completions.create(model="m", messages=messages, max_tokens=3, temperature=0, stream=True)
    )
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks)
    plain = client.chat.completions.create(model="m", messages=messages, max_tokens=3, temperature=0)
    assert streamed == plain.choices[0].message.content


def test_a_prefill_is_continued(client: openai.OpenAI) -> None:
    messages = [
        {"role": "user", "content": "Click at 10, 20."},
        {"role": "assistant", "content": "click(coordinates=["},
    ]
    response = client.chat.completions.create(model="m", messages=messages, max_tokens=4, temperature=0)
    assert not response.choices[0].message.content.startswith("click(")


def test_tool_offers_come_back_in_the_openai_shape(client: openai.OpenAI) -> None:
    messages = [
        {"role": "user", "content": "Set C3 to 5."},
        {"role": "assistant", "content": 'CalcTools.set_cell_value(cell="C3", value=5)'},
    ]
    response = client.chat.completions.create(model="m", messages=messages, tools=TOOLS, max_tokens=3, temperature=0)
    message = response.choices[0].message
    if message.tool_calls:  # the continuation kept the prefilled call intact
        assert response.choices[0].finish_reason == "tool_calls"
        assert message.tool_calls[0].function.name == "CalcTools__set_cell_value"
        assert json.loads(message.tool_calls[0].function.arguments) == {"cell": "C3", "value": 5}
    else:
        assert isinstance(message.content, str)


@pytest.mark.parametrize(
    ("request_body", "field"),
    [
        ({"max_tokens": 100_000}, "max_tokens"),
        ({"n": 50}, "n"),
        ({"temperature": 9}, "temperature"),
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0]"),
        ({"tools": [{"type": "function"}]}, "tools[0]"),
    ],
)
def test_requests_over_a_bound_are_refused_naming_the_field(
    client: openai.OpenAI, request_body: dict, field: str
) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2, **request_body}
    with pytest.raises(openai.BadRequestError, match=field.replace("[", r"\[")):
        client.chat.completions.create(**body)


def test_a_body_that_is_not_json_is_refused(endpoint: str) -> None:
    response = httpx.post(f"{endpoint}/chat/completions", content=b"{not json", timeout=10)
    assert response.status_code == 400 and "error" in response.json()


def test_tool_call_parsing_accepts_json_tags_and_python_calls() -> None:
    names = ["click", "CalcTools__set_cell_value"]
    [call] = parse_tool_calls('<tool_call>{"name": "click", "arguments": {"coordinates": [1, 2]}}</tool_call>', names)
    assert call["function"] == {"name": "click", "arguments": '{"coordinates": [1, 2]}'}
    [call] = parse_tool_calls('CalcTools.set_cell_value(cell="A1", value="x")', names)
    assert json.loads(call["function"]["arguments"]) == {"cell": "A1", "value": "x"}
    assert parse_tool_calls('scroll(direction="up")', names) == []  # not offered
    assert parse_tool_calls("click(1, 2)", names) == []  # positional arguments have no names
    assert parse_tool_calls("I would click the button", names) == []


@given(st.text(max_size=200))
def test_tool_call_parsing_never_raises(text: str) -> None:
    calls = parse_tool_calls(text, ["click", "CalcTools__set_cell_value"])
    for call in calls:
        assert call["function"]["name"] in ("click", "CalcTools__set_cell_value")
        assert isinstance(json.loads(call["function"]["arguments"]), dict)
