"""VS Code's JSON with comments: the parser reads what VS Code reads (comments, trailing commas, strings
that look like comments), property-tested against json.dumps of any JSON value."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.apps.vscode.jsonc import parse_jsonc, strip_jsonc

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
COMMENTS = st.sampled_from(["", " ", "// note\n", "/* block */", "/* a // b */", "//\n", "\n/*\n*/\n"])


def _with_comments(value: object, comments: list[str]) -> str:
    """``value`` as JSON text with a comment after each structural character and trailing commas."""
    text = json.dumps(value, indent=1)
    out, in_string, escaped, index = [], False, False, 0
    for char in text:
        out.append(char)
        if in_string:
            if char == '"' and not escaped:
                in_string = False
            escaped = char == "\\" and not escaped
            continue
        if char == '"':
            in_string = True
        elif char in "[{,:":
            out.append(comments[index % len(comments)])
            index += 1
    result = "".join(out)
    return result.replace("\n}", ",\n}").replace("\n]", ",\n]") if comments[0] == "" else result


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES, st.lists(COMMENTS, min_size=1, max_size=5))
def test_comments_and_trailing_commas_do_not_change_the_value(value, comments):
    assert parse_jsonc(_with_comments(value, comments)) == value


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_or_raises_value_error(text):
    try:
        parse_jsonc(text)
    except ValueError:
        pass


def test_examples():
    assert parse_jsonc('{\n // c\n "a": "http://x//y", /* b */ "b": [1, 2,],\n}') == {"a": "http://x//y", "b": [1, 2]}
    assert parse_jsonc('"a\\"//b"') == 'a"//b'
    assert parse_jsonc("// only a comment\n") is None
    assert parse_jsonc("\ufeff{}") == {}
    with pytest.raises(ValueError, match="unterminated comment"):
        strip_jsonc("{ /* open")
    with pytest.raises(ValueError, match="unterminated string"):
        strip_jsonc('{"a')
    with pytest.raises(ValueError):
        parse_jsonc('{"a" 1}')
