"""Shared parts of the Thunderbird suite: the seeded mail each episode starts with (senders, subjects,
bodies, a CSV attachment: generated offline from the seed), the task base (a fresh mail server and
profile, Thunderbird started, the mail delivered into the server over IMAP in a fixed order so each
message's uid is known), the state readers and oracle helpers.

Verifiers read the server's folders through read-only ``ThunderbirdTools`` calls, the SMTP spool's raw
messages, and Thunderbird's profile files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any, ClassVar

import numpy as np

from ...apps.thunderbird.store import MAIL_ROOT, PROFILE, USER_ADDRESS
from ..base import Task, TaskContext, TaskSetupError
from ..family_kit import pick, tool_call

SENDERS = (
    ("Ana Lima", "ana.lima@example.com"),
    ("Ben Okafor", "ben.okafor@example.org"),
    ("Chen Wei", "chen.wei@example.net"),
    ("Dora Novak", "dora.novak@example.com"),
    ("Eli Haddad", "eli.haddad@example.org"),
    ("Fay Morgan", "fay.morgan@example.net"),
    ("Gus Tanaka", "gus.tanaka@example.com"),
    ("Hana Berg", "hana.berg@example.org"),
)
TOPICS = (
    "Quarterly budget",
    "Team offsite",
    "Server maintenance",
    "Invoice 4471",
    "Conference tickets",
    "Design review",
    "Lunch on Friday",
    "Hiring plan",
    "Travel receipts",
    "Release notes",
)
FOLDERS = ("Projects", "Receipts", "Clients", "Travel", "Archive2024", "Family")
#: Read-only ``ThunderbirdTools`` calls a verifier may make.
READ_METHODS = ("list_folders", "list_messages", "read_message", "list_outgoing", "list_contacts", "list_filters")
SEED_DIR = "~/.cache/gym-mail-seed"
#: Appends the staged messages (``NN__Folder__flags.eml``, in name order) over IMAP, creating folders.
SEED_SCRIPT = r"""
import glob, imaplib, json, os, sys
root = os.path.expanduser("~/.local/share/gym-mail")
port = json.load(open(root + "/server.json"))["imap_port"]
imap = imaplib.IMAP4("127.0.0.1", port, timeout=20)
made = {"INBOX", "Sent", "Drafts", "Trash", "Archive"}
for path in sorted(glob.glob(os.path.expanduser(sys.argv[1]) + "/*.eml")):
    _, folder, flags = os.path.basename(path)[:-4].split("__")
    if folder not in made:
        imap.create('"%s"' % folder); imap.subscribe('"%s"' % folder); made.add(folder)
    flag_text = "(" + " ".join("\\" + f for f in flags.split("-") if f) + ")"
    kind, data = imap.append('"%s"' % folder, flag_text, None, open(path, "rb").read())
    assert kind == "OK", data
imap.logout()
"""


def tb_call(method: str, **arguments: Any) -> str:
    """``ThunderbirdTools.method(arg=...)`` as an action string."""
    return tool_call("ThunderbirdTools", method, **arguments)


def seed_messages(rng: np.random.Generator, count: int = 6) -> list[dict[str, Any]]:
    """``count`` inbox messages with distinct senders and topics (some read), oldest first."""
    token = int(rng.integers(10**8, 10**9))
    start = datetime(2026, 3, 2, 8, 0, tzinfo=timezone.utc) + timedelta(days=int(rng.integers(0, 200)))
    messages = []
    for index, ((name, address), topic) in enumerate(
        zip(pick(rng, SENDERS, count), pick(rng, TOPICS, count), strict=True)
    ):
        code = int(rng.integers(100, 999))
        messages.append(
            {
                "name": name,
                "address": address,
                "subject": f"{topic} ({code})",
                "body": f"Hello,\n\nA note about {topic.lower()}: reference {code}.\n\nBest,\n{name.split()[0]}\n",
                "message_id": f"<gym-{token}-{index}@example.com>",
                "date": format_datetime(start + timedelta(hours=index * 5)),
                "read": bool(rng.integers(2)),
                "folder": "INBOX",
            }
        )
    return messages


def message_bytes(item: Mapping[str, Any], attachment: tuple[str, str, bytes] | None = None) -> bytes:
    """The seeded message ``item`` as RFC 5322 bytes (with an attachment ``(name, type, bytes)``)."""
    message = EmailMessage()
    message["From"] = f"{item['name']} <{item['address']}>"
    message["To"] = f"Desktop User <{USER_ADDRESS}>"
    message["Subject"] = item["subject"]
    message["Date"] = item["date"]
    message["Message-ID"] = item["message_id"]
    message.set_content(item["body"])
    if attachment is not None:
        name, kind, data = attachment
        main, _, sub = kind.partition("/")
        message.add_attachment(data, maintype=main, subtype=sub, filename=name)
    return message.as_bytes()


def run(ctx: TaskContext, command: str, what: str, timeout: float = 60) -> None:
    """Run a shell command in the desktop; a failure is a ``TaskSetupError`` naming ``what``."""
    done = ctx.client.exec(command, shell=True, timeout=timeout)
    if done.returncode != 0:
        raise TaskSetupError(f"could not {what}: {(done.stderr or done.stdout).strip()[:300]}")


def read_state(ctx: TaskContext, method: str, **arguments: Any) -> Any:
    """One read-only ``ThunderbirdTools`` call on the session's mail."""
    if method not in READ_METHODS:
        raise ValueError(f"{method!r} is not one of the read-only calls {READ_METHODS}")
    return json.loads(ctx.client.call_api("ThunderbirdTools", method, json.dumps(arguments), timeout=60.0))


