"""Dynamic accessibility reads (states, names, boxes, text, child lists) kept between tree walks.

Each property the tree walk reads is a D-Bus round trip into the application; between two steps
most of them are unchanged. This cache keeps them per object ``(bus name, path)`` and drops them
on the AT-SPI events that say they changed. It must never give a stale tree, so it trusts events
only where their delivery is proven and walks in full wherever it is in doubt:

* **Ordering.** Before each walk, one round trip to every application, then every pending event
  is dispatched. D-Bus keeps one sender's messages in order, so every event an application sent
  before its reply is handled before the walk reads anything.
* **Registration.** An application emits only the events some listener registered for. Its
  entries are used only after a round trip that began after the registration (the registry's
  ``EventListenerRegistered`` signal reaches the application before our call does) *and* after an
  event from it was seen (its own first fetch of the listener list has arrived). Until then, and
  for any application that appears or restarts (a new bus name), its nodes are read in full.
* **Reach.** A change to one object can move or hide its descendants: a changed child list,
  state ``showing``/``visible``/``sensitive``..., visible data, a window event or anything unknown
  drops the object's whole cached subtree; changed bounds drop the boxes below it. A scroll bar's
  value drops its container's subtree.
  Each top-level window's box is read every walk (a moved window sends no event for its
  children's screen coordinates); a different one drops the window's subtree.
* **Doubt.** An event without a mappable source, an event storm (:data:`MAX_EVENTS_PER_WALK`),
  too long since the last walk (:data:`MAX_QUIET_S`: the bus may have dropped queued events), a
  callback error, or a failed round trip forget everything: the next walk is a full one.

What is never kept: grids that manage their descendants (their summary is read every walk, see
``a11y._table_summary``), the boxes of LibreOffice's own (VCL) widgets (measured: they move when a
toolbar appears, with no bounds event), anything of an application not yet trusted, and anything
of an application whose events were not measured (:data:`CACHED_APPS`). Callers hold
``a11y.locked_bus`` (libatspi is not thread-safe; event callbacks run inside libatspi calls).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from .a11y_static import _object_key

Key = tuple[str, str]

MAX_CACHED_OBJECTS = 20_000  # forget everything past this (a leak guard: a Calc window keeps ~600)
MAX_EVENTS_PER_WALK = 5_000  # more between two walks' starts: an event storm, start over
MAX_DISPATCH_ITERATIONS = 20_000  # a cap on the main-context loop that delivers pending events
MAX_QUIET_S = 30.0  # longer since the last walk: the bus may have dropped events queued for us
CACHED_APPS = frozenset({"soffice"})
"""Applications whose events were measured to cover what the walk reads (LibreOffice 7.4, gtk3 VCL
plugin, but for its own widgets' boxes: see ``a11y._read_box``); others are read in full."""
EVENT_TYPES = (
    *(f"object:{kind}" for kind in "children-changed|state-changed|text-changed|bounds-changed".split("|")),
    *(f"object:{kind}" for kind in "visible-data-changed|active-descendant-changed|selection-changed".split("|")),
    *(f"object:{kind}" for kind in "model-changed|row-inserted|row-deleted|row-reordered".split("|")),
    *(f"object:{kind}" for kind in "column-inserted|column-deleted|column-reordered".split("|")),
    *(f"object:property-change:accessible-{name}" for name in ("name", "value", "parent", "role")),
    "window:",
    "focus:",
    "document:",
)
"""What changes the walk's reads (others are not asked for: LibreOffice sends ~250 ``property-change:widget``
and caret moves per typed cell). Unknown subtypes of these drop the source's subtree."""

_SUBTREE_STATES = frozenset(
    "showing|visible|defunct|sensitive|enabled|expanded|collapsed|iconified|manages-descendants".split("|")
)
_IGNORED = frozenset(  # events that change nothing the walk reads
    "object:text-caret-moved|object:text-selection-changed|object:announcement|object:property-change:accessible-description"
    "|object:property-change:accessible-help-text".split("|")
)


class NoCache:
    """The baseline: every read goes to the application."""

    def read(self, node: Any, prop: Hashable, read: Callable[[], Any]) -> Any:
        """Call ``read``."""
        return read()

    def begin(self, apps: Iterable[tuple[Any, str]], atspi: Any) -> None:
        """Nothing to prepare."""


NO_CACHE = NoCache()


class EventCache(NoCache):
    """Dynamic properties per object, dropped by AT-SPI events (see the module docstring).

    Attributes:
        stats: Counts of ``hits``, ``misses``, ``full`` (walks that started over), ``events``.
        events_seen: Event types handled, by count (what the applications actually emit).
        last_full_reason: Why the last walk started over ("" when it used the cache).
    """

    def __init__(self, max_objects: int = MAX_CACHED_OBJECTS) -> None:
        self.max_objects = max_objects
        self.stats: Counter[str] = Counter()
        self.events_seen: Counter[str] = Counter()
        self.last_full_reason = ""
        self._values: dict[Key, dict[Hashable, Any]] = {}
        self._links: dict[Key, set[Key]] = {}  # cached parent -> child links, for subtree drops
        self._parents: dict[Key, Key] = {}
        self._listener: Any = None
        self._events_from: set[str] = set()  # bus names that sent an event since registration
        self._usable: set[str] = set()  # bus names whose entries this walk may use and fill
        self._doubt = "first walk"
        self._last_walk = 0.0
        self._events_this_walk = 0
        self._ignore_events = False  # tests only: invalidation off, to prove the tests see it

    def __len__(self) -> int:
        return len(self._values)

    def read(self, node: Any, prop: Hashable, read: Callable[[], Any]) -> Any:
        """The kept value of ``prop`` for ``node``, or ``read()`` (kept when the app is trusted)."""
        key = _object_key(node)
        if key is None or key[0] not in self._usable:
            return read()
        entry = self._values.get(key)
        if entry is not None and prop in entry:
            self.stats["hits"] += 1
            return entry[prop]
        value = read()  # no libatspi call between this read and the store: no event can slip in
        self.stats["misses"] += 1
        if entry is None:
            if len(self._values) >= self.max_objects:
                self.forget("over max_objects")
                return value
            entry = self._values[key] = {}
        entry[prop] = value
        if isinstance(prop, tuple) and prop[0] == "child" and value is not None:
            child = _object_key(value)
            if child is not None:
                self._links.setdefault(key, set()).add(child)
                self._parents[child] = key
        return value

    def forget(self, reason: str) -> None:
        """Drop every entry: the next reads go to the applications."""
        self._values.clear()
        self._links.clear()
        self._parents.clear()
        self._doubt = self._doubt or reason

    def begin(self, apps: Iterable[tuple[Any, str]], atspi: Any) -> None:
        """Bring the cache up to date before a walk of ``apps`` (the desktop's ``(node, name)``)."""
        apps = [app for app, name in apps if name in CACHED_APPS]
        self._ensure_listener(atspi)
        now = time.monotonic()
        if self._last_walk and now - self._last_walk > MAX_QUIET_S:
            self.forget(f"over {MAX_QUIET_S:.0f} s since the last walk")
        self._last_walk = now
        answered: set[str] = set()
        for app in apps:
            bus = _bus_name(app)
            try:
                app.get_attributes()  # a round trip: never cached by libatspi
            except Exception:  # noqa: BLE001 - an app that exited meanwhile: read it in full
                continue
            if bus:
                answered.add(bus)
        self._dispatch_pending()
        usable = {bus for bus in answered if bus in self._events_from}
        self._drop_apps_except(usable)
        if self._doubt:
            self.stats["full"] += 1
            self.last_full_reason, self._doubt = self._doubt, ""
            self._values.clear()
            self._links.clear()
            self._parents.clear()
        else:
            self.last_full_reason = ""
        self._usable = usable
        self._check_windows(apps, atspi)

    def _ensure_listener(self, atspi: Any) -> None:
        if self._listener is not None:
            return
        listener = atspi.EventListener.new(self._on_event)
        for event_type in EVENT_TYPES:
            listener.register(event_type)  # a synchronous call to the registry
        self._listener = listener
        self._events_from.clear()
        self.forget("the event listener was just registered")

    def _dispatch_pending(self) -> None:
        from gi.repository import GLib

        context = GLib.MainContext.default()
        for _ in range(MAX_DISPATCH_ITERATIONS):
            if not context.iteration(False):
                break
        else:
            self.forget("events kept coming while dispatching")
        if self._events_this_walk > MAX_EVENTS_PER_WALK:  # counted since the last walk began, its own included
            self.forget(f"{self._events_this_walk} events since the last walk")
        self._events_this_walk = 0

    def _check_windows(self, apps: list[Any], atspi: Any) -> None:
        """Read each kept top-level window's box again; a moved or resized one drops its subtree."""
        for app in apps:
            app_key = _object_key(app)
            if app_key is None or app_key[0] not in self._usable:
                continue
            for prop, node in list(self._values.get(app_key, {}).items()):
                window = _object_key(node) if _is_child(prop) and node is not None else None
                entry = self._values.get(window) if window is not None else None
                if entry is None or entry.get("box") is None:
                    continue
                try:
                    rect = node.get_extents(atspi.CoordType.SCREEN)
                    box = (rect.x, rect.y, rect.width, rect.height)
                except Exception:  # noqa: BLE001 - a window gone: read it again
                    box = None
                if box != entry["box"]:
                    self._drop(window, subtree=True)

    def _drop_apps_except(self, usable: set[str]) -> None:
        stale = [key for key in self._values if key[0] not in usable]
        for key in stale:
            self._drop(key, subtree=False)

    def _on_event(self, event: Any) -> None:
        try:
            self._handle(event)
        except Exception:  # noqa: BLE001 - a callback must not raise into libatspi: start over
            self.forget("an event could not be handled")

    def _handle(self, event: Any) -> None:
        kind = event.type or ""
        self._events_this_walk += 1
        self.stats["events"] += 1
        self.events_seen[kind] += 1
        source = event.source
        key = _object_key(source) if source is not None else None
        if key is None:
            # libatspi detaches a known object from its application before telling of its
            # ``defunct`` state: its path still names it within one of the apps
            path = getattr(source, "path", None) if source is not None else None
            if not path:
                self.forget(f"an event without a source ({kind})")
            elif not self._ignore_events:
                for bus in self._usable:
                    self._drop((bus, path), subtree=True)
            return
        self._events_from.add(key[0])
        if self._ignore_events or kind in _IGNORED:
            return
        if key not in self._values and key not in self._links:
            return  # nothing kept for it, so nothing kept depends on it
        parts = kind.split(":")
        if kind.startswith("object:state-changed"):
            if len(parts) < 3 or parts[2] in _SUBTREE_STATES:
                self._drop(key, subtree=True)
            else:
                self._drop(key, subtree=False, prop="states")
        elif kind == "object:property-change:accessible-name":
            self._drop(key, subtree=False, prop="name")
        elif kind == "object:property-change:accessible-value":  # a scroll bar moves its container's content
            self._drop(self._parents.get(key, key), subtree=True)
        elif kind.startswith("object:text-changed"):
            self._drop(key, subtree=False, prop="text")
        elif kind.startswith("focus:"):
            self._drop(key, subtree=False, prop="states")
        elif kind == "object:bounds-changed":  # moves the boxes below it, changes nothing else there
            self._drop(key, subtree=True, prop="box")
        else:  # children, bounds, visible data, selection, window:*, document:*, anything unknown
            self._drop(key, subtree=True)

    def _drop(self, key: Key, subtree: bool, prop: Hashable | None = None) -> None:
        """Drop ``prop`` (every property when None) of ``key``, and with ``subtree`` of all below it."""
        if not subtree:
            entry = self._values.get(key)
            if entry is not None and prop is not None:
                entry.pop(prop, None)
            elif entry is not None:
                self._drop(key, subtree=True)
            return
        todo, seen = [key], set()
        while todo and len(seen) <= len(self._values) + 1:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            if prop is None:
                self._values.pop(current, None)
                todo.extend(self._links.pop(current, ()))
            else:
                self._values.get(current, {}).pop(prop, None)
                todo.extend(self._links.get(current, ()))


def _is_child(prop: Hashable) -> bool:
    return isinstance(prop, tuple) and prop[0] == "child"


def _bus_name(node: Any) -> str | None:
    key = _object_key(node)
    return key[0] if key else None
