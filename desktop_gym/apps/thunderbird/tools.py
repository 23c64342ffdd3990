"""``ThunderbirdTools``: Thunderbird's API, acting on the session's mail server and Thunderbird's profile.

Mail calls go to the session's IMAP server (dovecot) and SMTP server, the ones Thunderbird's account
uses: Thunderbird shows a change made over IMAP within seconds (it keeps the folder open and idles on
it). Contacts (``abook.sqlite``), filters (``msgFilterRules.dat``) and preferences (``user.js``) are
Thunderbird's own profile files: it reads them when it starts, so those changes show at its next
launch. Messages are named by folder and uid (see list_messages). A mistake the agent can make is an
:class:`ApiArgumentError`; the server not running or refusing is an :class:`ApiCallError`.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from ..tools_base import ApiArgumentError, ApiCallError, AppTools
from . import addressbook, filters, prefs
from .arguments import (
    FLAGS,
    MAX_ATTACHMENT_BYTES,
    MAX_ATTACHMENTS,
    MAX_BODY,
    MAX_LIST,
    MAX_SUBJECT,
    NAME_TEXT,
    PATH_TEXT,
    SMTP_TIMEOUT_S,
    addresses,
    checked_text,
    folder_name,
    one_line,
    uid_number,
)
from .imap import ImapSession, MailServerError, quote_mailbox
from .messages import (
    all_addresses,
    attachments,
    build_message,
    parse_message,
    quoted,
    reply_to_address,
    summary,
    text_of,
)
from .store import IMAP_HOST, USER_ADDRESS, USER_LOGIN, imap_dir, mail_root, outgoing, profile_dir, read_json

#: The biggest message list_messages reads whole (to list its attachments).
LIST_BODY_BYTES = 2 * 1024 * 1024


class ThunderbirdTools(AppTools):
    """Thunderbird mail on the session's own server: folders and messages, sending, replying and
    forwarding, moving, flags, attachments, contacts, filters and preferences."""

    uses_uno: ClassVar[bool] = False

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def _imap(self) -> Iterator[ImapSession]:
        try:
            with ImapSession(self.home) as session:
                yield session
        except MailServerError as error:
            raise ApiCallError(str(error)) from None

    def _existing_folder(self, session: ImapSession, folder: str) -> str:
        names = [str(f["name"]) for f in session.folders()]
        if folder not in names:
            raise ApiArgumentError(f"there is no folder {folder!r} (folders: {', '.join(names)})")
        return folder

    def _fetch_one(self, session: ImapSession, folder: str, uid: int) -> tuple[list[str], bytes]:
        self._existing_folder(session, folder)
        session.select(folder)
        found = session.fetch(str(uid), "BODY.PEEK[]")
        if not found:
            raise ApiArgumentError(f"there is no message with uid {uid} in {folder} (see list_messages)")
        return found[0][1], found[0][2]

    def _in_home(self, path: Any) -> Path:
        if not isinstance(path, str) or not PATH_TEXT.fullmatch(path):
            raise ApiArgumentError(f"a path is a non-empty line of text, got {path!r}")
        text = path.strip()
        target = Path(text.replace("~", str(self.home), 1) if text.startswith("~") else text)
        if not target.is_absolute():
            target = self.home / target
        resolved, home = target.resolve(), self.home.resolve()
        if resolved == home or home not in resolved.parents:
            raise ApiArgumentError(f"{path} is outside the home folder")
        return resolved

    def _send(self, message: Any, recipients: Sequence[str]) -> str:
        port = read_json(mail_root(self.home) / "server.json").get("smtp_port")
        if not isinstance(port, int):
            raise ApiCallError("the mail server's port is unknown (launch thunderbird first)")
        raw = message.as_bytes(
            policy=message.policy.clone(linesep="\r\n")
        )  # SMTP's line ends (smtplib sends bytes as they are)
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=SMTP_TIMEOUT_S) as smtp:
                smtp.sendmail(USER_ADDRESS, list(recipients), raw)
        except (OSError, smtplib.SMTPException) as error:
            raise ApiCallError(f"the SMTP server refused the message: {error}") from None
        with self._imap() as session:  # Thunderbird keeps a copy of what it sends in Sent
            session.command("append", quote_mailbox("Sent"), "(\\Seen)", None, raw)
        return str(message["Message-ID"])

    def _files(self, paths: Any) -> list[tuple[str, bytes]]:
        if paths is None:
            return []
        if not isinstance(paths, list) or len(paths) > MAX_ATTACHMENTS:
            raise ApiArgumentError(f"attachments must be a list of at most {MAX_ATTACHMENTS} file paths")
        files = []
        for path in paths:
            target = self._in_home(path)
            if not target.is_file():
                raise ApiArgumentError(f"{path} does not exist")
            if target.stat().st_size > MAX_ATTACHMENT_BYTES:
                raise ApiArgumentError(f"{path} is over {MAX_ATTACHMENT_BYTES // 2**20} MiB")
            files.append((target.name, target.read_bytes()))
        return files

    # ------------------------------------------------------------------ folders and messages
    def list_folders(self) -> list[dict[str, Any]]:
        """The mail folders with their message counts.

        Returns:
            One entry per folder: name ('INBOX', 'Sent', 'Projects/2024'), messages, unread.
        """
        found = []
        with self._imap() as session:
            for folder in session.folders()[:MAX_LIST]:
                name = str(folder["name"])
                data = session.command("status", quote_mailbox(name), "(MESSAGES UNSEEN)")
                text = data[0].decode(errors="replace") if data and isinstance(data[0], bytes) else ""
                counts = dict(re.findall(r"(MESSAGES|UNSEEN) (\d+)", text))
                found.append(
                    {"name": name, "messages": int(counts.get("MESSAGES", 0)), "unread": int(counts.get("UNSEEN", 0))}
                )
        return found

    def list_messages(
        self, folder: str = "INBOX", from_contains: str = "", subject_contains: str = "", limit: int = 50
    ) -> list[dict[str, Any]]:
        """The messages of a folder, oldest first, optionally only those whose sender or subject contains a text.

        Args:
            folder: 'INBOX', 'Sent', 'Trash' or a folder from list_folders.
            from_contains: Keep messages whose From contains this (case-insensitive); '' for all.
            subject_contains: Keep messages whose Subject contains this (case-insensitive); '' for all.
            limit: At most this many (1-200), the newest ones.

        Returns:
            uid, from, to, cc, subject, date, message_id, flags ('read', 'starred', 'replied') and attachments.
        """
        folder = folder_name(folder)
        sender = checked_text(from_contains, "from_contains", 200, empty=True).casefold()
        subject = checked_text(subject_contains, "subject_contains", 200, empty=True).casefold()
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST:
            raise ApiArgumentError(f"limit must be a whole number from 1 to {MAX_LIST}, got {limit!r}")
        with self._imap() as session:
            self._existing_folder(session, folder)
            if session.select(folder) == 0:
                return []
            items = self._summaries(session)
        items = [m for m in items if sender in m["from"].casefold() and subject in m["subject"].casefold()]
        return sorted(items, key=lambda m: m["uid"])[-limit:]

    def _summaries(self, session: ImapSession) -> list[dict[str, Any]]:
        """The newest MAX_LIST messages of the open folder; one over LIST_BODY_BYTES is listed by its headers."""
        found = session.uid("SEARCH", "ALL")
        uids = [int(u) for u in (found[0] or b"").split()][-MAX_LIST:] if found and isinstance(found[0], bytes) else []
        if not uids:
            return []
        sizes = session.sizes(",".join(map(str, uids)))
        small = [u for u in uids if sizes.get(u, 0) <= LIST_BODY_BYTES]
        large = [u for u in uids if u not in set(small)]
        items = (
            [summary(u, f, raw) for u, f, raw in session.fetch(",".join(map(str, small)), "BODY.PEEK[]")]
            if small
            else []
        )
        for uid, flags, raw in session.fetch(",".join(map(str, large)), "BODY.PEEK[HEADER]") if large else []:
            items.append({**summary(uid, flags, raw), "attachments": "not listed: the message is large (read_message)"})
        return items

    def read_message(self, folder: str, uid: int) -> dict[str, Any]:
        """One message with its text (reading it here does not mark it read; use set_flags).

        Args:
            folder: The folder holding it ('INBOX').
            uid: Its uid from list_messages.

        Returns:
            The fields of list_messages plus text (the plain text, at most 20000 characters).
        """
        folder, uid = folder_name(folder), uid_number(uid)
        with self._imap() as session:
            flags, raw = self._fetch_one(session, folder, uid)
        return summary(uid, flags, raw, full=True)

    def create_folder(self, name: str) -> list[str]:
        """Create a mail folder on the server (Thunderbird shows it in its folder pane).

        Args:
            name: Letters, digits, spaces, '_' or '-'; 'Parent/Child' for a subfolder.

        Returns:
            The names of all folders.
        """
        name = folder_name(name, "name")
        with self._imap() as session:
            names = [str(f["name"]) for f in session.folders()]
            if name in names:
                raise ApiArgumentError(f"the folder {name!r} exists already")
            session.command("create", quote_mailbox(name))
            session.command("subscribe", quote_mailbox(name))
            return [str(f["name"]) for f in session.folders()]

    def move_message(self, folder: str, uid: int, to_folder: str) -> dict[str, Any]:
        """Move a message to another folder.

        Args:
            folder: The folder holding it.
            uid: Its uid there.
            to_folder: The destination folder (it must exist; see create_folder).

        Returns:
            folder and uid: where the message is now.
        """
        return self._transfer("MOVE", folder, uid, to_folder)

    def copy_message(self, folder: str, uid: int, to_folder: str) -> dict[str, Any]:
        """Copy a message to another folder (the original stays).

        Args:
            folder: The folder holding it.
            uid: Its uid there.
            to_folder: The destination folder (it must exist).

        Returns:
            folder and uid of the copy.
        """
        return self._transfer("COPY", folder, uid, to_folder)

    def _transfer(self, verb: str, folder: Any, uid: Any, to_folder: Any) -> dict[str, Any]:
        folder, uid, target = folder_name(folder), uid_number(uid), folder_name(to_folder, "to_folder")
        if folder == target:
            raise ApiArgumentError("to_folder is the folder the message is in")
        with self._imap() as session:
            self._existing_folder(session, target)
            self._fetch_one(session, folder, uid)
            session.imap.untagged_responses.pop("COPYUID", None)
            session.uid(verb, str(uid), quote_mailbox(target))
            codes = session.imap.untagged_responses.pop("COPYUID", None) or []
        text = " ".join(c.decode(errors="replace") if isinstance(c, bytes) else str(c) for c in codes)
        copied = re.search(r"\d+ \S+ (\d+)", text)  # COPYUID <uidvalidity> <old uids> <new uids>
        return {"folder": target, "uid": int(copied.group(1)) if copied else None}

    def delete_message(self, folder: str, uid: int) -> dict[str, Any]:
        """Delete a message: it moves to Trash (deleting from Trash removes it for good).

        Args:
            folder: The folder holding it.
            uid: Its uid there.

        Returns:
            folder and uid in Trash ({'folder': None} when removed for good).
        """
        folder, uid = folder_name(folder), uid_number(uid)
        if folder != "Trash":
            return self._transfer("MOVE", folder, uid, "Trash")
        with self._imap() as session:
            self._fetch_one(session, folder, uid)
            session.uid("STORE", str(uid), "+FLAGS.SILENT", "(\\Deleted)")
            session.command("expunge")
        return {"folder": None, "uid": None}

    def set_flags(self, folder: str, uid: int, read: bool | None = None, starred: bool | None = None) -> dict[str, Any]:
        """Mark a message read or unread, starred or not.

        Args:
            folder: The folder holding it.
            uid: Its uid there.
            read: True marks it read, False unread; None leaves it.
            starred: True stars (flags) it, False removes the star; None leaves it.

        Returns:
            The message's summary with its flags now.
        """
        folder, uid = folder_name(folder), uid_number(uid)
        changes = {"read": read, "starred": starred}
        for name, value in changes.items():
            if value is not None and not isinstance(value, bool):
                raise ApiArgumentError(f"{name} must be true, false or null, got {value!r}")
        if read is None and starred is None:
            raise ApiArgumentError("set read and/or starred")
        with self._imap() as session:
            self._fetch_one(session, folder, uid)
            for name, value in changes.items():
                if value is not None:
                    session.uid("STORE", str(uid), "+FLAGS.SILENT" if value else "-FLAGS.SILENT", f"({FLAGS[name]})")
            flags, raw = self._fetch_one(session, folder, uid)
        return summary(uid, flags, raw)

    def save_attachment(self, folder: str, uid: int, filename: str, path: str) -> str:
        """Save one attachment of a message as a file.

        Args:
            folder: The folder holding the message.
            uid: Its uid there.
            filename: The attachment's name, as list_messages shows it.
            path: Where to save it, like '~/Documents/report.csv' (folders are created).

        Returns:
            The saved path.
        """
        folder, uid = folder_name(folder), uid_number(uid)
        one_line(filename, "filename", 255)
        target = self._in_home(path)
        with self._imap() as session:
            _, raw = self._fetch_one(session, folder, uid)
        found = {name: data for name, _, data in attachments(parse_message(raw))}
        if filename not in found:
            raise ApiArgumentError(f"the message has no attachment {filename!r} (it has: {', '.join(found) or 'none'})")
        if target.is_dir():
            raise ApiArgumentError(f"{path} is a folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(found[filename])
        return self.shown_path(target)

    # ------------------------------------------------------------------ sending
    def send_message(
        self,
        to: list[str],
        subject: str,
        body: str,
        cc: list[str] | None = None,
        attachments: list[str] | None = None,
    ) -> dict[str, Any]:
        """Send a new message from the account (a copy is kept in Sent).

        Args:
            to: Recipient addresses, like ['ana@example.com'].
            subject: The subject line.
            body: The plain text.
            cc: Copy recipients.
            attachments: Files to attach, like ['~/Documents/report.xlsx'] (at most 5, 10 MiB each).

        Returns:
            message_id and the recipients.
        """
        recipients = addresses(to, "to")
        copies = addresses(cc or [], "cc", allow_empty=True)
        subject = one_line(subject, "subject", MAX_SUBJECT)
        body = checked_text(body, "body", MAX_BODY, empty=True)
        message = build_message(recipients, subject, body, copies, self._files(attachments))
        return {"message_id": self._send(message, recipients + copies), "to": recipients, "cc": copies}

    def reply(self, folder: str, uid: int, body: str, reply_all: bool = False) -> dict[str, Any]:
        """Reply to a message (subject 'Re: ...', the original quoted below; it is marked replied).

        Args:
            folder: The folder holding it.
            uid: Its uid there.
            body: The reply's text.
            reply_all: Also send to the original's other recipients.

        Returns:
            message_id and the recipients.
        """
        folder, uid = folder_name(folder), uid_number(uid)
        body = checked_text(body, "body", MAX_BODY)
        if not isinstance(reply_all, bool):
            raise ApiArgumentError(f"reply_all must be true or false, got {reply_all!r}")
        with self._imap() as session:
            _, raw = self._fetch_one(session, folder, uid)
        original = parse_message(raw)
        to = [reply_to_address(original)]
        cc = (
            [a for a in all_addresses(original, "To", "Cc") if a.lower() not in {USER_ADDRESS, to[0].lower()}]
            if reply_all
            else []
        )
        subject = str(original.get("Subject", ""))
        subject = subject if subject.lower().startswith("re:") else f"Re: {subject}"
        message = build_message(
            to,
            subject,
            f"{body}\n\n{quoted(original)}\n",
            cc,
            in_reply_to=str(original.get("Message-ID", "")).strip(),
            references=str(original.get("References", "")),
        )
        message_id = self._send(message, to + cc)
        with self._imap() as session:
            session.select(folder)
            session.uid("STORE", str(uid), "+FLAGS.SILENT", "(\\Answered)")
        return {"message_id": message_id, "to": to, "cc": cc}

    def forward(self, folder: str, uid: int, to: list[str], body: str = "") -> dict[str, Any]:
        """Forward a message with its attachments (subject 'Fwd: ...', the original's text below yours).

        Args:
            folder: The folder holding it.
            uid: Its uid there.
            to: Recipient addresses.
            body: Your text above the forwarded message.

        Returns:
            message_id and the recipients.
        """
        folder, uid = folder_name(folder), uid_number(uid)
        recipients = addresses(to, "to")
        body = checked_text(body, "body", MAX_BODY, empty=True)
        with self._imap() as session:
            _, raw = self._fetch_one(session, folder, uid)
        original = parse_message(raw)
        header = f"-------- Forwarded Message --------\nSubject: {original.get('Subject', '')}\n"
        header += f"From: {original.get('From', '')}\n\n"
        text = f"{body}\n\n{header}{text_of(original)}\n"
        message = build_message(
            recipients, f"Fwd: {original.get('Subject', '')}", text, forwarded=attachments(original)
        )
        return {"message_id": self._send(message, recipients), "to": recipients}

    def list_outgoing(self) -> list[dict[str, Any]]:
        """What the mail server has accepted for delivery this session (sent by anyone: Thunderbird or these tools).

        Returns:
            uid (spool number), from, to, cc, subject, date, message_id, attachments and text of each, oldest first.
        """
        items = []
        for path in sorted(outgoing(self.home).glob("*.eml"))[:MAX_LIST]:
            item = summary(int(path.stem), [], path.read_bytes(), full=True)
            item["rcpt_tos"] = read_json(path.with_suffix(".json")).get("rcpt_tos", [])
            items.append(item)
        return items

    # ------------------------------------------------------------------ profile: contacts, filters, preferences
    def list_contacts(self) -> list[dict[str, str]]:
        """The personal address book's contacts.

        Returns:
            name and email of each.
        """
        return [{"name": c["name"], "email": c["email"]} for c in addressbook.read_contacts(self._abook())]

    def add_contact(self, name: str, email: str) -> list[dict[str, str]]:
        """Add a contact to the personal address book (Thunderbird shows it after its next start), or change
        the name of the contact with that email.

        Args:
            name: The display name, like 'Ana Lima'.
            email: The address, like 'ana@example.com'.

        Returns:
            All contacts (name, email).
        """
        name = one_line(name, "name", 100)
        if not NAME_TEXT.fullmatch(name):
            raise ApiArgumentError("name cannot hold <, > or quotes")
        email = addresses(email, "email")[0]
        existing = [c for c in addressbook.read_contacts(self._abook()) if c["email"].lower() == email.lower()]
        if len(addressbook.read_contacts(self._abook())) >= addressbook.MAX_CONTACTS:
            raise ApiCallError("the address book is full")
        if existing:
            addressbook.update_contact(self._abook(), existing[0]["card"], name, None)
        else:
            addressbook.add_contact(self._abook(), name, email)
        return self.list_contacts()

    def _abook(self) -> Path:
        return profile_dir(self.home) / "abook.sqlite"

    def list_filters(self) -> list[dict[str, Any]]:
        """The account's message filters.

        Returns:
            name, enabled, actions ([action, folder URI or '']) and conditions (field, operator, value) of each.
        """
        return self._read_filters()["filters"]

    def create_filter(
        self, name: str, field: str, operator: str, value: str, action: str, to_folder: str = ""
    ) -> list[dict[str, Any]]:
        """Create a message filter for incoming mail (Thunderbird uses it from its next start).

        Args:
            name: The filter's name.
            field: 'subject', 'from', 'to', 'cc' or 'body'.
            operator: 'contains', "doesn't contain", 'is', 'begins with' or 'ends with'.
            value: The text to match (no quotes, commas or parentheses).
            action: 'Move to folder', 'Copy to folder', 'Mark read', 'Mark flagged' or 'Delete'.
            to_folder: For Move/Copy: the destination folder (it must exist).

        Returns:
            All filters.
        """
        name = one_line(name, "name", 100)
        if field not in filters.FIELDS:
            raise ApiArgumentError(f"field must be one of {', '.join(filters.FIELDS)}, got {field!r}")
        if operator not in filters.OPERATORS:
            raise ApiArgumentError(f"operator must be one of {', '.join(filters.OPERATORS)}, got {operator!r}")
        if not isinstance(value, str) or not filters.VALUE.fullmatch(value):
            raise ApiArgumentError("value must be 1-100 characters without quotes, backslashes, commas or parentheses")
        if action not in filters.ACTIONS:
            raise ApiArgumentError(f"action must be one of {', '.join(filters.ACTIONS)}, got {action!r}")
        folder_uri = ""
        if filters.ACTIONS[action]:
            target = folder_name(to_folder, "to_folder")
            with self._imap() as session:
                self._existing_folder(session, target)
            folder_uri = f"imap://{USER_LOGIN}@{IMAP_HOST}/{target}"
        elif to_folder:
            raise ApiArgumentError(f"{action!r} takes no folder")
        parsed = self._read_filters()
        if any(f["name"] == name for f in parsed["filters"]):
            raise ApiArgumentError(f"a filter named {name!r} exists already")
        if len(parsed["filters"]) >= filters.MAX_FILTERS:
            raise ApiCallError(f"there are {filters.MAX_FILTERS} filters already")
        condition = [{"join": "AND", "field": field, "operator": operator, "value": value}]
        parsed["filters"].append(
            {
                "name": name,
                "enabled": True,
                "type": filters.FILTER_TYPE,
                "actions": [[action, folder_uri]],
                "conditions": condition,
            }
        )
        path = imap_dir(self.home) / "msgFilterRules.dat"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(filters.format_filters(parsed))
        return parsed["filters"]

    def _read_filters(self) -> dict[str, Any]:
        path = imap_dir(self.home) / "msgFilterRules.dat"
        try:
            with open(path, "rb") as handle:
                data = handle.read(prefs.MAX_PREFS_BYTES + 1)
        except FileNotFoundError:
            return {"header": {}, "filters": []}
        if len(data) > prefs.MAX_PREFS_BYTES:
            raise ApiCallError("msgFilterRules.dat is too big")
        return filters.parse_filters(data.decode("utf-8", errors="replace"))

    def get_preference(self, key: str) -> Any:
        """A Thunderbird preference as it applies at the next start (prefs.js, then user.js over it).

        Args:
            key: The preference name, like 'mail.spellcheck.inline'.

        Returns:
            Its value (text, number or true/false), or null when it is not set (Thunderbird's default).
        """
        try:
            prefs.check_pref(key, "")
            values = self._preferences()
        except ValueError as error:
            raise ApiArgumentError(str(error)) from None
        return values.get(key)

    def set_preference(self, key: str, value: str | int | bool) -> dict[str, Any]:
        """Set a Thunderbird preference (written to the profile's user.js; Thunderbird applies it at its next start).

        Args:
            key: The preference name, like 'mail.spellcheck.inline'.
            value: Its value: text, a whole number or true/false.

        Returns:
            key and value as saved.
        """
        try:
            prefs.check_pref(key, value)
        except ValueError as error:
            raise ApiArgumentError(str(error)) from None
        if key.startswith(("mail.server.server1.", "mail.smtpserver.smtp1.", "mail.account")):
            raise ApiArgumentError(f"{key} belongs to the session's account, which is fixed")
        path = profile_dir(self.home) / "user.js"
        try:
            values = prefs.read_prefs(path)
        except ValueError as error:
            raise ApiCallError(str(error)) from None
        if key not in values and len(values) >= 2000:
            raise ApiCallError("user.js holds too many preferences")
        values[key] = value
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(prefs.format_prefs(values))
        return {"key": key, "value": value}

    def _preferences(self) -> dict[str, Any]:
        profile = profile_dir(self.home)
        return {**prefs.read_prefs(profile / "prefs.js"), **prefs.read_prefs(profile / "user.js")}
