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
        PermissionError: the path is in the home but resolves (through symlinks) out of it.
    """
    target = resolve_path(path, home)
    if not target.exists():
        raise FileNotFoundError(f"no such file in the guest: {target}")
    real_home = os.path.realpath(home)
    lexical = os.path.normpath(target)
    inside = any(
        lexical == root or lexical.startswith(root.rstrip("/") + "/") for root in (real_home, os.path.normpath(home))
    )
    if inside and os.path.commonpath([real_home, os.path.realpath(target)]) != real_home:
        # A saved artifact that is a link out of the home would let an agent point the verifier at
        # any file on the machine (or at a copy of the answer kept elsewhere).
        raise PermissionError(f"{target} is a symlink out of the session home; it is not read")
    return target.read_bytes()
