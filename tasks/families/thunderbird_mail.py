"""Thunderbird families on the server's folders: move, delete, star, mark read, create a folder.

Each starts with seeded inbox mail; the verifier reads where each message is (by its Message-ID) and its
flags on the server, which Thunderbird shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_mail_flags, verify_mail_folders, verify_mail_location
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .thunderbird_base import FOLDERS, ThunderbirdTask, mailbox_state, tb_call


def _other(params: Mapping[str, Any], rng: np.random.Generator) -> int:
    """Another message's index than ``params["target"]``."""
    count = len(params["messages"])
    return (params["target"] + 1 + int(rng.integers(count - 1))) % count


class OneMessage(ThunderbirdTask):
    """A task about one seeded inbox message, ``target``."""

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.mail_params(rng)
        return {**params, "target": int(rng.integers(len(params["messages"])))}

    def instruction_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        item = params["messages"][params["target"]]
        return {"sender": item["name"], "subject": item["subject"]}

    def instruction(self, params: Mapping[str, Any]) -> str:
        return self.goal.format(**params, **self.instruction_params(params))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        """Another message as the target."""
        return {**params, "target": _other(params, rng)}

    def verify_target_moved(self, ctx: TaskContext, folder: str) -> VerifierResult:
        """The target message is in ``folder`` and every other one still in the inbox."""
        state = mailbox_state(ctx)
        checks = {}
        for index, item in enumerate(ctx.params["messages"]):
            where = folder if index == ctx.params["target"] else "INBOX"
            checks[f"message_{index}"] = verify_mail_location(state, item["message_id"], where)
        return all_of(checks)


class MoveMessage(OneMessage):
    """Move one message into an existing folder."""

    id = "thunderbird.move_message"
    oracles = ("api",)
    goal = 'In Thunderbird, move the message from {sender} with the subject "{subject}" to the folder {folder}.'
    tags = ("thunderbird", "mail", "folders")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**super().sample_params(rng), "folder": pick(rng, FOLDERS)}

    def folders(self, params: Mapping[str, Any]) -> tuple[str, ...]:
        return (params["folder"],)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return self.verify_target_moved(ctx, ctx.params["folder"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        uid = params["target"] + 1
        return api_calls(tb_call("move_message", folder="INBOX", uid=uid, to_folder=params["folder"]))


class DeleteMessage(OneMessage):
    """Delete one message (it goes to Trash)."""

    id = "thunderbird.delete_message"
    oracles = ("api",)
    goal = 'In Thunderbird, delete the message from {sender} with the subject "{subject}".'
    tags = ("thunderbird", "mail", "folders")

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return self.verify_target_moved(ctx, "Trash")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(tb_call("delete_message", folder="INBOX", uid=params["target"] + 1))


class StarMessage(OneMessage):
    """Star (flag) one message; the others stay unstarred and their read state stays."""

    id = "thunderbird.star_message"
    oracles = ("api",)
    goal = 'In Thunderbird, star the message from {sender} with the subject "{subject}".'
    tags = ("thunderbird", "mail", "flags")

    def verify(self, ctx: TaskContext) -> VerifierResult:
        messages = self.state(ctx, "list_messages", folder="INBOX", limit=200)
        expected = {
            item["message_id"]: {"starred": index == ctx.params["target"], "read": item["read"]}
            for index, item in enumerate(ctx.params["messages"])
        }
        return verify_mail_flags(messages, expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(tb_call("set_flags", folder="INBOX", uid=params["target"] + 1, starred=True))


class MarkSenderRead(ThunderbirdTask):
    """Mark every message from one sender read (two unread ones); the rest keep their state."""

    id = "thunderbird.mark_sender_read"
    oracles = ("api",)
    goal = "In Thunderbird, mark all messages from {sender} as read, and leave the other messages as they are."
    tags = ("thunderbird", "mail", "flags")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        messages = seed_with_repeat(self.mail_params(rng)["messages"], rng)
        return {"messages": messages, "sender": messages[-1]["name"]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        messages = self.state(ctx, "list_messages", folder="INBOX", limit=200)
        expected = {
            item["message_id"]: {"read": item["read"] or item["name"] == ctx.params["sender"]}
            for item in ctx.params["messages"]
        }
        return verify_mail_flags(messages, expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        uids = [i + 1 for i, item in enumerate(params["messages"]) if item["name"] == params["sender"]]
        return api_calls(*(tb_call("set_flags", folder="INBOX", uid=uid, read=True) for uid in uids))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [item["name"] for item in params["messages"] if item["name"] != params["sender"] and not item["read"]]
        return {**params, "sender": others[0] if others else params["messages"][0]["name"]}


def seed_with_repeat(messages: list[dict[str, Any]], rng: np.random.Generator) -> list[dict[str, Any]]:
    """The messages with the last two from the same sender and unread, and one other message unread."""
    last = dict(messages[-1])
    twin = dict(messages[-2], name=last["name"], address=last["address"], read=False)
    messages = [*messages[:-2], twin, {**last, "read": False}]
    other = int(rng.integers(len(messages) - 2))
    messages[other] = {**messages[other], "read": False}
    return messages


class CreateFolder(ThunderbirdTask):
    """Create a new mail folder on the account."""

    id = "thunderbird.create_folder"
    oracles = ("api",)
    goal = "In Thunderbird, create a new folder named {name} in the account {account}."
    tags = ("thunderbird", "mail", "folders")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = pick(rng, ("Reports", "Vendors", "Events", "Support", "Invoices", "Partners"))
        name = f"{stem} {int(rng.integers(2020, 2030))}"
        return {**self.mail_params(rng, 3), "name": name, "account": "me@desktop.test"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_mail_folders(self.state(ctx, "list_folders"), [ctx.params["name"]])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(tb_call("create_folder", name=params["name"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "name": params["name"].replace(" ", "_")}
