"""The session's mail server, run as the leader of Thunderbird's launch (same process group, so it
stops with Thunderbird and nothing of it outlives the session).

``python -m desktop_gym.apps.thunderbird.server MAIL_ROOT -- COMMAND...`` listens on the loopback
ports in ``server.json``: IMAP, each connection served by its own dovecot ``imap`` process
(preauthenticated as the session's user, on the session's Maildir store), and SMTP (aiosmtpd), which
spools each accepted message in ``outgoing/`` and delivers copies addressed to the session's user into
the inbox. Only connections from processes of the session's own Unix user are served (the kernel's
socket table names the peer's owner). Then it runs COMMAND (Thunderbird) and exits when it does.
"""

from __future__ import annotations

import itertools
import json
import mailbox
import os
import signal
import socket
import subprocess
import sys
import threading
from email.utils import getaddresses
from pathlib import Path
from typing import Any

from .store import DOVECOT_IMAP, USER_ADDRESS, read_json, write_json

#: The most IMAP connections served at once, and the biggest message accepted over SMTP.
MAX_IMAP_SESSIONS = 32
MAX_MESSAGE_BYTES = 25 * 1024 * 1024
#: The most messages kept in the outgoing spool.
MAX_SPOOLED = 1000


Connection = tuple[str, int, str, int]
"""A socket's ``(local address, local port, remote address, remote port)``, addresses in the table's hex."""
TIME_WAIT = "06"  # the state of a closed socket that lingers; it belongs to no process (uid 0 in the table)


def parse_proc_net_tcp(text: str) -> dict[Connection, int]:
    """The owner (uid) of each socket in a ``/proc/net/tcp`` text; lingering and odd lines skipped."""
    owners: dict[Connection, int] = {}
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8 or ":" not in fields[1] or ":" not in fields[2] or fields[3] == TIME_WAIT:
            continue
        local, _, local_port = fields[1].rpartition(":")
        remote, _, remote_port = fields[2].rpartition(":")
        try:
            owners[(local.upper(), int(local_port, 16), remote.upper(), int(remote_port, 16))] = int(fields[7])
        except ValueError:
            continue
    return owners


def client_owner(owners: dict[Connection, int], peer_port: int, server_port: int) -> int | None:
    """The uid of the client end of a loopback connection from ``peer_port`` to ``server_port``.

    Both ports are needed: the kernel gives an ephemeral port to several sockets at once when their
    destinations differ, and one of those may belong to another user.
    """
    for (_, local_port, _, remote_port), uid in owners.items():
        if local_port == peer_port and remote_port == server_port:
            return uid
    return None


def peer_uid(peer_port: int, server_port: int) -> int | None:
    """The uid owning the client socket of a connection from ``peer_port`` to our ``server_port``."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            text = Path(table).read_text()
        except OSError:
            continue
        uid = client_owner(parse_proc_net_tcp(text), peer_port, server_port)
        if uid is not None:
            return uid
    return None


def same_user(peer: Any, server_port: int) -> bool:
    """Whether the connection from ``peer`` (``(host, port)``) to ``server_port`` comes from our own user."""
    try:
        return peer_uid(int(peer[1]), server_port) == os.getuid()
    except (TypeError, ValueError, IndexError):
        return False


class Status:
    """``status.json``: the IMAP sessions served so far and the messages spooled (the ready hook reads it)."""

    def __init__(self, root: Path) -> None:
        self.path = root / "status.json"
        self.values = {"imap_sessions": 0, "smtp_messages": 0, "rejected": 0, "pid": os.getpid()}
        self.lock = threading.Lock()
        write_json(self.path, self.values)

    def count(self, key: str) -> None:
        with self.lock:
            self.values[key] += 1
            write_json(self.path, self.values)


def serve_imap(root: Path, port: int, status: Status, stop: threading.Event) -> None:
    """Accept IMAP connections on ``port``; each gets a preauthenticated dovecot ``imap`` process."""
    env = {"HOME": os.environ.get("HOME", str(root)), "USER": os.environ.get("USER", "me"), "PATH": "/usr/bin:/bin"}
    children: list[subprocess.Popen] = []
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        listener.settimeout(0.5)
        while not stop.is_set():
            try:
                connection, peer = listener.accept()
            except TimeoutError:
                continue
            children = [child for child in children if child.poll() is None]
            with connection:
                if not same_user(peer, port) or len(children) >= MAX_IMAP_SESSIONS:
                    status.count("rejected")
                    continue
                children.append(
                    subprocess.Popen(
                        [DOVECOT_IMAP, "-c", str(root / "dovecot.conf")],
                        stdin=connection.fileno(),
                        stdout=connection.fileno(),
                        stderr=subprocess.DEVNULL,
                        env=env,
                    )
                )
                status.count("imap_sessions")
    for child in children:
        child.kill()


class SpoolHandler:
    """aiosmtpd's handler: spool each message (with its envelope), deliver the user's copy to the inbox."""

    def __init__(self, root: Path, status: Status, port: int) -> None:
        self.root = root
        self.status = status
        self.port = port
        self.numbers = itertools.count(len(list((root / "outgoing").glob("*.eml"))) + 1)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        if not same_user(session.peer, self.port):
            self.status.count("rejected")
            return "550 only the session's user may send here"
        content = envelope.original_content or b""
        if len(content) > MAX_MESSAGE_BYTES:
            return "552 message too big"
        number = next(self.numbers)
        if number > MAX_SPOOLED:
            return "452 the spool is full"
        spool = self.root / "outgoing"
        spool.mkdir(parents=True, exist_ok=True)
        (spool / f"{number:05d}.eml").write_bytes(content)
        rcpts = [str(r) for r in envelope.rcpt_tos]
        write_json(spool / f"{number:05d}.json", {"mail_from": str(envelope.mail_from), "rcpt_tos": rcpts})
        if any(address.lower() == USER_ADDRESS for _, address in getaddresses(rcpts)):
            mailbox.Maildir(self.root / "Maildir", create=True).add(content)
        self.status.count("smtp_messages")
        return "250 OK spooled"


def main(argv: list[str]) -> int:
    """Run the servers, then the command after ``--``; returns its exit status."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: server MAIL_ROOT -- COMMAND...", file=sys.stderr)
        return 2
    root, command = Path(argv[0]), argv[2:]
    ports = read_json(root / "server.json")
    status = Status(root)
    stop = threading.Event()
    imap = threading.Thread(target=serve_imap, args=(root, int(ports["imap_port"]), status, stop), daemon=True)
    imap.start()
    from aiosmtpd.controller import Controller

    smtp = Controller(
        SpoolHandler(root, status, int(ports["smtp_port"])),
        hostname="127.0.0.1",
        port=int(ports["smtp_port"]),
        data_size_limit=MAX_MESSAGE_BYTES,
    )
    smtp.start()
    # Gecko exposes its accessibility tree (the agent's observation) only when asked to.
    child = subprocess.Popen(command, env={**os.environ, "GNOME_ACCESSIBILITY": "1"})
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    try:
        code = child.wait()
    finally:
        stop.set()
        smtp.stop()
        imap.join(timeout=5)
    print(json.dumps({"thunderbird_exit": code}), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
