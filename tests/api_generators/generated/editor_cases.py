"""Tests of EditorTools, generated with it (test_generated_editor.py runs them)."""

import pytest

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError  # noqa: F401


def test_get_text_returns_unsaved_text(editor):
    editor.document.set_text("alpha\nbeta\n")
    assert editor.get_text() == "alpha\nbeta\n"


def test_get_text_empty_document(editor):
    assert editor.get_text() == ""


def test_get_text_cuts_long_text(editor):
    editor.document.set_text("x" * 50)
    text = editor.get_text(max_chars=10)
    assert text.startswith("x" * 10)
    assert "40 more characters cut" in text


def test_get_text_rejects_bad_max_chars(editor):
    with pytest.raises(ApiArgumentError):
        editor.get_text(max_chars=0)


def test_append_line_after_trailing_newline(editor):
    editor.document.set_text("buy milk\ncall Ada\n")
    result = editor.append_line("order paint")
    assert "3" in result
    assert editor.document.save().read_text() == "buy milk\ncall Ada\norder paint\n"


def test_append_line_without_trailing_newline(editor):
    editor.document.set_text("one\ntwo")
    editor.append_line("three")
    assert editor.document.save().read_text() == "one\ntwo\nthree\n"


def test_append_line_to_empty_document(editor):
    assert editor.append_line("first") == "appended line 1"
    assert editor.document.save().read_text() == "first\n"


def test_append_line_rejects_newlines(editor):
    with pytest.raises(ApiArgumentError):
        editor.append_line("two\nlines")


CONFIG = "# web settings\nhost = 127.0.0.1\nport = 3000\nworkers = 4\n"


def test_set_config_value_rewrites_the_line(editor):
    editor.document.set_text(CONFIG)
    assert editor.set_config_value("port", "8080") == "updated line 3"
    assert editor.document.save().read_text() == CONFIG.replace("port = 3000", "port = 8080")


def test_set_config_value_keeps_indent_and_colon_keys(editor):
    editor.document.set_text("server:\n  port: 80\n")
    editor.set_config_value("port", "81", separator=": ")
    assert editor.document.save().read_text() == "server:\n  port: 81\n"


def test_set_config_value_adds_a_missing_key(editor):
    editor.document.set_text("host = a")
    assert editor.set_config_value("timeout", "30") == "added line 2"
    assert editor.document.save().read_text() == "host = a\ntimeout = 30\n"


def test_set_config_value_ignores_comments(editor):
    editor.document.set_text("# port = 1\nport = 2\n")
    assert editor.set_config_value("port", "3") == "updated line 2"
    assert editor.document.save().read_text() == "# port = 1\nport = 3\n"


def test_set_config_value_rejects_bad_key(editor):
    with pytest.raises(ApiArgumentError):
        editor.set_config_value("a=b", "1")


def test_replace_text_all_by_default(editor):
    editor.document.set_text("recieve the parcel; recieve the mail\n")
    assert editor.replace_text("recieve", "receive").startswith("replaced 2 occurrences")
    assert editor.document.save().read_text() == "receive the parcel; receive the mail\n"


def test_replace_text_with_count(editor):
    editor.document.set_text("a-a-a")
    assert editor.replace_text("a", "b", count=2).startswith("replaced 2")
    assert editor.document.save().read_text() == "b-b-a"


def test_replace_text_absent_text_changes_nothing(editor):
    editor.document.set_text("hello\n")
    assert editor.replace_text("bye", "ciao").startswith("replaced 0")
    assert editor.document.save().read_text() == "hello\n"


def test_replace_text_rejects_empty_old(editor):
    with pytest.raises(ApiArgumentError):
        editor.replace_text("", "x")


def test_delete_line_in_the_middle(editor):
    editor.document.set_text("one\ntwo\nthree\nfour\n")
    assert editor.delete_line(3) == "three"
    assert editor.document.save().read_text() == "one\ntwo\nfour\n"


def test_delete_first_line(editor):
    editor.document.set_text("one\ntwo\n")
    assert editor.delete_line(1) == "one"
    assert editor.document.save().read_text() == "two\n"


def test_delete_last_line_without_newline(editor):
    editor.document.set_text("one\ntwo")
    assert editor.delete_line(2) == "two"
    assert editor.document.save().read_text() == "one"


def test_delete_line_out_of_range(editor):
    editor.document.set_text("one\n")
    with pytest.raises(ApiArgumentError):
        editor.delete_line(2)
    with pytest.raises(ApiArgumentError):
        editor.delete_line(0)


def test_sort_lines_alphabetically(editor):
    editor.document.set_text("pears\napples\nmilk\n")
    assert editor.sort_lines() == "sorted 3 lines"
    assert editor.document.save().read_text() == "apples\nmilk\npears\n"


def test_sort_lines_reverse(editor):
    editor.document.set_text("b\na\nc")
    editor.sort_lines(reverse=True)
    assert editor.document.save().read_text() == "c\nb\na"


def test_sort_lines_ignoring_case(editor):
    editor.document.set_text("banana\nApple\ncherry\n")
    editor.sort_lines(ignore_case=True)
    assert editor.document.save().read_text() == "Apple\nbanana\ncherry\n"


def test_sort_lines_empty_document(editor):
    assert editor.sort_lines() == "sorted 0 lines"
    assert editor.document.save().read_text() == ""


def test_save_writes_the_file(editor):
    editor.document.set_text("saved text\n")
    result = editor.save()
    path = editor.document.file_path()
    assert result == f"saved {path}"
    assert path.read_text() == "saved text\n"
    assert not editor.document.is_modified()


def test_save_twice(editor):
    editor.document.set_text("first")
    editor.save()
    editor.document.set_text("second")
    editor.save()
    assert editor.document.file_path().read_text() == "second"


def test_save_takes_no_arguments(editor):
    with pytest.raises(TypeError):
        editor.save("elsewhere.txt")
