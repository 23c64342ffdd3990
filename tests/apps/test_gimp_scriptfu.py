"""The Script-Fu wire protocol, the Scheme literals agent values become, and the reader of GIMP's
replies: framing round trips, escaping that no string can break out of, and a strict bounded reader."""

from __future__ import annotations

import math
import socket
import struct
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.apps.gimp.scriptfu import (
    MAX_SCRIPT_BYTES,
    MAX_STRING_CHARS,
    ScriptFuError,
    decode_reply,
    encode_request,
    evaluate,
    run_script,
    scheme_number,
    scheme_string,
)
from desktop_gym.apps.gimp.sexp import MAX_DEPTH, SexpError, parse_sexp

printable = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters=[chr(c) for c in range(32) if c not in (9, 10)] + [chr(c) for c in range(0x7F, 0xA0)],
    ),
    max_size=200,
)


def _print_scheme(value: object) -> str:
    """How Script-Fu prints a value (numbers, strings, booleans, lists)."""
    if isinstance(value, bool):
        return "#t" if value else "#f"
    if isinstance(value, str):
        return scheme_string(value)
    if isinstance(value, list):
        return "(" + " ".join(_print_scheme(item) for item in value) + ")"
    return repr(value)


values = st.recursive(
    st.one_of(st.booleans(), st.integers(-(10**12), 10**12), printable),
    lambda children: st.lists(children, max_size=5),
    max_leaves=30,
)


@given(printable)
def test_a_string_literal_reads_back_as_the_same_text_and_one_token(text: str) -> None:
    literal = scheme_string(text)
    assert literal.startswith('"') and literal.endswith('"')
    assert parse_sexp(literal) == text
    # No unescaped quote inside: the literal cannot end early and let Scheme code follow.
    body = literal[1:-1].replace("\\\\", "").replace('\\"', "")
    assert '"' not in body


@given(values)
def test_the_reader_reads_what_script_fu_prints(value: object) -> None:
    assert parse_sexp(_print_scheme(value)) == value


def test_the_reader_knows_vectors_symbols_and_floats() -> None:
    assert parse_sexp('(3 #(200 50 "a") sym 2.5 -1e3)') == [3, [200, 50, "a"], "sym", 2.5, -1000.0]


@pytest.mark.parametrize(
    "text", ["", "(1 2", '"open', "1 2", ")", '"bad \\q"', "(" * (MAX_DEPTH + 1) + ")" * (MAX_DEPTH + 1)]
)
def test_the_reader_refuses_malformed_text(text: str) -> None:
    with pytest.raises(SexpError):
        parse_sexp(text)


@given(st.text(max_size=300))
def test_the_reader_either_reads_or_refuses_any_text(text: str) -> None:
    try:
        parse_sexp(text)
    except SexpError:
        pass


@pytest.mark.parametrize("text", ["a\x00b", "\x1b[31m", "x" * (MAX_STRING_CHARS + 1), 5])
def test_strings_with_control_characters_or_too_long_are_refused(text: object) -> None:
    with pytest.raises(ValueError):
        scheme_string(text)  # type: ignore[arg-type]


@given(st.floats(allow_nan=True, allow_infinity=True), st.floats(-100, 0), st.floats(0, 100))
def test_a_number_literal_is_a_plain_number_in_range(value: float, low: float, high: float) -> None:
    try:
        literal = scheme_number(value, low, high)
    except ValueError:
        assert not math.isfinite(value) or not low <= value <= high
        return
    assert abs(float(literal) - value) <= 1e-6 and all(ch in "-0123456789." for ch in literal)


@pytest.mark.parametrize("value", [True, "3", None, 2.5])
def test_integers_refuse_booleans_text_and_fractions(value: object) -> None:
    with pytest.raises(ValueError):
        scheme_number(value, 0, 10, integer=True)  # type: ignore[arg-type]


@given(st.text(max_size=500), st.booleans())
def test_framing_round_trips(script: str, failed: bool) -> None:
    request = encode_request(script)
    assert request[:1] == b"G" and struct.unpack(">H", request[1:3])[0] == len(request) - 3
    assert request[3:].decode() == script
    body = script.encode()
    reply = decode_reply(b"G" + bytes([int(failed)]) + struct.pack(">H", len(body)) + body)
    assert (reply.failed, reply.text) == (failed, script)


def test_framing_refuses_oversized_scripts_and_bad_replies() -> None:
    with pytest.raises(ValueError, match="at most"):
        encode_request("x" * (MAX_SCRIPT_BYTES + 1))
    with pytest.raises(ScriptFuError, match="header"):
        decode_reply(b"X\x00\x00\x00")
    with pytest.raises(ScriptFuError, match="announced"):
        decode_reply(b"G\x00\x00\x05abc")


class _LoopbackPeer:
    """A stand-in for GIMP's server on a loopback socket (GIMP itself is driven in tests/guest): it
    records each request and answers with a canned reply."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.requests: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            header = conn.recv(3)
            length = struct.unpack(">H", header[1:3])[0]
            body = b""
            while len(body) < length:
                body += conn.recv(length - len(body))
            self.requests.append(header + body)
            conn.sendall(self.reply)


def test_a_call_sends_one_framed_script_and_reads_the_value() -> None:
    peer = _LoopbackPeer(b"G\x00\x00\x0a(1 #(2 3))")
    assert evaluate(peer.port, "(gimp-image-list)", timeout=5) == [1, [2, 3]]
    assert peer.requests == [encode_request("(gimp-image-list)")]


def test_a_failed_script_raises_with_gimps_message() -> None:
    text = b"Error: eval: unbound variable: nope \n"
    peer = _LoopbackPeer(b"G\x01" + struct.pack(">H", len(text)) + text)
    with pytest.raises(ScriptFuError, match="unbound variable") as caught:
        run_script(peer.port, "(nope)", timeout=5)
    assert caught.value.script_failed


def test_a_closed_port_is_an_unreachable_server() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ScriptFuError, match="does not answer") as caught:
        run_script(port, "(gimp-image-list)", timeout=2)
    assert not caught.value.script_failed


@settings(max_examples=30)
@given(st.text(max_size=100))
def test_a_truncated_reply_is_an_error_not_a_hang(text: str) -> None:
    body = text.encode()
    peer = _LoopbackPeer(b"G\x00" + struct.pack(">H", len(body) + 5) + body)
    with pytest.raises(ScriptFuError, match="closed"):
        run_script(peer.port, "(x)", timeout=5)
