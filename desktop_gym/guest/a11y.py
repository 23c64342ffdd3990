"""The desktop's accessibility (AT-SPI) tree, as text for agents and as nodes for oracles.

Environment. GTK 3 apps (LibreOffice with ``SAL_USE_VCLPLUGIN=gtk3``, mousepad) load the AT-SPI
bridge by themselves; a desktop only needs a session D-Bus that can activate ``org.a11y.Bus``
(apt ``at-spi2-core``). That starts ``at-spi-bus-launcher``, the accessibility bus and
``at-spi2-registryd`` in the session bus's process group (kill the group at teardown), with the
socket in ``$XDG_RUNTIME_DIR/at-spi/bus_<display>`` (``~/.cache/at-spi/`` when unset). Apps get
:data:`A11Y_ENV` minus :data:`A11Y_ENV_UNSET` (:func:`a11y_environment`).

In-process use. libatspi binds one accessibility bus per process on first use and *aborts the
process* if there is none: this module checks first (:class:`A11yUnavailableError`) and refuses
to switch to another desktop later. libatspi is not thread-safe (a call dispatches the replies and
signals of every other call in flight), and the guest answers RPCs on several threads: every
reader holds :func:`locked_bus` (the tree walk, node searches, launch readiness, the editor's tools).

Coordinates. LibreOffice 7.4's own (VCL) widgets report y one native-menu-bar height too high;
boxes are corrected (:func:`_menu_bar_offset`) so that they are real screen pixels.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from desktop_gym.errors import A11yError, A11yTimeoutError, A11yUnavailableError, WaitTimeoutError
from desktop_gym.polling import poll_until

from .a11y_grid import GridContents
from .a11y_peer import PeerError, PeerSession
from .a11y_static import StaticProperties

Box = tuple[int, int, int, int]

A11Y_ENV: dict[str, str] = {"SAL_USE_VCLPLUGIN": "gtk3"}
"""Environment for applications so that their widgets appear on the accessibility bus.

LibreOffice's default VCL plugin on a bare X server (``x11``) exposes no AT-SPI tree; ``gtk3``
does, with no further switches (``GTK_MODULES``, ``SAL_ACCESSIBILITY_ENABLED`` and
``ACCESSIBILITY_ENABLED`` are not needed)."""

A11Y_ENV_UNSET: tuple[str, ...] = ("NO_AT_BRIDGE",)
"""Variables to remove from applications' environment (``NO_AT_BRIDGE=1`` disables the bridge)."""

DEFAULT_TIMEOUT_S = 5.0
MAX_TABLE_CELLS_READ = 200
MAX_TABLE_CELLS_SHOWN = 50
MAX_MANAGED_CHILDREN = 20
MAX_TEXT_CHARS = 120
MAX_NAME_CHARS = 80
_OFFSCREEN = -(2**30)

# Role and state names as AT-SPI spells them ("|"-separated to keep the lists short).
_STRUCTURAL_ROLES = frozenset(
    "panel|filler|viewport|scroll pane|split pane|layered pane|glass pane|unknown|redundant object|invalid"
    "|section|grouping".split("|")
)
_ALWAYS_HIDDEN_ROLES = frozenset({"root pane", "separator"})
_TEXT_ROLES = frozenset(
    "text|entry|paragraph|heading|password text|terminal|document text|spin button|combo box|caption|footnote"
    "|comment|table cell".split("|")
)
_SHOWN_STATES = tuple("focused|selected|checked|pressed|expanded|editable|modal|indeterminate".split("|"))