def mailbox_state(ctx: TaskContext) -> dict[str, list[dict[str, Any]]]:
    """Every folder's messages, as the server lists them."""
    return {
        str(f["name"]): read_state(ctx, "list_messages", folder=f["name"], limit=200)
        for f in read_state(ctx, "list_folders")
    }


def spooled(ctx: TaskContext) -> list[bytes]:
    """The raw messages the session's SMTP server accepted."""
    listing = ctx.client.exec(f"ls ~/{MAIL_ROOT}/outgoing/ 2>/dev/null", shell=True, timeout=20).stdout.split()
    names = sorted(name for name in listing if name.endswith(".eml"))[:200]
    return [data for name in names if (data := ctx.read_file(f"~/{MAIL_ROOT}/outgoing/{name}")) is not None]


def profile_file(ctx: TaskContext, name: str) -> bytes | None:
    """A file of Thunderbird's profile (``prefs.js``, ``abook.sqlite``, ``ImapMail/127.0.0.1/...``)."""
    return ctx.read_file(f"~/{PROFILE}/{name}")


class ThunderbirdTask(Task):
    """A task in Thunderbird: ``setup`` starts from a fresh mail server and profile, starts Thunderbird and
    delivers the seeded mail (``params["messages"]``, plus ``extra_mail``) over IMAP, uids in order."""

    apps: ClassVar[Sequence[str]] = ("thunderbird",)
    max_steps = 10
    tags: ClassVar[Sequence[str]] = ("thunderbird", "mail")
    oracles = ("api",)

    def mail_params(self, rng: np.random.Generator, count: int = 6) -> dict[str, Any]:
        return {"messages": seed_messages(rng, count)}

    def attachment_of(self, params: Mapping[str, Any], index: int) -> tuple[str, str, bytes] | None:
        """The attachment of seeded message ``index`` (None: none)."""
        return None

    def folders(self, params: Mapping[str, Any]) -> Sequence[str]:
        """Extra folders the store starts with."""
        return ()

    def setup(self, ctx: TaskContext) -> None:
        ctx.client.kill_apps()
        run(ctx, f"rm -rf ~/{MAIL_ROOT} ~/{PROFILE} {SEED_DIR} && mkdir -p {SEED_DIR} ~/Documents", "reset the mail")
        launched = ctx.client.launch_app("thunderbird", None, timeout=120.0)
        if not launched.alive:
            raise TaskSetupError("Thunderbird exited right after it started")
        count = 0
        for folder in self.folders(ctx.params):
            placeholder = {
                "name": "Desktop Gym",
                "address": "setup@example.com",
                "subject": f"Welcome to {folder}",
                "body": "This folder is ready.\n",
                "message_id": f"<setup-{folder}@example.com>",
                "date": "Mon, 02 Mar 2026 08:00:00 +0000",
            }
            ctx.client.put_file(f"{SEED_DIR}/{count:03d}__{folder}__Seen.eml", message_bytes(placeholder))
            count += 1
        for index, item in enumerate(ctx.params["messages"]):
            flags = "Seen" if item["read"] else ""
            data = message_bytes(item, self.attachment_of(ctx.params, index))
            ctx.client.put_file(f"{SEED_DIR}/{count:03d}__{item['folder']}__{flags}.eml", data)
            count += 1
        done = ctx.client.exec(["python3", "-c", SEED_SCRIPT, SEED_DIR], timeout=60)
        if done.returncode != 0:
            raise TaskSetupError(f"could not deliver the seeded mail: {done.stderr.strip()[-300:]}")

    @staticmethod
    def state(ctx: TaskContext, method: str, **arguments: Any) -> Any:
        """A read-only ``ThunderbirdTools`` call."""
        return read_state(ctx, method, **arguments)
