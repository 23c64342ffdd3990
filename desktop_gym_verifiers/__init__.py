"""The verifiers plugin ``desktop_gym_verifiers``: desktop-gym's taskset, env and harness for ``vf-eval``.

verifiers resolves an environment id to a top-level module of that name; importing this one gives
``desktop_gym.train.adapters.verifiers_env`` under this name (its ``__all__`` names the one
``Taskset``, ``Env`` and ``Harness``)::

    vf-eval desktop_gym_verifiers --no-push -m SmolLM2-135M-Instruct --client.base-url http://127.0.0.1:8000/v1 \\
        --env.taskset.task-ids '["demo.enter_number"]' --env.taskset.seeds '[0, 1]'

Run it from outside the repository root: the root's ``verifiers/`` folder (our task verifiers)
shadows the PyPI package when the root is on ``sys.path``.
"""

import importlib
import sys

# The plugin *is* the adapter module: that module's own classes resolve this id while it is being
# imported (its env config names its harness by it), so the name must point at it from the start.
del sys.modules[__name__]
sys.modules[__name__] = importlib.import_module("desktop_gym.train.adapters.verifiers_env")