@dataclass(frozen=True)
class A11yNode:
    """One accessible object, with its box in screen pixels.

    Attributes:
        role: AT-SPI role name, e.g. ``"push button"``, ``"menu item"``, ``"table cell"``.
        name: Accessible name (may be empty).
        x, y, width, height: The box, in screen pixels.
        states: State names, e.g. ``{"showing", "visible", "focused"}``.
        app: Name of the owning application, e.g. ``"soffice"``.
        text: Text content for text-like nodes (truncated), else ``""``.
    """

    role: str
    name: str
    x: int
    y: int
    width: int
    height: int
    states: frozenset[str] = field(default_factory=frozenset)
    app: str = ""
    text: str = ""

    @property
    def center(self) -> tuple[int, int]:
        """The point to click."""
        return self.x + self.width // 2, self.y + self.height // 2


def a11y_environment(base: Mapping[str, str]) -> dict[str, str]:
    """Return ``base`` with :data:`A11Y_ENV` applied and :data:`A11Y_ENV_UNSET` removed."""
    env = {k: v for k, v in base.items() if k not in A11Y_ENV_UNSET}
    env.update(A11Y_ENV)
    return env


LISTING_RETRY_S = 0.02  # pause between asks of a registry that did not answer
STOPPED_LINE = "... truncated (stopped)"  # the last line of a walk ended by its ``stop`` event
_lock = threading.RLock()  # one libatspi user at a time (see the module docstring); re-entrant for nested readers
_bound_to: tuple[str, str] | None = None
_KEPT_PROPERTIES = StaticProperties()
_properties = _KEPT_PROPERTIES  # swapped for an uncached reader by ``static_cache=False``, under _lock
_skip_closed_menus = True  # False by ``skip_closed_menus=False`` (the baseline), under _lock
#: Walk each application over its own socket where it has one (:mod:`a11y_peer`); ``DESKTOP_GYM_A11Y_PEER=0``
#: or ``peer=False`` walks everything through libatspi (the baseline), with the same text.
PEER_DEFAULT = os.environ.get("DESKTOP_GYM_A11Y_PEER", "1") != "0"
_use_peer = PEER_DEFAULT  # swapped by ``peer=``, under _lock


def _ensure_bus() -> Any:
    """Check (once) that an accessibility bus answers, then return the ``Atspi`` module."""
    global _bound_to
    key = (os.environ.get("DISPLAY", ""), os.environ.get("DBUS_SESSION_BUS_ADDRESS", ""))
    if _bound_to is None and not os.environ.get("AT_SPI_BUS_ADDRESS"):
        _probe_a11y_bus(key)
    elif _bound_to is not None and key != _bound_to:
        raise A11yError(
            f"this process reads the accessibility bus of DISPLAY={_bound_to[0]!r}; it cannot switch to "
            f"DISPLAY={key[0]!r} (libatspi binds one bus per process: use one guest process per desktop)"
        )
    import pyatspi  # noqa: F401 - loads the Atspi typelib (and pyatspi's overrides) the way pyatspi does
    from gi.repository import Atspi

    _bound_to = key
    return Atspi


@contextmanager
def locked_bus() -> Iterator[Any]:
    """The ``Atspi`` module, for this thread alone until the block ends.

    Raises:
        A11yUnavailableError: if no accessibility bus is reachable.
    """
    with _lock:
        yield _ensure_bus()


def _probe_a11y_bus(key: tuple[str, str]) -> None:
    import gi

    gi.require_version("Gio", "2.0")
    from gi.repository import Gio, GLib

    if not key[1]:
        raise A11yUnavailableError("DBUS_SESSION_BUS_ADDRESS is not set: no accessibility bus to read")
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    try:
        connection = Gio.DBusConnection.new_for_address_sync(key[1], flags, None, None)
        bus = ("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus")
        reply = connection.call_sync(*bus, "GetAddress", None, GLib.VariantType("(s)"), 0, 5000, None)
        connection.close_sync(None)
    except GLib.Error as exc:
        raise A11yUnavailableError(
            f"org.a11y.Bus did not answer on session bus {key[1]!r} (is at-spi2-core installed?): {exc.message}"
        ) from exc
    if not reply.unpack()[0]:
        raise A11yUnavailableError(f"org.a11y.Bus on {key[1]!r} returned no accessibility bus address")


