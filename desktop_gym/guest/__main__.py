"""``python -m desktop_gym.guest (--socket PATH | --listen tcp:HOST:PORT) --home DIR [--token-file F]``.

Runs the guest agent.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from . import confine
from .server import run_forever, serve


def main(argv: list[str] | None = None) -> None:
    """Parse arguments and serve until terminated."""
    parser = argparse.ArgumentParser(prog="python -m desktop_gym.guest", description=__doc__)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--socket", help="unix socket path to listen on")
    where.add_argument("--listen", help="tcp:HOST:PORT to listen on (a guest inside a VM)")
    parser.add_argument("--home", required=True, help="the session home folder (~)")
    parser.add_argument("--token-file", help="file holding the token clients must send")
    parser.add_argument(
        "--state-dir",
        help="the guest's own files (per-launch app profiles, logs); kept outside the home, which tasks wipe "
        "(default: guest-state/ beside the socket)",
    )
    parser.add_argument("--warm-spare", action="store_true", help="keep a LibreOffice ready for the next launch")
    parser.add_argument(
        "--reuse-office",
        action="store_true",
        help="keep a LibreOffice proven clean at reset for the next launch of the same app (see office_reuse)",
    )
    parser.add_argument("--user", help="run as this user once the socket is bound (the guest starts as root)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s guest %(levelname)s %(message)s")
    token = Path(args.token_file).read_text().strip() if args.token_file else None
    if args.listen is not None and not args.listen.startswith("tcp:"):
        parser.error(f"--listen takes tcp:HOST:PORT, got {args.listen!r}")
    address = args.socket or args.listen
    default_state = Path(args.socket).parent if args.socket else Path(args.home).parent
    state_dir = Path(args.state_dir) if args.state_dir else default_state / "guest-state"
    confine.become_subreaper()  # processes that leave their app (setsid) stay ours to kill
    server, servicer = serve(
        address,
        args.home,
        token,
        state_dir=state_dir,
        warm_spare=args.warm_spare,
        user=args.user,
        reuse_office=args.reuse_office,
    )
    logging.getLogger(__name__).info("guest agent listening on %s", address)
    run_forever(server, servicer)


if __name__ == "__main__":
    main()
