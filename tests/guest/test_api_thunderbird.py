"""ThunderbirdTools against the live Thunderbird and the session's mail server through the real CallApi
RPC, each result checked a second way: the Maildir store on disk (dovecot's files and flags), the SMTP
spool, Thunderbird's window (its accessibility tree), the profile's files read raw in the desktop; the
server refuses other users; nothing of it outlives the desktop."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_gym.backends.local import LocalBackend
from desktop_gym.guest.client import GuestClient, GuestError
from desktop_gym.polling import poll_until
from desktop_gym.tasks.families.thunderbird_base import SEED_SCRIPT, message_bytes

pytestmark = pytest.mark.slow

MAIL = "~/.local/share/gym-mail"
PROFILE = "~/.thunderbird/gym"
SEED = "~/.cache/gym-mail-seed"
CSV = b"item,amount\npaper,12\ntoner,30\n"


def tb(guest: GuestClient, method: str, **arguments: Any) -> Any:
    return json.loads(guest.call_api("ThunderbirdTools", method, json.dumps(arguments), timeout=60.0))


def sh(guest: GuestClient, command: str) -> str:
    result = guest.exec(command, shell=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def seeded(index: int, subject: str, attachment: tuple[str, str, bytes] | None = None) -> bytes:
    item = {
        "name": f"Sender {index}",
        "address": f"sender{index}@example.com",
        "subject": subject,
        "body": f"Body of message {index}.\n",
        "message_id": f"<test-{index}@example.com>",
        "date": "Mon, 02 Mar 2026 08:00:00 +0000",
    }
    return message_bytes(item, attachment)


@pytest.fixture(scope="module")
def mail(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """Thunderbird on a fresh server with three inbox messages (the second with a CSV) and a Projects folder."""
    guest = _session_guest
    guest.kill_apps()
    sh(guest, f"rm -rf {MAIL} {PROFILE} {SEED} ~/Documents && mkdir -p {SEED} ~/Documents")
    started = time.monotonic()
    info = guest.launch_app("thunderbird", None, timeout=120.0)
    launch_seconds = time.monotonic() - started
    assert info.alive and info.window_id is not None
    guest.put_file(f"{SEED}/000__INBOX__Seen.eml", seeded(1, "Budget plan"))
    guest.put_file(f"{SEED}/001__INBOX__.eml", seeded(2, "Expenses March", ("march.csv", "text/csv", CSV)))
    guest.put_file(f"{SEED}/002__INBOX__.eml", seeded(3, "Team lunch"))
    guest.put_file(f"{SEED}/003__Projects__Seen.eml", seeded(4, "Project kickoff"))
    done = guest.exec(["python3", "-c", SEED_SCRIPT, SEED], timeout=60)
    assert done.returncode == 0, done.stderr
    print(f"thunderbird launch: {launch_seconds:.2f} s")
    yield guest
    guest.kill_apps()


def maildir_files(guest: GuestClient, folder: str) -> list[str]:
    """The message files of a Maildir folder on disk (INBOX or '.Name'), with their flag suffixes."""
    base = f"{MAIL}/Maildir" + ("" if folder == "INBOX" else f"/.{folder}")
    return sh(guest, f"ls {base}/cur {base}/new 2>/dev/null | grep -v ':$' | grep . || true").split()


def test_launch_runs_the_server_as_the_session_user_and_thunderbird_logged_in(mail: GuestClient) -> None:
    status = json.loads(sh(mail, f"cat {MAIL}/status.json"))
    assert status["imap_sessions"] >= 1
    ports = json.loads(sh(mail, f"cat {MAIL}/server.json"))
    listening = sh(mail, "cat /proc/net/tcp")
    for port in ports.values():
        assert f"0100007F:{port:04X} 00000000:0000 0A" in listening  # on loopback only
    user = sh(mail, "id -u").strip()
    owners = sh(mail, "ps -eo uid=,args= | grep -E 'dovecot/imap|thunderbird.server' | grep \"$HOME\" | grep -v grep")
    assert owners and all(line.split()[0] == user for line in owners.splitlines())
    user_js = sh(mail, f"cat {PROFILE}/user.js")
    assert f'"mail.server.server1.port", {ports["imap_port"]}' in user_js
    assert '"mail.shell.checkDefaultClient", false' in user_js


def test_other_users_are_refused(mail: GuestClient) -> None:
    port = json.loads(sh(mail, f"cat {MAIL}/server.json"))["imap_port"]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:  # this test runs as another user
        sock.settimeout(10)
        assert sock.recv(100) == b""  # closed without a greeting
    assert json.loads(sh(mail, f"cat {MAIL}/status.json"))["rejected"] >= 1


def test_folders_and_messages_match_the_store(mail: GuestClient) -> None:
    folders = {f["name"]: f for f in tb(mail, "list_folders")}
    assert {"INBOX", "Sent", "Drafts", "Trash", "Archive", "Projects"} <= set(folders)
    assert folders["INBOX"]["messages"] == len(maildir_files(mail, "INBOX")) == 3
    assert folders["INBOX"]["unread"] == 2
    messages = tb(mail, "list_messages", folder="INBOX")
    assert [m["subject"] for m in messages] == ["Budget plan", "Expenses March", "Team lunch"]
    assert messages[1]["attachments"] == [{"filename": "march.csv", "content_type": "text/csv", "size": len(CSV)}]
    assert [m["uid"] for m in tb(mail, "list_messages", folder="INBOX", from_contains="SENDER3")] == [3]
    text = tb(mail, "read_message", folder="INBOX", uid=2)["text"]
    assert "Body of message 2." in text
    with pytest.raises(GuestError, match="no message with uid 99"):
        tb(mail, "read_message", folder="INBOX", uid=99)
    with pytest.raises(GuestError, match="no folder 'Nope'"):
        tb(mail, "list_messages", folder="Nope")
    with pytest.raises(GuestError, match="not a folder name"):
        tb(mail, "list_messages", folder='x"y')
    with pytest.raises(GuestError, match="limit must be"):
        tb(mail, "list_messages", limit=10**6)


def test_flags_moves_and_folders_land_in_the_store(mail: GuestClient) -> None:
    tb(mail, "create_folder", name="Receipts")
    assert sh(mail, f"test -d {MAIL}/Maildir/.Receipts && echo yes").strip() == "yes"
    with pytest.raises(GuestError, match="exists already"):
        tb(mail, "create_folder", name="Receipts")
    flagged = tb(mail, "set_flags", folder="INBOX", uid=3, read=True, starred=True)
    assert set(flagged["flags"]) == {"read", "starred"}
    assert any(name.endswith(":2,FS") for name in maildir_files(mail, "INBOX"))  # dovecot's flags on disk
    moved = tb(mail, "copy_message", folder="INBOX", uid=1, to_folder="Receipts")
    assert moved["folder"] == "Receipts" and len(maildir_files(mail, "Receipts")) == 1
    tb(mail, "move_message", folder="Projects", uid=1, to_folder="Receipts")
    assert len(maildir_files(mail, "Receipts")) == 2 and maildir_files(mail, "Projects") == []
    trashed = tb(mail, "delete_message", folder="Receipts", uid=moved["uid"])
    assert trashed["folder"] == "Trash" and len(maildir_files(mail, "Trash")) == 1
    tb(mail, "delete_message", folder="Trash", uid=trashed["uid"])
    assert maildir_files(mail, "Trash") == []
    with pytest.raises(GuestError, match="uid must be"):
        tb(mail, "set_flags", folder="INBOX", uid=-1, read=True)
    with pytest.raises(GuestError, match="set read and/or starred"):
        tb(mail, "set_flags", folder="INBOX", uid=1)


def test_sent_mail_is_spooled_kept_in_sent_and_shown_by_thunderbird(mail: GuestClient) -> None:
    sent = tb(mail, "send_message", to=["me@desktop.test"], subject="Note to self 42", body="remember the milk")
    spool = sh(mail, f"ls {MAIL}/outgoing").split()
    eml = mail.get_file(f"{MAIL}/outgoing/{sorted(n for n in spool if n.endswith('.eml'))[-1]}")
    assert b"Subject: Note to self 42" in eml and sent["message_id"].encode() in eml
    assert any(m["subject"] == "Note to self 42" for m in tb(mail, "list_messages", folder="Sent"))

    def shown() -> bool:  # delivered to the inbox, which Thunderbird (idling on it) lists in its window
        return "Note to self 42" in mail.a11y_tree(visible_only=False, timeout=20.0)

    poll_until(shown, 60, "Thunderbird to list the new message", interval=0.5)
    with pytest.raises(GuestError, match="not a mail address"):
        tb(mail, "send_message", to=["nobody"], subject="x", body="y")
    with pytest.raises(GuestError, match="outside the home"):
        tb(mail, "send_message", to=["a@example.com"], subject="x", body="y", attachments=["/etc/passwd"])


def test_reply_forward_and_saved_attachment(mail: GuestClient) -> None:
    before = len(tb(mail, "list_outgoing"))
    tb(mail, "reply", folder="INBOX", uid=2, body="Thanks, received.")
    tb(mail, "forward", folder="INBOX", uid=2, to=["boss@example.com"], body="FYI")
    outgoing = tb(mail, "list_outgoing")[before:]
    reply, forward = outgoing
    assert reply["subject"] == "Re: Expenses March" and reply["rcpt_tos"] == ["sender2@example.com"]
    assert "Thanks, received." in reply["text"] and "> Body of message 2." in reply["text"]
    assert "replied" in tb(mail, "list_messages", folder="INBOX")[1]["flags"]
    assert forward["subject"] == "Fwd: Expenses March" and forward["attachments"][0]["filename"] == "march.csv"
    assert tb(mail, "save_attachment", folder="INBOX", uid=2, filename="march.csv", path="~/Documents/m.csv") == (
        "~/Documents/m.csv"
    )
    assert mail.get_file("~/Documents/m.csv") == CSV
    blob = bytes(range(256)) * 40  # a 10 KB binary attachment: many lines on the wire, CRLF-terminated
    mail.put_file("~/Documents/blob.bin", blob)
    tb(
        mail,
        "send_message",
        to=["me@desktop.test"],
        subject="Blob",
        body="see attached",
        attachments=["~/Documents/blob.bin"],
    )
    arrived = tb(mail, "list_messages", folder="INBOX", subject_contains="Blob")
    assert arrived and arrived[-1]["attachments"][0]["size"] == len(blob)
    mail.put_file("~/Documents/big.bin", b"\x00" * (3 * 2**20))  # over what a listing reads whole
    tb(mail, "send_message", to=["me@desktop.test"], subject="Big one", body="x", attachments=["~/Documents/big.bin"])
    big = tb(mail, "list_messages", folder="INBOX", subject_contains="Big one")[-1]
    assert big["subject"] == "Big one" and "not listed" in big["attachments"]
    assert tb(mail, "read_message", folder="INBOX", uid=big["uid"])["attachments"][0]["size"] == 3 * 2**20
    with pytest.raises(GuestError, match="no attachment 'x.csv'"):
        tb(mail, "save_attachment", folder="INBOX", uid=2, filename="x.csv", path="~/Documents/x.csv")
    with pytest.raises(GuestError, match="outside the home"):
        tb(mail, "save_attachment", folder="INBOX", uid=2, filename="march.csv", path="~/../../etc/x.csv")


def test_contacts_filters_and_preferences_in_the_profile(mail: GuestClient) -> None:
    tb(mail, "add_contact", name="Ana Lima", email="ana@example.com")
    rows = sh(
        mail,
        f"python3 -c \"import sqlite3,os; print(sqlite3.connect(os.path.expanduser('{PROFILE}/abook.sqlite'))"
        '.execute(\\"select value from properties where name=\'PrimaryEmail\'\\").fetchall())"',
    )
    assert "ana@example.com" in rows
    assert {"name": "Ana Lima", "email": "ana@example.com"} in tb(mail, "list_contacts")
    move = {"field": "subject", "operator": "contains", "action": "Move to folder"}
    tb(mail, "create_filter", name="Receipts", value="receipt", to_folder="Projects", **move)
    rules = sh(mail, f"cat {PROFILE}/ImapMail/127.0.0.1/msgFilterRules.dat")
    assert (
        'actionValue="imap://me@127.0.0.1/Projects"' in rules and 'condition="AND (subject,contains,receipt)"' in rules
    )
    with pytest.raises(GuestError, match="no folder 'Nope'"):
        tb(mail, "create_filter", name="X", value="x", to_folder="Nope", **move)
    with pytest.raises(GuestError, match="field must be one of"):
        tb(mail, "create_filter", name="X", field="date", operator="contains", value="x", action="Delete")
    tb(mail, "set_preference", key="mail.spellcheck.inline", value=False)
    assert tb(mail, "get_preference", key="mail.spellcheck.inline") is False
    with pytest.raises(GuestError, match="belongs to the session's account"):
        tb(mail, "set_preference", key="mail.server.server1.port", value=1)
    with pytest.raises(GuestError, match="not a preference name"):
        tb(mail, "set_preference", key="bad key", value=1)
    # opening Thunderbird while it runs restarts it (one per profile); the agent's preference stays in user.js
    first = json.loads(sh(mail, f"cat {MAIL}/status.json"))["pid"]
    again = mail.launch_app("thunderbird", None, timeout=120.0)
    assert again.alive and again.pid != first
    assert sh(mail, f"cat /proc/{first}/cmdline 2>/dev/null | wc -c").strip() == "0"  # gone (or a zombie)
    assert '"mail.spellcheck.inline", false' in sh(mail, f"cat {PROFILE}/user.js")
    assert tb(mail, "list_filters")[0]["name"] == "Receipts"
    assert {"name": "Ana Lima", "email": "ana@example.com"} in tb(mail, "list_contacts")


def test_nothing_of_the_mail_server_outlives_the_desktop() -> None:
    """A desktop of its own: launch Thunderbird, close the desktop, no process of the launch remains."""
    backend = LocalBackend(width=1024, height=640)
    backend.start()
    try:
        handle = backend.start()
        guest = GuestClient(handle.address, token=handle.token, timeout=30.0)
        guest.wait_ready()
        guest.launch_app("thunderbird", None, timeout=120.0)
        home = guest.exec('printf %s "$HOME"', shell=True).stdout
        guest.close()
    finally:
        backend.close()

    def gone() -> bool:
        import subprocess

        listing = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
        return home not in listing

    poll_until(gone, 30, f"every process of {home} to end")