@dataclass
class _Visit:
    node: Any
    depth: int
    app: str
    offset: int  # pixels to add to y (LibreOffice VCL nodes under a native menu bar)
    frame_offset: int = 0  # the offset that nodes of this frame's root pane will need
    states: frozenset[str] | None = None  # already read by the parent (:func:`_menu_items`)


def _states(node: Any, atspi: Any) -> frozenset[str]:
    return frozenset(_state_name(state, atspi) for state in node.get_state_set().get_states())


_STATE_NAMES: dict[int, str] = {}


def _state_name(state: int, atspi: Any) -> str:
    """``"manages descendants"`` for ``StateType.MANAGES_DESCENDANTS`` (kept: enum lookups cost ~5 us each)."""
    name = _STATE_NAMES.get(state)
    if name is None:
        name = _STATE_NAMES[int(state)] = atspi.StateType(state).value_nick.replace("-", " ")
    return name


def _extents(node: Any, atspi: Any) -> Box | None:
    if "Component" not in _properties.interfaces(node):
        return None
    rect = node.get_extents(atspi.CoordType.SCREEN)
    return rect.x, rect.y, rect.width, rect.height


def _text_of(node: Any, role: str, limit: int = MAX_TEXT_CHARS) -> str:
    if role not in _TEXT_ROLES or "Text" not in _properties.interfaces(node):
        return ""
    count = node.get_character_count()
    if count <= 0:
        return ""  # most cells and many paragraphs are empty: spare the second round trip
    text = node.get_text(0, min(count, limit))
    return text + ("..." if count > limit else "")


def _quote(text: str, limit: int = MAX_NAME_CHARS) -> str:
    return json.dumps(text if len(text) <= limit else text[:limit] + "...", ensure_ascii=False)


def _is_offscreen(box: Box | None) -> bool:
    return box is not None and (box[2] <= 0 or box[3] <= 0 or box[0] <= _OFFSCREEN or box[1] <= _OFFSCREEN)


def _menu_bar_offset(frame: Any, atspi: Any) -> int:
    """Height to add to y of LibreOffice VCL nodes in ``frame`` (0 for other toolkits).

    LibreOffice 7.4 (gtk3) draws a native GTK menu bar above its VCL area but reports VCL widgets
    relative to the area *including* it, so its root pane overlaps the menu bar exactly.
    """
    menu_bar: Box | None = None
    root_pane: Box | None = None  # VCL's root: LibreOffice's own widgets live below it
    stack = [(frame, 0)]
    while stack and (menu_bar is None or root_pane is None):
        node, depth = stack.pop()
        role = _properties.role(node)
        if role == "menu bar" and menu_bar is None and _properties.is_gtk(node):
            menu_bar = _extents(node, atspi)
            continue
        if role == "root pane":
            root_pane = _extents(node, atspi)
            continue
        if depth < 6:
            stack.extend((node.get_child_at_index(i), depth + 1) for i in range(node.get_child_count()))
    if not menu_bar or not root_pane or menu_bar[3] <= 0:
        return 0
    return menu_bar[3] if root_pane[1] == menu_bar[1] else 0


def _menu_items(menu: Any, atspi: Any) -> list[tuple[Any, frozenset[str]]]:
    """The items of a native GTK menu with their states, up to the first visible one that is not showing.

    GTK maps a visible widget exactly when its parent is mapped, so one visible item that is not
    showing means the menu is closed and none of its items shows: the rest are not asked about
    (closed menus held ~270 of a Calc window's ~360 hidden nodes, two round trips each).
    """
    items: list[tuple[Any, frozenset[str]]] = []
    for index in range(menu.get_child_count()):
        item = menu.get_child_at_index(index)
        if item is None:
            continue
        states = _states(item, atspi)
        if "visible" in states and "showing" not in states:
            break
        items.append((item, states))
    return items


