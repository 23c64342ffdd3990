"""``python -m desktop_gym.guest --socket PATH --home DIR [--token-file F]``: run the guest agent."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from .server import run_forever, serve


def main(argv: list[str] | None = None) -> None:
    """Parse arguments and serve until terminated."""
    parser = argparse.ArgumentParser(prog="python -m desktop_gym.guest", description=__doc__)
    parser.add_argument("--socket", required=True, help="unix socket path to listen on")
    parser.add_argument("--home", required=True, help="the session home folder (~)")
    parser.add_argument("--token-file", help="file holding the token clients must send")
    parser.add_argument(
        "--state-dir",
        help="the guest's own files (per-launch app profiles, logs); kept outside the home, which tasks wipe "
        "(default: guest-state/ beside the socket)",
    )
    parser.add_argument("--warm-spare", action="store_true", help="keep a LibreOffice ready for the next launch")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s guest %(levelname)s %(message)s")
    token = Path(args.token_file).read_text().strip() if args.token_file else None
    state_dir = Path(args.state_dir) if args.state_dir else Path(args.socket).parent / "guest-state"
    server, servicer = serve(args.socket, args.home, token, state_dir=state_dir, warm_spare=args.warm_spare)
    logging.getLogger(__name__).info("guest agent listening on %s", args.socket)
    run_forever(server, servicer)


if __name__ == "__main__":
    main()
