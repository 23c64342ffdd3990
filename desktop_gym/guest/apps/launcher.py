"""Launching the desktop's applications and keeping a registry of what was launched.

Every app is started as the leader of its own process group, so ``kill_all`` can SIGKILL it
together with everything it spawned (``soffice`` -> ``oosplash`` -> ``soffice.bin``).
LibreOffice always starts from a fresh copy of a lock-free profile in a per-launch folder, and
opens the task file where the task put it (tasks write a fresh copy of their inputs at every
reset, and the agent saves over that path); see ``office_launch``. A launch returns once the app
is drawn and usable (``readiness``: a semantic condition per kind of app, then a quiet screen),
logs its seconds per phase (process start, window, UNO, layout, each readiness condition, quiet
screen) and keeps them in ``extra``.

The terminal runs bash with an rc file that touches a marker once the shell reads input, and the
launch waits for it: keystrokes sent before the shell is ready would be lost.
"""

from __future__ import annotations

import importlib
import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_gym.apps.spec import APP_SPECS, AppSpec, launchable_apps
from desktop_gym.errors import AppLaunchError

from ...polling import poll_until
from ..files import resolve_path
from ..processes import group_alive, kill_group, process_group, spawn
from ..types import AppInfo, WindowInfo
from ..windows import WindowManager
from . import office_launch, readiness
from .launch_phases import PhaseClock
from .warm_spare import Spare, WarmOffice

log = logging.getLogger(__name__)

FRAMES_VARIABLE = "DESKTOP_GYM_BROWSER_FRAMES"  # "0": a settle does not wait for browser pages' frames
#: Seconds an office may take to work off its pending events after input (``wait_idle``) before
#: only a free main thread is required of it (CI once saw 10 s pass under load after typing a word).
EVENTS_TIMEOUT = 3.0
POLL_INTERVAL = 0.02
#: Snapshots of the app table (spec.APP_SPECS), kept for importers; the launcher reads the table itself.
LIBREOFFICE_MODULES = {key: spec.command[0] for key, spec in APP_SPECS.items() if spec.launch == "libreoffice"}
REUSED_LAUNCH_TIMEOUT_S = 10.0  # a launch into a reused office not done by then falls back to a cold start
APPS = launchable_apps()
WINDOW_CLASSES = {key: APP_SPECS[key].window_class for key in APPS}


@dataclass
class LaunchedApp:
    """One launched application and what the guest knows about it."""

    app: str
    proc: Any  # subprocess.Popen
    launch_dir: Path
    file: str | None = None
    window_id: int | None = None
    pipe_name: str | None = None
    uno: Any = None  # uno_bridge.UnoConnection for LibreOffice apps
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def alive(self) -> bool:
        """Whether the launched process is still running."""
        return self.proc.poll() is None

    def info(self) -> AppInfo:
        """The public description of this app."""
        return AppInfo(app=self.app, pid=self.proc.pid, alive=self.alive, window_id=self.window_id, file=self.file)


def _hook(entry_point: str) -> Callable[..., Any]:
    """An app's launch or readiness hook, ``"package.module:function"`` (see ``AppSpec.launch_hook``)."""
    module_name, _, name = entry_point.partition(":")
    return getattr(importlib.import_module(module_name), name)


def _touch_model(connection: Any) -> None:
    document = connection.current_document()
    if document is not None and hasattr(document, "isModified"):
        document.isModified()


def _as_spare(launched: LaunchedApp) -> Spare:
    return Spare(proc=launched.proc, launch_dir=launched.launch_dir, pipe_name=launched.pipe_name, uno=launched.uno)