def _children(node: Any, role: str, visible_only: bool, atspi: Any) -> list[tuple[Any, frozenset[str] | None]]:
    """The children to walk, in order, with their states where already read."""
    if visible_only and hasattr(node, "shown_children"):  # the app drops the hidden ones itself
        shown = (int(atspi.StateType.SHOWING), int(atspi.StateType.VISIBLE))
        return [(child, None) for child in node.shown_children(shown)]
    if visible_only and role == "menu" and _skip_closed_menus and _properties.is_gtk(node):
        return _menu_items(node, atspi)
    children = (node.get_child_at_index(i) for i in range(node.get_child_count()))
    return [(child, None) for child in children if child]


def _walk(
    visible_only: bool, deadline: float, atspi: Any, peer: bool | None = None
) -> Iterator[tuple[_Visit, str, frozenset[str], Box | None]]:
    """Yield ``(visit, role, states, raw_box)`` depth-first; the caller decides what to print.

    Never descends into ``manages descendants`` nodes. Stops silently at ``deadline`` (callers
    check the clock to tell a finished walk from a cut one).
    """
    with PeerSession(atspi, deadline, _properties) as peers:
        stack = _applications(atspi, deadline)
        if _use_peer if peer is None else peer:
            for visit in stack:
                visit.node = peers.root(visit.node)
        yield from _walk_from(stack, visible_only, deadline, atspi)


def _walk_from(
    stack: list[_Visit], visible_only: bool, deadline: float, atspi: Any
) -> Iterator[tuple[_Visit, str, frozenset[str], Box | None]]:
    while stack:
        if time.monotonic() > deadline:
            return
        visit = stack.pop()
        try:
            node = visit.node
            # Every property is one D-Bus round trip (~50-90 us); most children of a visible node
            # are hidden, so ask for the states first and drop hidden ones before role and box.
            states = visit.states if visit.states is not None else _states(node, atspi)
            if visible_only and visit.depth > 0 and ("showing" not in states or "visible" not in states):
                continue
            role = _properties.role(node)
            box = _extents(node, atspi) if role != "application" else None
            hidden = "showing" not in states or "visible" not in states or _is_offscreen(box)
            if visible_only and role != "application" and hidden:
                continue
            frame_offset, offset = visit.frame_offset, visit.offset
            if role in ("frame", "dialog"):
                frame_offset, offset = _menu_bar_offset(node, atspi), 0
            elif role == "root pane":
                offset = frame_offset
            elif offset and _properties.is_gtk(node):
                offset = 0  # a native GTK widget embedded in VCL reports true coordinates
            visit.offset = offset
            yield visit, role, states, box
            if "manages descendants" in states:
                continue
            children = reversed(_children(node, role, visible_only, atspi))
            stack.extend(_Visit(c, visit.depth + 1, visit.app, offset, frame_offset, s) for c, s in children)
        except Exception:  # noqa: BLE001 - a node that vanished mid-walk (window closed): skip it
            continue


def _applications(atspi: Any, deadline: float) -> list[_Visit]:
    """The desktop's applications as walk roots, the first listed last (it is walked first).

    An app listed but gone (the registry lags behind a killed process under load) is left out; a
    listing that fails (a D-Bus timeout on a loaded machine) is asked again until ``deadline``
    rather than read as an empty desktop.
    """
    desktop = atspi.get_desktop(0)
    try:  # a one-item tuple: an empty desktop (0 apps) is an answer too
        (count,) = poll_until(
            lambda: (desktop.get_child_count(),),
            deadline - time.monotonic(),
            "the accessibility registry to list the applications",
            interval=LISTING_RETRY_S,
            retry_on=(Exception,),  # GLib.Error from D-Bus: the registry did not answer in time
        )
    except WaitTimeoutError:
        return []
    visits = []
    for index in reversed(range(max(0, count))):
        try:
            app = desktop.get_child_at_index(index)
            if app is not None:
                visits.append(_Visit(app, 0, app.get_name() or "", 0))
        except Exception:  # noqa: BLE001 - an app that exited meanwhile
            continue
    return visits


