"""The reader of an application's own accessibility socket (``a11y_peer``): its parsing and its fallback.

Whether the tree it reads equals libatspi's is checked on a real Calc in ``test_a11y_cache.py``.
Here: whatever bytes an application sends, a call ends in a value or :class:`PeerError` (an
application in the desktop is the agent's to start, so its answers are adversarial); marshalling
round-trips; a batch of calls gets each its own reply, whatever order and signals come between;
an application with no socket of its own is walked through libatspi; and on a real Calc the
shown children's replies are read ahead in one write and give the tree read one call at a time.
"""

from __future__ import annotations

import random
import socket
import struct
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.guest import a11y, a11y_peer, a11y_wire
from desktop_gym.guest.a11y_peer import PeerNode
from desktop_gym.guest.a11y_wire import PeerError, Reader, Writer, take_message

from ..support.soffice import needs_desktop_tools


class GarbageConnection:
    """Stands in for an application that answers every call with the given bytes (no real one would)."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply

    def call(self, *_args: object) -> Reader:
        return Reader(self.reply, 0)

    def call_many(self, calls: list[object]) -> list[Reader]:
        return [Reader(self.reply, 0) for _ in calls]


class Roles:
    def __init__(self, number: int) -> None:
        if number > 200:
            raise ValueError(number)
        self.value_nick = "push-button"


READS = [
    lambda node: node.get_state_set().get_states(),
    PeerNode.get_role_name,
    PeerNode.get_interfaces,
    PeerNode.get_attributes,
    PeerNode.get_name,
    lambda node: node.get_extents(0),
    PeerNode.get_child_count,
    lambda node: node.get_child_at_index(3),
    PeerNode.get_parent,
    PeerNode.get_character_count,
    lambda node: node.get_text(0, 10),
    lambda node: node.get_accessible_at(1, 2),
    lambda node: node.get_accessible_at_point(5, 5, 0),
    PeerNode.get_n_selected_children,
    lambda node: [(c.get_name(), c.get_extents(0), c.shown_children((1,))) for c in node.shown_children((25, 30))],
]


@settings(max_examples=300, deadline=None)
@given(reply=st.binary(max_size=200), read=st.sampled_from(READS))
def test_any_reply_gives_a_value_or_a_peer_error(reply: bytes, read) -> None:
    node = PeerNode(GarbageConnection(reply), a11y_peer._App(":1.5"), "/org/a11y/atspi/accessible/7", Roles)  # type: ignore[arg-type]
    try:
        read(node)
    except PeerError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_stream_splits_into_messages_or_a_peer_error(stream: bytes) -> None:
    buffer = bytearray(stream)
    try:
        while (taken := take_message(buffer)) is not None:
            message, start = taken
            assert start <= len(message) and start % 8 == 0
            a11y_wire.reply_serial(message)
    except PeerError:
        pass


def test_a_message_over_the_cap_is_refused_before_it_is_read() -> None:
    head = struct.pack("<cBBBIII", b"l", 2, 0, 1, a11y_wire.MAX_MESSAGE_BYTES, 1, 0)
    with pytest.raises(PeerError, match="cap"):
        take_message(bytearray(head))
    assert take_message(bytearray(head[:10])) is None  # not whole yet: wait for more


@given(st.lists(st.text(max_size=30), max_size=5), st.integers(-(2**31), 2**31 - 1))
def test_marshalled_values_read_back(texts: list[str], number: int) -> None:
    out = Writer()
    out.i32(number)
    for text in texts:
        out.string(text)
    reader = Reader(bytes(out.data), 0)
    assert reader.i32() == number
    assert [reader.string() for _ in texts] == texts


def _reply(serial: int, value: int, kind: int = 2) -> bytes:
    """A message of ``kind`` (2: method return, 4: signal) answering ``serial`` with one ``u``."""
    fields = Writer()
    fields.data += bytes([5]) + b"\x01u\0"
    fields.u32(serial)
    fields.align(8)
    fields.data += bytes([8]) + b"\x01g\0" + b"\x01u\0"
    head = struct.pack("<cBBBIII", b"l", kind, 0, 1, 4, serial + 1000, len(fields.data)) + bytes(fields.data)
    return head + b"\0" * (-len(head) % 8) + struct.pack("<I", value)


@settings(max_examples=100, deadline=None)
@given(count=st.integers(1, 40), seed=st.integers(0, 2**16), signals=st.integers(0, 10), errors=st.integers(0, 3))
def test_a_batch_gets_each_call_its_own_reply_in_any_order(count: int, seed: int, signals: int, errors: int) -> None:
    """Replies matched by serial, not by order; signals and a stale reply between them are skipped."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        connection = object.__new__(a11y_peer.PeerConnection)
        connection._sock, connection._buffer, connection._serial, connection.broken = ours, bytearray(), 7, False
        connection._deadline = time.monotonic() + 5
        rng = random.Random(seed)
        failing = set(rng.sample(range(count), min(errors, count)))
        replies = [_reply(8 + k, 100 + k, 3 if k in failing else 2) for k in range(count)]
        replies += [_reply(rng.randrange(1, 8), 0, rng.choice((2, 4))) for _ in range(signals)]  # stale or signals
        rng.shuffle(replies)
        theirs.sendall(b"".join(replies))
        answers = connection.call_many([("/n", "i.f", "M", "", b"")] * count)
        assert len(answers) == count and not connection.broken
        for k, answer in enumerate(answers):
            if k in failing:
                assert isinstance(answer, PeerError)
            else:
                assert isinstance(answer, Reader) and answer.u32() == 100 + k
        assert len(theirs.recv(1 << 20)) > 0  # the calls went out


