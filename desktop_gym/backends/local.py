"""The embedded default backend: a desktop made of local processes.

One session = ``Xvfb`` + ``openbox`` + a private ``dbus-daemon`` + the guest agent, kept alive
across episodes. Every process of the session carries ``DESKTOP_GYM_SESSION=<id>`` in its
environment, and so does everything they spawn (dbus-activated at-spi daemons, soffice.bin, ...),
so ``close`` can find and kill all of it, not only the processes it started itself.
"""

from __future__ import annotations

import logging
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from ..polling import poll_until
from . import guest_fork
from . import reaper as session_reaper
from . import session_user as session_users
from .base import Backend, BackendError, DesktopHandle
from .xauth import connect_display, new_cookie, write_xauthority

SESSION_ENV_MARKER = "DESKTOP_GYM_SESSION"
POLL_INTERVAL = 0.01
#: Off until it measures faster here (bench_local.py's reuse rows); DESKTOP_GYM_REUSE_OFFICE=1 turns it on.
REUSE_OFFICE_DEFAULT = os.environ.get("DESKTOP_GYM_REUSE_OFFICE", "") == "1"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: glibc malloc settings for every session process (a caller's own values win): two arenas, not
#: 8 per core, cut the many-threaded guest agent by ~4 MiB (USS, ``bench/bench_memory.py --compare
#: before-malloc-settings``); soffice and Xvfb did not measurably change.
SESSION_MALLOC_ENV = {"MALLOC_ARENA_MAX": "2"}
#: Xvfb's own malloc setting (a caller's own value wins): a fixed mmap threshold keeps each pixmap of
#: 256 KiB or more in its own mapping, returned when the client frees it. glibc's moving threshold
#: put them in the heap after the first free, where a closed office's pixmaps stayed resident
#: (``bench/bench_memory.py --compare xvfb-moving-mmap-threshold``).
XVFB_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": "262144"}
logger = logging.getLogger(__name__)
# Variables of the caller's own desktop that must not leak into ours.
HOST_SESSION_VARIABLES = (
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "DBUS_SESSION_BUS_ADDRESS",
    "XDG_RUNTIME_DIR",
    "XDG_SESSION_ID",
    "NO_AT_BRIDGE",
    "AT_SPI_BUS_ADDRESS",
)


def _read_line(fd: int, deadline: float, what: str) -> str:
    """Read one line from ``fd`` before ``deadline`` (the readiness signal of Xvfb and dbus)."""
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"timed out waiting for {what}")
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            raise BackendError(f"{what}: the process closed its output without writing it")
        data += chunk
    return data.decode().strip()