def _shift(box: Box | None, offset: int) -> Box | None:
    return None if box is None else (box[0], box[1] + offset, box[2], box[3])


def _visible_corners(node: Any, raw_box: Box | None, atspi: Any) -> tuple[int, int, int, int]:
    rows, cols = node.get_n_rows(), node.get_n_columns()
    if raw_box is not None and raw_box[2] > 4 and raw_box[3] > 4:
        # Hit-test in the coordinates the application reports (before the menu bar fix-up).
        x, y, w, h = raw_box
        first = node.get_accessible_at_point(x + 2, y + 2, atspi.CoordType.SCREEN)
        last = node.get_accessible_at_point(x + w - 3, y + h - 3, atspi.CoordType.SCREEN)
        if first is not None and last is not None:
            i, j = first.get_index_in_parent(), last.get_index_in_parent()
            row_col = (node.get_row_at_index, node.get_column_at_index)
            return tuple(index_to(k) for k in (i, j) for index_to in row_col)  # type: ignore[return-value]
    return 0, 0, min(rows, 10) - 1, min(cols, 10) - 1


def _table_summary(
    node: Any, raw_box: Box | None, atspi: Any, deadline: float, grid_contents: GridContents | None = None
) -> str:
    """Size, visible range, selection and non-empty visible cells, read through the Table interface.

    With ``grid_contents``, cells it does not name as holding content are not asked about (their
    text is empty, so they add nothing); the summary is the same.
    """
    if "Table" not in _properties.interfaces(node):
        return _managed_children(node, atspi)
    row0, col0, row1, col1 = _visible_corners(node, raw_box, atspi)
    filled = _filled_cells(node, grid_contents, (row0, col0, row1, col1))
    first, last = node.get_accessible_at(row0, col0).get_name(), node.get_accessible_at(row1, col1).get_name()
    summary = f"{node.get_n_rows()}x{node.get_n_columns()} visible {first}:{last}"
    selected = node.get_n_selected_children() if "Selection" in _properties.interfaces(node) else 0
    if selected > 0:
        names = [node.get_selected_child(k).get_name() for k in range(min(selected, 5))]
        summary += f" selected {selected}: {' '.join(names)}{' ...' if selected > 5 else ''}"
    cells: list[str] = []
    coordinates = [(row, col) for row in range(row0, row1 + 1) for col in range(col0, col1 + 1)]
    for read, (row, col) in enumerate(coordinates):
        if read >= MAX_TABLE_CELLS_READ or len(cells) >= MAX_TABLE_CELLS_SHOWN or time.monotonic() > deadline:
            cells.append("...")
            break
        if filled is not None and (row, col) not in filled:
            continue
        cell = node.get_accessible_at(row, col)
        name, text = (cell.get_name() or "", _text_of(cell, "table cell", 40)) if cell else ("", "")
        if text and text != name:
            cells.append(f"{name}={_quote(text, 40)}")
        elif name and cell and "Text" not in _properties.interfaces(cell):
            cells.append(_quote(name, 40))
    return summary + (" cells: " + " ".join(cells) if cells else " (visible cells empty)")


def _filled_cells(
    node: Any, grid_contents: GridContents | None, corners: tuple[int, int, int, int]
) -> set[tuple[int, int]] | None:
    """The non-empty cells among ``corners`` by ``grid_contents``, or None to read every cell."""
    if grid_contents is None:
        return None
    parent = node.get_parent()
    return grid_contents(parent.get_name() or "", node.get_name() or "", corners) if parent is not None else None


def _managed_children(node: Any, atspi: Any) -> str:
    count, shown = node.get_child_count(), []
    for child in (node.get_child_at_index(i) for i in range(min(count, 200))):
        if child is not None and "showing" in _states(child, atspi):
            shown.append(f"{_properties.role(child)} {_quote(child.get_name() or '', 40)}")
        if len(shown) >= MAX_MANAGED_CHILDREN:
            shown.append("...")
            break
    return f"{count} children" + (": " + "; ".join(shown) if shown else "")


