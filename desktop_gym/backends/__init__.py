"""Backends: where desktops come from (local processes, containers, VMs)."""

from __future__ import annotations

from collections.abc import Callable

from .base import Backend, BackendError, DesktopHandle

_BACKENDS: dict[str, Callable[..., Backend]] = {}


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
    try:
        factory = _BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r} (known: {', '.join(sorted(_BACKENDS))})") from None
    return factory(**kwargs)


def available_backends() -> list[str]:
    """Names accepted by ``make_backend``."""
    return sorted(_BACKENDS)


__all__ = [
    "Backend",
    "BackendError",
    "DesktopHandle",
    "available_backends",
    "make_backend",
    "register_backend",
]
