"""The desktop image's entrypoint: run a desktop session in the foreground of a container.

``python -m desktop_gym.backends.container_entry --workdir DIR [--width W --height H]`` starts the
same session as the local backend (Xvfb, openbox, a private dbus, the guest agent) with
``DIR`` (a bind mount shared with the host, at the same path on both sides) as its workdir, then
writes ``DIR/ready.json`` (guest address, token, display, home) for the host to read. It exits
when the X server or the guest dies, or on SIGTERM/SIGINT, killing the session first.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from .base import BackendError
from .local import LocalBackend

READY_FILE = "ready.json"
ERROR_FILE = "error.txt"
DEFAULT_CACHE = "/opt/desktop-gym/cache"
LIVENESS_CHECK_S = 1.0


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (mode 0600) atomically: the host polls for the file."""
    partial = path.with_name(path.name + ".partial")
    partial.touch(mode=0o600)
    partial.write_text(text)
    os.rename(partial, path)


def main(argv: list[str] | None = None) -> int:
    """Start the session, announce it, and wait until it dies or a stop signal arrives."""
    parser = argparse.ArgumentParser(prog="python -m desktop_gym.backends.container_entry", description=__doc__)
    parser.add_argument("--workdir", required=True, help="bind-mounted folder for the socket and ready.json")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--warm-spare", action="store_true")
    parser.add_argument("--startup-timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    os.environ.setdefault("DESKTOP_GYM_CACHE", DEFAULT_CACHE)
    workdir = Path(args.workdir)
    # Block the stop signals so sigtimedwait receives them instead of killing us mid-cleanup.
    stop_signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    backend = LocalBackend(
        width=args.width,
        height=args.height,
        workdir=workdir,
        startup_timeout=args.startup_timeout,
        warm_spare=args.warm_spare,
        session_user=False,  # the container is the session's boundary (and its workdir a host bind mount)
    )
    try:
        handle = backend.start()
    except (BackendError, TimeoutError, OSError) as exc:
        _write_private(workdir / ERROR_FILE, f"{type(exc).__name__}: {exc}")
        print(f"desktop session failed to start: {exc}", file=sys.stderr)
        return 1
    ready = {
        "address": handle.address,
        "token": handle.token,
        "width": handle.width,
        "height": handle.height,
        **{key: handle.info[key] for key in ("display", "session", "home", "workdir")},
    }
    _write_private(workdir / READY_FILE, json.dumps(ready))
    print(f"desktop session ready: {handle.address} display {handle.info['display']}", flush=True)
    try:
        while backend.is_alive():
            if signal.sigtimedwait(stop_signals, LIVENESS_CHECK_S) is not None:
                return 0
        print(f"desktop session died: {backend.check_health()}", file=sys.stderr)
        return 1
    finally:
        backend.close()


if __name__ == "__main__":
    sys.exit(main())