def _format_line(
    visit: _Visit, role: str, states: frozenset[str], raw_box: Box | None, name: str, text: str, depth: int
) -> str:
    line = f"{'  ' * depth}{role} {_quote(name)}"
    if text and text != name:
        line += f" text={_quote(text, MAX_TEXT_CHARS)}"
    if "enabled" not in states and "sensitive" not in states and role != "application":
        line += " [disabled]"
    shown = [s for s in _SHOWN_STATES if s in states]
    line += f" [{', '.join(shown)}]" if shown else ""
    box = _shift(raw_box, visit.offset)
    return line + (f" @({box[0]},{box[1]},{box[2]},{box[3]})" if box and not _is_offscreen(box) else "")


def _begin(timeout: float) -> tuple[Any, float]:
    atspi = _ensure_bus()
    # One D-Bus call may take the walk's whole budget: on a loaded machine an app answers a call in
    # seconds, and a shorter cap silently dropped the node and its subtree from the text. A hung app
    # still ends the walk at the deadline, with the text saying it was cut.
    atspi.set_timeout(max(100, int(timeout * 1000)), max(100, int(timeout * 1000)))
    return atspi, time.monotonic() + timeout


def linearize_tree(
    visible_only: bool = True,
    max_nodes: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    *,
    compact: bool = True,
    grid_contents: GridContents | None = None,
    static_cache: bool = True,
    skip_closed_menus: bool = True,
    stop: threading.Event | None = None,
    peer: bool | None = None,
) -> str:
    """Render the accessibility tree of every application, one line per node.

    A line reads ``<indent><role> "<name>" text="..." [<states>] @(x,y,w,h)``, two spaces per
    depth. Nodes that manage their descendants (the Calc grid claims 10^10 cells) get a summary in
    braces instead of children: size, visible range, selection, non-empty visible cells (<= 50).

    Args:
        visible_only: Skip nodes that are not showing and visible or have no on-screen box, with
            their subtrees.
        max_nodes: Stop after this many lines and end with ``... truncated (max_nodes)``.
        timeout: Seconds for the walk. On expiry the walk stops and the text ends with
            ``... truncated (timeout after N s)``: this function returns what it has, never raises.
        compact: Omit unnamed layout containers (panels, fillers...), separators and root panes;
            their children move up.
        grid_contents: Names the non-empty visible cells of a spreadsheet grid (see
            :mod:`a11y_grid`), so that only those are read; the text stays the same.
        static_cache: Keep each object's role, interfaces and toolkit between reads (see
            :mod:`a11y_static`); False reads them every time (the baseline), with the same text.
        skip_closed_menus: Stop reading a native GTK menu's items at the first that shows it is
            closed (:func:`_menu_items`); False reads every item (the baseline), with the same text.
        stop: Once set, the walk ends at the next node and the text ends with ``... truncated
            (stopped)``: a read begun ahead of time that is no longer wanted (``tree_ahead``).
        peer: Read each application over its own socket where it has one (:mod:`a11y_peer`);
            False reads through libatspi only (the baseline), with the same text. None:
            :data:`PEER_DEFAULT`.

    Returns:
        The tree as text (``""`` when no application exposes a tree).

    Raises:
        A11yUnavailableError: if no accessibility bus is reachable.
    """
    global _properties, _skip_closed_menus, _use_peer
    with _lock:
        _properties = _KEPT_PROPERTIES if static_cache else StaticProperties(enabled=False)
        _skip_closed_menus = skip_closed_menus
        _use_peer = PEER_DEFAULT if peer is None else peer
        try:
            return _linearize(visible_only, max_nodes, timeout, compact, grid_contents, stop)
        finally:
            _properties, _skip_closed_menus, _use_peer = _KEPT_PROPERTIES, True, PEER_DEFAULT


