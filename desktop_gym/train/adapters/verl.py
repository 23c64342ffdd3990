"""verl adapter: the ``desktop_gym`` agent loop, one desktop episode per trajectory.

Tested with verl 0.9.1. Importing this module registers the loop with verl's
``@register("desktop_gym")``; point verl at it and name it in the data::

    actor_rollout_ref.rollout.agent.default_agent_loop=desktop_gym
    # and import desktop_gym.train.adapters.verl in the agent-loop workers (e.g. through
    # actor_rollout_ref.rollout.agent.agent_loop_config_path with
    #   - name: desktop_gym
    #     _target_: desktop_gym.train.adapters.verl.DesktopGymAgentLoop)

Each dataset row names its task in ``extra_info`` (``{"task_id": ..., "seed": ...}``, see
:func:`verl_rows`); where desktops come from is ``$DESKTOP_GYM_SOURCE`` (an :class:`EnvSource` as
JSON: env options, or an env server address so the Ray workers hold only a thin client).

``run()`` resets the desktop, builds the first prompt (system prompt with the offered actions,
then the observation) with verl's Continuous Token builder, and then, each turn, asks verl's server
manager for the answer (one sticky request id per trajectory), plays it as one action, and appends
the next observation as a user turn. It returns verl's ``AgentLoopOutput``: prompt and response
ids, the response mask (1 on model tokens, 0 on observation and prefill tokens), log-probabilities,
the reward from the task's verifier, and the turn count. It does not use ``ToolAgentLoop`` (which
creates and releases a tool around every call and cuts tool answers to 256 tokens by default) nor
the removed interactions API.

Vision: when verl hands the loop a multimodal processor (a vision-language model) and the source's
observation includes ``screenshot``, every user turn carries its screenshot as an image block
(``{"type": "image", "image": <PIL image>}``, the form verl's VL token builder renders), the images
go to ``server_manager.generate(image_data=...)``, and the output's ``multi_modal_data`` is
``{"images": [...]}`` in turn order, which verl's worker turns into the processor's pixel inputs
(``_compute_multi_modal_inputs``). The episode's ``max_steps`` caps the image count.

Prompt: ``prompt=`` (or ``$DESKTOP_GYM_PROMPT``, an ``AdapterPrompt`` as JSON) filters the tools
the system prompt describes (all of Calc's is ~2,000 tokens; ``tools=["CalcTools__set_cell_value"]``
is one line), sets the role and action text, and the prefill: the start of every answer, as
``PromptConfig.prefill`` (``$DESKTOP_GYM_PREFILL`` also sets it): its tokens follow each opened
assistant turn (mask 0), the model continues them, and the action played is ``prefill + answer``.

Desktops: verl builds one loop per sample, so desktops live in a per-process pool keyed by the
source (``desktop_gym.train.adapters.pool.DESKTOP_POOL``): a trajectory takes an idle desktop (an
env ``reset``, not a new desktop) or starts one, and gives it back at its end; concurrent
trajectories hold one each. Idle desktops close at process exit.

Step-level variant: verl's agent loop returns one ``AgentLoopOutput`` per prompt, and its data
path (``AgentLoopWorker._postprocess``) pads one sequence per trajectory, so one loop cannot hand
back one sample per step. What it can do is keep the per-step record: ``extra_fields`` carries
``turn_scores`` (0 until the last step, which holds the verifier's reward) and
``step_token_spans`` (where each action lies in the response), which a step-level advantage
estimator can read. Real step-level GRPO runs in desktop-gym's own trainer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopMetrics, AgentLoopOutput, register

from desktop_gym.train.adapters.episode import (
    DesktopEpisode,
    EnvSource,
    screenshot_image,
    source_from_environment,
    task_rows,
)
from desktop_gym.train.adapters.pool import DESKTOP_POOL, DesktopPool
from desktop_gym.train.adapters.prompting import AdapterPrompt, prompt_from_environment

TESTED_VERSION = "0.9.1"
AGENT_NAME = "desktop_gym"


def verl_rows(task_ids: Sequence[str], seeds: Iterable[int] = (0,)) -> list[dict[str, Any]]:
    """verl dataset rows: ``prompt`` (a placeholder chat), ``agent_name`` and the task in ``extra_info``."""
    return [
        {
            "prompt": [{"role": "user", "content": row["task_id"]}],
            "agent_name": AGENT_NAME,
            "data_source": "desktop_gym",
            "extra_info": row,
        }
        for row in task_rows(task_ids, seeds)
    ]


def local_agent_loop(
    server_manager: Any,
    tokenizer: Any,
    *,
    prompt_length: int = 4096,
    response_length: int = 512,
    hf_model_type: str | None = "llama",
    processor: Any = None,
) -> DesktopGymAgentLoop:
    """The loop built as verl's ``AgentLoopWorker`` builds it (registry entry + hydra), for local runs.

    Call it inside the running event loop (verl's loops keep a handle on it); one loop per sample.

    Args:
        server_manager: verl's server manager, or ``StandInVerlServerManager`` where vLLM cannot run.
        tokenizer: the policy's tokenizer.
        prompt_length: verl's ``rollout.prompt_length``.
        response_length: verl's ``rollout.response_length`` (the whole multi-turn response).
        hf_model_type: the model's ``config.model_type`` (picks verl's token builder; SmolLM2 is llama).
        processor: the model's multimodal processor (a vision-language model), or None.
    """
    import hydra
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap, _agent_loop_registry
    from verl.utils.dataset.rl_dataset import RLHFDataset

    rollout = {"prompt_length": prompt_length, "response_length": response_length}
    config = OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}, "data": {}})
    return hydra.utils.instantiate(
        config=_agent_loop_registry[AGENT_NAME],
        trainer_config=DictConfigWrap(config=config),
        server_manager=server_manager,
        tokenizer=tokenizer,
        processor=processor,
        hf_model_type=hf_model_type,
        dataset_cls=RLHFDataset,
        data_config=DictConfigWrap(config.data),
        tools=ToolListWrap([]),
    )


def task_of(fields: Mapping[str, Any]) -> tuple[str, int]:
    """``(task_id, seed)`` from a row's fields (``extra_info`` first, then top-level columns).

    Raises:
        ValueError: no string ``task_id`` in the row (names the fields looked at).
    """
    extra = fields.get("extra_info") or {}
    task_id = extra.get("task_id", fields.get("task_id"))
    if not isinstance(task_id, str):
        raise ValueError("a desktop_gym row needs a string 'task_id' in 'extra_info' (or as a column)")
    return task_id, int(extra.get("seed", fields.get("seed", 0)))


@register(AGENT_NAME)
class DesktopGymAgentLoop(AgentLoopBase):
    """A verl agent loop that plays one desktop episode per trajectory.

    Args:
        *args, **kwargs: what verl's ``AgentLoopWorker`` passes every agent loop.
        source: where desktops come from (default: ``$DESKTOP_GYM_SOURCE``).
        prompt: tool filter, role, action text and prefill (default: ``$DESKTOP_GYM_PROMPT``).
        prefill: the start of every answer; overrides ``prompt.prefill`` (``$DESKTOP_GYM_PREFILL``).
        pool: where trajectories get their desktops (default: :data:`DESKTOP_POOL`).
    """

    def __init__(
        self,
        *args: Any,
        source: EnvSource | None = None,
        prompt: AdapterPrompt | None = None,
        prefill: str | None = None,
        pool: DesktopPool | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("tools", None)  # verl's ToolListWrap: this loop's actions come from the env
        super().__init__(*args, **kwargs)
        self.source = source or source_from_environment()
        self.prompt = prompt or prompt_from_environment()
        self.prefill = self.prompt.prefill if prefill is None else prefill
        self.pool = pool or DESKTOP_POOL
        self.prefill_ids: list[int] = (
            list(self.tokenizer.encode(self.prefill, add_special_tokens=False)) if self.prefill else []
        )
        self.vision = self.processor is not None and "screenshot" in self.source.options["observation"]
        self.response_length = int(self.rollout_config.response_length)

    def _user_message(self, text: str, screenshot: Any, images: list[Any]) -> dict[str, Any]:
        """A user turn: text, with the screenshot as an image block (added to ``images``) in vision mode."""
        if not self.vision or screenshot is None:
            return {"role": "user", "content": text}
        images.append(screenshot_image(screenshot))
        return {"role": "user", "content": [{"type": "image", "image": images[-1]}, {"type": "text", "text": text}]}

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        """Play one episode of the row's task; see the module docstring for the output."""
        task_id, seed = task_of(kwargs)
        episode = self.pool.acquire(self.source)
        try:
            output = await self._play(episode, task_id, seed, sampling_params)
        except BaseException:
            await asyncio.to_thread(episode.close)  # a desktop in an unknown state is not reused
            raise
        self.pool.release(episode)
        return output

    async def _play(
        self, episode: DesktopEpisode, task_id: str, seed: int, sampling_params: dict[str, Any]
    ) -> AgentLoopOutput:
        request_id = uuid4().hex
        first = await asyncio.to_thread(episode.start, task_id, seed)
        system = self.prompt.system([task_id], self.source, episode.prompt)
        images: list[Any] = []
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            self._user_message(first, episode.last_screenshot, images),
        ]
        token_ids = await self.ct_build_initial_tokens(messages, images=images or None)
        token_ids = [*token_ids, *self.prefill_ids]  # the first prefill ends the prompt
        mask: list[int] = []
        logprobs: list[float] | None = [] if sampling_params.get("logprobs") else None
        spans: list[tuple[int, int]] = []
        metrics: dict[str, float] = {"generate_sequences": 0.0, "tool_calls": 0.0}
        turns = 2
        while True:
            started = asyncio.get_running_loop().time()
            output = await self.server_manager.generate(
                request_id=request_id,
                prompt_ids=token_ids,
                sampling_params=sampling_params,
                image_data=list(images) if images else None,
            )
            metrics["generate_sequences"] += asyncio.get_running_loop().time() - started
            before = len(mask)
            merged, mask, logprobs = await self.ct_merge_assistant_token(
                token_ids, output.token_ids, mask, logprobs, assistant_logprobs=output.log_probs
            )
            token_ids = merged.token_ids
            spans.append((before, len(mask)))
            action = self.prefill + self.tokenizer.decode(output.token_ids, skip_special_tokens=True)
            started = asyncio.get_running_loop().time()
            outcome = await asyncio.to_thread(episode.act, action)
            metrics["tool_calls"] += asyncio.get_running_loop().time() - started
            if outcome.done or len(mask) >= self.response_length:
                break
            previous = [*messages, {"role": "assistant", "content": action}]
            seen = len(images)
            messages = [*previous, self._user_message(outcome.text, outcome.screenshot, images)]
            merged, new_mask, new_logprobs = await self.ct_merge_context_msg(
                previous, messages, token_ids, mask, logprobs
            )
            turns += 2
            if len(new_mask) + len(self.prefill_ids) >= self.response_length:
                del images[seen:]  # the turn is not in the output, nor its screenshot
                break
            token_ids = [*merged.token_ids, *self.prefill_ids]
            mask = [*new_mask, *[0] * len(self.prefill_ids)]
            logprobs = [*new_logprobs, *[0.0] * len(self.prefill_ids)] if new_logprobs is not None else None
        reward = await asyncio.to_thread(episode.finish)
        # verl's convention: the response is the tail the mask covers (the builder may re-join boundaries).
        response_ids = token_ids[len(token_ids) - len(mask) :]
        return AgentLoopOutput(
            prompt_ids=token_ids[: len(token_ids) - len(mask)],
            response_ids=response_ids[: self.response_length],
            response_mask=mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if logprobs else None,
            multi_modal_data={"images": images} if images else {},
            reward_score=reward,
            num_turns=turns,
            metrics=AgentLoopMetrics(**metrics),
            extra_fields={
                "turn_scores": [0.0] * (len(spans) - 1) + [reward],
                "tool_rewards": [],
                "step_token_spans": spans,
                "task_id": task_id,
                "success": bool(episode.success),
            },
        )
