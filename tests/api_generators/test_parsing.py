"""Reading LLM replies: code blocks, the analysis JSON, method and test sources (with property tests)."""

from __future__ import annotations

import json
import keyword

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.api_generators.parsing import (
    ReplyFormatError,
    code_blocks,
    first_json_object,
    function_specs,
    method_source,
    parse_reply,
    parse_test_functions,
)

METHOD = '''def shout(self, text: str) -> str:
    """Upper-case text.

    Args:
        text: The text.
    """
    return text.upper()
'''


def test_code_blocks_by_language_and_unclosed_fence():
    reply = "intro\n```python\nx = 1\n```\n```json\n{}\n```\n```\ny = 2"
    assert code_blocks(reply) == ["x = 1", "{}", "y = 2"]
    assert code_blocks(reply, "python") == ["x = 1", "y = 2"]
    assert code_blocks(reply, "json") == ["{}"]


def test_first_json_object_prefers_a_json_block_then_scans():
    assert first_json_object('noise {"a": 1} ```json\n{"b": 2}\n```') == {"b": 2}
    assert first_json_object('I think {"functions": []} is it') == {"functions": []}
    with pytest.raises(ReplyFormatError, match="no JSON"):
        first_json_object("no json here {")


def test_function_specs_clean_and_name_the_field_at_fault():
    good = {"functions": [{"name": "save", "signature": "", "docstring": "Save.", "tasks": ["t"]}]}
    assert function_specs(good) == [
        {"name": "save", "signature": "", "returns": "str", "docstring": "Save.", "tasks": ("t",), "reuse": ""}
    ]
    with pytest.raises(ReplyFormatError, match=r"functions\[0\]\.name"):
        function_specs({"functions": [{"name": "Not Valid", "docstring": "x"}]})
    with pytest.raises(ReplyFormatError, match=r"functions\[0\]\.signature"):
        function_specs({"functions": [{"name": "f", "signature": "a: int,, b", "docstring": "x"}]})
    with pytest.raises(ReplyFormatError, match=r"functions\[0\]\.docstring"):
        function_specs({"functions": [{"name": "f"}]})
    with pytest.raises(ReplyFormatError, match="'functions' list"):
        function_specs({"function": []})


def test_method_source_from_block_class_or_bare_text():
    assert method_source(f"Here:\n```python\n{METHOD}```", "shout") == METHOD.strip("\n")
    in_class = "```python\nclass EditorTools:\n" + "".join("    " + line + "\n" for line in METHOD.splitlines()) + "```"
    assert method_source(in_class, "shout").startswith("def shout(self, text: str) -> str:")
    assert method_source(METHOD, "shout").splitlines()[0] == "def shout(self, text: str) -> str:"


def test_method_source_moves_reply_imports_inside():
    source = method_source("```python\nimport re\n\n" + METHOD + "```", "shout")
    assert "import re" in source and source.index("import re") > source.index('"""Upper-case')


def test_method_source_refusals():
    with pytest.raises(ReplyFormatError, match="no Python code defining shout"):
        method_source("```python\ndef other(self):\n    '''x'''\n```", "shout")
    with pytest.raises(ReplyFormatError, match="first parameter must be self"):
        method_source("def shout(text):\n    '''x'''\n", "shout")
    with pytest.raises(ReplyFormatError, match="needs a docstring"):
        method_source("def shout(self):\n    return 1\n", "shout")


def test_test_source_keeps_helpers_and_lists_tests():
    source, names = parse_test_functions("```python\nCONFIG = 'a'\n\ndef test_a(editor):\n    assert CONFIG\n```")
    assert names == ["test_a"] and "CONFIG = 'a'" in source
    with pytest.raises(ReplyFormatError, match="no Python test functions"):
        parse_test_functions("```python\ndef helper(): pass\n```")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_parsers_never_raise_anything_but_reply_format_error(text):
    for parse in (first_json_object, lambda t: method_source(t, "shout"), parse_test_functions):
        try:
            parse(text)
        except ReplyFormatError:
            pass
    assert isinstance(code_blocks(text), list)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=4), st.text(max_size=40))
def test_first_json_object_finds_any_object_after_prose(value, prose):
    prose = prose.replace("{", "").replace("[", "")
    assert first_json_object(prose + " " + json.dumps(value)) == value


@settings(max_examples=100, deadline=None)
@given(
    st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True).filter(lambda name: not keyword.iskeyword(name)),
    st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=40),  # printable docstrings
)
def test_method_source_round_trips_any_name_and_docstring(name, doc):
    doc = doc.replace("\\", "").replace('"', "").replace("\r", "").strip() or "Do it."
    doc = " ".join(doc.split())
    code = f'def {name}(self, value: int = 1) -> int:\n    """{doc}"""\n    return value\n'
    assert method_source(f"```python\n{code}```", name) == code.strip("\n")


def test_parse_reply_attaches_the_reply_to_the_error():
    with pytest.raises(ReplyFormatError) as caught:
        parse_reply(parse_test_functions, "Sure! Here are tests: none")
    assert caught.value.reply == "Sure! Here are tests: none"


def test_a_reply_cut_at_the_token_limit_keeps_its_complete_functions():
    cut = "```python\ndef test_one(editor):\n    assert editor.save()\n\n\n"
    cut += "def test_two(editor):\n    editor.document.set_text("
    source, names = parse_test_functions(cut)
    assert names == ["test_one"] and "test_two" not in source
    method = method_source("```python\n" + METHOD + "    if text ==", "shout")
    assert method.endswith("return text.upper()")


def test_a_keyword_cannot_name_a_method():
    # `def or(self)` is not Python; hypothesis found the name once the round-trip strategy allowed keywords.
    with pytest.raises(ReplyFormatError, match="defining or"):
        method_source('```python\ndef or(self) -> int:\n    """Do it."""\n    return 1\n```', "or")
