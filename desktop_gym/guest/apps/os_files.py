"""OSTools, part 1: files and folders under the desktop user's home (mixed into ``OSTools``).

Paths may start with ``~/``, be relative to the home, or be absolute paths inside it; a path that
resolves outside the home (``..``, a symlink, an absolute path elsewhere) is refused unless the
guest runs with ``DESKTOP_GYM_OS_TOOLS_ALLOW_OUTSIDE_HOME=1``.
"""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .tool_schema import ApiArgumentError, ApiCallError

ALLOW_OUTSIDE_HOME_ENV = "DESKTOP_GYM_OS_TOOLS_ALLOW_OUTSIDE_HOME"
MAX_LISTED = 500


def _allowed_by_environment() -> bool:
    return os.environ.get(ALLOW_OUTSIDE_HOME_ENV, "").strip().lower() in ("1", "true", "yes")


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters with a note saying how much was cut, and whether it was."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n... [{len(text) - limit} more characters cut]", True


class OSFileTools:
    """Files and folders under the home folder (~)."""

    def __init__(
        self, document: Any = None, home: str | Path | None = None, allow_outside_home: bool | None = None
    ) -> None:
        self.home = Path(home if home is not None else Path.home()).resolve()
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
        return truncate(target.read_text(encoding="utf-8", errors="replace"), max_chars)[0]

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
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
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
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as handle:
            handle.write(text)
        size = len(target.read_text(encoding="utf-8", errors="replace"))
        return f"appended {len(text)} characters to {self._show(target)} (now {size})"

    # ------------------------------------------------------------------ copy, move, delete
    def _destination(self, source: Path, destination: str, overwrite: bool) -> Path:
        target = self._path(destination, "destination")
        if target.is_dir() and not source.is_dir():
            target = target / source.name  # a file copied or moved into a folder keeps its name
        if target == source:
            raise ApiArgumentError(f"destination is the source itself ({self._show(source)})")
        if source.is_dir() and source in target.parents:
            raise ApiArgumentError(f"cannot put the folder {self._show(source)} inside itself")
        if target.exists() and not overwrite:
            raise ApiCallError(f"destination: {self._show(target)} already exists; pass overwrite=True to replace it")
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
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            self._remove(target)
            shutil.copytree(origin, target, symlinks=True)
        else:
            shutil.copy2(origin, target)
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
        target.parent.mkdir(parents=True, exist_ok=True)
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
