"""The guest agent's gRPC server: one per desktop session, on a unix socket."""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path

import grpc

from desktop_gym.apps.spec import launchable_apps

from .. import errors
from ..polling import poll_until
from . import confine, files, processes
from .apps import registry
from .apps.launcher import AppLauncher, AppLaunchError
from .apps.tool_schema import ApiCallError
from .auth import TokenInterceptor
from .input import InputController
from .protos import guest_pb2 as pb
from .protos import guest_pb2_grpc as pb_grpc
from .screen import ScreenCapture
from .shared_frame import SHM_DIR, SharedFrame
from .tree_ahead import TreeAhead
from .windows import WindowManager, WindowNotFoundError

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
GRPC_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
]

# Guest-side exception type -> the typed error the client rebuilds; first match wins (order
# matters for subclasses). The gRPC status code follows from the error class (errors.status_for).
ERROR_CODES: list[tuple[type[BaseException], type[errors.GuestError]]] = [
    (FileNotFoundError, errors.GuestFileNotFoundError),
    (WindowNotFoundError, errors.GuestNotFoundError),
    (LookupError, errors.GuestNotFoundError),
    (ValueError, errors.GuestInvalidArgumentError),
    (IsADirectoryError, errors.GuestInvalidArgumentError),
    (PermissionError, errors.GuestPermissionError),
    (NotImplementedError, errors.GuestUnsupportedError),
    # A guest-side wait that ran out is not the client's deadline: ABORTED keeps them apart.
    (TimeoutError, errors.GuestTimeoutError),
    (AppLaunchError, errors.AppLaunchFailedError),
    # The app refused a well-formed API call (a UNO exception): the agent reads the message.
    (ApiCallError, errors.ApiCallFailedError),
]


def _error_class_for(exc: BaseException) -> type[errors.DesktopGymError] | None:
    if isinstance(exc, errors.GuestError):
        return type(exc)
    for kind, error_class in ERROR_CODES:
        if isinstance(exc, kind):
            return error_class
    return None


def _rpc(method: Callable) -> Callable:
    """Turn exceptions raised by a servicer method into gRPC statuses the client maps back to types.

    The status code carries the error's family, trailing metadata its exact ``code``
    (:func:`desktop_gym.errors.from_code` rebuilds it).
    """

    @functools.wraps(method)
    def wrapper(self, request, context):
        try:
            return method(self, request, context)
        except Exception as exc:  # noqa: BLE001 - every failure must reach the client as a status
            error_class = _error_class_for(exc)
            message = str(exc) or type(exc).__name__
            if error_class is None:
                log.exception("%s failed", method.__name__)
                status, message = "INTERNAL", f"{type(exc).__name__}: {message}"
                code = errors.GuestError.code
            else:
                status, code = errors.status_for(error_class), error_class.code
            context.set_trailing_metadata(((errors.ERROR_CODE_METADATA_KEY, code),))
            context.abort(grpc.StatusCode[status], f"{method.__name__}: {message}")

    return wrapper


def _optional(message, name: str) -> int | None:
    return getattr(message, name) if message.HasField(name) else None


class _NoDisplay:
    """Stands in for the screen, input and windows of a guest without an X display."""

    size = (0, 0)

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Callable:
        def unavailable(*_args, **_kwargs):
            raise NotImplementedError(f"this guest has no X display ({name} needs one)")

        return unavailable


INPUT_IDLE_TIMEOUT = 10.0  # seconds an app may take to handle one input action
#: "mutex": after input, wait only for each office's main thread to be free, not for its pending events
#: to be worked off (the check before 2026-12-07; the baseline tests and benchmarks compare).
INPUT_WAIT_VARIABLE = "DESKTOP_GYM_INPUT_WAIT"
PRESENT_TIMEOUT = 5.0  # seconds an office's window may take to show the paint a settle asks for
FRAMES_TIMEOUT = 2.0  # seconds a browser page may take to run the frames a settle waits for
EMPTY_TREE_RETRY_S = 0.05  # pause before reading again a tree that came back empty while an office runs
FIRST_PAINT_GRACE = 0.15  # seconds after input a settle waits for the first repaint (LibreOffice: 25-140 ms)


