"""A warm spare LibreOffice: started in the background so the next episode's launch is a load.

Starting LibreOffice costs ~0.7 s (process start, profile, UNO); loading a small document into an
office that is already running costs ~0.1-0.2 s. With a spare enabled, the launcher keeps one
office running with a fresh profile and no document, hands it out on the next launch (which then
only loads the document through UNO), and starts the next spare in the background.

The spare costs one more office's memory (~190 MiB) while an episode runs, so it is opt-in.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..processes import kill_group, spawn
from . import office_launch

log = logging.getLogger(__name__)
SPARE_START_TIMEOUT = 60.0


@dataclass
class Spare:
    """A running office with no document, ready for ``loadComponentFromURL``."""

    proc: Any  # subprocess.Popen
    launch_dir: Path
    pipe_name: str
    uno: Any  # uno_bridge.UnoConnection

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None


class WarmOffice:
    """Keeps at most one spare office starting or ready.

    Args:
        env: environment for the office process.
        cwd: its working folder (the session home).
        new_launch_dir: returns a fresh per-launch folder (for the profile and the log).
    """

    def __init__(self, env: dict[str, str], cwd: Path, new_launch_dir: Any) -> None:
        self._env = env
        self._cwd = cwd
        self._new_launch_dir = new_launch_dir
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._spare: Spare | None = None
        self._starting: threading.Thread | None = None
        self._closed = False

    def ensure_started(self) -> None:
        """Start a spare in the background unless one is ready or starting."""
        with self._lock:
            if self._closed or self._spare is not None or (self._starting and self._starting.is_alive()):
                return
            self._ready.clear()
            self._starting = threading.Thread(target=self._start, name="warm-office", daemon=True)
            self._starting.start()

    def _start(self) -> None:
        from . import lo_profile, uno_bridge

        launch_dir: Path = self._new_launch_dir("spare")
        pipe_name = office_launch.new_pipe_name()
        profile_url = lo_profile.fresh_profile(launch_dir / "profile")
        # --nodefault: no window until a document is loaded into it
        argv = office_launch.soffice_argv(profile_url, pipe_name, ["--nodefault"])
        proc = spawn(argv, self._env, cwd=self._cwd, log_path=launch_dir / "app.log")
        try:
            connection = uno_bridge.wait_for_uno(pipe_name, SPARE_START_TIMEOUT, expect_document=False)
        except (TimeoutError, uno_bridge.UnoError) as error:
            log.warning("warm spare office did not start: %s", error)
            kill_group(proc.pid, proc, timeout=5.0)
            self._ready.set()
            return
        with self._lock:
            if self._closed:
                kill_group(proc.pid, proc, timeout=5.0)
            else:
                self._spare = Spare(proc=proc, launch_dir=launch_dir, pipe_name=pipe_name, uno=connection)
        self._ready.set()

    def take(self, wait: float = 0.0) -> Spare | None:
        """The ready spare (now the caller's), or None if none is ready within ``wait`` seconds."""
        if wait > 0:
            self._ready.wait(wait)
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None and not spare.alive:
            return None
        return spare

    def close(self) -> None:
        """Kill the spare (ready or still starting)."""
        with self._lock:
            self._closed = True
            spare, self._spare = self._spare, None
            starting = self._starting
        if starting is not None:
            starting.join(SPARE_START_TIMEOUT + 5)
        if spare is not None:
            kill_group(spare.proc.pid, spare.proc, timeout=5.0)
