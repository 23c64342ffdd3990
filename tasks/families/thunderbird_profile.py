"""Thunderbird families on its profile: a contact in the address book, a message filter, a preference
(the settings OSWorld checks in prefs.js). The verifier reads the profile's files: abook.sqlite,
msgFilterRules.dat, prefs.js with user.js over it (what Thunderbird applies at its next start).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...apps.thunderbird.store import IMAP_HOST, USER_LOGIN
from ...verifiers import verify_mail_contact, verify_mail_filter, verify_mail_prefs
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .thunderbird_base import FOLDERS, ThunderbirdTask, profile_file, tb_call

FIRST = ("Iris", "Jonas", "Kemal", "Lena", "Marta", "Nils", "Olga", "Pavel")
LAST = ("Andersen", "Bauer", "Costa", "Duarte", "Eriksen", "Fischer", "Garcia", "Horvat")
#: Settings a task asks for: (preference, value, how the goal says it).
SETTINGS = (
    ("mail.spellcheck.inline", False, "turn off spell checking as you type"),
    ("mailnews.mark_message_read.auto", False, "stop marking messages read automatically when they are displayed"),
    ("mail.biff.show_alert", False, "turn off the new-mail alert"),
    ("mail.default_html_action", 1, "send messages as plain text only (preference mail.default_html_action = 1)"),
    ("mailnews.display.html_as", 1, "show message bodies as plain text (View > Message Body As > Plain Text)"),
    ("mail.warn_on_send_accel_key", False, "stop asking for confirmation when sending with the keyboard shortcut"),
)


class AddContact(ThunderbirdTask):
    """Add a contact to the personal address book."""

    id = "thunderbird.add_contact"
    oracles = ("api",)
    goal = "In Thunderbird, add {name} with the email address {email} to the Personal Address Book."
    tags = ("thunderbird", "mail", "contacts")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        first, last = pick(rng, FIRST), pick(rng, LAST)
        email = f"{first.lower()}.{last.lower()}{int(rng.integers(1, 99))}@example.com"
        return {**self.mail_params(rng, 3), "name": f"{first} {last}", "email": email}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        book, wal = profile_file(ctx, "abook.sqlite"), profile_file(ctx, "abook.sqlite-wal")
        return verify_mail_contact(book, ctx.params["name"], ctx.params["email"], wal=wal)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(tb_call("add_contact", name=params["name"], email=params["email"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "email": params["email"].replace("@", "1@")}


class FilterToFolder(ThunderbirdTask):
    """Create a filter that moves mail whose subject contains a word into a folder."""

    id = "thunderbird.filter_to_folder"
    oracles = ("api",)
    goal = (
        "In Thunderbird, create a message filter for the account that moves incoming messages whose subject "
        'contains "{word}" to the folder {folder}.'
    )
    tags = ("thunderbird", "mail", "filters")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        word = pick(rng, ("invoice", "newsletter", "receipt", "meetup", "ticket", "report"))
        return {**self.mail_params(rng, 3), "word": word, "folder": pick(rng, FOLDERS)}

    def folders(self, params: Mapping[str, Any]) -> tuple[str, ...]:
        return (params["folder"],)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        uri = f"imap://{USER_LOGIN}@{IMAP_HOST}/{ctx.params['folder']}"
        rules = profile_file(ctx, f"ImapMail/{IMAP_HOST}/msgFilterRules.dat")
        return verify_mail_filter(rules, "subject", "contains", ctx.params["word"], "Move to folder", uri)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = tb_call(
            "create_filter",
            name=f"{params['word'].capitalize()} mail",
            field="subject",
            operator="contains",
            value=params["word"],
            action="Move to folder",
            to_folder=params["folder"],
        )
        return api_calls(call)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "word": params["word"] + "s"}


class ChangeSetting(ThunderbirdTask):
    """Change one of Thunderbird's settings (a preference OSWorld checks in prefs.js)."""

    id = "thunderbird.change_setting"
    oracles = ("api",)
    goal = "In Thunderbird's settings, {what}."
    tags = ("thunderbird", "mail", "settings")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        key, value, what = SETTINGS[int(rng.integers(len(SETTINGS)))]
        return {**self.mail_params(rng, 3), "key": key, "value": value, "what": what}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = {ctx.params["key"]: ctx.params["value"]}
        return verify_mail_prefs(profile_file(ctx, "prefs.js"), profile_file(ctx, "user.js"), expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(tb_call("set_preference", key=params["key"], value=params["value"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        value = params["value"]
        return {**params, "value": (not value) if isinstance(value, bool) else value + 1}
