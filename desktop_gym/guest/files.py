"""File transfer into and out of the desktop session (``~`` = the session home)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
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
    """Write ``data`` to ``path`` (parent folders created) and return the absolute path.

    Inside the home nothing is followed: every folder is opened without following links and the
    file is written beside its target and renamed over it, so a link that a command planted in
    ``~`` (``ln -s /etc ~/Documents``) cannot carry the write out of the home.

    Raises:
        PermissionError: a folder on the way is a symbolic link, or ``..`` leaves the home.
        ValueError: see :func:`resolve_path`.
    """
    target = resolve_path(path, home)
    parts = _home_parts(path, target, home)
    if parts is None:  # an absolute path outside the home: the caller's own choice
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.part")
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        _write_and_close(fd, data, mode)
        os.replace(tmp, target)
        return str(target)
    if not parts:
        raise IsADirectoryError(f"{path!r} is the session home itself, not a file")
    folder = _open_folders(path, Path(home), parts[:-1])
    try:
        name, tmp = parts[-1], f".{parts[-1]}.part"
        try:
            os.unlink(tmp, dir_fd=folder)  # a leftover (or a planted link): unlinking never follows
        except FileNotFoundError:
            pass
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        _write_and_close(os.open(tmp, flags, 0o600, dir_fd=folder), data, mode)
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)  # replaces a link, never follows it
    finally:
        os.close(folder)
    return str(target)


def _home_parts(path: str, target: Path, home: str | Path) -> list[str] | None:
    """The components of ``target`` below the home, or None when ``path`` is not in the home.

    Raises:
        PermissionError: ``..`` takes a ``~/`` path out of the home.
    """
    home_text = os.path.normpath(home)
    lexical = os.path.normpath(target)
    if lexical == home_text or lexical.startswith(home_text.rstrip("/") + "/"):
        return [p for p in lexical[len(home_text) :].split("/") if p]
    if path == "~" or path.startswith("~/"):
        raise PermissionError(f"{path!r} leaves the session home")
    return None


def walk_folders(home: str | Path, folders: Iterable[str], open_child: Callable[[int, str], int]) -> int:
    """A descriptor of the folder ``home/folders...``, opened one level at a time.

    Args:
        home: Where the walk starts.
        folders: The names of the folders below it, outermost first.
        open_child: ``open_child(parent_fd, name)`` opens one level (following no link) and returns
            its descriptor; each parent is closed once its child is open.

    Returns:
        The innermost folder's descriptor, which the caller closes.
    """
    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in folders:
            child = open_child(fd, name)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_folders(path: str, home: Path, folders: list[str]) -> int:
    """Open (creating as needed) ``home/folders...`` one level at a time, following no link."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    walked = "~"

    def open_folder(fd: int, folder: str) -> int:
        nonlocal walked
        walked += f"/{folder}"
        try:
            os.mkdir(folder, 0o755, dir_fd=fd)
        except FileExistsError:
            pass
        try:
            return os.open(folder, flags, dir_fd=fd)
        except (NotADirectoryError, OSError) as error:
            if stat.S_ISLNK(os.stat(folder, dir_fd=fd, follow_symlinks=False).st_mode):
                raise PermissionError(f"{walked} is a symbolic link; {path!r} is not written through it") from None
            if isinstance(error, NotADirectoryError):
                raise NotADirectoryError(f"{walked} is a file, not a folder; {path!r} cannot be written") from None
            raise

    return walk_folders(home, folders, open_folder)


def _write_and_close(fd: int, data: bytes, mode: int) -> None:
    try:
        with os.fdopen(fd, "wb", closefd=False) as handle:
            handle.write(data)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


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
