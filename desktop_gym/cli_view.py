"""``desktop-gym view DIR``: the trajectory viewer and training view over a folder, in the browser."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def cmd_view(args: argparse.Namespace) -> int:
    """Serve the viewer for ``args.folder`` until interrupted."""
    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"desktop-gym view: no folder {folder}", file=sys.stderr)
        return 2
    import uvicorn

    from .web import create_app

    app = create_app(root=folder)
    print(f"desktop-gym view: http://{args.host}:{args.port}/view  (training runs: /train)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def add_view_commands(subparsers: Any) -> None:
    """Add ``view`` to the ``desktop-gym`` parser."""
    view = subparsers.add_parser("view", help="trajectory viewer and training charts in the browser")
    view.add_argument("folder", help="a folder of trajectories (run/eval/train output)")
    view.add_argument("--host", default="127.0.0.1")
    view.add_argument("--port", type=int, default=8765)
    view.set_defaults(handler=cmd_view)
