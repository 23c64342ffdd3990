"""File transfer into and out of the desktop session (``~`` = the session home)."""

from __future__ import annotations

import os
from pathlib import Path


def resolve_path(path: str, home: str | Path) -> Path:
    """Resolve ``path`` inside the guest: ``~`` or ``~/...`` is the session home.

    Raises:
        ValueError: the path is empty or relative (and does not start with ``~``).
    """
    if not path:
        raise ValueError("empty path")
    if path == "~" or path.startswith("~/"):
        return Path(home) / path[2:]
    if not os.path.isabs(path):
        raise ValueError(f"path {path!r} must be absolute or start with '~/'")
    return Path(path)


def put_file(path: str, data: bytes, home: str | Path, mode: int = 0o644) -> str:
    """Write ``data`` to ``path`` (parent folders created) and return the absolute path."""
    target = resolve_path(path, home)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.part")
    tmp.write_bytes(data)
    os.chmod(tmp, mode)
    os.replace(tmp, target)
    return str(target)


def get_file(path: str, home: str | Path) -> bytes:
    """Read ``path``.

    Raises:
        FileNotFoundError: naming the resolved path.
        IsADirectoryError: the path is a folder.
    """
    target = resolve_path(path, home)
    if not target.exists():
        raise FileNotFoundError(f"no such file in the guest: {target}")
    return target.read_bytes()
