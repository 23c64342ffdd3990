"""What every ``VSCodeTools`` call shares: home-confined files, the launch record, the live workbench."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from ...errors import DevToolsError
from ..home_files import OSFileTools
from ..tools_base import ApiArgumentError, ApiCallError, AppTools
from .launch import session_path
from .settings_files import MAX_NAME_CHARS, keybindings_of, settings_of
from .workbench import Workbench, read_session

#: The biggest settings or keybindings file read.
MAX_USER_FILE_BYTES = 1024 * 1024
#: The longest JSON text of one setting's value.
MAX_VALUE_CHARS = 20000


class VSCodeToolsBase(AppTools):
    """The plumbing of VS Code's tools (no tool methods of its own)."""

    uses_uno: ClassVar[bool] = False

    def __init__(self, document: Any = None, home: str | Path | None = None) -> None:
        super().__init__(document, home)
        self._files = OSFileTools(home=self.home, allow_outside_home=False)
        self.home = self._files.home

    # ------------------------------------------------------------------ paths
    def _path(self, path: str, arg: str = "path") -> Path:
        return self._files._path(path, arg)

    def _existing(self, path: str, arg: str = "path") -> Path:
        return self._files._existing(path, arg)

    def _show(self, path: Path) -> str:
        return self._files._show(path)

    def _read(self, target: Path, limit: int = MAX_USER_FILE_BYTES) -> str | None:
        """A file's text (None when it does not exist); over ``limit`` bytes is refused."""
        if not target.exists():
            return None
        data, size = self._files._read_bytes(target, limit + 1)
        if size > limit:
            raise ApiCallError(f"{self._show(target)} is over {limit} bytes")
        return data.decode("utf-8", errors="replace")

    def _write(self, target: Path, text: str) -> None:
        self._files._write_bytes(target, text.encode("utf-8"))

    # ------------------------------------------------------------------ settings files
    def _settings(self, target: Path) -> dict[str, Any]:
        try:
            return settings_of(self._read(target))
        except ValueError as error:
            raise ApiCallError(f"{self._show(target)} is not valid settings JSON ({error}); fix it first") from None

    def _keybindings(self, target: Path) -> list[dict[str, Any]]:
        try:
            return keybindings_of(self._read(target))
        except ValueError as error:
            raise ApiCallError(f"{self._show(target)} is not valid keybindings JSON ({error}); fix it first") from None

    @staticmethod
    def _name(value: Any, what: str) -> str:
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_CHARS:
            raise ApiArgumentError(f"{what} must be a non-empty string of at most {MAX_NAME_CHARS} characters")
        return value.strip()

    @staticmethod
    def _json_value(key: str, value: Any) -> Any:
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            raise ApiArgumentError(
                f"the value of {key!r} must be JSON data (text, number, bool, list, object)"
            ) from None
        if len(text) > MAX_VALUE_CHARS:
            raise ApiArgumentError(f"the value of {key!r} is over {MAX_VALUE_CHARS} characters of JSON")
        return json.loads(text)

    # ------------------------------------------------------------------ the live window
    def _record(self) -> dict[str, Any]:
        try:
            return read_session(self.home)
        except ValueError as error:
            raise ApiCallError(f"{error} (launch vscode first)") from None

    def _folder(self) -> Path:
        """The workspace folder the window shows."""
        folder = Path(str(self._record().get("folder", self.home)))
        if not self._files._confined(folder.resolve()):
            raise ApiCallError("the VS Code launch record names a folder outside the home")
        return folder.resolve()

    def _set_folder(self, folder: Path) -> None:
        record = {**self._record(), "folder": str(folder)}
        self._write(session_path(self.home), json.dumps(record))

    @contextmanager
    def _workbench(self, timeout: float = 30.0) -> Iterator[Workbench]:
        record = self._record()
        try:
            from ..devtools import connect

            workbench = Workbench(record, connect(Path(record["profile"]), timeout=timeout))
        except DevToolsError as error:
            raise ApiCallError(f"the VS Code window is not running (launch vscode first): {error}") from None
        try:
            yield workbench
        except DevToolsError as error:
            raise ApiCallError(f"the VS Code window refused: {error}") from None
        except TimeoutError as error:
            raise ApiCallError(str(error)) from None
        finally:
            workbench.close()
