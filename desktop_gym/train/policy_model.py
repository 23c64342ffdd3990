"""The trainer's sampling policy: a local model whose generations carry token ids, log-probs and a version.

Sampling and training see the same prompt: :func:`~desktop_gym.train.model_ops.prompt_token_ids`
(one prompt budget, one cut rule) gives the ids generation is fed and the ids a training sample
is built from. Every input tensor goes to the model's device, autocast runs on its device type,
and the recorded log-probs are those of the distribution actually sampled from (logits divided by
the temperature), so the asynchronous stale-sample weight compares like with like.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop_gym.episode.prompts import Generation, Messages, text_only

from ..llm.precision import generation_bf16
from .model_ops import END_OF_TURN, model_device, prompt_token_ids

_generate_lock = threading.Lock()  # torch's global RNG and the model are shared by the rollout threads


@dataclass(eq=False, repr=False)
class VersionedPolicy:
    """A local model as a ``Policy`` whose generations carry the weights' version.

    Args:
        model: the causal LM (on any device).
        tokenizer: its tokenizer.
        temperature: sampling temperature (0: greedy).
        max_new_tokens: the longest answer.
        one_line: keep only the first line of each answer (as tokens ending in end-of-turn).
        max_prompt_tokens: the prompt budget (shared with training).
        prompt_overflow: the cut rule past the budget (``error`` or ``left``).
        bf16: bfloat16 autocast on the model's device.
    """

    model: Any
    tokenizer: Any
    temperature: float
    max_new_tokens: int
    one_line: bool
    max_prompt_tokens: int = 1024
    prompt_overflow: str = "error"
    bf16: bool = True
    version: int = field(default=0, init=False)

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        """One completion per prompt (a trailing assistant message is the prefill, continued)."""
        prompts = [
            prompt_token_ids(self.tokenizer, text_only(messages), self.max_prompt_tokens, self.prompt_overflow)
            for messages in batch
        ]
        generations = self.generate_ids(prompts)
        for generation in generations:
            generation.policy_version = self.version
            if self.one_line and "\n" in generation.text:
                self._cut_at_newline(generation)
        return generations

    def generate_ids(self, prompts: Sequence[Sequence[int]], inputs: dict[str, Any] | None = None) -> list[Generation]:
        """Sample a continuation of each prompt (token ids), left-padded into one batch on the model's device.

        ``inputs`` are further model inputs for the batch (a vision prompt's pixel inputs).
        """
        import torch

        from .vision import model_inputs

        if not prompts:
            return []
        tokenizer = self.tokenizer
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        device = model_device(self.model)
        width = max(len(ids) for ids in prompts)
        input_ids = torch.full((len(prompts), width), int(pad_id), dtype=torch.long)
        attention = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, ids in enumerate(prompts):
            input_ids[row, width - len(ids) :] = torch.tensor(list(ids), dtype=torch.long)
            attention[row, width - len(ids) :] = 1
        # On a CPU, bf16 pays only with bf16 instructions and for long prompts (llm.precision).
        bf16 = self.bf16 and generation_bf16(device, width)
        sampling: dict[str, Any] = {"do_sample": False}
        if self.temperature > 0:
            sampling = {"do_sample": True, "temperature": self.temperature, "top_p": 1.0, "top_k": 0}
        with _generate_lock, torch.inference_mode():
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
                output = self.model.generate(
                    input_ids=input_ids.to(device),
                    attention_mask=attention.to(device),
                    max_new_tokens=self.max_new_tokens,
                    pad_token_id=int(pad_id),
                    return_dict_in_generate=True,
                    output_logits=True,
                    **sampling,
                    **model_inputs(inputs or {}, self.model),
                )
        generated = output.sequences[:, width:].cpu()
        logits = torch.stack(output.logits, dim=1).float().cpu()
        if self.temperature > 0:
            logits = logits / self.temperature
        chosen = logits.log_softmax(-1).gather(-1, generated.unsqueeze(-1)).squeeze(-1)
        end_ids = _end_token_ids(tokenizer)
        generations = []
        for row, prompt in enumerate(prompts):
            ids: list[int] = []
            for token in generated[row].tolist():
                ids.append(int(token))
                if token in end_ids:
                    break
            text = tokenizer.decode([t for t in ids if t not in end_ids], skip_special_tokens=True)
            generations.append(
                Generation(
                    text=text,
                    token_logprobs=[float(v) for v in chosen[row, : len(ids)].tolist()],
                    token_ids=ids,
                    extra={"prompt_tokens": len(prompt)},
                )
            )
        return generations

    def _cut_at_newline(self, generation: Generation) -> None:
        """Keep the first line, as tokens ending in end-of-turn (the model learns to stop there)."""
        generation.text = generation.text.split("\n", 1)[0]
        ids = self.tokenizer(generation.text + END_OF_TURN, add_special_tokens=False)["input_ids"]
        generation.token_ids = [int(i) for i in ids]
        generation.token_logprobs = None  # these tokens were not all sampled: no behavior log-probs
        generation.extra["cut_at_newline"] = True


def _end_token_ids(tokenizer: Any) -> set[int]:
    ids = {tokenizer.eos_token_id}
    end_of_turn = tokenizer.convert_tokens_to_ids(END_OF_TURN)
    if isinstance(end_of_turn, int) and end_of_turn != tokenizer.unk_token_id:
        ids.add(end_of_turn)
    return {i for i in ids if i is not None}