class GuestServicer(pb_grpc.GuestServicer):
    """Implements the Guest service against the X display this process runs in.

    Args:
        home: The session home (``~``) used by files, exec and apps.
        state_dir: The guest's own files (per-launch app folders), outside the home.
        display_name: X display; ``None`` uses ``$DISPLAY``.
    """

    def __init__(
        self,
        home: Path,
        state_dir: Path,
        display_name: str | None = None,
        warm_spare: bool = False,
        reuse_office: bool = False,
    ) -> None:
        self.home = Path(home).resolve()
        self.display_name = display_name or os.environ.get("DISPLAY", "")
        self._input_events = os.environ.get(INPUT_WAIT_VARIABLE, "") != "mutex"
        self.env = processes.session_env(self.home)
        if self.display_name:
            self.screen = ScreenCapture(self.display_name)
            self.input = InputController(self.display_name)
            self.windows = WindowManager(self.display_name)
        else:  # a headless guest (the small QEMU VM): ping, exec, files and app-less API tools only
            self.screen = self.input = self.windows = _NoDisplay()
        self._paint_due = 0.0  # until then (monotonic) a settle waits for the repaint of the latest input
        self._frames: dict[str, SharedFrame] = {}
        self._frames_lock = threading.Lock()
        self.launcher = AppLauncher(
            self.home,
            self.windows,
            self.env,
            Path(state_dir) / "launches",
            warm_spare=warm_spare,
            grab_screen=self.screen.grab,
            reuse_office=reuse_office,
        )

    def _shared_frame(self, path: str) -> SharedFrame:
        with self._frames_lock:
            frame = self._frames.get(path)
            if frame is None:
                if not path.startswith(str(SHM_DIR) + "/") or "/" in path[len(str(SHM_DIR)) + 1 :]:
                    raise ValueError(f"shared frames must be files directly in {SHM_DIR}, got {path!r}")
                width, height = self.screen.size
                frame = self._frames[path] = SharedFrame(Path(path), width, height)
            return frame

    def close(self) -> None:
        """Kill launched apps (and strays) and release X connections."""
        try:
            self.launcher.close()
            confine.kill_strays()
        finally:
            self.input.close()
            self.windows.close()
            self.screen.close()

    @_rpc
    def Ping(self, request, context):
        width, height = self.screen.size
        return pb.PingReply(display=self.display_name, width=width, height=height, pid=os.getpid(), home=str(self.home))

    @_rpc
    def Screenshot(self, request, context):
        if request.shm_path and (request.format or "raw") == "raw":
            frame = self._shared_frame(request.shm_path)
            with frame.lock:
                self.screen.refresh(frame.array, key=request.shm_path)
            return pb.ScreenshotReply(width=frame.width, height=frame.height, format="shm")
        data, width, height = self.screen.encode(request.format or "raw", request.quality or 80)
        return pb.ScreenshotReply(data=data, width=width, height=height, format=request.format or "raw")

    @_rpc
    def Input(self, request, context):
        kind = request.WhichOneof("action")
        if kind is None:
            raise ValueError("input request carries no action")
        action = getattr(request, kind)
        control = self.input
        self.screen.mark_input()
        if kind == "move":
            control.move(action.x, action.y)
        elif kind == "click":
            control.click(_optional(action, "x"), _optional(action, "y"), action.button or "left", action.count or 1)
        elif kind in ("mouse_down", "mouse_up"):
            getattr(control, kind)(_optional(action, "x"), _optional(action, "y"), action.button or "left")
        elif kind == "drag":
            control.drag(action.x1, action.y1, action.x2, action.y2, action.button or "left")
        elif kind == "scroll":
            control.scroll(_optional(action, "x"), _optional(action, "y"), action.dx, action.dy)
        elif kind in ("key_down", "key_up"):
            getattr(control, kind)(action.key)
        elif kind == "press":
            control.press(action.key, action.presses or 1)
        elif kind == "hotkey":
            control.hotkey(list(action.keys))
        elif kind == "type_text":
            control.type_text(action.text)
        # Input counts as delivered once the apps have handled it: LibreOffice runs some key
        # commands asynchronously, and a second key sent before the first is handled can be lost
        # (measured: ctrl+Home, Right, Down sent back to back left the cursor one cell short). A free
        # main thread is not enough: Calc moves the focus (Name Box, back to the grid) through events
        # it posts to itself, so each office also works off its pending events (with 8 busy processes
        # on 2 cores, 3-10 of 20 steps chaining ctrl+shift+T, a cell and a value left a wrong cell).
        self.launcher.wait_idle(timeout=INPUT_IDLE_TIMEOUT, work_off_events=self._input_events)
        self._paint_due = time.monotonic() + FIRST_PAINT_GRACE
        return pb.InputReply()

    @_rpc
    def A11yTree(self, request, context):
        return pb.A11yTreeReply(text=self._read_tree(request))

    def _read_tree(self, request: pb.A11yTreeRequest, stop: threading.Event | None = None) -> str:
        """The tree's text for an ``A11yTreeRequest`` ("" when it stayed empty while an office runs)."""
        try:
            from . import a11y
        except ImportError as exc:
            raise NotImplementedError(f"accessibility support is not available ({exc})") from exc
        from .a11y_grid import uno_grid_contents

        timeout = request.timeout or 5.0
        deadline = time.monotonic() + timeout

        def read() -> tuple[str] | None:
            text = a11y.linearize_tree(
                visible_only=request.visible_only,
                max_nodes=request.max_nodes or None,
                timeout=max(min(0.1, timeout), deadline - time.monotonic()),  # a read again still gets a budget
                grid_contents=uno_grid_contents(self._office_connections),
                stop=stop,
            )
            # A running office is always on the accessibility bus: an empty read is a wrong one (the
            # registry did not answer in time under load), never the desktop's tree. Read it again.
            if text or not self._office_connections():
                return (text,)
            log.warning("the accessibility tree read empty while an office runs; reading it again")
            return None

        try:
            (text,) = poll_until(read, timeout, "a non-empty accessibility tree", interval=EMPTY_TREE_RETRY_S)
        except errors.WaitTimeoutError:
            text = ""
        return text

    def _office_connections(self) -> list:
        """The UNO connections of the running LibreOffice apps (one per office process)."""
        found: list = []
        for app in {info.app for info in self.launcher.apps() if info.alive}:
            try:
                connection = self.launcher.get(app).uno
            except LookupError:  # it exited meanwhile
                continue
            if connection is not None and connection not in found:
                found.append(connection)
        return found

    @_rpc
    def ListWindows(self, request, context):
        return pb.ListWindowsReply(
            windows=[
                pb.Window(
                    window_id=w.window_id,
                    title=w.title,
                    app=w.app,
                    pid=w.pid or 0,
                    x=w.x,
                    y=w.y,
                    width=w.width,
                    height=w.height,
                    focused=w.focused,
                )
                for w in self.windows.list_windows()
            ]
        )

    @_rpc
    def ActivateWindow(self, request, context):
        self.windows.activate(request.window_id)
        return pb.WindowReply()

    @_rpc
    def CloseWindow(self, request, context):
        self.windows.close_window(request.window_id)
        return pb.WindowReply()

    @_rpc
    def Exec(self, request, context):
        command = request.shell_command if request.shell else list(request.argv)
        cwd = str(files.resolve_path(request.cwd, self.home)) if request.cwd else None
        result = processes.run_command(command, self.env, timeout=request.timeout or 30.0, shell=request.shell, cwd=cwd)
        return pb.ExecReply(
            returncode=result.returncode,
            stdout=result.stdout,
            stderr=result.stderr,
            timed_out=result.timed_out,
        )

    @_rpc
    def PutFile(self, request, context):
        path = files.put_file(request.path, request.data, self.home, request.mode or 0o644)
        return pb.PutFileReply(path=path)

    @_rpc
    def GetFile(self, request, context):
        return pb.GetFileReply(data=files.get_file(request.path, self.home))

    @staticmethod
    def _app_message(info) -> pb.AppInfo:
        return pb.AppInfo(
            app=info.app, pid=info.pid, alive=info.alive, window_id=info.window_id or 0, file=info.file or ""
        )

    @_rpc
    def LaunchApp(self, request, context):
        launched = self.launcher.launch(request.app, request.file or None, request.timeout or 30.0)
        return self._app_message(launched.info())

    @_rpc
    def ListApps(self, request, context):
        return pb.ListAppsReply(apps=[self._app_message(info) for info in self.launcher.apps()])

    @_rpc
    def WaitAppsIdle(self, request, context):
        started = time.perf_counter()
        self.launcher.wait_idle(timeout=request.timeout or 10.0)
        return pb.WaitAppsIdleReply(waited_seconds=time.perf_counter() - started)

    @_rpc
    def WaitSettled(self, request, context):
        started = time.perf_counter()
        quiet, timeout = request.quiet or 0.06, request.timeout or 1.0
        ahead = self._tree_ahead(request.tree) if request.HasField("tree") else None
        on_look = ahead.on_look if ahead is not None else None
        try:
            settled = self.screen.wait_quiet(quiet, timeout, self._paint_due, on_look)
            idle_started = time.perf_counter()
            self.launcher.wait_idle(timeout=request.busy_timeout or 10.0)
            busy = time.perf_counter() - idle_started > 0.02
            # An office that had no CPU yet also looks quiet: it must paint what it has pending, and show it.
            before_flush = ahead.checkpoint if ahead is not None else None
            presented = self.launcher.wait_presented(timeout=max(timeout, PRESENT_TIMEOUT), before_flush=before_flush)
            if ahead is not None:
                ahead.rebase()  # the repaint asked for above changed nothing
            # A browser page handles input in a renderer of its own: it must have run its frames (and draws after).
            framed = self.launcher.wait_frames(timeout=FRAMES_TIMEOUT)
            if busy or not presented or framed:  # an app was busy (or showed no paint): what it draws now must land
                settled = self.screen.wait_quiet(quiet, timeout, on_look=on_look)
        except BaseException:
            if ahead is not None:
                ahead.cancel()  # a hung app: the walk must not hold the tree for the next read
            raise
        text = ahead.finish(request.tree.timeout or 5.0) if ahead is not None else None
        return pb.WaitSettledReply(
            settled=settled,
            waited_seconds=time.perf_counter() - started,
            tree_text=text or "",
            tree_ahead=text is not None,
        )

    def _tree_ahead(self, request: pb.A11yTreeRequest) -> TreeAhead | None:
        """A walk of the tree during the settle (``tree_ahead``); None where draws cannot be counted."""
        draws = self.screen.draws
        if draws is None:
            return None
        return TreeAhead(lambda stop: self._read_tree(request, stop), draws)

    @_rpc
    def KillApps(self, request, context):
        if isinstance(self.input, InputController):
            self.input.cancel()  # input in flight (a long type_text) stops instead of outliving the reset
        self.launcher.kill_all()
        confine.kill_strays()  # what left its app's process group (setsid from the terminal, ...)
        return pb.KillAppsReply()

    @_rpc
    def CallApi(self, request, context):
        # request.app is an app ("calc") or its tool class ("CalcTools"); arguments are checked
        # before the call reaches the app, which runs it under the UNO watchdog. Tools without
        # UNO (OSTools) need no launched app.
        app = registry.resolve_app(request.app)
        launched = self.launcher.get(app) if registry.uses_uno(app) else None
        focus_key = self._focus_key() if launched is not None else None
        result = registry.call_api(
            launched, request.method, request.args_json, home=self.home, app=app, focus_key=focus_key
        )
        return pb.CallApiReply(result_json=result)

    def _focus_key(self) -> tuple[object, ...] | None:
        """The desktop's focus key for the API's document cache; None (no caching) without a display."""
        try:
            return self.windows.focus_key()
        except (NotImplementedError, OSError, ConnectionError):
            return None

    def _focused_app(self) -> tuple[str, int]:
        """The launched app owning the focused window (by window id or process group), and the window."""
        window = self.windows.focused_window()
        if window is None:
            return "", 0
        group = processes.process_group(window.pid)
        for info in reversed(self.launcher.apps()):
            if info.alive and (info.window_id == window.window_id or (group is not None and group == info.pid)):
                return info.app, window.window_id
        return "", window.window_id

    @_rpc
    def GetAppInfo(self, request, context):
        if not request.app:
            app, window_id = self._focused_app()
        elif request.app in launchable_apps():
            app, window_id = request.app, self.launcher.get(request.app).window_id or 0
        else:  # a tool class name ("CalcTools") or an API without an app ("os")
            app = registry.resolve_app(request.app)
            window_id = (self.launcher.get(app).window_id or 0) if registry.uses_uno(app) else 0
        tools = registry.TOOL_CLASSES.get(app)
        summary = ""
        if tools is not None and request.max_chars > 0 and hasattr(tools, "summary"):
            timeout = request.timeout or registry.DEFAULT_TIMEOUT_S
            summary = registry.summarize(self.launcher.get(app), request.max_chars, timeout=timeout)
        modified = False
        if request.check_modified and app in launchable_apps():
            connection = self.launcher.get(app).uno
            if connection is not None:
                timeout = request.timeout or registry.DEFAULT_TIMEOUT_S
                modified = connection.call(_document_modified, connection, timeout=timeout, what="isModified")
        return pb.AppInfoReply(
            app=app,
            tool_class=tools.__name__ if tools is not None else "",
            summary=summary,
            window_id=window_id,
            modified=modified,
        )


