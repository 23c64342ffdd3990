"""Thunderbird families that send mail: a new message, a reply, a forward with its attachment.

The verifier reads what the session's SMTP server accepted (the raw spooled messages): the recipients,
the subject, the text, the thread header and the attachment's bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_mail_sent
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .thunderbird_base import SENDERS, TOPICS, ThunderbirdTask, spooled, tb_call
from .thunderbird_mail import OneMessage

PHRASES = ("see you at ten", "approved as planned", "thanks for the update", "count me in", "please resend it")


class SendMessage(ThunderbirdTask):
    """Write and send a new message."""

    id = "thunderbird.send_message"
    oracles = ("api",)
    goal = 'In Thunderbird, send a new email to {to} with the subject "{subject}" whose text says "{phrase}".'
    tags = ("thunderbird", "mail", "compose")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        subject = f"{pick(rng, TOPICS)} follow-up {int(rng.integers(10, 99))}"
        return {
            **self.mail_params(rng, 3),
            "to": pick(rng, SENDERS)[1],
            "subject": subject,
            "phrase": pick(rng, PHRASES),
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        params = ctx.params
        return verify_mail_sent(
            spooled(ctx), [params["to"]], subject=params["subject"], text_contains=[params["phrase"]]
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        body = f"Hello,\n\n{params['phrase'].capitalize()}.\n"
        return api_calls(tb_call("send_message", to=[params["to"]], subject=params["subject"], body=body))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [address for _, address in SENDERS if address != params["to"]]
        return {**params, "to": pick(rng, others)}


class ReplyMessage(OneMessage):
    """Reply to one message with a given sentence."""

    id = "thunderbird.reply_message"
    oracles = ("api",)
    goal = 'In Thunderbird, reply to the message from {sender} with the subject "{subject}" saying "{phrase}".'
    tags = ("thunderbird", "mail", "compose")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**super().sample_params(rng), "phrase": pick(rng, PHRASES)}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        item = ctx.params["messages"][ctx.params["target"]]
        return verify_mail_sent(
            spooled(ctx),
            [item["address"]],
            subject_startswith="Re:",
            text_contains=[ctx.params["phrase"]],
            in_reply_to=item["message_id"],
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        body = f"{params['phrase'].capitalize()}."
        return api_calls(tb_call("reply", folder="INBOX", uid=params["target"] + 1, body=body))


def report_csv(params: Mapping[str, Any]) -> bytes:
    """The seeded CSV report: item,amount rows."""
    lines = ["item,amount", *(f"{name},{amount}" for name, amount in params["rows"])]
    return ("\n".join(lines) + "\n").encode()


class WithCsv(OneMessage):
    """A task whose target message carries a seeded CSV attachment."""

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        items = pick(rng, ("paper", "toner", "coffee", "cables", "chairs", "lamps", "tape", "folders"), 4)
        rows = [[name, int(rng.integers(5, 400))] for name in items]
        return {**super().sample_params(rng), "rows": rows, "csv_name": f"expenses_{int(rng.integers(1, 12)):02d}.csv"}

    def attachment_of(self, params: Mapping[str, Any], index: int) -> tuple[str, str, bytes] | None:
        return (params["csv_name"], "text/csv", report_csv(params)) if index == params["target"] else None


class ForwardAttachment(WithCsv):
    """Forward a message with its CSV attachment to a colleague."""

    id = "thunderbird.forward_attachment"
    oracles = ("api",)
    goal = (
        'In Thunderbird, forward the message from {sender} with the subject "{subject}" (it has a CSV '
        "attachment) to {to}, keeping the attachment."
    )
    tags = ("thunderbird", "mail", "compose", "attachments")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        sender = params["messages"][params["target"]]["address"]
        return {**params, "to": pick(rng, [a for _, a in SENDERS if a != sender])}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        params = ctx.params
        digest = hashlib.sha256(report_csv(params)).hexdigest()
        return verify_mail_sent(
            spooled(ctx),
            [params["to"]],
            subject_startswith="Fwd:",
            attachment={"filename": params["csv_name"], "sha256": digest},
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(tb_call("forward", folder="INBOX", uid=params["target"] + 1, to=[params["to"]]))
