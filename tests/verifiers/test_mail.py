"""The mail verifiers on real data: raw RFC 5322 messages as the SMTP server spools them, prefs.js and
user.js text, msgFilterRules.dat, an address book written by the tools' own code (with its WAL), and
folder listings as ThunderbirdTools returns them. Each passes on the state asked and fails on a near miss."""

from __future__ import annotations

import hashlib
import io
import shutil
import sqlite3
from pathlib import Path

import openpyxl

from desktop_gym.apps.thunderbird import addressbook
from desktop_gym.apps.thunderbird.messages import build_message
from desktop_gym.verifiers import (
    verify_mail_contact,
    verify_mail_filter,
    verify_mail_flags,
    verify_mail_folders,
    verify_mail_location,
    verify_mail_prefs,
    verify_mail_sent,
    verify_sheet_table,
)


def raw(to: list[str], subject: str, body: str, **kwargs: object) -> bytes:
    return build_message(to, subject, body, **kwargs).as_bytes()  # type: ignore[arg-type]


def test_mail_sent_needs_exactly_one_message_to_exactly_the_recipients() -> None:
    spool = [raw(["ana@example.com"], "Hello", "see you at ten"), raw(["ben@example.org"], "Other", "x")]
    assert verify_mail_sent(spool, ["ANA@example.com"], subject="Hello", text_contains=["See you"]).success
    assert not verify_mail_sent(spool, ["ana@example.com"], subject="Hello!").success
    assert not verify_mail_sent(spool, ["ana@example.com"], text_contains=["at eleven"]).success
    assert not verify_mail_sent(spool, ["ana@example.com", "ben@example.org"]).success
    assert not verify_mail_sent([*spool, spool[0]], ["ana@example.com"]).success  # sent twice
    assert not verify_mail_sent(
        [raw(["ana@example.com"], "Hello", "x", cc=["c@example.com"])], ["ana@example.com"]
    ).success


def test_mail_sent_checks_the_thread_and_the_attachment() -> None:
    reply = raw(["ana@example.com"], "Re: Plan", "ok", in_reply_to="<a@example.com>")
    assert verify_mail_sent(
        [reply], ["ana@example.com"], subject_startswith="re:", in_reply_to="<a@example.com>"
    ).success
    assert not verify_mail_sent([reply], ["ana@example.com"], in_reply_to="<b@example.com>").success
    book = openpyxl.Workbook()
    book.active.append(["Region", "Sales"])
    book.active.append(["North", 5])
    data = io.BytesIO()
    book.save(data)
    sent = [raw(["ana@example.com"], "Report", "attached", files=[("r.xlsx", data.getvalue())])]
    digest = hashlib.sha256(data.getvalue()).hexdigest()
    assert verify_mail_sent(sent, ["ana@example.com"], attachment={"filename": "r.xlsx", "sha256": digest}).success
    assert not verify_mail_sent(
        sent, ["ana@example.com"], attachment={"filename": "r.xlsx", "sha256": "0" * 64}
    ).success
    assert not verify_mail_sent(sent, ["ana@example.com"], attachment={"filename": "s.xlsx", "sha256": digest}).success

    def table(rows: list[list[object]]) -> dict[str, object]:
        return {"filename": "r.xlsx", "check": lambda b: verify_sheet_table(b, rows, tolerance=0)}

    assert verify_mail_sent(sent, ["ana@example.com"], attachment=table([["Region", "Sales"], ["North", 5]])).success
    assert not verify_mail_sent(
        sent, ["ana@example.com"], attachment=table([["Region", "Sales"], ["North", 6]])
    ).success


