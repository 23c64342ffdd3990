"""Reading an application's accessibility tree over its own socket, with fewer round trips.

The tree walk through libatspi pays one D-Bus round trip for a node's child count, one per child
(``GetChildAtIndex``) and one for each child's states, hidden ones included; the office answers
each in ~0.1 ms of its own CPU, so a Calc window's walk was ~1,450 calls. An ATK application
(LibreOffice, GTK programs) also listens on a socket of its own
(``org.a11y.atspi.Application.GetApplicationBusAddress``; libatspi connects there too).
:class:`PeerNode` answers the libatspi methods the walk uses (states, role, interfaces, box, name,
text, children, the Table interface) over such a connection, so the walk's code is unchanged and
reads the same objects, and adds :meth:`PeerNode.shown_children`: one ``Collection.GetMatches``
call lists the children that are showing and visible, so a hidden child costs nothing. Then what
the walk reads of those children next (states, name, screen box, child count) is asked for in one
write (:func:`_read_ahead`): the application answers the batch back to back, so the wake-ups of a
round trip are paid once per batch, not per call, and a child with no children is not asked for
its shown ones. The Calc window's walk is ~1,030 calls in ~290 writes (``bench/bench_a11y_peer.py``).
The messages are built and parsed in :mod:`a11y_wire`.

One connection per application is kept between walks (:class:`PeerSession`), as libatspi keeps
its own; the events the application sends on it are dropped at each walk's start. An application
without such a socket (or one that does not answer) is walked through libatspi.
Every call is bounded by the walk's deadline, replies by :data:`MAX_MESSAGE_BYTES`, lists by
:data:`MAX_CHILDREN`; whatever the application sends, a call returns a value or raises
:class:`PeerError`, which the walk treats as a vanished node.
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from dataclasses import dataclass
from typing import Any

from .a11y_wire import Call, PeerError, Reader, Writer, frame, reply_serial, take_message

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT, TEXT, TABLE, SELECTION, COLLECTION = (
    f"org.a11y.atspi.{name}" for name in ("Component", "Text", "Table", "Selection", "Collection")
)
PROPERTIES = "org.freedesktop.DBus.Properties"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
NULL_PATH = "/org/a11y/atspi/null"
MAX_CHILDREN = 10_000  # children listed per node at the most (the Calc grid is never asked: it manages its own)
MATCH_ALL, SORT_CANONICAL = 1, 1  # AtspiCollectionMatchType.ALL, AtspiCollectionSortOrder.CANONICAL
MAX_ADDRESSES = 256  # application socket addresses kept (a bus name is never reused on one bus)
MAX_CONNECTIONS = 64  # direct connections kept at the most (one per application listed)
MAX_DRAIN_BYTES = 64 << 20  # events dropped at a walk's start at the most; past it the connection is renewed
CONNECT_TIMEOUT_S = 1.0
AHEAD_CHILDREN = 64  # children whose replies are asked for in one write at the most
#: Ask for the shown children's states, name, box and child count in one write;
#: ``DESKTOP_GYM_A11Y_READ_AHEAD=0`` asks one call at a time (the baseline in ``bench/bench_local.py``).
read_ahead = os.environ.get("DESKTOP_GYM_A11Y_READ_AHEAD", "1") != "0"

connections_opened = 0  # direct connections opened since the process started
roots_over_socket = 0  # applications walked over their own socket since the process started
_connections: dict[str, PeerConnection] = {}  # by the application's bus name; used under a11y's lock
_addresses: dict[str, str | None] = {}
_addresses_lock = threading.Lock()


class PeerConnection:
    """A bare D-Bus connection to one application's accessibility socket; one call at a time."""

    def __init__(self, address: str, deadline: float) -> None:
        keys = dict(part.split("=", 1) for part in address.split(":", 1)[1].split(",") if "=" in part)
        target = keys.get("path") or ("\0" + keys["abstract"] if "abstract" in keys else None)
        if not address.startswith("unix:") or target is None:
            raise PeerError(f"not a unix socket address: {address!r}")
        self._deadline = deadline
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.settimeout(min(CONNECT_TIMEOUT_S, max(0.01, deadline - time.monotonic())))
            self._sock.connect(target)
            self._sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
            if not self._sock.recv(4096).startswith(b"OK"):
                raise PeerError(f"{address} refused EXTERNAL authentication")
            self._sock.sendall(b"BEGIN\r\n")
        except OSError as exc:
            self._sock.close()
            raise PeerError(f"cannot connect to {address}: {exc}") from exc
        self._buffer, self._serial, self.broken = bytearray(), 0, False

    def close(self) -> None:
        self._sock.close()

    def begin(self, deadline: float) -> int:
        """Start a walk ending at ``deadline``: drop the messages (events) that came since the last one.

        Returns:
            How many whole messages were dropped. A stream past :data:`MAX_DRAIN_BYTES` marks the
            connection broken (the next walk opens a new one).
        """
        self._deadline, dropped, drained = deadline, 0, 0
        try:
            self._sock.setblocking(False)
            while drained <= MAX_DRAIN_BYTES:
                chunk = self._sock.recv(1 << 16)
                if not chunk:
                    raise PeerError("the application closed its accessibility socket")
                drained += len(chunk)
                self._buffer += chunk
                while take_message(self._buffer) is not None:  # whole messages only: a partial one stays
                    dropped += 1
            self.broken = True
        except BlockingIOError:
            pass
        except (OSError, PeerError):
            self.broken = True
        return dropped

    def call(self, path: str, interface: str, member: str, signature: str = "", body: bytes = b"") -> Reader:
        """Send one method call and return a reader positioned at its reply's values."""
        reply = self.call_many([(path, interface, member, signature, body)])[0]
        if isinstance(reply, PeerError):
            raise reply
        return reply

    def call_many(self, calls: list[Call]) -> list[Reader | PeerError]:
        """Send ``calls`` in one write, then read their replies: a reader each, or the error it answered.

        The application answers them back to back, so the round trips' wake-ups are paid once.

        Raises:
            PeerError: if the stream fails (the connection is then marked broken).
        """
        data, serials = bytearray(), []
        for path, interface, member, signature, body in calls:
            self._serial += 1
            serials.append(self._serial)
            data += frame(self._serial, path, interface, member, signature, body)
        replies: dict[int, tuple[bytes, int]] = {}
        try:
            self._sock.settimeout(max(0.01, self._deadline - time.monotonic()))
            self._sock.sendall(data)
            while len(replies) < len(serials):
                message, start = self._message()
                serial = reply_serial(message) if message[1] in (2, 3) else None
                if serial is not None and serials[0] <= serial <= serials[-1]:
                    replies[serial] = (message, start)
        except (OSError, struct.error, IndexError, PeerError) as exc:
            self.broken = True  # a garbled or closed stream: the next walk opens a new connection
            path, interface, member = calls[0][:3]
            raise exc if isinstance(exc, PeerError) else PeerError(f"{interface}.{member} on {path}: {exc}") from exc
        answers: list[Reader | PeerError] = []
        for serial, (path, interface, member, *_) in zip(serials, calls, strict=True):
            message, start = replies[serial]
            answers.append(
                Reader(message, start) if message[1] == 2 else PeerError(f"{interface}.{member} on {path} erred")
            )
        return answers

    def _message(self) -> tuple[bytes, int]:
        while True:
            taken = take_message(self._buffer)
            if taken is not None:
                return taken
            chunk = self._sock.recv(1 << 16)
            if not chunk:
                raise PeerError("the application closed its accessibility socket")
            self._buffer += chunk


