"""OSTools, part 1: files and folders under the desktop user's home (mixed into ``OSTools``).

Paths may start with ``~/``, be relative to the home, or be absolute paths inside it; a path that
resolves outside the home (``..``, a symlink, an absolute path elsewhere) is refused unless the
guest runs with ``DESKTOP_GYM_OS_TOOLS_ALLOW_OUTSIDE_HOME=1``.

Files are opened by walking from a descriptor of the home, one component at a time with
``O_NOFOLLOW``, so a symlink swapped in between the check and the use cannot redirect a read or
a write; files with more than one hard link are not written (the other link may be outside).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError
from desktop_gym.guest.files import walk_folders

from .tools_base import AppTools

ALLOW_OUTSIDE_HOME_ENV = "DESKTOP_GYM_OS_TOOLS_ALLOW_OUTSIDE_HOME"
MAX_LISTED = 500
_CHUNK = 1024 * 1024
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _allowed_by_environment() -> bool:
    return os.environ.get(ALLOW_OUTSIDE_HOME_ENV, "").strip().lower() in ("1", "true", "yes")


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters with a note saying how much was cut, and whether it was."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n... [{len(text) - limit} more characters cut]", True


class OSFileTools(AppTools):
    """Files and folders under the home folder (~)."""

    def __init__(
        self, document: Any = None, home: str | Path | None = None, allow_outside_home: bool | None = None
    ) -> None:
        super().__init__(document, home)
        self.home = self.home.resolve()
        self.allow_outside_home = _allowed_by_environment() if allow_outside_home is None else allow_outside_home

    # ------------------------------------------------------------------ paths
    def _path(self, path: str, arg: str = "path") -> Path:
        """``path`` as an absolute path (``..`` folded), checked to stay under the home folder.

        Raises:
            ApiArgumentError: empty, or outside the home folder while that is not allowed.
        """
        if not isinstance(path, str) or not path.strip():
            raise ApiArgumentError(f"{arg} must be a non-empty path such as '~/notes.txt', got {path!r}")
        text = path.strip()
        if text == "~" or text.startswith("~/"):
            candidate = self.home / text[2:]
        elif text.startswith("~"):
            raise ApiArgumentError(f"{arg} {path!r}: only '~/' (this user's home) is understood, not '~user'")
        else:
            candidate = Path(text) if os.path.isabs(text) else self.home / text
        candidate = Path(os.path.normpath(candidate))
        real = candidate.resolve()
        if not self.allow_outside_home and real != self.home and self.home not in real.parents:
            raise ApiArgumentError(
                f"{arg} {path!r} resolves to {real}, outside the home folder {self.home}; OSTools only acts "
                f"under ~ (absolute paths elsewhere are refused unless the guest allows them with "
                f"{ALLOW_OUTSIDE_HOME_ENV}=1)"
            )
        return candidate

    def _show(self, path: Path) -> str:
        """``/home/u/a/b.txt`` -> ``~/a/b.txt`` for results the agent reads."""
        if path == self.home:
            return "~"
        if self.home in path.parents:
            return "~/" + path.relative_to(self.home).as_posix()
        return str(path)

    def _existing(self, path: str, arg: str = "path") -> Path:
        target = self._path(path, arg)
        if not target.exists() and not target.is_symlink():
            raise ApiCallError(f"{arg}: {self._show(target)} does not exist")
        return target

    # ------------------------------------------------------------------ descriptors
    def _confined(self, target: Path) -> bool:
        return target == self.home or self.home in target.parents

    @contextmanager
    def _open(self, target: Path, flags: int, create_parents: bool = False) -> Iterator[int]:
        """Open ``target`` from the home's descriptor without following any symlink on the way.

        Raises:
            ApiCallError: a symbolic link (or a file where a folder should be) is on the path.
        """
        flags |= os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # O_NONBLOCK: a FIFO cannot hang us
        if not self._confined(target) or target == self.home:
            if create_parents:
                target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, flags, 0o644)
        else:
            parts = target.relative_to(self.home).parts
            parent = self._walk(parts[:-1], create_parents, target)
            try:
                fd = self._checked_open(parts[-1], flags, parent, target)
            finally:
                os.close(parent)
        try:
            yield fd
        finally:
            os.close(fd)

    def _walk(self, parts: tuple[str, ...], create: bool, target: Path) -> int:
        """A descriptor of the folder ``home/parts...``, each component opened with O_NOFOLLOW."""

        def open_folder(fd: int, part: str) -> int:
            try:
                return self._checked_open(part, _DIRECTORY_FLAGS, fd, target)
            except ApiCallError:
                if not create or os.path.lexists(f"/proc/self/fd/{fd}/{part}"):
                    raise
                os.mkdir(part, 0o755, dir_fd=fd)
                return self._checked_open(part, _DIRECTORY_FLAGS, fd, target)

        return walk_folders(self.home, parts, open_folder)

    def _checked_open(self, name: str, flags: int, dir_fd: int, target: Path) -> int:
        try:
            return os.open(name, flags, 0o644, dir_fd=dir_fd)
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                raise ApiCallError(
                    f"{self._show(target)}: a symbolic link or a file is in the way at {name!r}; OSTools does not "
                    "follow links when it opens files"
                ) from None
            if error.errno == errno.ENOENT:
                raise ApiCallError(f"{self._show(target)} does not exist") from None
            if error.errno == errno.ENXIO:
                raise ApiCallError(f"{self._show(target)} is not a regular file") from None
            raise

    def _regular(self, fd: int, target: Path, writing: bool) -> os.stat_result:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ApiCallError(f"{self._show(target)} is not a regular file")
        if writing and info.st_nlink > 1:
            raise ApiCallError(
                f"{self._show(target)} has {info.st_nlink} hard links; OSTools does not write to a file that is "
                "also linked elsewhere"
            )
        return info

    def _read_bytes(self, target: Path, limit: int | None = None) -> tuple[bytes, int]:
        """Up to ``limit`` bytes of a regular file (all when None), and the file's size."""
        with self._open(target, os.O_RDONLY) as fd:
            size = self._regular(fd, target, writing=False).st_size
            chunks, total = [], 0
            while limit is None or total < limit:
                chunk = os.read(fd, _CHUNK if limit is None else min(_CHUNK, limit - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            return b"".join(chunks), size

    def _write_bytes(self, target: Path, data: bytes, append: bool = False, mode: int | None = None) -> None:
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else 0)
        with self._open(target, flags, create_parents=True) as fd:
            self._regular(fd, target, writing=True)
            if not append:
                os.ftruncate(fd, 0)  # only now: truncating at open would hit a hard-linked file
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view[:_CHUNK]) :]
            if mode is not None:
                os.fchmod(fd, mode & 0o777)

    def _not_home(self, target: Path, what: str) -> None:
        if target == self.home:
            raise ApiArgumentError(f"refusing to {what} the home folder itself")

    # ------------------------------------------------------------------ folders
    def create_folder(self, path: str) -> str:
        """Create a folder, with any missing parent folders (no error if it already exists).

        Args:
            path: The folder, e.g. "~/reports/2024".

        Returns:
            A confirmation naming the folder.
        """
        target = self._path(path)
        if target.exists() and not target.is_dir():
            raise ApiCallError(f"path: {self._show(target)} exists and is a file, not a folder")
        if self._confined(target) and target != self.home:
            os.close(self._walk(target.relative_to(self.home).parts, True, target))
        else:
            target.mkdir(parents=True, exist_ok=True)
        return f"created folder {self._show(target)}"

    def list_folder(self, path: str = "~", show_hidden: bool = False) -> list[str]:
        """List a folder's entries by name; folder names end with "/".

        Args:
            path: The folder (default: the home folder).
            show_hidden: Also list names starting with ".".

        Returns:
            The names, sorted (at most 500; a last entry says how many more there are).
        """
        target = self._existing(path)
        if not target.is_dir():
            raise ApiCallError(f"path: {self._show(target)} is a file, not a folder")
        names = sorted(
            entry.name + ("/" if entry.is_dir() else "")
            for entry in os.scandir(target)
            if show_hidden or not entry.name.startswith(".")
        )
        if len(names) > MAX_LISTED:
            return names[:MAX_LISTED] + [f"... and {len(names) - MAX_LISTED} more"]
        return names

    # ------------------------------------------------------------------ text files
    def read_text_file(self, path: str, max_chars: int = 20000) -> str:
        """Read a text file (UTF-8; undecodable bytes are replaced).

        Args:
            path: The file, e.g. "~/notes.txt".
            max_chars: The longest text returned; longer text is cut and says so at the end.

        Returns:
            The file's text.
        """
        if max_chars < 1:
            raise ApiArgumentError(f"max_chars must be at least 1, got {max_chars}")
        target = self._existing(path)
        if target.is_dir():
            raise ApiCallError(f"path: {self._show(target)} is a folder, not a file")
        data, size = self._read_bytes(target, 4 * max_chars + 4)  # UTF-8: at most 4 bytes a character
        text, cut = truncate(data.decode("utf-8", errors="replace"), max_chars)
        if size > len(data) and not cut:
            text += f"\n... [cut: the file has {size} bytes]"
        return text

    def write_text_file(self, path: str, text: str) -> str:
        """Write text to a file, replacing its content (missing parent folders are created).

        Args:
            path: The file, e.g. "~/reports/summary.txt".
            text: The whole new content; add "\\n" at the end for a final line break.

        Returns:
            A confirmation with the number of characters written.
        """
        target = self._path(path)
        if target.is_dir():
            raise ApiCallError(f"path: {self._show(target)} is a folder, not a file")
        self._write_bytes(target, text.encode("utf-8"))
        return f"wrote {len(text)} characters to {self._show(target)}"

    def append_text_file(self, path: str, text: str) -> str:
        """Add text at the end of a file (the file is created if missing).

        Args:
            path: The file, e.g. "~/log.txt".
            text: The text to add; nothing is inserted before it, so start with "\\n" for a new line.

        Returns:
            A confirmation with the file's new size in characters.
        """
        target = self._path(path)
        if target.is_dir():
            raise ApiCallError(f"path: {self._show(target)} is a folder, not a file")
        self._write_bytes(target, text.encode("utf-8"), append=True)
        size = len(self._read_bytes(target)[0].decode("utf-8", errors="replace"))
        return f"appended {len(text)} characters to {self._show(target)} (now {size})"

    # ------------------------------------------------------------------ copy, move, delete
    def _destination(self, source: Path, destination: str, overwrite: bool) -> Path:
        """Where ``source`` copied or moved to ``destination`` lands, checked; its parent folder is made."""
        target = self._path(destination, "destination")
        if target.is_dir() and not source.is_dir():
            target = target / source.name  # a file copied or moved into a folder keeps its name
        if target == source:
            raise ApiArgumentError(f"destination is the source itself ({self._show(source)})")
        if source.is_dir() and source in target.parents:
            raise ApiArgumentError(f"cannot put the folder {self._show(source)} inside itself")
        if target.exists() and not overwrite:
            raise ApiCallError(f"destination: {self._show(target)} already exists; pass overwrite=True to replace it")
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    @staticmethod
    def _remove(target: Path) -> None:
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()

    def copy_path(self, source: str, destination: str, overwrite: bool = False) -> str:
        """Copy a file or a whole folder; a file copied onto a folder goes inside it.

        Args:
            source: The file or folder to copy.
            destination: The new path (or an existing folder to copy a file into).
            overwrite: Replace an existing destination.

        Returns:
            A confirmation naming both paths.
        """
        origin = self._existing(source, "source")
        target = self._destination(origin, destination, overwrite)
        if origin.is_dir():
            self._remove(target)
            shutil.copytree(origin, target, symlinks=True)
        else:
            data, _ = self._read_bytes(origin)
            self._write_bytes(target, data, mode=origin.lstat().st_mode)
        return f"copied {self._show(origin)} to {self._show(target)}"

    def move_path(self, source: str, destination: str, overwrite: bool = False) -> str:
        """Move or rename a file or folder; a file moved onto a folder goes inside it.

        Args:
            source: The file or folder to move.
            destination: The new path (or an existing folder to move a file into).
            overwrite: Replace an existing destination.

        Returns:
            A confirmation naming both paths.
        """
        origin = self._existing(source, "source")
        self._not_home(origin, "move")
        target = self._destination(origin, destination, overwrite)
        if target.exists():
            self._remove(target)
        shutil.move(str(origin), str(target))
        return f"moved {self._show(origin)} to {self._show(target)}"

    def delete_path(self, path: str, recursive: bool = False) -> str:
        """Delete a file, or a folder (a folder with content only when recursive is True).

        Args:
            path: The file or folder.
            recursive: Delete a non-empty folder with everything in it.

        Returns:
            A confirmation naming what was deleted.
        """
        target = self._existing(path)
        self._not_home(target, "delete")
        if target.is_dir() and not target.is_symlink():
            if any(target.iterdir()) and not recursive:
                raise ApiCallError(f"path: the folder {self._show(target)} is not empty; pass recursive=True")
            shutil.rmtree(target)
            return f"deleted folder {self._show(target)}"
        target.unlink()
        return f"deleted {self._show(target)}"

    # ------------------------------------------------------------------ queries
    def path_exists(self, path: str) -> bool:
        """Tell whether a file or folder exists.

        Args:
            path: The path to test.

        Returns:
            True if something exists at the path.
        """
        target = self._path(path)
        return target.exists() or target.is_symlink()

    def path_info(self, path: str) -> dict:
        """Describe a file or folder: its type, size, modification time and permissions.

        Args:
            path: The file or folder.

        Returns:
            {"path", "type": "file" | "folder" | "link" | "other", "size" (bytes; entries for a
            folder), "modified" (UTC, ISO 8601), "mode" (octal, e.g. "644")}.
        """
        target = self._existing(path)
        stat = target.lstat()
        if target.is_symlink():
            kind = "link"
        elif target.is_dir():
            kind = "folder"
        elif target.is_file():
            kind = "file"
        else:
            kind = "other"
        return {
            "path": self._show(target),
            "type": kind,
            "size": len(os.listdir(target)) if kind == "folder" else stat.st_size,
            "modified": datetime.fromtimestamp(stat.st_mtime, tz=timezone.utc).isoformat(timespec="seconds"),
            "mode": f"{stat.st_mode & 0o7777:o}",
        }
