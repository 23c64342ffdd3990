"""``python -m desktop_gym.apps.chrome.sites --data DIR [--host H] [--port N]``: serve the sites in the
foreground; the first stdout line is ``port=<N>``."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from .server import SiteServer


def main(argv: list[str] | None = None) -> int:
    """Run the site server until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m desktop_gym.apps.chrome.sites", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="the data folder (site.json, logs, submissions)")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--port", type=int, default=0, help="the port (0: any free one)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with SiteServer(args.data, host=args.host, port=args.port) as server:
        print(f"port={server.port}", flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
