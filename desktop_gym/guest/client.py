"""Client for the guest agent: what the env, actions and tests call."""

from __future__ import annotations

import time

import grpc
import numpy as np

from .. import errors
from ..polling import poll_until
from .auth import TOKEN_METADATA_KEY
from .protos import guest_pb2 as pb
from .protos import guest_pb2_grpc as pb_grpc
from .shared_frame import SharedFrame, shared_memory_available
from .types import AppFocus, AppInfo, ExecResult, GuestError, GuestUnavailableError, WindowInfo

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
UNAVAILABLE_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
#: Empties the session home, dotfiles included, without following links out of it.
# A fresh Debian/Ubuntu desktop account's folders (xdg-user-dirs): tasks and agents may assume them.
XDG_USER_DIRS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Public", "Templates", "Videos")
WIPE_HOME_COMMAND = 'find "$HOME" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + && mkdir -p ' + " ".join(
    f'"$HOME/{name}"' for name in XDG_USER_DIRS
)
DEADLINE_MARGIN = 5.0  # extra client-side time for calls that carry their own guest-side timeout
API_DEADLINE = 130.0  # the guest bounds every API call itself (OSTools.run_shell may take 120 s)


class GuestClient:
    """Talks to one guest agent over gRPC.

    Args:
        address: gRPC target, e.g. ``"unix:///tmp/session/guest.sock"``.
        token: Session token, sent as ``x-desktop-gym-token`` metadata.
        timeout: Deadline in seconds for each call (calls with their own timeout get that plus a margin).
        reconnect_backoff_ms: ``(first, most)`` milliseconds between connection attempts (gRPC's
            default waits ~1 s after the first failed one: a guest whose socket appears a moment
            after the first attempt would be seen ~1 s late).
    """

    def __init__(
        self,
        address: str,
        token: str | None = None,
        timeout: float = 30.0,
        reconnect_backoff_ms: tuple[int, int] | None = None,
    ) -> None:
        self.address = address
        self.timeout = timeout
        self._metadata = ((TOKEN_METADATA_KEY, token),) if token else ()
        self._channel = grpc.insecure_channel(
            address,
            options=[
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                *(
                    [
                        ("grpc.initial_reconnect_backoff_ms", reconnect_backoff_ms[0]),
                        ("grpc.min_reconnect_backoff_ms", reconnect_backoff_ms[0]),
                        ("grpc.max_reconnect_backoff_ms", reconnect_backoff_ms[1]),
                    ]
                    if reconnect_backoff_ms
                    else []
                ),
            ],
        )
        self._stub = pb_grpc.GuestStub(self._channel)
        self._screen_size: tuple[int, int] | None = None
        # Screenshots through shared memory are tried once for a guest on a unix socket (same machine).
        self._shared_frame: SharedFrame | None = None
        self._try_shared_frame = address.startswith("unix:") and shared_memory_available()

    def close(self) -> None:
        """Close the channel and remove the shared screenshot buffer."""
        if self._shared_frame is not None:
            self._shared_frame.close()
            self._shared_frame = None
        self._channel.close()

    def __enter__(self) -> GuestClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _call(self, name: str, request, timeout: float | None = None):
        try:
            return getattr(self._stub, name)(request, timeout=timeout or self.timeout, metadata=self._metadata)
        except grpc.RpcError as exc:
            code, details = exc.code(), exc.details()
            if code in UNAVAILABLE_CODES:
                raise GuestUnavailableError(
                    f"guest at {self.address} did not answer {name}: {code.name} {details}"
                ) from None
            error_code = dict(exc.trailing_metadata() or ()).get(errors.ERROR_CODE_METADATA_KEY)
            raise errors.from_code(error_code, details or f"{name} failed with {code.name}", code.name) from None

    # -- session -------------------------------------------------------------------------------

    def wait_ready(self, timeout: float = 15.0) -> None:
        """Poll ``ping`` until the guest answers.

        Raises:
            GuestUnavailableError: no answer within ``timeout``.
        """
        deadline = time.monotonic() + timeout

        def pinged() -> bool:
            self._call("Ping", pb.PingRequest(), timeout=max(0.05, min(1.0, deadline - time.monotonic())))
            return True

        poll_until(pinged, timeout, f"the guest at {self.address} to answer", retry_on=(GuestUnavailableError,),
                   error=GuestUnavailableError)  # fmt: skip

    def ping(self) -> dict:
        """Return ``{"display", "width", "height", "pid", "home"}``."""
        reply = self._call("Ping", pb.PingRequest())
        return {
            "display": reply.display,
            "width": reply.width,
            "height": reply.height,
            "pid": reply.pid,
            "home": reply.home,
        }

    def screen_size(self) -> tuple[int, int]:
        """``(width, height)`` of the guest screen (cached)."""
        if self._screen_size is None:
            info = self.ping()
            self._screen_size = (info["width"], info["height"])
        return self._screen_size

    # -- screen --------------------------------------------------------------------------------

    def screenshot(self) -> np.ndarray:
        """Return the screen as an ``HxWx3`` uint8 RGB array (a fresh array the caller owns)."""
        if self._try_shared_frame:
            shot = self._screenshot_shared()
            if shot is not None:
                return shot
        reply = self._call("Screenshot", pb.ScreenshotRequest(format="raw"))
        return np.frombuffer(reply.data, dtype=np.uint8).reshape(reply.height, reply.width, 3)

    def _screenshot_shared(self) -> np.ndarray | None:
        """A screenshot through the shared frame, or None once the guest turns out not to see it."""
        if self._shared_frame is None:
            width, height = self.screen_size()
            self._shared_frame = SharedFrame.create(width, height)
            self._shared_frame.hand_to_guest(self.ping()["pid"])
        frame = self._shared_frame
        with frame.lock:
            try:
                self._call("Screenshot", pb.ScreenshotRequest(format="raw", shm_path=str(frame.path)))
            except GuestUnavailableError:
                raise
            except GuestError:  # e.g. the guest runs elsewhere and cannot open the file: send bytes instead
                self._try_shared_frame = False
                frame.close()
                self._shared_frame = None
                return None
            return frame.array.copy()

    def screenshot_encoded(self, fmt: str = "png", quality: int = 80) -> bytes:
        """Return the screen encoded as ``"png"`` or ``"jpeg"``."""
        return self._call("Screenshot", pb.ScreenshotRequest(format=fmt, quality=quality)).data

    # -- input ---------------------------------------------------------------------------------

    def _input(self, **action) -> None:
        self._call("Input", pb.InputRequest(**action))

    def move(self, x: int, y: int) -> None:
        """Move the pointer to ``(x, y)``."""
        self._input(move=pb.Move(x=x, y=y))

    def click(self, x: int | None = None, y: int | None = None, button: str = "left", count: int = 1) -> None:
        """Click ``count`` times at ``(x, y)`` (``None`` = current pointer position)."""
        self._input(click=pb.Click(x=x, y=y, button=button, count=count))

    def mouse_down(self, x: int | None = None, y: int | None = None, button: str = "left") -> None:
        """Press a mouse button."""
        self._input(mouse_down=pb.MouseButton(x=x, y=y, button=button))

    def mouse_up(self, x: int | None = None, y: int | None = None, button: str = "left") -> None:
        """Release a mouse button."""
        self._input(mouse_up=pb.MouseButton(x=x, y=y, button=button))

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str = "left") -> None:
        """Drag from ``(x1, y1)`` to ``(x2, y2)`` with ``button`` held."""
        self._input(drag=pb.Drag(x1=x1, y1=y1, x2=x2, y2=y2, button=button))

    def scroll(self, x: int | None = None, y: int | None = None, dx: int = 0, dy: int = 0) -> None:
        """Scroll by notches: ``dy > 0`` down, ``dx > 0`` right."""
        self._input(scroll=pb.Scroll(x=x, y=y, dx=dx, dy=dy))

    def key_down(self, key: str) -> None:
        """Hold a key down."""
        self._input(key_down=pb.Key(key=key))

    def key_up(self, key: str) -> None:
        """Release a key."""
        self._input(key_up=pb.Key(key=key))

    def press(self, key: str, presses: int = 1) -> None:
        """Tap a key ``presses`` times."""
        self._input(press=pb.Press(key=key, presses=presses))

    def hotkey(self, keys: list[str]) -> None:
        """Press keys together, e.g. ``["ctrl", "s"]``."""
        self._input(hotkey=pb.Hotkey(keys=list(keys)))

    def type_text(self, text: str) -> None:
        """Type any Unicode text (``"\\n"`` = Return, ``"\\t"`` = Tab)."""
        self._input(type_text=pb.TypeText(text=text))

    # -- accessibility and windows -------------------------------------------------------------

    def a11y_tree(self, visible_only: bool = True, max_nodes: int | None = None, timeout: float = 5.0) -> str:
        """Return the linearized accessibility tree."""
        request = pb.A11yTreeRequest(visible_only=visible_only, max_nodes=max_nodes or 0, timeout=timeout)
        return self._call("A11yTree", request, timeout=timeout + DEADLINE_MARGIN).text

    def windows(self) -> list[WindowInfo]:
        """Return the managed top-level windows."""
        return [
            WindowInfo(
                window_id=w.window_id,
                title=w.title,
                app=w.app,
                pid=w.pid or None,
                x=w.x,
                y=w.y,
                width=w.width,
                height=w.height,
                focused=w.focused,
            )
            for w in self._call("ListWindows", pb.ListWindowsRequest()).windows
        ]

    def focused_window(self) -> WindowInfo | None:
        """Return the active window, if any."""
        return next((window for window in self.windows() if window.focused), None)

    def activate_window(self, window_id: int) -> None:
        """Raise and focus a window."""
        self._call("ActivateWindow", pb.WindowRequest(window_id=window_id))

    def close_window(self, window_id: int) -> None:
        """Ask a window to close."""
        self._call("CloseWindow", pb.WindowRequest(window_id=window_id))

    # -- processes and files -------------------------------------------------------------------

    def exec(
        self, command: list[str] | str, timeout: float = 30.0, shell: bool = False, cwd: str | None = None
    ) -> ExecResult:
        """Run a command in the session (``HOME`` = session home); the group is killed on timeout."""
        if shell:
            request = pb.ExecRequest(
                shell_command=command if isinstance(command, str) else " ".join(command),
                shell=True,
                timeout=timeout,
                cwd=cwd or "",
            )
        else:
            import shlex

            argv = shlex.split(command) if isinstance(command, str) else list(command)
            request = pb.ExecRequest(argv=argv, timeout=timeout, cwd=cwd or "")
        reply = self._call("Exec", request, timeout=timeout + DEADLINE_MARGIN)
        return ExecResult(
            returncode=reply.returncode, stdout=reply.stdout, stderr=reply.stderr, timed_out=reply.timed_out
        )

    def clear_session(self, timeout: float = 30.0) -> None:
        """Kill every launched app and empty the session home: the one "wipe the home" command.

        The emptied home gets the standard folders of a fresh desktop account (``XDG_USER_DIRS``).

        Raises:
            GuestError: the wipe failed (its stderr is in the message).
        """
        self.kill_apps()
        result = self.exec(WIPE_HOME_COMMAND, shell=True, timeout=timeout)
        if result.returncode != 0 or result.timed_out:
            raise GuestError(f"wiping the session home failed (code {result.returncode}): {result.stderr[-400:]}")

    def put_file(self, path: str, data: bytes, mode: int = 0o644) -> str:
        """Write a file in the guest (parents created); return its absolute path."""
        return self._call("PutFile", pb.PutFileRequest(path=path, data=data, mode=mode)).path

    def get_file(self, path: str) -> bytes:
        """Read a file from the guest (``GuestError`` if it is missing)."""
        return self._call("GetFile", pb.GetFileRequest(path=path)).data

    # -- apps ----------------------------------------------------------------------------------

    @staticmethod
    def _app_info(message) -> AppInfo:
        return AppInfo(
            app=message.app,
            pid=message.pid,
            alive=message.alive,
            window_id=message.window_id or None,
            file=message.file or None,
        )

    def launch_app(self, app: str, file: str | None = None, timeout: float = 30.0) -> AppInfo:
        """Start an app (a key of the app table: "calc", "terminal", ...) and wait until usable."""
        request = pb.LaunchAppRequest(app=app, file=file or "", timeout=timeout)
        return self._app_info(self._call("LaunchApp", request, timeout=timeout + DEADLINE_MARGIN))

    def apps(self) -> list[AppInfo]:
        """Apps launched since the last ``kill_apps``, with alive flags."""
        return [self._app_info(app) for app in self._call("ListApps", pb.ListAppsRequest()).apps]

    def kill_apps(self) -> None:
        """SIGKILL every launched app's process group."""
        self._call("KillApps", pb.KillAppsRequest())

    def wait_apps_idle(self, timeout: float = 10.0) -> float:
        """Block until every launched app has finished its queued work; returns the seconds waited."""
        reply = self._call("WaitAppsIdle", pb.WaitAppsIdleRequest(timeout=timeout), timeout=timeout + 5)
        return reply.waited_seconds

    def wait_settled(self, quiet: float = 0.06, timeout: float = 1.0, busy_timeout: float = 10.0) -> bool:
        """Block until the screen is quiet, every app idle, and (if one was busy) the screen quiet again.

        One round trip: the guest watches X DAMAGE. Returns False when the screen was still
        changing at ``timeout`` (an animation).

        Raises:
            GuestTimeoutError: an app stayed busy for ``busy_timeout`` (hung).
        """
        request = pb.WaitSettledRequest(quiet=quiet, timeout=timeout, busy_timeout=busy_timeout)
        return self._call("WaitSettled", request, timeout=2 * timeout + busy_timeout + 5).settled

    def wait_settled_reading_tree(
        self,
        visible_only: bool = True,
        max_nodes: int | None = None,
        tree_timeout: float = 5.0,
        *,
        quiet: float = 0.06,
        timeout: float = 1.0,
        busy_timeout: float = 10.0,
    ) -> str | None:
        """``wait_settled``, reading the accessibility tree meanwhile (``guest.tree_ahead``).

        Returns:
            The tree as ``a11y_tree`` would give it after the settle, when a read made during the
            settle saw nothing drawn; otherwise None (read it with ``a11y_tree``).
        """
        tree = pb.A11yTreeRequest(visible_only=visible_only, max_nodes=max_nodes or 0, timeout=tree_timeout)
        request = pb.WaitSettledRequest(quiet=quiet, timeout=timeout, busy_timeout=busy_timeout, tree=tree)
        reply = self._call("WaitSettled", request, timeout=2 * timeout + busy_timeout + tree_timeout + 5)
        return reply.tree_text if reply.tree_ahead else None

    def call_api(self, app: str, method: str, args_json: str = "{}", timeout: float | None = None) -> str:
        """Call an app API method on the live app in the guest; return the result as JSON text.

        Args:
            app: The app (``"calc"``) or its tool class (``"CalcTools"``).
            method: The tool method, e.g. ``"set_cell_value"``.
            args_json: The keyword arguments as a JSON object.
            timeout: The RPC deadline in seconds (default: the longest the guest lets an API call run).

        Raises:
            GuestError: unknown app or method, arguments that do not fit the signature, the app
                not running, a LibreOffice exception or the guest's UNO watchdog firing; the
                message says which.
        """
        request = pb.CallApiRequest(app=app, method=method, args_json=args_json)
        return self._call("CallApi", request, timeout=timeout or max(self.timeout, API_DEADLINE)).result_json

    def app_info(
        self, app: str | None = None, max_chars: int = 5000, timeout: float = 10.0, check_modified: bool = False
    ) -> AppFocus:
        """Which launched app has the focus (or ``app``), its tool class and its API summary.

        Args:
            app: An app (``"calc"``) or tool class; None for the app whose window has the focus.
            max_chars: The longest summary; 0 asks only which app it is (no call into the app).
            timeout: Seconds the guest gives the app to summarise itself.
            check_modified: Also ask the app whether its document has unsaved changes.

        Returns:
            An :class:`AppFocus` (frozen): ``app`` is ``""`` when the focused window belongs to no
            launched app, ``tool_class`` and ``summary`` are ``""`` for apps without an API,
            ``window_id`` is None when there is no window, ``modified`` is False unless asked for
            and the document has unsaved changes.

        Raises:
            GuestError: ``app`` is not running or unknown, or the summary failed.
        """
        request = pb.AppInfoRequest(app=app or "", max_chars=max_chars, timeout=timeout, check_modified=check_modified)
        reply = self._call("GetAppInfo", request, timeout=timeout + DEADLINE_MARGIN)
        return AppFocus(
            app=reply.app,
            tool_class=reply.tool_class,
            summary=reply.summary,
            window_id=reply.window_id or None,
            modified=reply.modified,
        )

    def focused_app(self, timeout: float = 10.0) -> AppFocus:
        """Which launched app has the focus (no call into the app: ``summary`` is ``""``)."""
        return self.app_info(max_chars=0, timeout=timeout)

    def app_summary(self, app: str | None = None, max_chars: int = 5000, timeout: float = 10.0) -> str:
        """The API summary of ``app`` (the focused app when None): the observation's ``app_info``."""
        return self.app_info(app, max_chars=max_chars, timeout=timeout).summary

    def document_modified(self, app: str, timeout: float = 10.0) -> bool:
        """Whether ``app``'s document has unsaved changes."""
        return self.app_info(app, max_chars=0, timeout=timeout, check_modified=True).modified