processes_with_marker = session_reaper.session_pids


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and is neither a zombie nor dead (state Z or X in /proc/<pid>/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


class LocalBackend(Backend):
    """A desktop session made of local processes.

    Args:
        width: Screen width in pixels.
        height: Screen height in pixels.
        workdir: Folder for the session (home/, the guest socket, logs/). ``None`` = a fresh temporary
            folder, removed at ``close``.
        startup_timeout: Seconds allowed for each component to become ready.
        python: Interpreter for the guest agent (default: this one).
        warm_spare: Keep a LibreOffice running in the background so a reset only loads the task's
            document (~0.2 s instead of ~0.7 s), at the cost of one more office in memory.
        session_user: Run the session's apps (and dbus, openbox, the guest) as an unprivileged user
            of its own (see :mod:`.session_user`). ``None`` = whenever possible (running as root);
            ``True`` = required (an error otherwise); ``False`` = as the caller's user.
        reuse_office: At reset, keep the episode's LibreOffice if the guest proves it clean (no
            documents, dialogs, changed settings or layout, clipboard) and load the next task's file
            of the same app into it; anything else gets a fresh office (see ``guest.apps.office_reuse``).
        fork_guest: Fork the guest agent from a process that has imported it once (one per host
            process, see :mod:`.guest_fork`), so desktops share its ~50 MiB of imports; ``False`` starts
            each guest as a process of its own. ``None`` = fork unless ``DESKTOP_GYM_FORK_GUEST=0`` when
            the session starts.
    """

    name = "local"

    def __init__(
        self,
        width: int = 1280,
        height: int = 720,
        workdir: str | Path | None = None,
        startup_timeout: float = 30.0,
        python: str = sys.executable,
        warm_spare: bool = False,
        session_user: bool | None = None,
        reuse_office: bool = REUSE_OFFICE_DEFAULT,
        fork_guest: bool | None = None,
    ) -> None:
        if session_user and not session_users.can_isolate():
            raise BackendError("session_user=True needs root and useradd (run as root, or pass session_user=None)")
        closed = session_users.unreachable_guest_code(PACKAGE_ROOT) if session_user is not False else None
        if session_user and closed is not None:
            raise BackendError(
                f"session_user=True, but a session user cannot read {closed} (a folder above it is private): "
                "move the checkout or venv somewhere others can read, or pass session_user=None"
            )
        if session_user is None and closed is not None and session_users.can_isolate():
            logger.warning("desktops run as this user: a session user could not read %s", closed)
        self._isolate = session_users.can_isolate() and closed is None if session_user is None else session_user
        self.user: session_users.SessionUser | None = None  # the claimed session user, while running
        self.warm_spare = warm_spare
        self.reuse_office = reuse_office
        self.fork_guest = fork_guest
        self.width = width
        self.height = height
        self.startup_timeout = startup_timeout
        self.python = python
        self.guest_python = python  # the interpreter the guest runs (set at start; see session_python)
        self._requested_workdir = Path(workdir) if workdir is not None else None
        self._procs: dict[str, subprocess.Popen | guest_fork.ForkedProcess] = {}
        self._dbus_stdout: int | None = None
        self._reaper: subprocess.Popen | None = None
        self._reaper_fd: int | None = None  # write end of the reaper's pipe: only this process holds it
        self._handle: DesktopHandle | None = None
        self.session_id: str | None = None
        self.workdir: Path | None = None
        self.display: str | None = None
        self.xauthority: Path | None = None  # the session's X cookie file (XAUTHORITY)

    # -- lifecycle -----------------------------------------------------------------------------

    def _start(self) -> DesktopHandle:
        """Start Xvfb, dbus, openbox and the guest agent of a fresh session.

        Raises:
            BackendError: a component failed to start (its log tail is in the message).
            TimeoutError: a component did not become ready within ``startup_timeout``.
        """
        self.session_id = uuid.uuid4().hex
        # Sessions whose owner died (and whose reaper died too) are swept before a new one starts.
        if self._requested_workdir is not None:
            session_reaper.clean_stale_sessions(self._requested_workdir, "session-")
        else:
            session_reaper.clean_stale_sessions(Path(tempfile.gettempdir()))
        if self._requested_workdir is not None:
            self.workdir = self._requested_workdir / f"session-{self.session_id[:8]}"
            self.workdir.mkdir(parents=True)
        else:
            self.workdir = Path(tempfile.mkdtemp(prefix="desktop-gym-"))
        home, logs, runtime = self.workdir / "home", self.workdir / "logs", self.workdir / "run"
        tmp = self.workdir / "tmp"  # TMPDIR: LibreOffice's lu*.tmp folders go here, removed with the session
        guest_state = self.workdir / "guest-state"
        for folder in (home, logs, runtime, tmp, guest_state):
            folder.mkdir(mode=0o700)
        env = {k: v for k, v in os.environ.items() if k not in HOST_SESSION_VARIABLES}
        user_cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        env.setdefault("DESKTOP_GYM_CACHE", str(Path(user_cache) / "desktop-gym"))
        if self._isolate:
            self.user = session_users.claim_session_user()
            session_users.confine_workdir(self.workdir, self.user, (home, runtime, tmp, guest_state))
            env["DESKTOP_GYM_CACHE"] = str(session_users.shared_profile_cache())
        env.update(
            {
                SESSION_ENV_MARKER: self.session_id,
                "HOME": str(home),
                "XDG_RUNTIME_DIR": str(runtime),
                "TMPDIR": str(tmp),
                "SAL_USE_VCLPLUGIN": "gtk3",
                "ACCESSIBILITY_ENABLED": "1",
            }
        )
        env.setdefault("LANG", "C.UTF-8")
        for name, value in SESSION_MALLOC_ENV.items():
            env.setdefault(name, value)
        deadline = lambda: time.monotonic() + self.startup_timeout  # noqa: E731

        self.display = self._start_xvfb(env, logs, deadline())
        env["XAUTHORITY"] = str(self._session_xauthority(runtime))
        session_reaper.write_owner_file(self.workdir, self.session_id, self.display)
        self._start_reaper()
        env["DISPLAY"] = self.display
        env["DBUS_SESSION_BUS_ADDRESS"] = self._start_dbus(env, logs, deadline())
        self._spawn("openbox", self._as_session_user(["openbox", "--sm-disable"]), env, logs)
        self._wait_for_window_manager(deadline())

        token = secrets.token_hex(16)
        token_file = self.workdir / "token"
        token_file.touch(mode=0o600)
        token_file.write_text(token)
        socket_path = self.workdir / "guest.sock"
        guest_env = dict(env)
        guest_python, packages = session_users.session_python(self.python) if self.user else (self.python, [])
        self.guest_python = guest_python  # what the session user can run (its children inherit the path)
        guest_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), *packages, env.get("PYTHONPATH")]))
        self._spawn_guest(
            [
                "--socket",
                str(socket_path),
                "--home",
                str(home),
                "--token-file",
                str(token_file),
                "--state-dir",
                str(guest_state),
                *(["--warm-spare"] if self.warm_spare else []),
                *(["--reuse-office"] if self.reuse_office else []),
                *(["--user", self.user.name] if self.user is not None else []),
            ],
            guest_env,
            logs,
        )
        address = f"unix://{socket_path}"
        self.wait_for_guest(address, token, self.startup_timeout, self._guest_exit_reason)
        return self._new_handle(
            address,
            token,
            {
                "display": self.display,
                "session": self.session_id,
                "workdir": str(self.workdir),
                "home": str(home),
                "xauthority": env["XAUTHORITY"],  # the session's cookie file (a copy it owns, with a session user)
                "user": self.user.name if self.user is not None else None,
                "pids": {name: proc.pid for name, proc in self._procs.items()},
            },
            alive_check=self.is_alive,
        )

    def _spawn_guest(self, argv: list[str], env: dict[str, str], logs: Path) -> None:
        """Start the guest agent: forked from this process's zygote, or as a process of its own."""
        if not (guest_fork.fork_by_default() if self.fork_guest is None else self.fork_guest):
            self._spawn("guest", [self.guest_python, "-m", "desktop_gym.guest", *argv], env, logs)
            return
        with open(logs / "guest.log", "ab") as log:
            guest = guest_fork.spawn_guest(self.guest_python, argv, env, log.fileno())
        self._procs["guest"] = guest
        assert self.workdir is not None
        session_reaper.write_forked_record(self.workdir, guest.pid)

    def _spawn(self, name: str, argv: list[str], env: dict[str, str], logs: Path, **kwargs) -> subprocess.Popen:
        with open(logs / f"{name}.log", "ab") as log:
            kwargs.setdefault("stdout", log)
            proc = subprocess.Popen(
                argv, env=env, stdin=subprocess.DEVNULL, stderr=log, start_new_session=True, **kwargs
            )
        self._procs[name] = proc
        return proc

    def _as_session_user(self, argv: list[str]) -> list[str]:
        """``argv`` run as the session user (unchanged without one), through ``setpriv``.

        Not ``Popen(user=...)``: that makes CPython fork the whole process instead of vfork, and
        started from one of the env server's gRPC threads the forked child died of SIGSEGV before
        it could exec (openbox and dbus-daemon "exited with code -11").
        """
        if self.user is None:
            return argv
        return ["setpriv", f"--reuid={self.user.uid}", f"--regid={self.user.gid}", "--clear-groups", "--", *argv]

    def _session_xauthority(self, runtime: Path) -> Path:
        """The X cookie file the session's processes use: Xvfb's own, or a copy the session user owns."""
        assert self.xauthority is not None
        if self.user is None:
            return self.xauthority
        copy = runtime / "Xauthority"
        shutil.copyfile(self.xauthority, copy)
        os.chmod(copy, 0o600)
        self.user.chown(copy)
        return copy

    def _log_tail(self, name: str) -> str:
        assert self.workdir is not None
        try:
            return (self.workdir / "logs" / f"{name}.log").read_text(errors="replace")[-600:].strip()
        except OSError:
            return ""

    def _start_xvfb(self, env: dict[str, str], logs: Path, deadline: float) -> str:
        assert self.workdir is not None
        # Only holders of this cookie (the session's processes, through XAUTHORITY) may connect.
        cookie, self.xauthority = new_cookie(), self.workdir / "Xauthority"
        write_xauthority(self.xauthority, cookie)
        read_fd, write_fd = os.pipe()
        try:
            self._spawn(
                "xvfb",
                [
                    "Xvfb",
                    "-auth",
                    str(self.xauthority),
                    "-displayfd",
                    str(write_fd),
                    "-screen",
                    "0",
                    f"{self.width}x{self.height}x24",
                    "-nolisten",
                    "tcp",
                    # GLX would load Mesa into the X server (~40 MiB per desktop); no app here needs it.
                    "-extension",
                    "GLX",
                ],
                {**XVFB_MALLOC_ENV, **env},
                logs,
                pass_fds=(write_fd,),
            )
            os.close(write_fd)
            write_fd = -1
            try:
                number = _read_line(read_fd, deadline, "Xvfb to report its display number")
            except BackendError as exc:
                raise BackendError(f"{exc}; Xvfb log: {self._log_tail('xvfb')!r}") from None
        finally:
            os.close(read_fd)
            if write_fd >= 0:
                os.close(write_fd)
        write_xauthority(self.xauthority, cookie, number)
        return f":{number}"

    def _start_dbus(self, env: dict[str, str], logs: Path, deadline: float) -> str:
        proc = self._spawn(
            "dbus",
            # The bus socket lives in the session's run/ folder (not /tmp/dbus-*), removed with it.
            self._as_session_user(
                [
                    "dbus-daemon",
                    "--session",
                    "--nofork",
                    "--print-address",
                    f"--address=unix:path={env['XDG_RUNTIME_DIR']}/bus",
                ]
            ),
            env,
            logs,
            stdout=subprocess.PIPE,
        )
        assert proc.stdout is not None
        self._dbus_stdout = proc.stdout.fileno()
        try:
            return _read_line(self._dbus_stdout, deadline, "dbus-daemon to print its address")
        except BackendError as exc:
            raise BackendError(f"{exc}; dbus log: {self._log_tail('dbus')!r}") from None

    def _start_reaper(self) -> None:
        """Start the process that kills this session if this one dies without closing it."""
        assert self.workdir is not None and self.session_id is not None
        read_fd, self._reaper_fd = os.pipe()
        env = {k: v for k, v in os.environ.items() if k != SESSION_ENV_MARKER}
        env[session_reaper.REAPER_SESSION_VARIABLE] = self.session_id  # not in argv: others may read that
        argv = [self.python, session_reaper.__file__, "--fd", str(read_fd)]
        argv += ["--workdir", str(self.workdir), "--display", self.display or ""]
        if self._requested_workdir is None:
            argv.append("--remove-workdir")
        keep_fds = [read_fd]
        if self.user is not None:  # the reaper holds the user's claim too: released once it has reaped
            argv += ["--uid", str(self.user.uid)]
            keep_fds.append(self.user.lock_fd)
        try:
            self._reaper = subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # holding the owner's pipes would keep its caller waiting
                stderr=subprocess.DEVNULL,
                pass_fds=tuple(keep_fds),
                start_new_session=True,
            )
        finally:
            os.close(read_fd)

    def _stop_reaper(self) -> None:
        if self._reaper_fd is not None:
            session_reaper.notify_closed(self._reaper_fd)
            self._reaper_fd = None
        if self._reaper is not None:
            try:
                self._reaper.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                self._reaper.kill()
            self._reaper = None

    def _wait_for_window_manager(self, deadline: float) -> None:
        from Xlib import X

        assert self.display is not None
        connection = connect_display(self.display, self.xauthority)
        try:
            root = connection.screen().root
            check = connection.intern_atom("_NET_SUPPORTING_WM_CHECK")

            def managing() -> bool:
                if root.get_full_property(check, X.AnyPropertyType) is not None:
                    return True
                if self._procs["openbox"].poll() is not None:
                    raise BackendError(
                        f"openbox exited with code {self._procs['openbox'].returncode}; "
                        f"log: {self._log_tail('openbox')!r}"
                    )
                return False

            what = f"openbox to set _NET_SUPPORTING_WM_CHECK on {self.display}"
            poll_until(managing, deadline - time.monotonic(), what, interval=POLL_INTERVAL)
        finally:
            connection.close()

    def _guest_exit_reason(self) -> str | None:
        guest = self._procs["guest"]
        if guest.poll() is None:
            return None
        return f"the guest agent exited with code {guest.returncode}; log: {self._log_tail('guest')!r}"

    def logs(self) -> str:
        """The tail of the guest agent's log."""
        return self._log_tail("guest") if self.workdir is not None else ""

    # -- health --------------------------------------------------------------------------------

    def check_health(self) -> dict[str, bool]:
        """Whether each session process is running: ``{"xvfb", "dbus", "openbox", "guest"}``."""
        return {name: proc.poll() is None for name, proc in self._procs.items()}

    def is_alive(self) -> bool:
        """Whether the X server and the guest agent are running."""
        health = self.check_health()
        return health.get("xvfb", False) and health.get("guest", False)

    # -- teardown ------------------------------------------------------------------------------

    def _close(self, timeout: float) -> None:
        """Kill every process of the session (and whatever they spawned) and remove a temporary workdir.

        Raises:
            BackendError: processes carrying the session marker survived ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        seen = set(processes_with_marker(self.session_id)) if self.session_id is not None else set()
        guest = self._procs.get("guest")
        if guest is not None and guest.poll() is None:  # strays the guest adopted, before it dies
            seen.update(session_reaper.kill_until_gone(lambda: session_reaper.descendant_pids(guest.pid), timeout))
        for name in ("guest", "openbox", "dbus"):
            proc = self._procs.get(name)
            if proc is not None:
                self._kill_group(proc, signal.SIGKILL)
        xvfb = self._procs.get("xvfb")
        if xvfb is not None:  # TERM lets Xvfb remove its lock file and socket
            self._kill_group(xvfb, signal.SIGTERM)
            try:
                xvfb.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                self._kill_group(xvfb, signal.SIGKILL)
        survivors: list[int] = []
        if self.session_id is not None:
            while survivors := processes_with_marker(self.session_id):
                seen.update(survivors)
                for pid in survivors:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                for proc in self._procs.values():
                    proc.poll()  # reap our own children so they do not linger as zombies
                if time.monotonic() > deadline:
                    break
                time.sleep(POLL_INTERVAL)
        # A dying process loses its environment (so the sweep no longer sees the marker) before it
        # is gone: wait until every process we saw has exited for real (or is a zombie left to init).
        while any(_running(pid) for pid in seen) and time.monotonic() < deadline:
            time.sleep(POLL_INTERVAL)
        if self.user is not None:  # also what dropped the marker (env -i setsid ...)
            seen.update(session_reaper.kill_user(self.user.uid, max(0.1, deadline - time.monotonic())))
        survivors += [pid for pid in seen if _running(pid)]
        for proc in self._procs.values():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                survivors.append(proc.pid)
            if proc.stdout is not None:
                proc.stdout.close()
        self._procs.clear()
        session_reaper.remove_x_display_files(self.display)
        session_reaper.remove_stale_office_pipes()
        if self.workdir is not None and self._requested_workdir is None:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self._stop_reaper()
        if self.user is not None:
            self.user.release()
            self.user = None
        if survivors:
            raise BackendError(f"session {self.session_id} processes {sorted(set(survivors))} survived SIGKILL")

    @staticmethod
    def _kill_group(leader: subprocess.Popen, signum: int) -> bool:
        """Signal the process group ``leader`` leads; whether it was signalled.

        A leader already reaped (a health check's ``poll``) has freed its pid, and with pid_max at
        32768 the kernel hands it out again: the group id may now name another session's process
        group (CI lost a load-harness process that way). Its group's survivors carry the session
        marker, and the sweep after this kills them by pid.
        """
        if leader.poll() is not None:
            return False
        try:
            os.killpg(leader.pid, signum)
        except ProcessLookupError:
            return False
        return True
