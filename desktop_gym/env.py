"""``DesktopEnv``: a Gymnasium environment over a real desktop.

One env owns one desktop (from a backend) for its whole life; each ``reset`` kills the previous
episode's apps, wipes the session home, and runs the task's setup. Every desktop call goes
through the guest agent, so the env does not care which backend started the desktop.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from .actions import Action, ActionLimits, ActionOutcome, ActionParseError, ActionSet, StepAllowance, execute
from .api_exposure import ApiExposure
from .backends import Backend, DesktopHandle, make_backend
from .elements.osworld import A11Y_FORMATS, OBSERVATION_PRESETS, osworld_marks, osworld_tree
from .elements.set_of_marks import draw_marks
from .elements.table import ElementTable, number_elements
from .episode_end import OFFICE_APPS, SAVE_GRACE_S, crash_reason, wait_for_pending_saves  # noqa: F401 - re-exported
from .episode_prefetch import EpisodePrefetch, PrefetchRequest, lent_prefetch
from .errors import EpisodeNotStartedError  # noqa: F401 - re-exported from its old home
from .guest.client import GuestClient, GuestError, GuestUnavailableError
from .guest.types import AppFocus
from .observation_cost import PartTimer, Prefetcher
from .polling import wait_while
from .reset_recovery import DEFAULT_RESET_ATTEMPTS, check_attempts, set_up_with_retries
from .settle import wait_until_desktop_settles
from .spaces import OBSERVATION_KEYS, Unicode, observation_space
from .tasks import Task, TaskContext, get_task
from .tasks.inline import inline_task
from .verifiers.result import VerifierResult

DEFAULT_OBSERVATION = (
    "instruction",
    "screenshot",
    "a11y_tree",
    "focused_app",
    "api",
    "last_action_result",
    "last_action_error",
)
log = logging.getLogger(__name__)
#: Observation parts made from the accessibility tree (it is read when any of them is asked for).
_TREE_PARTS = ("a11y_tree", "som_screenshot", "elements")
MAX_A11Y_TIMEOUT_S = 60.0  # the longest accessibility-tree read an env may be configured to wait for


class DesktopEnv(gymnasium.Env[dict[str, Any], str]):
    """A real desktop as a Gymnasium env, with a text action space.

    Args:
        task_id: the task to run (``list_tasks()``); may be overridden per reset with
            ``options={"task_id": ...}``.
        backend: a backend name (``"local"``) or a ``Backend`` instance (not closed by the env).
        observation: which parts of the observation to include (see ``spaces.OBSERVATION_KEYS``), or
            one of OSWorld's observation types by name: ``"screenshot"``, ``"a11y_tree"``,
            ``"screenshot_a11y_tree"``, ``"som"`` (see ``elements.osworld.OBSERVATION_PRESETS``).
            ``som_screenshot`` is the screenshot with a numbered box on each element of the tree;
            ``elements`` the same elements as JSON (id, role, name, text, box, states).
        coordinates: ``"pixel"`` or ``"normalized"`` (0-1000) coordinates in actions.
        action_set: the ``ActionSet`` to offer (its style, coordinates and custom actions), kept as
            given (``env.action_set is action_set``); built from ``coordinates`` when None.
        action_mode: ``"hybrid"`` (GUI actions and app APIs), ``"gui"`` (API calls are refused) or
            ``"api"`` (app APIs and done/fail/wait; other GUI actions are refused). A refused
            action comes back as ``last_action_error``; the episode goes on.
        api_scope: ``"focused"``: only the focused app's API plus ``OSTools`` may be called (the
            observation's ``api`` part lists them); ``"all"``: every app API.
        app_info_max_chars: the longest ``app_info`` text (the focused app's API summary).
        max_steps: the step budget; the task's own budget when None.
        a11y_max_nodes: cap on accessibility-tree nodes in the observation.
        a11y_format: ``"text"`` (one node a line; with element actions offered, each actionable line
            starts with its id: ``[17] push button "Save" @(412,30,24,24)``) or ``"osworld"``
            (OSWorld's tab-separated table; with ``som_screenshot``, its marks table
            ``index tag name text``, the index being the element id).
        a11y_timeout: seconds the accessibility-tree read may take. A Calc tree takes ~0.3 s on a
            quiet machine and 1-5 s on a loaded one (16 busy processes on 2 cores); a read cut by
            this cap ends with ``... truncated (timeout after N s)``.
        settle_timeout: after acting, wait at most this long for the screen to stop changing
            (0 disables; the observation is then taken right after the input is delivered).
        render_mode: ``"rgb_array"`` or None.
        backend_kwargs: keyword arguments for the backend when ``backend`` is a name.
        action_limits: caps on what one action or step may cost (presses, scroll, clicks, typed
            characters, actions per step, waiting); ``ActionLimits()`` when None. An action over a
            cap comes back as ``last_action_error``.
        max_action_chars: the longest agent text ``step`` accepts (``action_space.max_length``).
        reset_attempts: how many times ``reset`` tries to set the episode up (killing the apps, then
            restarting the desktop in between) before it raises one ``ResetFailedError``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        task_id: str | None = None,
        backend: str | Backend = "local",
        *,
        observation: Sequence[str] | str = DEFAULT_OBSERVATION,
        coordinates: str = "pixel",
        action_set: ActionSet | None = None,
        max_steps: int | None = None,
        a11y_max_nodes: int = 300,
        a11y_timeout: float = 15.0,
        a11y_format: str = "text",
        action_mode: str = "hybrid",
        api_scope: str = "focused",
        app_info_max_chars: int = 3000,
        settle_timeout: float = 1.0,
        render_mode: str | None = None,
        backend_kwargs: dict[str, Any] | None = None,
        action_limits: ActionLimits | None = None,
        max_action_chars: int = 64 * 1024,
        reset_attempts: int = DEFAULT_RESET_ATTEMPTS,
    ) -> None:
        # What a prefetch's shadow env is built from: the same arguments, so the same env on another desktop.
        self._constructor = {name: value for name, value in locals().items() if name != "self"}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if isinstance(observation, str):
            if observation not in OBSERVATION_PRESETS:
                raise ValueError(
                    f"unknown observation type {observation!r}; known: {', '.join(OBSERVATION_PRESETS)} "
                    "(or pass the parts as a tuple)"
                )
            observation = OBSERVATION_PRESETS[observation]
        if a11y_format not in A11Y_FORMATS:
            raise ValueError(f"unknown a11y_format {a11y_format!r}; known: {', '.join(A11Y_FORMATS)}")
        self.a11y_format = a11y_format
        unknown = [key for key in observation if key not in OBSERVATION_KEYS]
        if unknown:
            raise ValueError(f"unknown observation parts {unknown}; known: {', '.join(OBSERVATION_KEYS)}")
        self.task_id = task_id
        self._task: Task | None = get_task(task_id) if task_id else None
        self._owns_backend = isinstance(backend, str)
        self.backend: Backend = make_backend(backend, **(backend_kwargs or {})) if isinstance(backend, str) else backend
        self.observation_parts = tuple(observation)
        if action_set is not None and coordinates not in ("pixel", action_set.coordinates):
            raise ValueError(
                f"coordinates={coordinates!r} disagrees with action_set.coordinates={action_set.coordinates!r}; "
                "set the coordinates on the ActionSet"
            )
        self.action_set = (
            action_set
            if action_set is not None
            else ActionSet(coordinates=coordinates, max_chars=max(1, max_action_chars))
        )
        self.exposure = ApiExposure(self.action_set, action_mode, api_scope)
        if app_info_max_chars < 4:
            raise ValueError(f"app_info_max_chars must be at least 4, got {app_info_max_chars}")
        self.app_info_max_chars = app_info_max_chars
        self._offered_apps = self.exposure.offered_apps("")
        self._observed_focus: AppFocus | None = None  # the focus at the last observation
        self.max_steps = max_steps
        self.a11y_max_nodes = a11y_max_nodes
        if not 0 < a11y_timeout <= MAX_A11Y_TIMEOUT_S:
            raise ValueError(f"a11y_timeout must be in (0, {MAX_A11Y_TIMEOUT_S:g}] seconds, got {a11y_timeout}")
        self.a11y_timeout = float(a11y_timeout)
        self.settle_timeout = settle_timeout
        self.render_mode = render_mode
        width, height = self.backend.screen_size
        self.observation_space = observation_space(width, height, self.observation_parts)
        self.action_space = Unicode(max_length=max_action_chars)
        self.action_limits = action_limits or ActionLimits()
        self.reset_attempts = check_attempts(reset_attempts)
        self._handle: DesktopHandle | None = None
        self._client: GuestClient | None = None
        self._ctx: TaskContext | None = None
        self._steps = 0
        self._episode_active = False
        self._instruction = ""
        self._last_screenshot: np.ndarray | None = None
        self._observation_cost = PartTimer()  # seconds per part of the latest observation
        self._reset_phases = PartTimer()  # seconds per phase of the latest reset (info['reset_phase_seconds'])
        self._prefetcher = Prefetcher()  # reads the a11y tree while the other parts are read
        self._settled_tree: str | None = None  # the tree the latest settle read (guest.tree_ahead)
        self._elements = ElementTable()  # the element ids of the latest observation
        # The next episode, prepared on a second desktop (built on the first prefetch).
        self._episode_prefetch = EpisodePrefetch(lambda: DesktopEnv(**self._constructor))
        self._desktops_lent = False  # True once an env server lends prefetch a desktop (lend_desktops)

    def lend_desktops(self, acquire: Callable[[], Backend], give_back: Callable[[Backend, bool], None]) -> None:
        """Build prefetch's shadow env on desktops an env server's pool lends (``lent_prefetch``)."""
        self._episode_prefetch.close()
        self._episode_prefetch, self._desktops_lent = lent_prefetch(self, acquire, give_back), True

    # ------------------------------------------------------------------ lifecycle
    @property
    def client(self) -> GuestClient:
        """The guest client of the live desktop (starts the desktop if needed)."""
        return self._ensure_desktop()

    def _ensure_desktop(self) -> GuestClient:
        if self._handle is not None and self._client is not None and self._handle.is_alive():
            return self._client
        if self._client is not None:
            self._client.close()
        if self._handle is not None:
            # The desktop died: restart it from scratch rather than patching a half-dead session.
            self.backend.close()
        self._handle = self.backend.start()
        self._client = GuestClient(self._handle.address, token=self._handle.token)
        self._client.wait_ready()
        return self._client

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: clean the desktop, set the task up, observe.

        Args:
            seed: seeds the task's parameters (the same seed gives the same episode).
            options: ``task_id`` (another task than the env's), ``task`` (an inline JSON task
                definition, validated as a task file is), ``params`` (override sampled
                parameters) and ``prefetch``: ``{"task_id": ..., "seed": ..., "params": {...}}``
                names the episode the next ``reset`` will ask for; it is prepared on a second
                desktop while this episode runs (``episode_prefetch``), and the matching reset is
                a swap (``info["prefetched"]``; ``info["prefetch_seconds"]`` is the background
                reset's time). Needs an env that owns its backend (given by name).

        Raises:
            ValueError: no task, an invalid inline ``task`` (``TaskFileError``, naming the field), or a
                malformed ``prefetch`` (the message names the field).
            ResetFailedError: the setup failed on every attempt.
        """
        options = dict(options or {})
        started = time.perf_counter()
        if "task" in options:  # an inline definition: this episode's task, not registered anywhere
            self._task = inline_task(options.pop("task"))
            self.task_id = options["task_id"] = self._task.id
        task_id = options.get("task_id", self.task_id)
        if task_id is None:
            raise ValueError("no task: pass task_id to DesktopEnv(...) or options={'task_id': ...} to reset")
        request = options.pop("prefetch", None)
        if request is not None:
            if not (self._owns_backend or self._desktops_lent):
                raise ValueError(
                    "options['prefetch'] needs a second desktop: pass the backend by name (the env starts"
                    " one) or run the env on an env server (its pool lends one)"
                )
            request = PrefetchRequest.parse(request, task_id)  # of a registered task (the shadow env looks it up)
        prepared = self._episode_prefetch.take(task_id, seed, options.get("params", {}))
        if prepared is not None:  # the shadow env's desktop and episode become this env's
            observation, info = self._episode_prefetch.swap_in(self, prepared, started)
        else:
            observation, info = self._reset_here(seed, options, task_id, started)
        if request is not None:
            self._episode_prefetch.start(request)
        return observation, info

    def _reset_here(
        self, seed: int | None, options: dict[str, Any], task_id: str, started: float
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The ordinary reset, on this env's own desktop."""
        super().reset(seed=seed)
        if task_id != self.task_id or self._task is None:
            self._task, self.task_id = get_task(task_id), task_id
        task = self._task
        self._episode_active = False
        rng_state = self.np_random.bit_generator.state

        def set_up() -> dict[str, Any]:
            self.np_random.bit_generator.state = rng_state  # every try sets up the same task, byte for byte
            return self._set_up_episode(task, options)

        params, attempts = set_up_with_retries(
            set_up, self._recover_failed_setup, self.reset_attempts, f"reset of task {task_id}"
        )
        self._steps = 0
        self._episode_active = True
        self._instruction = task.instruction(params)
        self._observation_cost = PartTimer()
        phases = self._reset_phases
        with phases.part("settle"):
            self._settle()
        with phases.part("observe"):
            observation = self._observe(result=None, error=None)
        info = {
            "task_id": task_id,
            "instruction": self._instruction,
            "params": params,
            "max_steps": self._step_budget(),
            "reset_seconds": time.perf_counter() - started,
            "setup_attempts": attempts,
            "observation_seconds": self._observation_cost.rounded(),
            "reset_phase_seconds": phases.rounded(),
        }
        return observation, info

    def _set_up_episode(self, task: Task, options: dict[str, Any]) -> dict[str, Any]:
        """Clean (or restore) the desktop, sample the parameters and run the task's setup."""
        fresh = self._handle is None
        phases = self._reset_phases = PartTimer()  # a retried setup reports its last try
        with phases.part("desktop"):
            client = self._ensure_desktop()
            if not fresh and getattr(self.backend, "reset_mode", "restart_apps") != "restart_apps":
                client = self._restore_desktop()
        with phases.part("clear_session"):
            try:
                client.clear_session()
            except GuestUnavailableError:
                client = self._restart_desktop()
        params = task.sample_params(self.np_random)
        params.update(options.get("params", {}))
        self._ctx = TaskContext(client=client, rng=self.np_random, params=params)
        with phases.part("task_setup"):
            task.setup(self._ctx)
        return params

    def _recover_failed_setup(self, attempt: int) -> str:
        """After a failed setup: kill the apps first; from the second failure on, restart the desktop."""
        if attempt == 1 and self._client is not None and self._handle is not None and self._handle.is_alive():
            try:
                self._client.kill_apps()
                return "killed the apps"
            except GuestError:
                pass
        self._restart_desktop()
        return "restarted the desktop"

    def _restore_desktop(self) -> GuestClient:
        """Let the backend restore its initial desktop (recreate a container, load a VM snapshot)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        self._handle = self.backend.reset_desktop()
        self._client = GuestClient(self._handle.address, token=self._handle.token)
        self._client.wait_ready()
        return self._client

    def _restart_desktop(self) -> GuestClient:
        if self._handle is not None:
            self.backend.close()
            self._handle = None
        return self._ensure_desktop()

    def _step_budget(self) -> int:
        assert self._task is not None
        return self.max_steps if self.max_steps is not None else self._task.max_steps

    # ------------------------------------------------------------------ stepping
    def step(self, action: str | Action | dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if not self._episode_active or self._ctx is None or self._client is None:
            raise EpisodeNotStartedError("call reset() before step() (and again after the episode ends)")
        self._steps += 1
        self._observation_cost = PartTimer()
        info: dict[str, Any] = {"step": self._steps}
        outcome = self._act(action)
        info["action_error"] = outcome.error
        # An app killed by this action may still look alive right after it: look again once settled
        # (without a settle wait the second look would follow the first at once).
        settles = self.settle_timeout > 0
        crash = self._detect_crash() or self._settle_or_crash() or (self._detect_crash() if settles else None)
        terminated = outcome.terminal
        truncated = not terminated and (crash is not None or self._steps >= self._step_budget())
        reward = 0.0
        if crash is not None:
            info["crash"] = crash
        if terminated or truncated:
            self._episode_active = False
            info["agent_declared"] = outcome.success
            if self._task is not None and self._task.infeasible:
                verdict = _infeasible_verdict(outcome.success)
                reward = float(verdict.success)
                info["verifier"] = verdict.to_dict()
                info["success"] = verdict.success
            elif self._handle is not None and self._handle.is_alive():
                verdict = self._verify()
                reward = float(verdict.score if verdict.success else 0.0)
                info["verifier"] = verdict.to_dict()
                info["success"] = verdict.success
            else:
                info["success"] = False
        observation = self._observe(result=outcome.result, error=outcome.error, crashed=crash is not None)
        return observation, reward, terminated, truncated, info

    def _act(self, action: str | Action | dict[str, Any]) -> ActionOutcome:
        assert self._client is not None
        if isinstance(action, str) and not self.action_space.contains(action):
            return ActionOutcome(
                error=f"the action text is {len(action)} characters long; at most {self.action_space.max_length} "
                "are accepted"
            )
        allowance = StepAllowance(self.action_limits)
        try:
            actions = self.exposure.parser.coerce(action)
            allowance.check_count(len(actions))
        except ActionParseError as error:
            return ActionOutcome(result=None, error=str(error), terminal=False, success=None)
        except ValueError as error:  # over the actions-per-step cap (LimitError)
            return ActionOutcome(error=str(error))
        results: list[str] = []
        outcome = ActionOutcome(result=None, error=None, terminal=False, success=None)
        for index, typed in enumerate(actions):
            # The first action answers the observation (its focus); later ones follow earlier actions.
            refusal = self.exposure.refusal(typed, self._client, self._observed_focus if index == 0 else None)
            if refusal is not None:
                outcome = ActionOutcome(error=refusal)
                break
            outcome = execute(
                typed, self._client, self._client.screen_size(), allowance=allowance, elements=self._elements
            )
            if outcome.result:
                results.append(outcome.result)
            if outcome.error or outcome.terminal:
                break
        return ActionOutcome(
            result="\n".join(results) or None, error=outcome.error, terminal=outcome.terminal, success=outcome.success
        )

    @property
    def observation_seconds(self) -> dict[str, float]:
        """Seconds per part of the latest observation (settle, screenshot, a11y_tree, app_info).

        The a11y tree is read on a worker thread alongside the other parts, so the parts can add up
        to more than the step took. Kept out of ``step``'s info, which must be deterministic.
        """
        return self._observation_cost.rounded()

    def describe(self, fmt: str = "python") -> str:
        """Prompt text for the actions and app APIs offered now (they follow the mode and the focus)."""
        return self.exposure.describe(self._offered_apps, fmt)

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of the GUI actions and app APIs offered now."""
        return self.exposure.tool_schemas(self._offered_apps)

    def _detect_crash(self) -> str | None:
        """Why the episode cannot go on (desktop or a task app died), or None."""
        assert self._handle is not None and self._client is not None and self._task is not None
        return crash_reason(self._handle, self._client, self._task.apps)

    def _verify(self) -> VerifierResult:
        assert self._task is not None and self._ctx is not None
        try:
            self._ctx.client.wait_apps_idle()  # a save the agent started must finish before we read the file
            if self._task.needs_save:
                wait_for_pending_saves(self._ctx.client)
            return self._task.verify(self._ctx)
        except GuestError as error:
            return VerifierResult.failed(f"the verifier could not read the desktop: {error}")

    def _settle(self) -> None:
        if self.settle_timeout > 0 and self._client is not None:
            ask = (True, self.a11y_max_nodes, self.a11y_timeout) if {*_TREE_PARTS} & {*self.observation_parts} else None
            with self._observation_cost.part("settle"):
                self._settled_tree = wait_until_desktop_settles(self._client, self.settle_timeout, tree=ask)

    def _settle_or_crash(self) -> str | None:
        """Wait for the screen to settle; if the desktop fails meanwhile, say why."""
        try:
            self._settle()
            return None
        except GuestError as error:
            # A display killed a moment ago may still look alive: give its death a bounded moment to show.
            assert self._handle is not None
            wait_while(self._handle.is_alive, 2.0, interval=0.01)
            return self._detect_crash() or f"the desktop stopped answering: {error}"

    # ------------------------------------------------------------------ observing
    def _observe(self, result: str | None, error: str | None, crashed: bool = False) -> dict[str, Any]:
        assert self._client is not None
        parts = self.observation_parts
        observation: dict[str, Any] = {}
        cost = self._observation_cost
        tree_request, settled_tree, self._settled_tree = None, self._settled_tree, None
        needs_tree = any(part in parts for part in _TREE_PARTS)
        if needs_tree and not crashed:  # the slowest part: read while the others are (unless the settle read it)
            read_tree = lambda: self._safe(  # noqa: E731
                lambda: self._client.a11y_tree(True, self.a11y_max_nodes, self.a11y_timeout), "a11y_tree"
            )
            read_tree = read_tree if settled_tree is None else lambda: settled_tree  # noqa: E731
            tree_request = self._prefetcher.submit(cost.timed("a11y_tree", read_tree))
        if "instruction" in parts:
            observation["instruction"] = self._instruction
        shot = None
        if "screenshot" in parts or "som_screenshot" in parts:
            with cost.part("screenshot"):
                shot = None if crashed else self._safe(self._client.screenshot, "screenshot")
            if shot is None:
                width, height = self.backend.screen_size
                shot = np.zeros((height, width, 3), dtype=np.uint8)
            self._last_screenshot = shot
            if "screenshot" in parts:
                observation["screenshot"] = shot
        for part in _TREE_PARTS:
            if part in parts:
                observation[part] = ""  # keeps its place in the dict; filled below once read
        focus = None
        if "app_info" in parts or "api" in parts or self.exposure.follows_focus:
            focus = self._observe_apis(observation, crashed)
        if "focused_app" in parts:  # the app key ("calc"); the window's class is its own part
            if focus is None and not crashed:
                focus = self._safe(self._client.focused_app, "focused_app")
            observation["focused_app"] = focus.app if focus is not None else ""
        if "focused_window_class" in parts:
            window = None if crashed else self._safe(self._client.focused_window, "focused_window")
            observation["focused_window_class"] = window.app if window is not None else ""
        if "last_action_result" in parts:
            observation["last_action_result"] = self._for_agent(result or "")
        if "last_action_error" in parts:
            observation["last_action_error"] = self._for_agent(error or "")
        tree = self._for_agent(tree_request.result() or "") if tree_request is not None else ""
        self._fill_tree_parts(observation, tree, shot)
        return observation

    def _fill_tree_parts(self, observation: dict[str, Any], tree: str, shot: np.ndarray | None) -> None:
        """Number the tree's elements and write the parts that come from the tree."""
        parts = self.observation_parts
        numbering = self.action_set.offers_elements or "som_screenshot" in parts or "elements" in parts
        if numbering:
            tree_with_ids, self._elements = number_elements(tree, observation=self._steps)
        else:
            tree_with_ids, self._elements = tree, ElementTable(self._steps)
        if "a11y_tree" in parts:
            if self.a11y_format == "osworld":
                marks = "som_screenshot" in parts
                observation["a11y_tree"] = osworld_marks(self._elements) if marks else osworld_tree(tree)
            else:
                observation["a11y_tree"] = tree_with_ids
        if "elements" in parts:
            observation["elements"] = self._elements.to_json()
        if "som_screenshot" in parts and shot is not None:
            with self._observation_cost.part("som_screenshot"):
                observation["som_screenshot"], _ = draw_marks(shot, self._elements)

    @property
    def elements(self) -> ElementTable:
        """The element ids of the latest observation (what ``click(element=N)`` refers to)."""
        return self._elements

    def _for_agent(self, text: str) -> str:
        """``text`` with the session home written ``~``: the agent never sees the host's workdir."""
        home = str(self._handle.info.get("home") or "").rstrip("/") if self._handle is not None else ""
        if not home or home not in text:
            return text
        return re.sub(re.escape(home) + r"(?=/|[^\w.-]|$)", "~", text)

    def _observe_apis(self, observation: dict[str, Any], crashed: bool) -> AppFocus | None:
        """Fill ``app_info`` and ``api`` from the focused app, note which APIs are offered; the focus."""
        assert self._client is not None
        parts = self.observation_parts
        info = None
        if not crashed:
            chars = self.app_info_max_chars if "app_info" in parts else 0
            with self._observation_cost.part("app_info"):
                info = self._safe(lambda: self._client.app_info(max_chars=chars), "app_info")
                if info is None and chars:  # a summary that failed once under load (CI saw one empty): ask again
                    info = self._safe(lambda: self._client.app_info(max_chars=chars), "app_info, asked again")
            if info is None and chars:  # the app failed to summarise itself; the focus is still worth knowing
                info = self._safe(self._client.focused_app, "focused_app")
        self._offered_apps = self.exposure.offered_apps(info.app if info else "")
        self._observed_focus = info
        if "app_info" in parts:
            observation["app_info"] = self._for_agent(info.summary)[: self.app_info_max_chars] if info else ""
        if "api" in parts:
            observation["api"] = self.exposure.api_prompt(self._offered_apps)
        return info

    @staticmethod
    def _safe(call: Any, part: str) -> Any:
        """``call()``, or None when the guest failed it (logged: an observation part left empty says why)."""
        try:
            return call()
        except GuestError as error:
            log.warning("observation part %s left empty: %s", part, error)
            return None

    # ------------------------------------------------------------------ misc
    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            if self._last_screenshot is None and self._client is not None:
                self._last_screenshot = self._client.screenshot()
            return self._last_screenshot
        return None

    def close(self) -> None:
        self._episode_prefetch.close()
        self._prefetcher.close()
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._owns_backend and self._handle is not None:
            self.backend.close()
        self._handle = None
        self._episode_active = False
        super().close()


def _infeasible_verdict(agent_declared: bool | None) -> VerifierResult:
    """An infeasible task succeeds only when the agent declared FAIL."""
    if agent_declared is False:
        return VerifierResult.passed("the task is infeasible and the agent declared FAIL")
    if agent_declared is None:
        return VerifierResult.failed("the task is infeasible but the agent ran out of steps instead of declaring FAIL")
    return VerifierResult.failed("the task is infeasible but the agent declared it done")