def _linearize(
    visible_only: bool,
    max_nodes: int | None,
    timeout: float,
    compact: bool,
    grid_contents: GridContents | None,
    stop: threading.Event | None = None,
) -> str:
    atspi, deadline = _begin(timeout)
    lines: list[str] = []
    hidden_depths: list[int] = []  # depths of omitted ancestors, to pull children up
    for visit, role, states, raw_box in _walk(visible_only, deadline, atspi):
        if max_nodes is not None and len(lines) >= max_nodes:
            lines.append("... truncated (max_nodes)")
            break
        if stop is not None and stop.is_set():
            lines.append(STOPPED_LINE)
            break
        while hidden_depths and hidden_depths[-1] >= visit.depth:
            hidden_depths.pop()
        try:
            name, text = visit.node.get_name() or "", _text_of(visit.node, role)
        except PeerError:  # its application went away mid-walk: skipped, as the walk skips a vanished node
            continue
        if compact and (role in _ALWAYS_HIDDEN_ROLES or role in _STRUCTURAL_ROLES and not (name or text)):
            hidden_depths.append(visit.depth)
            continue
        line = _format_line(visit, role, states, raw_box, name, text, visit.depth - len(hidden_depths))
        if "manages descendants" in states:
            try:
                line += " {" + _table_summary(visit.node, raw_box, atspi, deadline, grid_contents) + "}"
            except Exception as exc:  # noqa: BLE001 - the summary is best-effort, the line stays
                line += f" {{summary failed: {type(exc).__name__}}}"
        lines.append(line)
    if time.monotonic() > deadline:
        lines.append(f"... truncated (timeout after {timeout:.3g} s)")
    return "\n".join(lines)


def find_nodes(
    role: str | None = None,
    name: str | None = None,
    visible_only: bool = True,
    limit: int = 50,
    timeout: float = DEFAULT_TIMEOUT_S,
    *,
    app: str | None = None,
    exact: bool = True,
) -> list[A11yNode]:
    """Find accessible objects by role and/or name, with their screen boxes.

    Args:
        role: Role name (``"push button"``; ``"PUSH_BUTTON"`` works too), or ``None`` for any.
        name: Accessible name, or ``None`` for any.
        visible_only: Only nodes that are showing, visible and on screen.
        limit: Stop after this many matches.
        timeout: Seconds for the search.
        app: Only in the application with this name (e.g. ``"soffice"``).
        exact: Compare ``name`` exactly; ``False`` matches a case-insensitive substring.

    Returns:
        Matches in tree order (outer before inner).

    Raises:
        A11yTimeoutError: if the deadline passes before the search ends (or ``limit`` is met).
        A11yUnavailableError: if no accessibility bus is reachable.
    """
    wanted_role = role.strip().lower().replace("_", " ") if role else None
    with _lock:
        atspi, deadline = _begin(timeout)
        found: list[A11yNode] = []
        for visit, node_role, states, raw_box in _walk(visible_only, deadline, atspi):
            if app not in (None, visit.app) or wanted_role not in (None, node_role):
                continue
            try:
                node_name = visit.node.get_name() or ""
                loose_match = not exact and name is not None and name.casefold() in node_name.casefold()
                if name not in (None, node_name) and not loose_match:
                    continue
                text = _text_of(visit.node, node_role)
            except PeerError:  # its application went away mid-walk
                continue
            box = _shift(raw_box, visit.offset) or (0, 0, 0, 0)
            found.append(A11yNode(node_role, node_name, *box, states=states, app=visit.app, text=text))
            if len(found) >= limit:
                return found
        if time.monotonic() > deadline:
            raise A11yTimeoutError(
                f"searching the accessibility tree for role={role!r} name={name!r} took "
                f"over {timeout:.1f} s ({len(found)} found so far)"
            )
        return found