def _document_modified(connection) -> bool:
    document = connection.current_document()
    return bool(document is not None and hasattr(document, "isModified") and document.isModified())


def serve(
    socket_path: str | Path,
    home: str | Path,
    token: str | None = None,
    max_workers: int = 8,
    state_dir: str | Path | None = None,
    warm_spare: bool = False,
    user: str | None = None,
    reuse_office: bool = False,
):
    """Start the guest server on a unix socket (mode 0600) and return ``(server, servicer)``.

    ``socket_path`` may be ``"tcp:HOST:PORT"`` instead: a guest in a VM, reached through the VM's
    port forward (the token is what guards it there). With ``user`` (the guest started as root),
    the socket is bound first, then the guest becomes that user before it touches the desktop.

    Raises:
        RuntimeError: the socket could not be bound.
    """
    tcp = str(socket_path)[len("tcp:") :] if str(socket_path).startswith("tcp:") else None  # "tcp:HOST:PORT" (a VM)
    socket_path = Path(socket_path)
    if tcp is None:
        socket_path.parent.mkdir(parents=True, exist_ok=True)
        if socket_path.exists():
            socket_path.unlink()
    interceptors = [TokenInterceptor(token)] if token else []
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="guest"),
        interceptors=interceptors,
        options=GRPC_OPTIONS,
    )
    # Create the socket with 0600 from the start, not chmod it after others could connect.
    old_umask = os.umask(0o177)
    try:
        bound = server.add_insecure_port(tcp if tcp is not None else f"unix://{socket_path}")
    finally:
        os.umask(old_umask)
    if not bound:
        raise RuntimeError(f"could not bind the guest socket {socket_path}")
    if tcp is None:
        os.chmod(socket_path, 0o600)
    if user is not None:
        confine.drop_to_user(user)
    servicer = GuestServicer(
        Path(home),
        Path(state_dir) if state_dir else socket_path.parent / "guest-state",
        warm_spare=warm_spare,
        reuse_office=reuse_office,
    )
    pb_grpc.add_GuestServicer_to_server(servicer, server)
    server.start()
    return server, servicer


def run_forever(server, servicer: GuestServicer) -> None:
    """Block until SIGTERM/SIGINT, then stop the server and clean up."""
    import signal

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=1.0).wait(2.0)
    servicer.close()
