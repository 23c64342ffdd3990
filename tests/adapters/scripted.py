"""Scripted answerers for adapter tests: they read the task from the prompt and answer like the oracle.

Only the adapter tests use them, to prove that a correct episode earns the verifier's reward (and a
wrong one earns 0) through each trainer's own code path; the model-driven runs use the
transformers stand-ins.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from desktop_gym.llm.server import serving
from desktop_gym.train.adapters.standins import StandInSample

_TASK = re.compile(r"Enter the number (\d+) into cell ([A-Z]+\d+)")
DEMO_PREFILL = 'CalcTools.set_cell_value(cell="'
"""The learning demo's prefill (``desktop_gym.train.demo.DEMO_PREFILL``), spelled out so a change there
cannot silently change what these tests check."""


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


def demo_answer(prompt_text: str, wrong: bool) -> str:
    """The one call that solves ``demo.enter_number`` (or, when ``wrong``, the value plus one)."""
    found = _TASK.findall(prompt_text)
    if not found:
        raise AssertionError(f"no enter-number instruction in the prompt: {prompt_text[-300:]!r}")
    value, cell = found[-1]
    return f'CalcTools.set_cell_value(cell="{cell}", value={int(value) + (1 if wrong else 0)})'


@dataclass
class StandInScriptedModel:
    """Stand-in for the policy model on ``demo.enter_number``: it answers with the oracle's call text.

    It reads the instruction from the prompt and answers the episodes whose index (in call order) is
    in ``wrong_episodes`` with the value plus one (the task's own perturbation), the others
    correctly. When the prompt ends with ``prefill`` it answers only the rest of the call, as a model
    continuing a prefill would. It serves TRL's ``rollout_func`` sampler call (token ids in, token ids
    and log-probs out); :meth:`answer` serves text endpoints.
    """

    tokenizer: object = None
    prefill: str = ""
    wrong_episodes: frozenset[int] = frozenset({1})
    answers: list[tuple[str, bool]] = field(default_factory=list)

    def answer(self, prompt_text: str) -> str:
        """The next answer's text for a prompt (one episode per call: the demo task is one step)."""
        wrong = len(self.answers) in self.wrong_episodes
        text = demo_answer(prompt_text, wrong)
        self.answers.append((text, wrong))
        if self.prefill and prompt_text.endswith(self.prefill):
            return text[len(self.prefill) :]
        return text

    def sample(self, prompt_ids: list[int], max_new_tokens: int, temperature: float = 1.0) -> StandInSample:
        """TRL ``rollout_func`` sampler call: the answer's tokens, ending with ``<|im_end|>``."""
        text = self.answer(self.tokenizer.decode(prompt_ids))
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        ids = ids[: max_new_tokens - 1] + [self.tokenizer.convert_tokens_to_ids("<|im_end|>")]
        return StandInSample(token_ids=ids, logprobs=[-0.1] * len(ids), finish_reason="stop")


@contextmanager
def scripted_endpoint(model: StandInScriptedModel, startup_timeout: float = 30.0) -> Iterator[str]:
    """An OpenAI-compatible chat endpoint answering with ``model``'s scripted text; yields its base URL.

    Each request is answered from its last user message (the observation holding the instruction).

    Raises:
        TimeoutError: the server did not start listening within ``startup_timeout`` seconds.
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def chat_completions(request: Request) -> JSONResponse:
        body = await request.json()
        users = [m.get("content") or "" for m in body["messages"] if m.get("role") == "user"]
        text = model.answer(str(users[-1]))
        message = {"role": "assistant", "content": text}
        choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        answer = {"id": "scripted", "object": "chat.completion", "created": int(time.time()), "model": body["model"]}
        return JSONResponse({**answer, "choices": [choice], "usage": usage})

    app = Starlette(routes=[Route("/v1/chat/completions", chat_completions, methods=["POST"])])
    with serving(app, startup_timeout=startup_timeout, what="the scripted endpoint") as url:
        yield url


@contextmanager
def outage_endpoint(startup_timeout: float = 30.0) -> Iterator[str]:
    """An OpenAI-compatible endpoint that is down: every chat completion is answered 503; yields its base URL."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def chat_completions(request: Request) -> JSONResponse:
        error = {"message": "the model server is overloaded", "type": "server_error", "code": 503}
        return JSONResponse({"error": error}, status_code=503)

    app = Starlette(routes=[Route("/v1/chat/completions", chat_completions, methods=["POST"])])
    with serving(app, startup_timeout=startup_timeout, what="the outage endpoint") as url:
        yield url
