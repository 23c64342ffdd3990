"""Dry runs: a candidate task's API oracle played through an env on a real desktop.

The run is the task's own oracle episode (its setup, its calls, its save, then ``done()`` and its
verifier), passed as an inline definition (``reset(options={"task": ...})``), so a kept task has
been proven by the path an agent's episode takes. On an in-process ``DesktopEnv`` the saved
document comes back too (it is a sibling's perturbed run, judged offline); on an env server
(``RemoteEnv``) it stays there, and the miner plays the perturbed oracle as an episode of its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import DesktopGymError
from ..json_params import fill

PLACEHOLDER_TASK = "starter.calc_fill_totals"  # what a remote env is created with; each reset names its own


@dataclass
class DryRun:
    """One candidate's oracle episode.

    Attributes:
        task_id: the candidate's id.
        success: the task's verifier passed after the oracle (None when the episode did not finish).
        reason: the verifier's reason, or what stopped the episode (an API error names the call).
        saved: the document the episode saved (None on an env server, or when it could not be read).
        seconds: wall time of reset plus episode.
    """

    task_id: str
    success: bool | None
    reason: str
    saved: bytes | None
    seconds: float


class DryRunner:
    """Runs candidates' oracles on one desktop: an in-process ``DesktopEnv``, or a ``RemoteEnv`` on a server.

    Args:
        backend: the backend name (``"local"``) or instance, for an in-process env.
        server: an env server's address (``host:port`` or ``unix:PATH``); its token comes from
            ``$DESKTOP_GYM_TOKEN``. The saved documents then stay on the server.
        env_kwargs: more env options.
    """

    def __init__(self, backend: Any = "local", server: str | None = None, **env_kwargs: Any) -> None:
        # No screen in the observation and no settle wait: the calls and the save are synchronous, and only
        # the document matters here.
        options = {"observation": ["instruction"], "action_mode": "api", "api_scope": "all", "settle_timeout": 0.0}
        options.update(env_kwargs)
        self.remote = server is not None
        if server is not None:
            from ...serve.client import RemoteEnv

            token = os.environ.get("DESKTOP_GYM_TOKEN")
            self.env: Any = RemoteEnv(PLACEHOLDER_TASK, server, token, **options)
        else:
            from ...env import DesktopEnv

            self.env = DesktopEnv(backend=backend, **options)

    def run(self, definition: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> DryRun:
        """Play the candidate's API oracle (with ``params`` overriding its own: a perturbed run) and judge it."""
        task_id = str(definition["id"])
        started = time.monotonic()
        values = {**definition.get("params", {}), **(params or {})}
        try:
            self.env.reset(options={"task": dict(definition), "params": dict(params or {})})
            for action in fill(definition["oracles"]["api"], values):
                _, _, terminated, truncated, info = self.env.step(action)
                error = info.get("action_error")
                if error or terminated or truncated:
                    reason = f"{action}: {error or 'the episode ended'}"
                    return DryRun(task_id, None, reason, None, time.monotonic() - started)
            saved = None if self.remote else self.env.client.get_file(definition["verifier"]["file"])
            _, _, _, _, info = self.env.step("done()")
        except DesktopGymError as error:
            return DryRun(task_id, None, f"{type(error).__name__}: {error}", None, time.monotonic() - started)
        verdict = info.get("verifier", {})
        reason = str(verdict.get("reason", ""))
        return DryRun(task_id, bool(info.get("success")), reason, saved, time.monotonic() - started)

    def close(self) -> None:
        self.env.close()

    def __enter__(self) -> DryRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