def test_state_bits_list_each_set_state() -> None:
    bits = 1 << 25 | 1 << 30 | 1 << 33
    assert sorted(a11y_peer._StateSet(bits).get_states()) == [25, 30, 33]
    assert a11y_peer._StateSet(0).get_states() == []


@needs_desktop_tools
def test_an_app_without_its_own_socket_is_walked_through_libatspi(
    a11y_calc_office: tuple[dict[str, str], object],
) -> None:
    class Unknown:
        app = a11y_peer._App(":1.999999")  # no such application on the bus

    with a11y.locked_bus() as atspi, a11y_peer.PeerSession(atspi, time.monotonic() + 5) as peers:
        stranger = Unknown()
        assert peers.root(stranger) is stranger
        office = _office(atspi)
        root = peers.root(office)
        assert isinstance(root, PeerNode) and root.get_child_count() == office.get_child_count() > 0
        frame = root.get_child_at_index(0)
        assert frame is not None and frame.get_role_name() == office.get_child_at_index(0).get_role_name()


@needs_desktop_tools
def test_walks_share_one_connection_and_drop_the_events_between_them(
    a11y_calc_office: tuple[dict[str, str], object],
) -> None:
    """An office kept work and memory per connection ever opened to it: walks must not open one each."""
    a11y.linearize_tree()
    opened = a11y_peer.connections_opened
    for _ in range(5):
        a11y.linearize_tree()
    assert a11y_peer.connections_opened == opened
    with a11y.locked_bus() as atspi:
        office = _office(atspi)
        connection = a11y_peer._connections[office.app.bus_name]
        connection._sock.close()  # as if the office had gone: the next walk opens a new connection
        assert 'application "soffice"' in a11y.linearize_tree()
        assert a11y_peer.connections_opened == opened + 1
        assert a11y_peer._connections[office.app.bus_name] is not connection


@needs_desktop_tools
def test_the_shown_childrens_replies_are_read_ahead_and_give_the_same_tree(
    a11y_calc_office: tuple[dict[str, str], object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fails with ``a11y_peer.read_ahead`` off: then every node's states are a write of their own."""
    one_by_one = _walk_counting(monkeypatch, "GetState", read_ahead=False)[0]
    text, alone, along = _walk_counting(monkeypatch, "GetState", read_ahead=True)
    assert text == one_by_one and 'application "soffice"' in text
    assert along > 9 * alone, f"{alone} nodes' states asked for alone, {along} along with their siblings'"


@needs_desktop_tools
def test_objects_the_static_cache_does_not_know_have_their_role_read_ahead(
    a11y_calc_office: tuple[dict[str, str], object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A walk of a window seen for the first time (every reset's): roles come with the siblings' replies.

    Fails when the role and interfaces are left out of the read-ahead; a second walk asks no role.
    """
    a11y._KEPT_PROPERTIES._known.clear()
    text, alone, along = _walk_counting(monkeypatch, "GetRole", read_ahead=True)
    assert along > 9 * alone, f"{alone} roles asked for alone, {along} along with their siblings'"
    again, alone, along = _walk_counting(monkeypatch, "GetRole", read_ahead=True)
    assert again == text and alone + along == 0, "known objects' roles were asked for again"


def _walk_counting(monkeypatch: pytest.MonkeyPatch, member: str, read_ahead: bool) -> tuple[str, int, int]:
    """The tree, and how many ``member`` calls went in a write alone and in a write with others."""
    counts = [0, 0]
    call_many = a11y_peer.PeerConnection.call_many

    def counted(self: a11y_peer.PeerConnection, calls: list) -> object:
        counts[len(calls) > 1] += sum(call[2] == member for call in calls)
        return call_many(self, calls)

    monkeypatch.setattr(a11y_peer, "read_ahead", read_ahead)
    monkeypatch.setattr(a11y_peer.PeerConnection, "call_many", counted)
    text = a11y.linearize_tree(True, 300)
    monkeypatch.undo()
    return text, counts[0], counts[1]


def _office(atspi: object) -> object:
    desktop = atspi.get_desktop(0)  # type: ignore[attr-defined]
    apps = (desktop.get_child_at_index(i) for i in range(desktop.get_child_count()))
    return next(app for app in apps if app.get_name() == "soffice")
