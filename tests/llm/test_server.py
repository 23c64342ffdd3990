"""``desktop-gym llm serve``'s endpoint through the real ``openai`` client over HTTP."""

from __future__ import annotations

import json
from typing import Any

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


def greedy_hello(client: openai.OpenAI, **options: Any) -> Any:
    """A greedy answer with log-probs to "Say hello." (``options`` add to or override the request's fields)."""
    request = {"model": "m", "messages": [{"role": "user", "content": "Say hello."}], "temperature": 0}
    return client.chat.completions.create(**{**request, "logprobs": True, **options})


def test_models_and_a_plain_answer_with_logprobs(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["SmolLM2-135M-Instruct"]
    response = greedy_hello(client, model="anything", max_tokens=5)
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


OFFERED = [
    {
        "type": "function",
        "function": {
            "name": "CalcTools__set_cell_value",
            "description": "Write a number or text into one cell.",
            "parameters": {
                "type": "object",
                "properties": {"cell": {"type": "string"}, "value": {"type": "number"}},
                "required": ["cell", "value"],
            },
        },
    }
]


def test_tools_reach_the_prompt_through_the_fallback_template(smollm2) -> None:
    from desktop_gym.llm.generation import chat_prompt
    from desktop_gym.llm.tool_prompt import template_renders_tools

    tokenizer, _ = smollm2
    chat = [{"role": "system", "content": "You operate Calc."}, {"role": "user", "content": "Set C3 to 5."}]
    assert not template_renders_tools(tokenizer)  # SmolLM2's own template drops tools
    bare = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    assert tokenizer.apply_chat_template(chat, tools=OFFERED, tokenize=False, add_generation_prompt=True) == bare
    plain, with_tools = chat_prompt(tokenizer, chat), chat_prompt(tokenizer, chat, tools=OFFERED)
    assert plain == bare and with_tools != plain
    system = with_tools.split("<|im_end|>")[0]  # the tools ride in the system turn, after its own text
    assert system.index("You operate Calc.") < system.index('"name": "CalcTools__set_cell_value"')
    assert "<tool_call>" in system


def test_a_template_that_renders_tools_is_left_to_render_them(smollm2) -> None:
    import copy

    from desktop_gym.llm.generation import chat_prompt
    from desktop_gym.llm.tool_prompt import template_renders_tools

    tokenizer = copy.deepcopy(smollm2[0])
    tokenizer.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
        "{% if tools %}TOOLS:{% for t in tools %}{{ t.function.name }};{% endfor %}\n{% endif %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    assert template_renders_tools(tokenizer)
    prompt = chat_prompt(tokenizer, [{"role": "user", "content": "hi"}], tools=OFFERED)
    assert "TOOLS:CalcTools__set_cell_value;" in prompt and "<tools>" not in prompt


def test_tool_choice_required_gives_a_tool_call_or_a_400(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "Enter the number 5 into cell C3."}]
    forced = {"type": "function", "function": {"name": "CalcTools__set_cell_value"}}
    for choice in ("required", forced):
        try:
            response = client.chat.completions.create(
                model="m", messages=messages, tools=OFFERED, tool_choice=choice, max_tokens=24, temperature=0
            )
        except openai.BadRequestError as error:  # the model did not manage a call: refused, not passed off
            assert "tool_choice" in str(error)
            continue
        (call,) = response.choices[0].message.tool_calls
        assert call.function.name == "CalcTools__set_cell_value" and response.choices[0].finish_reason == "tool_calls"
        assert isinstance(json.loads(call.function.arguments), dict)
    # The forced start of the call makes the small model answer with a call here (greedy, so always).
    response = client.chat.completions.create(
        model="m", messages=messages, tools=OFFERED, tool_choice=forced, max_tokens=24, temperature=0
    )
    assert response.choices[0].message.tool_calls, response.choices[0].message
    # A prefill that can never become a call of an offered tool: required means 400, not content.
    with pytest.raises(openai.BadRequestError, match="tool_choice"):
        client.chat.completions.create(
            model="m",
            messages=[*messages, {"role": "assistant", "content": "I will not call anything. "}],
            tools=OFFERED,
            tool_choice="required",
            max_tokens=3,
            temperature=0,
        )
    with pytest.raises(openai.BadRequestError, match="not among tools"):
        client.chat.completions.create(
            model="m",
            messages=messages,
            tools=OFFERED,
            tool_choice={"type": "function", "function": {"name": "click"}},
            max_tokens=2,
        )
    with pytest.raises(openai.BadRequestError, match="offers no tools"):
        client.chat.completions.create(model="m", messages=messages, tool_choice="required", max_tokens=2)


def test_top_logprobs_are_the_most_likely_tokens_in_order(client: openai.OpenAI) -> None:
    response = greedy_hello(client, max_tokens=4, top_logprobs=3)
    content = response.choices[0].logprobs.content
    assert content
    for item in content:
        alternatives = [alt.logprob for alt in item.top_logprobs]
        assert len(alternatives) == 3 and alternatives == sorted(alternatives, reverse=True)
        # Greedy decoding picked the most likely token: it is the first alternative.
        assert item.top_logprobs[0].token == item.token and item.top_logprobs[0].logprob == pytest.approx(item.logprob)
    with pytest.raises(openai.BadRequestError, match="top_logprobs"):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}], top_logprobs=2)


def test_a_stream_with_include_usage_ends_with_a_usage_chunk(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "Count."}]
    chunks = list(
        client.chat.completions.create(
            model="m",
            messages=messages,
            max_tokens=3,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    *deltas, last = chunks
    assert last.choices == [] and last.usage is not None
    assert last.usage.completion_tokens >= 1 and last.usage.prompt_tokens > 0
    assert last.usage.total_tokens == last.usage.prompt_tokens + last.usage.completion_tokens
    assert all(chunk.usage is None for chunk in deltas) and deltas
    plain = list(client.chat.completions.create(model="m", messages=messages, max_tokens=3, temperature=0, stream=True))
    assert all(chunk.choices for chunk in plain)  # without the option, no usage chunk