@dataclass(frozen=True)
class _App:
    bus_name: str  # as libatspi's ``node.app.bus_name``, so both kinds of node share the static cache


@dataclass(frozen=True)
class _Rect:
    x: int
    y: int
    width: int
    height: int


class _StateSet:
    def __init__(self, bits: int) -> None:
        self._bits = bits

    def get_states(self) -> list[int]:
        bits, states = self._bits, []
        while bits:
            low = bits & -bits
            states.append(low.bit_length() - 1)
            bits ^= low
        return states


class PeerNode:
    """One object of an application, answering the libatspi ``Accessible`` methods the walk calls."""

    def __init__(self, connection: PeerConnection, app: _App, path: str, role_names: Any, static: Any = None) -> None:
        self.c, self.app, self.path, self._roles, self._static = connection, app, path, role_names, static
        self._children: list[str] | None = None
        self._ahead: dict[str, Reader | PeerError] = {}  # replies asked for with its siblings', each used once

    def _answer(self, key: str, *call: Any) -> Reader:
        """The reply read ahead under ``key`` (once), else the call's reply now."""
        reply = self._ahead.pop(key, None)
        if reply is None:
            return self.c.call(self.path, *call)
        if isinstance(reply, PeerError):
            raise reply
        return reply

    def _node(self, path: str) -> PeerNode | None:
        return None if path == NULL_PATH else PeerNode(self.c, self.app, path, self._roles, self._static)

    def _get(self, interface: str, name: str) -> Reader:
        reply = self.c.call(self.path, PROPERTIES, "Get", "ss", bytes(Writer().string(interface).string(name).data))
        reply.signature()
        return reply

    def get_state_set(self) -> _StateSet:
        reply = self._answer("state", ACCESSIBLE, "GetState")
        reply.u32()
        return _StateSet(reply.u32() | reply.u32() << 32)

    def get_role_name(self) -> str:
        number = self._answer("role", ACCESSIBLE, "GetRole").u32()
        try:
            return self._roles(number).value_nick.replace("-", " ")
        except ValueError:  # a role newer than this libatspi
            return "unknown"

    def get_interfaces(self) -> list[str]:
        reply = self._answer("interfaces", ACCESSIBLE, "GetInterfaces")
        end, names = reply.array_end(4), []
        while reply.pos < end:
            names.append(reply.string().rsplit(".", 1)[-1])
        return names

    def get_attributes(self) -> dict[str, str]:
        reply = self.c.call(self.path, ACCESSIBLE, "GetAttributes")
        end, attributes = reply.array_end(8), {}
        while reply.pos < end:
            reply.align(8)
            key = reply.string()
            attributes[key] = reply.string()
        return attributes

    def get_name(self) -> str:
        reply = self._answer("name", PROPERTIES, "Get", "ss", _NAME_BODY)
        reply.signature()
        return reply.string()

    def get_extents(self, coord_type: Any) -> _Rect:
        body = bytes(Writer().u32(int(coord_type)).data)
        reply = self._answer(f"extents{int(coord_type)}", COMPONENT, "GetExtents", "u", body)
        reply.align(8)
        return _Rect(reply.i32(), reply.i32(), reply.i32(), reply.i32())

    def _child_paths(self) -> list[str]:
        if self._children is None:  # one call lists them all, kept for this walk only
            reply = self.c.call(self.path, ACCESSIBLE, "GetChildren")
            end, paths = reply.array_end(8), []
            while reply.pos < end and len(paths) < MAX_CHILDREN:
                paths.append(reply.reference())
            self._children = paths
        return self._children

    def get_child_count(self) -> int:
        return len(self._child_paths())

    def shown_children(self, states: tuple[int, ...]) -> list[PeerNode]:
        """The children that have every state in ``states`` (bit numbers), in order: one ``GetMatches`` call.

        The application tests each child's states itself, so a hidden child costs no round trip. With
        :data:`read_ahead`, the children's states, name, screen box and child count are then asked
        for in one write per :data:`AHEAD_CHILDREN` children (the walk reads them next), and a
        child with no children is not asked for its shown ones.
        """
        count = self._ahead.pop("count", None)
        if isinstance(count, Reader):
            count.signature()
            if count.i32() == 0:
                return []
        words = [0, 0]
        for bit in states:
            words[bit // 32] |= 1 << bit % 32
        rule = Writer().u32(8).u32(words[0]).u32(words[1]).i32(MATCH_ALL)  # states, matched all
        rule.u32(0).align(8)  # no attributes (an empty a{ss} still aligns to its entries)
        rule.i32(MATCH_ALL).u32(0).i32(MATCH_ALL).u32(0).i32(MATCH_ALL).u32(0)  # any role, any interface, not inverted
        rule.u32(SORT_CANONICAL).i32(MAX_CHILDREN).u32(0)  # sorted as the tree is, at most, not traversed
        reply = self.c.call(self.path, COLLECTION, "GetMatches", "(aiia{ss}iaiiasib)uib", bytes(rule.data))
        end, children = reply.array_end(8), []
        while reply.pos < end and len(children) < MAX_CHILDREN:
            children.append(PeerNode(self.c, self.app, reply.reference(), self._roles, self._static))
        if read_ahead:
            for start in range(0, len(children), AHEAD_CHILDREN):
                _read_ahead(self.c, children[start : start + AHEAD_CHILDREN])
        return children

    def get_child_at_index(self, index: int) -> PeerNode | None:
        paths = self._child_paths()
        return self._node(paths[index]) if 0 <= index < len(paths) else None

    def get_parent(self) -> PeerNode | None:
        reply = self._get(ACCESSIBLE, "Parent")
        return self._node(reply.reference())

    def get_index_in_parent(self) -> int:
        return self.c.call(self.path, ACCESSIBLE, "GetIndexInParent").i32()

    def get_character_count(self) -> int:
        return self._get(TEXT, "CharacterCount").i32()

    def get_text(self, start: int, end: int) -> str:
        return self.c.call(self.path, TEXT, "GetText", "ii", bytes(Writer().i32(start).i32(end).data)).string()

    def get_n_rows(self) -> int:
        return self._get(TABLE, "NRows").i32()

    def get_n_columns(self) -> int:
        return self._get(TABLE, "NColumns").i32()

    def get_accessible_at(self, row: int, column: int) -> PeerNode | None:
        body = bytes(Writer().i32(row).i32(column).data)
        return self._node(self.c.call(self.path, TABLE, "GetAccessibleAt", "ii", body).reference())

    def get_row_at_index(self, index: int) -> int:
        return self.c.call(self.path, TABLE, "GetRowAtIndex", "i", bytes(Writer().i32(index).data)).i32()

    def get_column_at_index(self, index: int) -> int:
        return self.c.call(self.path, TABLE, "GetColumnAtIndex", "i", bytes(Writer().i32(index).data)).i32()

    def get_accessible_at_point(self, x: int, y: int, coord_type: Any) -> PeerNode | None:
        body = bytes(Writer().i32(x).i32(y).u32(int(coord_type)).data)
        return self._node(self.c.call(self.path, COMPONENT, "GetAccessibleAtPoint", "iiu", body).reference())

    def get_n_selected_children(self) -> int:
        return self._get(SELECTION, "NSelectedChildren").i32()

    def get_selected_child(self, index: int) -> PeerNode | None:
        body = bytes(Writer().i32(index).data)
        return self._node(self.c.call(self.path, SELECTION, "GetSelectedChild", "i", body).reference())


_NAME_BODY = bytes(Writer().string(ACCESSIBLE).string("Name").data)
_COUNT_BODY = bytes(Writer().string(ACCESSIBLE).string("ChildCount").data)
_SCREEN_BODY = bytes(Writer().u32(0).data)  # AtspiCoordType.SCREEN, what the walk asks for
_AHEAD: tuple[tuple[str, str, str, str, bytes], ...] = (
    ("state", ACCESSIBLE, "GetState", "", b""),
    ("name", PROPERTIES, "Get", "ss", _NAME_BODY),
    ("extents0", COMPONENT, "GetExtents", "u", _SCREEN_BODY),  # an error reply where there is no Component
    ("count", PROPERTIES, "Get", "ss", _COUNT_BODY),
)


_FIRST_SEEN: tuple[tuple[str, str, str, str, bytes], ...] = (
    ("role", ACCESSIBLE, "GetRole", "", b""),
    ("interfaces", ACCESSIBLE, "GetInterfaces", "", b""),
)


def _read_ahead(connection: PeerConnection, nodes: list[PeerNode]) -> None:
    """Ask for what the walk reads of each of ``nodes`` in one write; each node keeps its replies.

    A node its walk's static cache does not know yet (a new window, a restarted app) is also asked
    for its role and interfaces, which the cache then keeps.
    """
    asked = [
        (node, key, (node.path, *call))
        for node in nodes
        for key, *call in (_AHEAD + _FIRST_SEEN if node._static is None or node._static.unknown(node) else _AHEAD)
    ]
    for (node, key, _call), reply in zip(asked, connection.call_many([call for *_, call in asked]), strict=True):
        node._ahead[key] = reply


class PeerSession:
    """One walk's use of the applications' direct connections: :meth:`root` for each application.

    A connection is kept for later walks (an office kept ~7 KiB and some work per connection ever
    opened to it, so one per walk made its calls slower as the episode went on); at the walk's
    start the events it brought since are dropped (:meth:`PeerConnection.begin`). At the end, the
    connections of applications this walk did not list (gone) and broken ones are closed.
    """

    def __init__(self, atspi: Any, deadline: float, static: Any = None) -> None:
        self._atspi, self._deadline, self._static = atspi, deadline, static  # static: an a11y_static.StaticProperties
        self._listed: set[str] = set()

    def __enter__(self) -> PeerSession:
        return self

    def __exit__(self, *_exc: object) -> None:
        if not self._listed:
            return  # nothing listed (a search that ended before): keep the connections
        for bus_name in [name for name, kept in _connections.items() if name not in self._listed or kept.broken]:
            _connections.pop(bus_name).close()

    def root(self, app: Any) -> Any:
        """``app``'s root as a :class:`PeerNode`, or ``app`` itself when it has no socket of its own."""
        global connections_opened, roots_over_socket
        bus_name = getattr(getattr(app, "app", None), "bus_name", None)
        address = _address(bus_name) if bus_name else None
        if not address:
            return app
        self._listed.add(bus_name)
        connection = _connections.get(bus_name)
        if connection is not None:
            connection.begin(self._deadline)
        if connection is None or connection.broken:
            if connection is not None:
                _connections.pop(bus_name).close()
            try:
                connection = PeerConnection(address, self._deadline)
            except PeerError:
                return app
            if len(_connections) >= MAX_CONNECTIONS:
                for kept in _connections.values():
                    kept.close()
                _connections.clear()
            _connections[bus_name] = connection
            connections_opened += 1
        roots_over_socket += 1
        node = PeerNode(connection, _App(bus_name), ROOT_PATH, self._atspi.Role, self._static)
        node.get_name = app.get_name  # type: ignore[method-assign] - already known to libatspi, no round trip
        return node


def _address(bus_name: str) -> str | None:
    """The application's own socket address (asked once per bus name), or None."""
    with _addresses_lock:
        if bus_name in _addresses:
            return _addresses[bus_name]
    address = _ask_address(bus_name)
    with _addresses_lock:
        if len(_addresses) >= MAX_ADDRESSES:
            _addresses.clear()
        _addresses[bus_name] = address
    return address


def _ask_address(bus_name: str) -> str | None:
    from gi.repository import Gio, GLib

    try:
        bus = _accessibility_bus()
        call = (bus_name, ROOT_PATH, "org.a11y.atspi.Application", "GetApplicationBusAddress")
        reply = bus.call_sync(*call, None, GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 2000, None)
        return reply.unpack()[0] or None
    except Exception:  # noqa: BLE001 - GLib.Error: no such method (Qt, Chromium), or no bus: libatspi walks it
        return None


_bus: Any = None


def _accessibility_bus() -> Any:
    global _bus
    if _bus is None:
        from gi.repository import Gio, GLib

        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        address = os.environ.get("AT_SPI_BUS_ADDRESS")
        if not address:
            session = Gio.DBusConnection.new_for_address_sync(os.environ["DBUS_SESSION_BUS_ADDRESS"], flags, None, None)
            reply = session.call_sync(
                "org.a11y.Bus",
                "/org/a11y/bus",
                "org.a11y.Bus",
                "GetAddress",
                None,
                GLib.VariantType("(s)"),
                0,
                5000,
                None,
            )
            address = reply.unpack()[0]
            session.close_sync(None)
        _bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    return _bus
