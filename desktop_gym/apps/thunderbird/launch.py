"""Starting Thunderbird with the session's mail server, and knowing when it is usable (the app's launch
and ready hooks).

:func:`thunderbird_argv` writes dovecot's configuration and two fresh loopback ports (``server.json``),
the Maildir skeleton, and the profile's ``user.js``: the IMAP account on the session's server
(preauthenticated: no password to store), the SMTP server, and no first-run wizard, start page, update
check, telemetry or default-client prompt. Preferences the agent set in user.js stay (the account's keys
are rewritten). The command runs the mail server (``server.py``), which runs Thunderbird.
:func:`wait_thunderbird_ready` returns once the server serves and Thunderbird has logged in over IMAP and
opened the inbox (its folder summary exists). Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from pathlib import Path

from ...polling import poll_until
from .prefs import PrefValue, format_prefs, read_prefs
from .store import (
    IMAP_HOST,
    USER_ADDRESS,
    USER_LOGIN,
    USER_NAME,
    dovecot_config,
    imap_dir,
    mail_root,
    maildir,
    profile_dir,
    read_json,
    write_json,
)

THUNDERBIRD = "thunderbird"
#: Preferences every launch sets: quiet, offline, no wizards.
QUIET_PREFERENCES: dict[str, PrefValue] = {
    "mail.shell.checkDefaultClient": False,
    "mail.provider.enabled": False,
    "mail.startup.enabledMailCheckOnce": True,
    "mailnews.start_page.enabled": False,
    "mailnews.start_page_override.mstone": "ignore",
    "mail.rights.version": 1,
    "mail.spotlight.firstRunDone": True,
    "mail.winsearch.firstRunDone": True,
    "app.update.enabled": False,
    "app.update.auto": False,
    "app.update.checkInstallTime": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.aboutConfig.showWarning": False,
    "extensions.update.enabled": False,
    "app.donation.eoy.version.viewed": 999,
    "mail.inappnotifications.enabled": False,
    "mailnews.auto_config.fetchFromISP.enabled": False,
    "mail.cloud_files.enabled": False,
    "calendar.integration.notify": False,
    "mail.tabs.loadInBackground": True,
    "mail.folder.views.version": 1,
    # Gecko locks its SQLite files (abook.sqlite) exclusively unless told otherwise; the tools write the book.
    "storage.sqlite.exclusiveLock.enabled": False,
}
#: Seconds a running Thunderbird (and its server) may take to stop before a new launch.
STOP_TIMEOUT_S = 20.0


def free_port() -> int:
    """A loopback port no one listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def account_preferences(imap_port: int, smtp_port: int) -> dict[str, PrefValue]:
    """The IMAP account (server1), Local Folders (server2) and the SMTP server of the session."""
    return {
        "mail.accountmanager.accounts": "account1,account2",
        "mail.accountmanager.defaultaccount": "account1",
        "mail.accountmanager.localfoldersserver": "server2",
        "mail.account.account1.identities": "id1",
        "mail.account.account1.server": "server1",
        "mail.account.account2.server": "server2",
        "mail.identity.id1.fullName": USER_NAME,
        "mail.identity.id1.useremail": USER_ADDRESS,
        "mail.identity.id1.smtpServer": "smtp1",
        "mail.identity.id1.valid": True,
        "mail.identity.id1.fcc_folder": f"imap://{USER_LOGIN}@{IMAP_HOST}/Sent",
        "mail.identity.id1.draft_folder": f"imap://{USER_LOGIN}@{IMAP_HOST}/Drafts",
        "mail.identity.id1.archive_folder": f"imap://{USER_LOGIN}@{IMAP_HOST}/Archive",
        "mail.server.server1.type": "imap",
        "mail.server.server1.hostname": IMAP_HOST,
        "mail.server.server1.name": USER_ADDRESS,
        "mail.server.server1.port": imap_port,
        "mail.server.server1.socketType": 0,
        "mail.server.server1.authMethod": 3,
        "mail.server.server1.userName": USER_LOGIN,
        "mail.server.server1.login_at_startup": True,
        "mail.server.server1.check_new_mail": True,
        "mail.server.server1.check_time": 1,
        "mail.server.server1.directory-rel": f"[ProfD]ImapMail/{IMAP_HOST}",
        "mail.server.server1.offline_download": False,
        "mail.server.server1.autosync_offline_stores": False,
        "mail.server.server2.type": "none",
        "mail.server.server2.hostname": "Local Folders",
        "mail.server.server2.name": "Local Folders",
        "mail.server.server2.userName": "nobody",
        "mail.server.server2.directory-rel": "[ProfD]Mail/Local Folders",
        "mail.smtpservers": "smtp1",
        "mail.smtp.defaultserver": "smtp1",
        "mail.smtpserver.smtp1.type": "smtp",
        "mail.smtpserver.smtp1.hostname": IMAP_HOST,
        "mail.smtpserver.smtp1.port": smtp_port,
        "mail.smtpserver.smtp1.authMethod": 1,
        "mail.smtpserver.smtp1.try_ssl": 0,
        "mail.smtpserver.smtp1.username": "",
        "mail.smtpserver.smtp1.description": "Session SMTP",
    }


