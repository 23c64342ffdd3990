"""``python -m desktop_gym.guest.zygote --fd N``: the guest agent imported once, forked for each desktop.

A guest agent's private memory is mostly the Python heap of what it imports (grpc, numpy, the
AT-SPI typelib, Xlib, PIL, the app tools: ~50 MiB). The local backend starts one zygote per host
process (``backends/guest_fork.py``); the zygote imports the guest's modules, freezes them out of the
garbage collector's reach (``gc.freeze``: a collection then writes no page of theirs) and forks a
guest per desktop, so every desktop's guest shares those pages copy-on-write.

Protocol, over the ``SOCK_SEQPACKET`` socket ``--fd`` (one message each way per spawn):

- the host sends ``{"argv": [...], "env": {...}}`` (JSON) with two descriptors: the guest's log
  file and one end of a per-guest channel;
- the zygote forks; the child becomes a session leader, points stdin at ``/dev/null`` and stdout
  and stderr at the log, takes ``env`` as its whole environment and runs
  ``python -m desktop_gym.guest <argv>``;
- the zygote answers ``{"pid": N}`` (or ``{"error": "..."}``) on the channel, then
  ``{"exit": code}`` when the guest ends (``subprocess``'s convention: minus the signal number when
  a signal killed it), and closes it.

Only imports happen before a fork: nothing that opens a descriptor, starts a thread or reads the
session's environment (pyatspi's import creates GLib's wakeup eventfd, which forked guests would
share, so it waits for the guest; so does ``uno``, whose import opens LibreOffice's type libraries,
whose file offsets forked guests would share). The zygote checks that it holds no descriptor but its
own before serving, and refuses to start otherwise. The zygote exits when the host closes its end;
its guests live on (the host's reaper kills them with their session).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import select
import signal
import socket
import sys
import traceback

#: What the zygote imports before forking: the guest server and everything it imports at once, and
#: what a guest on the Calc starter imported later (``PYTHONPROFILEIMPORTTIME=1`` in its log), less
#: pyatspi and uno (see above); the office apps' tools; the typelibs.
PRELOAD = (
    "desktop_gym.guest.__main__",
    "desktop_gym.guest.server",
    "desktop_gym.guest.a11y",
    "desktop_gym.guest.a11y_peer",
    "desktop_gym.guest.a11y_grid",
    "desktop_gym.guest.a11y_text",
    "desktop_gym.guest.tree_ahead",
    "desktop_gym.guest.screen",
    "desktop_gym.guest.input",
    "desktop_gym.guest.windows",
    "desktop_gym.guest.apps.launcher",
    "desktop_gym.guest.apps.office_reuse",
    "desktop_gym.guest.apps.warm_spare",
    "desktop_gym.guest.apps.lo_profile",
    "desktop_gym.guest.apps.office_state_watch",
    "desktop_gym.apps.spec",
    "desktop_gym.apps.tools_base",
    "desktop_gym.apps.values",
    "desktop_gym.apps.calc.tools",
    "desktop_gym.apps.writer.tools",
    "desktop_gym.apps.impress.tools",
    "desktop_gym.apps.os.tools",
    "desktop_gym.apps.editor.tools",
    "concurrent.futures.thread",
    "grpc._server",
    "grpc._interceptor",
    "numpy",
    "PIL.Image",
    "mss.linux",
    "Xlib.display",
    "Xlib.xauth",
    "Xlib.ext.randr",
    "Xlib.ext.xfixes",
    "Xlib.ext.xinput",
    "Xlib.ext.composite",
    "Xlib.ext.shape",
    "Xlib.ext.record",
    "urllib.request",
    "xml.sax.saxutils",
)
#: Typelibs loaded without their Python overrides' side effects.
TYPELIBS = (("Atspi", "2.0"), ("Gio", "2.0"), ("GLib", "2.0"))
MAX_MESSAGE_BYTES = 256 * 1024  # a request: argv and an environment
MAX_GUESTS = 1024  # guests alive at once; more are refused with an error
READY = b"ready"


class ZygoteError(RuntimeError):
    """The zygote cannot serve (a preloaded import opened a descriptor, a malformed request)."""


def preload() -> None:
    """Import the guest's modules and typelibs, then freeze them out of the collector's reach."""
    import gi

    for name, version in TYPELIBS:
        gi.require_version(name, version)
        importlib.import_module(f"gi.repository.{name}")
    for name in PRELOAD:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()


def open_descriptors() -> set[int]:
    """The descriptors this process holds."""
    return {int(name) for name in os.listdir("/proc/self/fd")} - {_listing_fd()}


def _listing_fd() -> int:
    # os.listdir's own descriptor shows in its listing; find its number by opening one.
    probe = os.open("/proc/self/fd", os.O_RDONLY)
    os.close(probe)
    return probe


def check_descriptors(allowed: set[int]) -> None:
    """Refuse to serve while an import left a descriptor open: every guest would share it.

    Raises:
        ZygoteError: naming each extra descriptor and what it points at.
    """
    extra = sorted(open_descriptors() - allowed)
    if extra:
        names = []
        for fd in extra:
            try:
                names.append(f"{fd} -> {os.readlink(f'/proc/self/fd/{fd}')}")
            except OSError:
                names.append(str(fd))
        raise ZygoteError(f"a preloaded import left descriptors open, which forked guests would share: {names}")


def parse_request(raw: bytes) -> tuple[list[str], dict[str, str]]:
    """``(argv, env)`` of a spawn request.

    Raises:
        ZygoteError: the request is not a JSON object with a list of strings and a string mapping.
    """
    try:
        request = json.loads(raw)
    except ValueError as error:
        raise ZygoteError(f"a spawn request is not JSON: {error}") from None
    argv = request.get("argv") if isinstance(request, dict) else None
    env = request.get("env") if isinstance(request, dict) else None
    if not isinstance(argv, list) or not all(isinstance(arg, str) for arg in argv):
        raise ZygoteError("a spawn request's argv must be a list of strings")
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ZygoteError("a spawn request's env must map strings to strings")
    return argv, env


def _send(channel: socket.socket, message: dict) -> None:
    try:
        channel.send(json.dumps(message).encode())
    except OSError:
        pass  # the host let go of this guest: nobody is listening


class Zygote:
    """The serving loop: spawn requests in, guests forked, exit codes out."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.channels: dict[int, socket.socket] = {}  # guest pid -> its channel
        self.wake_read, self.wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)

    def serve(self) -> None:
        """Serve until the host closes its end."""
        signal.signal(signal.SIGCHLD, lambda *_: None)  # the wakeup fd does the work
        signal.set_wakeup_fd(self.wake_write)
        self.control.send(READY)
        while True:
            ready, _, _ = select.select([self.control, self.wake_read], [], [])
            if self.wake_read in ready:
                while True:
                    try:
                        if not os.read(self.wake_read, 512):
                            break
                    except BlockingIOError:
                        break
            self.reap()
            if self.control in ready and not self.accept():
                return

    def accept(self) -> bool:
        """Serve one request; False once the host has closed its end."""
        try:
            raw, fds, _, _ = socket.recv_fds(self.control, MAX_MESSAGE_BYTES, 2)
        except ConnectionResetError:
            return False
        if not raw and not fds:
            return False
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return True  # nowhere to answer: the host sees no reply and gives up on its deadline
        log_fd, channel_fd = fds
        channel = socket.socket(fileno=channel_fd)
        try:
            argv, env = parse_request(raw)
            if len(self.channels) >= MAX_GUESTS:
                raise ZygoteError(f"{MAX_GUESTS} guests are alive: no more")
            pid = os.fork()
        except (ZygoteError, OSError) as error:
            os.close(log_fd)
            _send(channel, {"error": str(error)})
            channel.close()
            return True
        if pid == 0:
            channel.close()
            self._become_guest(argv, env, log_fd)  # never returns
        os.close(log_fd)
        self.channels[pid] = channel
        _send(channel, {"pid": pid})
        return True

    def reap(self) -> None:
        """Collect every ended guest and send its exit code."""
        while self.channels:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            channel = self.channels.pop(pid, None)
            if channel is not None:
                _send(channel, {"exit": os.waitstatus_to_exitcode(status)})
                channel.close()

    def _become_guest(self, argv: list[str], env: dict[str, str], log_fd: int) -> None:
        code = 1
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # the zygote ignores it; an ignored signal outlives exec
            for channel in self.channels.values():
                channel.close()
            self.control.close()
            os.close(self.wake_read)
            os.close(self.wake_write)
            os.setsid()
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.close(null)
            os.close(log_fd)
            os.environ.clear()
            os.environ.update(env)
            sys.argv = [sys.argv[0], *argv]
            from .__main__ import main

            main(argv)
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
            if not isinstance(exit_.code, int | None):
                print(exit_.code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - the guest's own crash goes to its log, never up the zygote's stack
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Preload, check the descriptors, tell the host, serve."""
    parser = argparse.ArgumentParser(prog="python -m desktop_gym.guest.zygote", description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="this end of the host's SOCK_SEQPACKET socket pair")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ctrl+c meant for the host must not stop the zygote
    control = socket.socket(fileno=args.fd)
    preload()
    check_descriptors({0, 1, 2, args.fd})
    Zygote(control).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
