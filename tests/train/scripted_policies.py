"""Scripted policies for the trainer tests on ``demo.enter_number``: they read the instruction from the prompt."""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_gym.episode.prompts import Generation, Messages, text_only

_INSTRUCTION = re.compile(r"number (\d+) into cell ([A-Z]+\d+)")


class InstructionOraclePolicy:
    """Completes the demo prefill with the call the instruction asks for (read from the prompt text)."""

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        answers = []
        for messages in batch:
            text = " ".join(str(m["content"]) for m in text_only(messages) if m["role"] == "user")
            value, cell = _INSTRUCTION.search(text).groups()
            answers.append(Generation(text=f'{cell}", value={value})'))
        return answers


class RightThenWrongPolicy(InstructionOraclePolicy):
    """Scripted rollouts with GRPO signal in every group of 2: every first answer right, every second a wrong
    value (counted across calls, so batches of one alternate too)."""

    def __init__(self) -> None:
        self.answered = 0

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        answers = super().generate(batch)
        for answer in answers:
            if self.answered % 2:
                answer.text = answer.text.replace("value=", "value=1")
            self.answered += 1
        return answers