def test_mail_prefs_user_js_wins_and_types_count() -> None:
    prefs_js = b'user_pref("mail.spellcheck.inline", true);\nuser_pref("mailnews.display.html_as", 1);\n'
    user_js = b'user_pref("mail.spellcheck.inline", false);\n'
    assert verify_mail_prefs(
        prefs_js, user_js, {"mail.spellcheck.inline": False, "mailnews.display.html_as": 1}
    ).success
    assert not verify_mail_prefs(prefs_js, None, {"mail.spellcheck.inline": False}).success
    assert not verify_mail_prefs(prefs_js, user_js, {"mailnews.display.html_as": True}).success  # 1 is not true
    assert not verify_mail_prefs(prefs_js, user_js, {"mail.biff.show_alert": False}).success  # unset


def test_mail_filter_needs_the_condition_and_the_action() -> None:
    rules = (
        b'version="9"\nlogging="no"\nname="R"\nenabled="yes"\ntype="17"\naction="Move to folder"\n'
        b'actionValue="imap://me@127.0.0.1/Receipts"\ncondition="AND (subject,contains,Receipt)"\n'
    )
    uri = "imap://me@127.0.0.1/Receipts"
    assert verify_mail_filter(rules, "subject", "contains", "receipt", "Move to folder", uri).success
    assert not verify_mail_filter(rules, "subject", "contains", "receipts", "Move to folder", uri).success
    assert not verify_mail_filter(rules, "from", "contains", "receipt", "Move to folder", uri).success
    assert not verify_mail_filter(rules, "subject", "contains", "receipt", "Copy to folder", uri).success
    disabled = rules.replace(b'enabled="yes"', b'enabled="no"')
    assert not verify_mail_filter(disabled, "subject", "contains", "receipt", "Move to folder", uri).success


def test_mail_contact_reads_the_book_and_its_write_ahead_log(tmp_path: Path) -> None:
    book = tmp_path / "abook.sqlite"
    addressbook.add_contact(book, "Ana Lima", "ana@example.com")
    keeper = sqlite3.connect(book)  # held open, like Thunderbird: the next card stays in the WAL
    keeper.execute("PRAGMA wal_autocheckpoint=0")
    keeper.execute("SELECT count(*) FROM properties").fetchone()  # attached to the WAL, which then stays
    addressbook.add_contact(book, "Ben Okafor", "ben@example.org")
    copy = tmp_path / "copy.sqlite"
    shutil.copy(book, copy)
    wal = Path(f"{book}-wal").read_bytes()
    assert verify_mail_contact(copy.read_bytes(), "Ana Lima", "ana@example.com", wal=wal).success
    assert verify_mail_contact(copy.read_bytes(), "Ben Okafor", "BEN@example.org", wal=wal).success
    assert not verify_mail_contact(copy.read_bytes(), "Ben Okafor", "ben@example.org").success  # only in the WAL
    assert not verify_mail_contact(copy.read_bytes(), "Ben O.", "ben@example.org", wal=wal).success
    assert not verify_mail_contact(copy.read_bytes(), "Cleo", "cleo@example.org", wal=wal).success
    keeper.close()


def test_mail_location_flags_and_folders() -> None:
    a = {"message_id": "<a@x>", "subject": "A", "flags": ["read"]}
    b = {"message_id": "<b@x>", "subject": "B", "flags": ["starred"]}
    folders = {"INBOX": [a], "Receipts": [b], "Trash": []}
    assert verify_mail_location(folders, "<b@x>", "Receipts").success
    assert not verify_mail_location(folders, "<b@x>", "INBOX").success
    assert not verify_mail_location({**folders, "Trash": [b]}, "<b@x>", "Receipts").success  # a copy too
    assert verify_mail_location(folders, "<c@x>", None).success
    assert verify_mail_flags([a, b], {"<a@x>": {"read": True, "starred": False}, "<b@x>": {"starred": True}}).success
    assert not verify_mail_flags([a, b], {"<a@x>": {"starred": True}}).success
    assert not verify_mail_flags([a], {"<b@x>": {"starred": True}}).success
    assert verify_mail_folders([{"name": "INBOX"}, {"name": "Receipts"}], ["Receipts"]).success
    assert not verify_mail_folders([{"name": "INBOX"}], ["receipts"]).success
