"""A scripted answerer for adapter tests: it reads the task from the prompt and answers like the oracle.

Only the adapter tests use it, to prove that a correct episode earns the verifier's reward through each
trainer's own code path; the model-driven runs use the transformers stand-ins.
"""

from __future__ import annotations

import re

_TASK = re.compile(r"Enter the number (\d+) into cell ([A-Z]+\d+)")


def oracle_answers(prompt_text: str) -> list[str]:
    """The oracle's actions for ``calc.enter_value`` as seen in ``prompt_text`` (the latest task mention)."""
    found = _TASK.findall(prompt_text)
    if not found:
        raise AssertionError(f"no calc.enter_value instruction in the prompt: {prompt_text[-300:]!r}")
    count, cell = found[-1]
    return [f'CalcTools.set_cell_value(cell="{cell}", value={count})', "CalcTools.save()", "DONE()"]


def oracle_turn(tokenizer, prompt_ids: list[int]) -> list[int]:
    """The token ids of the oracle's next answer (ending with ``<|im_end|>``) for a ChatML prompt."""
    prompt = tokenizer.decode(prompt_ids)
    answers = oracle_answers(prompt)
    turn = prompt.count("<|im_start|>assistant") - 1
    text = answers[min(turn, len(answers) - 1)]
    return tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.convert_tokens_to_ids("<|im_end|>")]
