"""Trainer adapters: desktops at each trainer's own integration point (see README "Train with your trainer").

Import the module of your trainer; each imports its library, so this package imports none of them:

- ``desktop_gym.train.adapters.trl``: ``DesktopGymSpec`` for ``GRPOTrainer(environment_factory=...)``.
- ``desktop_gym.train.adapters.trl_rollout``: ``DesktopRolloutFunc`` for ``GRPOTrainer(rollout_func=...)``.
- ``desktop_gym.train.adapters.verifiers_env``: a ``verifiers.v1`` taskset, env and harness
  (``load_environment``, ``run_desktop_eval``); import it from outside the repository root.
- ``desktop_gym.train.adapters.verl``: the ``desktop_gym`` agent loop (registered on import).
- ``desktop_gym.train.adapters.openrlhf``: an ``AgentExecutor`` file for ``--train.agent_func_path``.
- ``desktop_gym.train.adapters.episode``: what they share (``EnvSource``, ``DesktopEpisode``).
- ``desktop_gym.train.adapters.standins``: transformers-backed stand-ins for vLLM where no GPU is.
"""
