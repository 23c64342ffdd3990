"""The sites' data folder: what a task seeds (``site.json``) and what verifiers read back.

Files in the folder:

- ``site.json``: optional overrides of :func:`~.defaults.default_site`'s parts, written by :func:`seed`;
  the server rereads it whenever it changes, so a task may seed before or after the server starts.
- ``submissions.jsonl``: one form submission a line (``{"host", "path", "time", "fields"}``), read with
  :func:`read_submissions`; at most :data:`MAX_SUBMISSIONS`.
- ``requests.jsonl``: one served request a line (``{"time", "method", "host", "path", "query",
  "status"}``), read with :func:`read_requests`; trimmed to the latest lines past a size cap.

Standard library only.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from ....errors import TaskSetupError
from .defaults import default_site
from .schema import check_parts

log = logging.getLogger(__name__)

SITE_FILE = "site.json"
SUBMISSIONS_FILE = "submissions.jsonl"
REQUESTS_FILE = "requests.jsonl"
#: Submissions stored at most; past it a form answers 429.
MAX_SUBMISSIONS = 1000
#: The request log's size cap; past it the log keeps its latest lines (at most :data:`MAX_LOG_LINES`).
MAX_LOG_BYTES = 1024 * 1024
MAX_LOG_LINES = 2000
#: A logged path or query is cut to this many characters.
MAX_LOGGED_CHARS = 512
#: A ``site.json`` bigger than this is ignored (defaults are served).
MAX_SITE_BYTES = 8 * 1024 * 1024


def _served_defaults() -> dict[str, Any]:
    """The defaults in the shape the sites read (optional fields filled in), as seeded parts are."""
    return check_parts(default_site())[0]


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def seed(data_dir: Path, **parts: Any) -> Path:
    """Write ``site.json`` in ``data_dir`` with exactly ``parts``; parts not given take their defaults.

    Args:
        data_dir: the site server's data folder (created if missing).
        **parts: any of ``users`` ({name: password}), ``products`` ([{sku, name, category, price,
            description?}]), ``files`` ({name: text}), ``articles`` ([{slug, title, date, body}]),
            ``tables`` ({name: {title, columns, rows}}).

    Returns:
        The path of the ``site.json`` written.

    Raises:
        TaskSetupError: a part is unknown or an entry is invalid (the message names each problem).
    """
    _, problems = check_parts(parts)
    path = Path(data_dir) / SITE_FILE
    if problems:
        raise TaskSetupError(f"{path}: " + "; ".join(problems[:10]))
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, json.dumps(parts, indent=2, sort_keys=True))
    return path


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line being written right now
        if isinstance(record, dict):
            out.append(record)
    return out


def read_submissions(data_dir: Path) -> list[dict[str, Any]]:
    """Every stored form submission, oldest first: ``{"host", "path", "time", "fields": {...}}``."""
    return _read_jsonl(Path(data_dir) / SUBMISSIONS_FILE)


def read_requests(data_dir: Path) -> list[dict[str, Any]]:
    """The logged requests, oldest first: ``{"time", "method", "host", "path", "query", "status"}``."""
    return _read_jsonl(Path(data_dir) / REQUESTS_FILE)


def clear_state(data_dir: Path) -> None:
    """Forget the stored submissions and the request log (a new episode's clean slate)."""
    for name in (SUBMISSIONS_FILE, REQUESTS_FILE):
        (Path(data_dir) / name).unlink(missing_ok=True)


class SiteStore:
    """One data folder as the server uses it: the current site data, the request log, the submissions."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._site = _served_defaults()

    def site(self) -> dict[str, Any]:
        """The defaults with ``site.json``'s valid parts over them, reread when the file changed."""
        path = self.data_dir / SITE_FILE
        try:
            info = path.stat()
            stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = None
        with self._lock:
            if stamp != self._stamp:
                self._site = self._load(path) if stamp else _served_defaults()
                self._stamp = stamp
            return self._site

    def _load(self, path: Path) -> dict[str, Any]:
        site = _served_defaults()
        try:
            if path.stat().st_size > MAX_SITE_BYTES:
                raise ValueError(f"bigger than {MAX_SITE_BYTES} bytes")
            parts = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(parts, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as error:
            log.warning("%s: ignored, serving the defaults: %s", path, error)
            return site
        clean, problems = check_parts(parts)
        for problem in problems:
            log.warning("%s: skipped %s", path, problem)
        site.update(clean)
        return site

    def add_submission(self, host: str, path: str, fields: dict[str, Any]) -> bool:
        """Append a submission; False (nothing stored) once :data:`MAX_SUBMISSIONS` are stored."""
        file = self.data_dir / SUBMISSIONS_FILE
        record = {"host": host, "path": path, "time": time.time(), "fields": fields}
        with self._lock:
            try:
                with file.open("rb") as stored:
                    count = sum(1 for _ in stored)
            except FileNotFoundError:
                count = 0
            if count >= MAX_SUBMISSIONS:
                return False
            with file.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return True

    def log_request(self, method: str, host: str, path: str, query: str, status: int) -> None:
        """Append one served request to the log, trimming it past :data:`MAX_LOG_BYTES`."""
        record = {
            "time": time.time(),
            "method": method[:16],
            "host": host[:255],
            "path": path[:MAX_LOGGED_CHARS],
            "query": query[:MAX_LOGGED_CHARS],
            "status": status,
        }
        file = self.data_dir / REQUESTS_FILE
        try:
            with self._lock:
                with file.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
                if file.stat().st_size > MAX_LOG_BYTES:
                    self._trim_log(file)
        except OSError as error:  # the log is for verifiers; serving goes on without it
            log.warning("%s: could not log a request: %s", file, error)

    @staticmethod
    def _trim_log(file: Path) -> None:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        kept: list[str] = []
        size = 0
        for line in reversed(lines[-MAX_LOG_LINES:]):
            size += len(line.encode("utf-8"))
            if size > MAX_LOG_BYTES // 2:
                break
            kept.append(line)
        _write_atomic(file, "".join(reversed(kept)))
