"""Apps as plugins: the entry-point group ``desktop_gym.apps``, read by the host and the guest alike.

An entry point names an :class:`~.spec.AppSpec` (``calc = desktop_gym.apps.calc:SPEC``); a package of
your own adds an app by declaring one in its metadata, with no edit here::

    [options.entry_points]
    desktop_gym.apps =
        gcalc = my_package.gcalc:SPEC

The built-in apps come first, then other packages' apps, each by name (the same order however the
package was installed). Run from a source tree that was never installed (no metadata), the built-in apps are
found by their folders instead, so the install script can list their packages before the venv exists.
Standard library only.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from desktop_gym.errors import AppPluginError

from .spec import AppSpec

log = logging.getLogger(__name__)

GROUP = "desktop_gym.apps"
_BUILTIN_PREFIX = "desktop_gym.apps."
_APPS_DIR = Path(__file__).resolve().parent


def builtin_app_folders() -> list[str]:
    """The app folders of this package (each ``desktop_gym/apps/<key>/__init__.py``), by name."""
    return sorted(p.parent.name for p in _APPS_DIR.glob("*/__init__.py") if not p.parent.name.startswith("_"))


def app_entry_points() -> list[tuple[str, str]]:
    """``(name, "module:attr")`` of every entry point in the group: built-in ones first, then by name.

    Without this package's own metadata (a source tree on ``PYTHONPATH``), the built-in folders stand in.
    """
    found = [(ep.name, ep.value) for ep in metadata.entry_points(group=GROUP)]
    builtin = sorted((item for item in found if item[1].startswith(_BUILTIN_PREFIX)), key=lambda item: item[0])
    others = sorted((item for item in found if not item[1].startswith(_BUILTIN_PREFIX)), key=lambda item: item[0])
    if not builtin:
        builtin = [(name, f"{_BUILTIN_PREFIX}{name}:SPEC") for name in builtin_app_folders()]
    seen: set[str] = set()
    ordered = []
    for name, value in [*builtin, *others]:
        if value not in seen:  # an editable install and a stale copy may both list one app
            seen.add(value)
            ordered.append((name, value))
    return ordered


def resolve(value: str) -> Any:
    """``"package.module:attr"`` -> the object.

    Raises:
        AppPluginError: the module or attribute is missing.
    """
    module_name, _, attribute = value.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split(".") if attribute else ():
            target = getattr(target, part)
    except (ImportError, AttributeError) as error:
        raise AppPluginError(f"entry point {value!r} of group {GROUP!r} cannot be loaded: {error}") from error
    return target


def load_apps(register: Callable[[AppSpec], Any], entry_points: Iterable[tuple[str, str]] | None = None) -> None:
    """Register the spec of every entry point; one that fails is logged and skipped, never fatal.

    Args:
        register: Called with each :class:`AppSpec` (``spec.register_app``).
        entry_points: ``(name, value)`` pairs (default: :func:`app_entry_points`).
    """
    for name, value in app_entry_points() if entry_points is None else entry_points:
        try:
            spec = resolve(value)
            if not isinstance(spec, AppSpec):
                raise AppPluginError(f"entry point {name} = {value} names a {type(spec).__name__}, not an AppSpec")
            if spec.key != name:
                raise AppPluginError(f"entry point {name} = {value} names the app {spec.key!r}: use one name")
            register(spec)
        except (AppPluginError, ValueError) as error:
            log.error("app plugin skipped: %s", error)
