"""What an episode is made of, for every layer above the env: the prompt an agent is shown
(``prompts``), the trajectory of its steps (``trajectory``) and the recorder that writes one to disk
(``recording``). The trainer, evaluation, the agents, the local models and the web UI all build on it."""