class AppLauncher:
    """Starts apps in the session and tracks them.

    Args:
        home: The session home (``~``).
        windows: Window manager access, used to wait for the app's window.
        env: Environment for the apps (see ``processes.session_env``).
        runtime_dir: Where per-launch folders (profile, file copy, log) go.
        warm_spare: Keep a LibreOffice running in the background so the next Calc/Writer/Impress
            launch only loads its document (see ``warm_spare``).
        grab_screen: Takes a screenshot; a launch returns once the app is drawn and the screen
            stopped changing, because LibreOffice drops keys sent while it is still laying out its
            window (measured: about one launch in three lost the first keys when typing started
            right after UNO answered), and a quiet screen alone can be an unpainted window.
        reuse_office: At ``kill_all``, keep a LibreOffice that ``office_reuse.park`` proves clean,
            and load the next launch of the same app into it instead of starting a new office.
    """

    def __init__(
        self,
        home: Path,
        windows: WindowManager,
        env: dict[str, str],
        runtime_dir: Path,
        warm_spare: bool = False,
        grab_screen: Callable[[], Any] | None = None,
        reuse_office: bool = False,
    ) -> None:
        self._grab_screen = grab_screen
        self._home = Path(home)
        self._windows = windows
        self._env = env
        self._runtime_dir = Path(runtime_dir)
        self._apps: list[LaunchedApp] = []
        self._lock = threading.Lock()
        self._counter = 0
        self._warm = WarmOffice(env, self._home, self._new_launch_dir) if warm_spare else None
        self._keeper = None  # an office_keeper.OfficeKeeper with reuse_office
        if reuse_office:
            from .office_keeper import OfficeKeeper

            self._keeper = OfficeKeeper(windows.list_windows, env.get("DISPLAY"), self._forget_and_kill)
        if self._warm is not None:
            self._warm.ensure_started()

    def _new_launch_dir(self, app: str) -> Path:
        with self._lock:
            self._counter += 1
            launch_dir = self._runtime_dir / f"{self._counter:04d}-{app}-{uuid.uuid4().hex[:8]}"
        launch_dir.mkdir(parents=True)
        return launch_dir

    def launch(self, app: str, file: str | None = None, timeout: float = 30.0) -> LaunchedApp:
        """Start ``app`` (opening ``file`` if given) and wait until it is usable.

        LibreOffice apps are usable once their window is mapped, UNO answers on their pipe, the
        document is in the accessibility tree and the window shows the repaint asked for then;
        the terminal once its shell is ready, the editor once its frame is in the accessibility
        tree; each once its window is drawn and the screen is quiet (see ``readiness``).

        Raises:
            ValueError: unknown app name.
            FileNotFoundError: ``file`` does not exist in the guest.
            AppLaunchError: the app exited while starting.
            TimeoutError: its window (or UNO) did not appear within ``timeout``.
        """
        spec = APP_SPECS.get(app)
        if spec is None or not spec.launchable:
            raise ValueError(f"unknown app {app!r} (known: {', '.join(launchable_apps())})")
        deadline = time.monotonic() + timeout
        source = resolve_path(file, self._home) if file else None
        if source is not None and not source.is_file():
            raise FileNotFoundError(f"cannot open {source} in {app}: no such file")
        existing = {window.window_id for window in self._windows.list_windows()}
        if source is not None and not spec.opens_files:
            raise ValueError(f"the {app} does not open files (exec a command instead)")
        parked = self._keeper.take(app) if self._keeper is not None else None
        if parked is not None:
            try:
                # A load into a reused office sometimes never returns (3 of ~60 resets under load); give up on
                # it early, while the cold start still has its own time.
                reuse_deadline = min(deadline, time.monotonic() + REUSED_LAUNCH_TIMEOUT_S)
                return self._launch(app, spec, source, reuse_deadline, existing, parked)
            except Exception as error:  # noqa: BLE001 - any doubt about the warm office means a cold start
                self._keeper.refused(parked, error)
                existing = {window.window_id for window in self._windows.list_windows()}
        return self._launch(app, spec, source, deadline, existing)

    def _launch(
        self,
        app: str,
        spec: AppSpec,
        source: Path | None,
        deadline: float,
        existing: set[int],
        parked: LaunchedApp | None = None,
    ) -> LaunchedApp:
        office = spec.launch == "libreoffice"
        phases = PhaseClock()
        spare = self._warm.take() if self._warm is not None and office and parked is None else None
        if parked is not None:
            launched = self._load_into_spare(app, source, _as_spare(parked), deadline)
            launched.extra["reuse"] = parked.extra["reuse"]
        elif spare is not None:
            launched = self._load_into_spare(app, source, spare, deadline)
        elif office:
            launched = self._start_libreoffice(app, source, self._new_launch_dir(app))
        elif spec.ready_marker:
            launched = self._start_shell_app(spec, self._new_launch_dir(app))
        else:
            launch_dir = self._new_launch_dir(app)
            if spec.launch_hook:
                argv = list(_hook(spec.launch_hook)(self._home, launch_dir, str(source) if source else None))
            else:
                argv = [*spec.command, *([str(source)] if source is not None else [])]
            proc = spawn(argv, self._env, cwd=self._home, log_path=launch_dir / "app.log")
            launched = LaunchedApp(app=app, proc=proc, launch_dir=launch_dir, file=str(source) if source else None)
        phases.done("start")
        with self._lock:
            self._apps.append(launched)
        window = self._wait_for_window(launched, existing, deadline)
        launched.window_id = window.window_id
        phases.done("window")
        accessible = None
        if parked is not None and self._keeper is not None:
            accessible = self._keeper.watch_accessible(window.title)  # waits beside the layout and quiet screen
        if not window.focused:
            # The window manager focuses new windows a moment after mapping them; input sent in
            # that moment would go to the previous window, so make the focus explicit and wait for it.
            self._windows.activate(window.window_id, timeout=max(0.1, min(2.0, deadline - time.monotonic())))
            phases.done("focus")
        if launched.pipe_name is not None and launched.uno is None:
            self._wait_for_uno(launched, deadline)
            phases.done("uno")
        if "ready_marker" in launched.extra:
            self._wait_for_marker(launched, launched.extra["ready_marker"], deadline)
            phases.done("shell")
        if spec.ready_hook:
            _hook(spec.ready_hook)(self._home, launched.launch_dir, deadline)
            phases.done("app_ready")
        if launched.uno is not None and launched.extra.get("warm"):  # loaded into a running office
            office_launch.finish_layout(
                launched.uno, timeout=max(0.5, min(office_launch.LAYOUT_TIMEOUT_S, deadline - time.monotonic()))
            )
            phases.done("layout")
        if self._grab_screen is not None:
            self._wait_ready(launched, spec, window, deadline, phases)
        if self._keeper is not None and launched.uno is not None:  # once laid out: the layout is part of the state
            self._keeper.check_or_record(launched, reused=parked is not None, deadline=deadline, accessible=accessible)
            phases.done("reuse_check")
        if launched.uno is not None and "state_watch" not in launched.extra:  # readiness attaches it otherwise
            launched.extra["state_watch"] = readiness.watch_office_states(launched.uno, deadline)
            phases.done("state_watch")
        if self._warm is not None and office:
            self._warm.ensure_started()  # the next episode's office starts while this one runs
        launched.extra["launch_seconds"] = phases.seconds
        log.info("launched %s in %s", app, phases.summary())
        return launched

    def _wait_ready(
        self, launched: LaunchedApp, spec: AppSpec, window: WindowInfo, deadline: float, phases: PhaseClock
    ) -> None:
        """Wait until the app is drawn and usable: its kind's semantic check, then a quiet screen (``readiness``)."""

        def describe() -> WindowInfo | None:
            return next((w for w in self._windows.list_windows() if w.window_id == window.window_id), None)

        assert self._grab_screen is not None
        context = readiness.ReadyContext(
            launched=launched,
            window=window,
            describe=describe,
            grab_screen=self._grab_screen,
            display_name=self._env.get("DISPLAY"),
            deadline=deadline,
            phases=phases,
        )
        readiness.wait_ready(readiness.readiness_kind(spec), context)

    def _forget_and_kill(self, launched: LaunchedApp) -> None:
        with self._lock:
            self._apps = [other for other in self._apps if other.proc is not launched.proc]
        launched.uno = None
        try:
            kill_group(launched.proc.pid, launched.proc, timeout=5.0)
        except TimeoutError as error:
            log.warning("could not kill the %s office: %s", launched.app, error)
        shutil.rmtree(launched.launch_dir / "profile", ignore_errors=True)
        if launched.file is not None:
            office_launch.remove_stale_lock(Path(launched.file))

    def _load_into_spare(self, app: str, source: Path | None, spare: Spare, deadline: float) -> LaunchedApp:
        office_launch.load_document(spare.uno, app, source, timeout=max(1.0, deadline - time.monotonic()))
        return LaunchedApp(
            app=app,
            proc=spare.proc,
            launch_dir=spare.launch_dir,
            file=str(source) if source else None,
            pipe_name=spare.pipe_name,
            uno=spare.uno,
            extra={"warm": True},
        )

    def close(self) -> None:
        """Kill launched apps, the parked office and the warm spare."""
        try:
            self.kill_all(park=False)
        finally:
            parked = self._keeper.release() if self._keeper is not None else None
            if parked is not None:
                self._forget_and_kill(parked)
            if self._warm is not None:
                self._warm.close()

    def _start_shell_app(self, spec: AppSpec, launch_dir: Path) -> LaunchedApp:
        """A terminal whose bash touches a marker file when it first reads input (``-e bash`` appended)."""
        marker = launch_dir / "shell-ready"
        rcfile = launch_dir / "bashrc"
        # PROMPT_COMMAND runs right before the first prompt is printed, i.e. when input is read.
        rcfile.write_text(
            f'[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\nPROMPT_COMMAND=\'touch {marker}; unset PROMPT_COMMAND\'\n'
        )
        argv = [*spec.command, "-e", "bash", "--rcfile", str(rcfile), "-i"]
        proc = spawn(argv, self._env, cwd=self._home, log_path=launch_dir / "app.log")
        return LaunchedApp(app=spec.key, proc=proc, launch_dir=launch_dir, extra={"ready_marker": marker})

    def _wait_for_marker(self, launched: LaunchedApp, marker: Path, deadline: float) -> None:
        def ready() -> bool:
            if marker.exists():
                return True
            if not launched.alive:
                raise AppLaunchError(f"{launched.app} exited before its shell was ready: {self._log_tail(launched)!r}")
            return False

        what = f"the {launched.app} shell to be ready ({marker} created)"
        poll_until(ready, deadline - time.monotonic(), what, interval=POLL_INTERVAL)

    def _start_libreoffice(self, app: str, source: Path | None, launch_dir: Path) -> LaunchedApp:
        try:
            from . import lo_profile
        except ImportError as exc:
            raise AppLaunchError(f"cannot launch {app}: LibreOffice profile support is missing ({exc})") from exc
        pipe_name = office_launch.new_pipe_name()
        profile_url = lo_profile.fresh_profile(launch_dir / "profile")
        argv = office_launch.soffice_argv(profile_url, pipe_name, office_launch.open_arguments(app, source))
        proc = spawn(argv, self._env, cwd=self._home, log_path=launch_dir / "app.log")
        return LaunchedApp(
            app=app, proc=proc, launch_dir=launch_dir, file=str(source) if source else None, pipe_name=pipe_name
        )

    def _log_tail(self, launched: LaunchedApp) -> str:
        try:
            return (launched.launch_dir / "app.log").read_text(errors="replace")[-500:].strip()
        except OSError:
            return ""

    def _wait_for_window(self, launched: LaunchedApp, existing: set[int], deadline: float) -> WindowInfo:
        wanted = APP_SPECS[launched.app].window_class
        pgid = launched.proc.pid

        def its_window() -> WindowInfo | None:
            for window in self._windows.list_windows():
                if wanted not in window.app:
                    continue
                if process_group(window.pid) == pgid or window.window_id not in existing:
                    return window
            if not launched.alive and not group_alive(pgid):
                raise AppLaunchError(
                    f"{launched.app} exited with code {launched.proc.returncode} before showing a window; "
                    f"log: {self._log_tail(launched)!r}"
                )
            return None

        what = f"the {launched.app} window (WM_CLASS containing {wanted!r})"
        return poll_until(its_window, deadline - time.monotonic(), what, interval=POLL_INTERVAL)

    def _wait_for_uno(self, launched: LaunchedApp, deadline: float) -> None:
        try:
            from . import uno_bridge
        except ImportError as exc:
            raise AppLaunchError(f"cannot connect to {launched.app}: UNO bridge is missing ({exc})") from exc
        launched.uno = uno_bridge.wait_for_uno(launched.pipe_name, max(0.1, deadline - time.monotonic()))

    def wait_idle(self, timeout: float = 10.0, work_off_events: bool = False) -> None:
        """Return once each live LibreOffice app's main thread is free.

        A UNO call on the document model takes LibreOffice's global (solar) mutex, which the main
        thread holds while it handles an event such as ctrl+s; so the call returns only after that.
        With ``work_off_events`` the main thread first handles every event pending for it, including
        those it posts while doing so (:func:`~.readiness.office_idle`). An office that has not done
        so within :data:`EVENTS_TIMEOUT` (on a loaded machine, or with work it keeps posting) is only
        required to have a free main thread, as without it: that is slower, not hung.

        Raises:
            TimeoutError: an app stayed busy for ``timeout`` (it is probably hung).
        """
        from . import uno_bridge

        with self._lock:
            connected = [launched for launched in self._apps if launched.uno is not None and launched.alive]
        for launched in connected:
            connection = launched.uno
            try:
                if work_off_events and connection.call(
                    readiness.office_idle, connection, EVENTS_TIMEOUT, timeout=timeout, what=f"{launched.app} events"
                ):
                    continue
                if work_off_events:  # starved of CPU, or working off events it keeps posting: not hung for that
                    log.info("%s did not work off its pending events in %.1fs", launched.app, EVENTS_TIMEOUT)
                connection.call(_touch_model, connection, timeout=timeout, what=f"{launched.app} idle check")
            except uno_bridge.UnoTimeoutError as exc:
                raise TimeoutError(f"{launched.app} stayed busy for {timeout:.1f}s (hung?)") from exc
            except Exception:  # noqa: BLE001 - the app died meanwhile; crash detection reports that, not us
                continue

    def wait_presented(self, timeout: float = 5.0, before_flush: Callable[[], None] | None = None) -> bool:
        """After an action: each live office paints what it has pending, and its window shows it.

        ``before_flush`` is called before each office is asked to repaint (``tree_ahead``).

        Returns:
            Whether every office's window showed the paint within ``timeout`` (see
            ``readiness.wait_office_presented``); always True with ``DESKTOP_GYM_READINESS=quiet``.
        """
        if readiness.quiet_only():
            return True
        with self._lock:
            offices = [launched for launched in self._apps if launched.uno is not None and launched.alive]
        shown = True
        for launched in offices:
            try:
                shown = (
                    readiness.wait_office_presented(launched, self._env.get("DISPLAY"), timeout, before_flush) and shown
                )
            except Exception as error:  # noqa: BLE001 - closed window, dead or hung app: crash detection says so
                log.info("no paint proof from %s: %s", launched.app, error)
                shown = False
        return shown

    def wait_frames(self, timeout: float = 2.0) -> bool:
        """After an action: each live app with a ``present_hook`` (Chromium's) has handled its queued input.

        Returns:
            Whether any app was waited on (what it draws next must land before the screen counts as
            settled); always False with ``DESKTOP_GYM_READINESS=quiet`` or ``DESKTOP_GYM_BROWSER_FRAMES=0``.
        """
        if readiness.quiet_only() or os.environ.get(FRAMES_VARIABLE, "1") == "0":
            return False
        with self._lock:
            hooked = [(launched, getattr(APP_SPECS.get(launched.app), "present_hook", "")) for launched in self._apps]
        waited = False
        for launched, hook in hooked:
            if not hook or not launched.alive:
                continue
            waited = True
            try:
                if not _hook(hook)(self._home, launched.launch_dir, timeout):
                    log.info("%s ran no frame within %.1fs", launched.app, timeout)
            except Exception as error:  # noqa: BLE001 - a closed window or dead app: crash detection says so
                log.info("no frame proof from %s: %s", launched.app, error)
        return waited

    def get(self, app: str) -> LaunchedApp:
        """Return the most recently launched, still running instance of ``app``.

        Raises:
            LookupError: no such app is running.
        """
        with self._lock:
            for launched in reversed(self._apps):
                if launched.app == app and launched.alive:
                    return launched
        raise LookupError(f"no running {app} app (launch it first)")

    def apps(self) -> list[AppInfo]:
        """Every app launched since the last ``kill_all``, with its alive flag."""
        with self._lock:
            return [launched.info() for launched in self._apps]

    def kill_all(self, timeout: float = 5.0, park: bool = True) -> None:
        """SIGKILL every launched app's process group and wait until each is gone.

        With ``reuse_office`` (and ``park``), an office proven clean is kept for the next launch.

        Raises:
            TimeoutError: some group still has processes after ``timeout``.
        """
        with self._lock:
            launched_apps, self._apps = self._apps, []
        parked = self._keeper.park(launched_apps) if self._keeper is not None and park else None
        if parked is not None:
            launched_apps = [launched for launched in launched_apps if launched is not parked]
        failures = []
        for launched in launched_apps:
            # Drop the UNO connection without a remote call: the app may be hung, that is why we kill it.
            launched.uno = None
            try:
                kill_group(launched.proc.pid, launched.proc, timeout=timeout)
            except TimeoutError as exc:
                failures.append(str(exc))
            shutil.rmtree(launched.launch_dir / "profile", ignore_errors=True)
            if launched.file is not None and launched.pipe_name is not None:
                office_launch.remove_stale_lock(Path(launched.file))
        if failures:
            raise TimeoutError("; ".join(failures))