def prepare_session(home: Path) -> dict[str, int]:
    """Write the server's configuration and ports, the Maildir skeleton and the profile's user.js."""
    home = Path(home)
    root = mail_root(home)
    for sub in ("cur", "new", "tmp"):
        (maildir(home) / sub).mkdir(parents=True, exist_ok=True)
    (root / "outgoing").mkdir(parents=True, exist_ok=True)
    (root / "dovecot.conf").write_text(dovecot_config(home))
    ports = {"imap_port": free_port(), "smtp_port": free_port()}
    write_json(root / "server.json", ports)
    write_json(root / "status.json", {})
    profile = profile_dir(home)
    imap_dir(home).mkdir(parents=True, exist_ok=True)
    for lock in ("lock", ".parentlock"):  # left by a killed Thunderbird
        (profile / lock).unlink(missing_ok=True)
    user_js = profile / "user.js"
    kept = {k: v for k, v in read_prefs(user_js).items() if not k.startswith(("mail.server.server", "mail.smtp"))}
    user_js.write_text(format_prefs({**kept, **QUIET_PREFERENCES, **account_preferences(**ports)}))
    return ports


def server_running(home: Path) -> bool:
    """Whether the session's mail server (and so its Thunderbird) runs now."""
    pid = read_json(mail_root(Path(home)) / "status.json").get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"desktop_gym.apps.thunderbird.server" in command and str(mail_root(Path(home))).encode() in command


def stop_server(home: Path, timeout: float = STOP_TIMEOUT_S) -> None:
    """Stop the session's running mail server and its Thunderbird (SIGTERM to the launch's process group,
    then SIGKILL); returns once the server has exited."""
    pid = read_json(mail_root(Path(home)) / "status.json").get("pid")
    if not server_running(Path(home)) or not isinstance(pid, int):
        return
    try:
        os.killpg(pid, signal.SIGTERM)  # the server leads the launch's group
    except OSError:
        return
    try:
        poll_until(
            lambda: not server_running(Path(home)), timeout, "Thunderbird to quit", interval=0.05, error=TimeoutError
        )
    except TimeoutError:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        poll_until(
            lambda: not server_running(Path(home)), 5.0, "Thunderbird to be killed", interval=0.05, error=TimeoutError
        )


def thunderbird_argv(home: Path, launch_dir: Path, file: str | None) -> list[str]:
    """The command line: the session's mail server, which runs Thunderbird on the session's profile. A
    Thunderbird that runs already is stopped first (one per profile), so opening it again restarts it and
    it reads the profile's files (user.js, filters, address book) again."""
    profile = profile_dir(Path(home))
    command = [THUNDERBIRD, "--profile", str(profile)]
    stop_server(Path(home))
    prepare_session(Path(home))
    return [sys.executable, "-m", "desktop_gym.apps.thunderbird.server", str(mail_root(Path(home))), "--", *command]


def inbox_opened(home: Path) -> bool:
    """Whether Thunderbird has opened the inbox (it writes the folder's summary file)."""
    return (imap_dir(home) / "INBOX.msf").exists()


def wait_thunderbird_ready(home: Path, launch_dir: Path, deadline: float) -> None:
    """Return once Thunderbird logged in to the session's IMAP server and opened the inbox.

    Raises:
        TimeoutError: not by ``deadline`` (names what was last seen).
    """
    status_path = mail_root(Path(home)) / "status.json"

    def ready() -> bool:
        status = read_json(status_path)
        return int(status.get("imap_sessions", 0) or 0) >= 1 and inbox_opened(Path(home))

    poll_until(
        ready,
        deadline - time.monotonic(),
        f"Thunderbird to log in over IMAP and open the inbox ({status_path})",
        interval=0.1,
        error=TimeoutError,
    )
