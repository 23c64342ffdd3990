"""Backends: where desktops come from (local processes, containers, VMs).

The built-in ones are named here; another package (or a stand-in such as the env server's load-test
backend) adds one through the entry-point group ``desktop_gym.backends`` (name = a ``Backend``
class or factory), found by name when first asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from .base import Backend, BackendError, DesktopHandle

_BACKENDS: dict[str, Callable[..., Backend]] = {}
ENTRY_POINT_GROUP = "desktop_gym.backends"


def register_backend(name: str) -> Callable:
    """Class decorator adding a backend to the registry under ``name``."""

    def decorator(factory: Callable[..., Backend]) -> Callable[..., Backend]:
        _BACKENDS[name] = factory
        return factory

    return decorator


def _local(**kwargs) -> Backend:
    from .local import LocalBackend

    return LocalBackend(**kwargs)


_BACKENDS["local"] = _local


def _container(**kwargs) -> Backend:
    from .container import ContainerBackend

    return ContainerBackend(**kwargs)


_BACKENDS["container"] = _container


def _qemu(**kwargs) -> Backend:
    from .qemu import QemuBackend

    return QemuBackend(**kwargs)


_BACKENDS["qemu"] = _qemu


def make_backend(name: str = "local", **kwargs) -> Backend:
    """Create a backend by name (``"local"``, or any registered name).

    Raises:
        ValueError: unknown backend name (the message lists the known ones).
    """
    factory = _BACKENDS.get(name) or _from_entry_point(name)
    if factory is None:
        raise ValueError(f"unknown backend {name!r} (known: {', '.join(available_backends())})")
    return factory(**kwargs)


def _from_entry_point(name: str) -> Callable[..., Backend] | None:
    """The backend an installed package names ``name`` in ``desktop_gym.backends`` (registered once loaded)."""
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name == name:
            loaded = point.load()  # importing it may register it under its own decorator
            _BACKENDS[name] = _BACKENDS.get(name) or loaded
            return _BACKENDS[name]
    return None


def available_backends() -> list[str]:
    """Names accepted by ``make_backend``: the built-in and registered ones and the entry points."""
    return sorted({*_BACKENDS, *(point.name for point in entry_points(group=ENTRY_POINT_GROUP))})


__all__ = [
    "ENTRY_POINT_GROUP",
    "Backend",
    "BackendError",
    "DesktopHandle",
    "available_backends",
    "make_backend",
    "register_backend",
]
