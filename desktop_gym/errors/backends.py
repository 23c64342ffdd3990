"""Backends: starting and keeping a desktop (containers, QEMU, images, system packages)."""

from __future__ import annotations

from .base import DesktopGymError


class BackendError(DesktopGymError, RuntimeError, code="backend"):
    """A backend could not start (or keep) its desktop."""


class EngineUnavailableError(BackendError, code="engine_unavailable"):
    """No container engine answers (the message says how to start one)."""


class QmpError(DesktopGymError, RuntimeError, code="qmp"):
    """A QMP command failed or QEMU did not connect."""


class BackendCheckError(DesktopGymError, AssertionError, code="backend_check"):
    """A backend failed its conformance checks (the message lists each failure)."""


class ImageBuildError(DesktopGymError, RuntimeError, code="image_build"):
    """The image could not be built (the message names the step that failed)."""


class RootfsError(DesktopGymError, RuntimeError, code="rootfs"):
    """A root filesystem step (mirror lookup, debootstrap, chroot command) failed."""


class SystemDependencyError(DesktopGymError, RuntimeError, code="system_dependency"):
    """A system package the desktop needs is missing."""
