"""Accessibility properties that never change for an object, read once per object instead of per walk.

Every property read in the tree walk is a D-Bus round trip into the application. An accessible
object's role, its interfaces (fixed by its type in the ATK bridge) and its toolkit attribute stay
what they were when it was created, and an object path names one object for the life of its
application's connection (at-spi2-atk numbers paths from a counter; a restarted app has a new bus
name). So they are kept per ``(bus name, path)``; names, states, boxes and text are read each time.
"""

from __future__ import annotations

import threading
from typing import Any

MAX_CACHED_OBJECTS = 50_000  # grid cells are fresh objects on every read: start over past this


class StaticProperties:
    """Role, interfaces and toolkit of accessible objects, kept per object (or read every time).

    Args:
        enabled: False reads every property from the application every time (the baseline).
        max_objects: Forget everything once this many objects are kept.
    """

    def __init__(self, enabled: bool = True, max_objects: int = MAX_CACHED_OBJECTS) -> None:
        self.enabled = enabled
        self.max_objects = max_objects
        self._known: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._known)

    def unknown(self, node: Any) -> bool:
        """Whether the next :meth:`role` or :meth:`interfaces` of ``node`` reads the application."""
        key = _object_key(node) if self.enabled else None
        known = self._known.get(key) if key is not None else None
        return known is None or "role" not in known or "interfaces" not in known

    def role(self, node: Any) -> str:
        """The role name (``"push button"``)."""
        return self._read(node, "role", node.get_role_name)

    def interfaces(self, node: Any) -> frozenset[str]:
        """The interface names (``{"Component", "Text", ...}``)."""
        return self._read(node, "interfaces", lambda: frozenset(node.get_interfaces()))

    def is_gtk(self, node: Any) -> bool:
        """Whether the object is a native GTK widget (its ``toolkit`` attribute is ``gtk``)."""
        return self._read(node, "gtk", lambda: _toolkit_is_gtk(node))

    def _read(self, node: Any, prop: str, read: Any) -> Any:
        key = _object_key(node) if self.enabled else None
        if key is None:
            return read()
        known = self._known.get(key)
        if known is not None and prop in known:
            return known[prop]
        value = read()  # an error (the object vanished) is not kept
        with self._lock:
            if len(self._known) >= self.max_objects:
                self._known.clear()
            self._known.setdefault(key, {})[prop] = value
        return value


def _object_key(node: Any) -> tuple[str, str] | None:
    """``(bus name, object path)``: local fields of the proxy, no round trip."""
    app, path = getattr(node, "app", None), getattr(node, "path", None)
    bus_name = getattr(app, "bus_name", None) if app is not None else None
    return (bus_name, path) if bus_name and path else None


def _toolkit_is_gtk(node: Any) -> bool:
    try:
        return (node.get_attributes() or {}).get("toolkit") == "gtk"
    except Exception:  # noqa: BLE001 - a node without attributes
        return False
