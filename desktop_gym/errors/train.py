"""Training and evaluation: configs, the built-in trainer, agents, models and results files."""

from __future__ import annotations

from .base import DesktopGymError


class ConfigError(DesktopGymError, ValueError, code="training_config"):
    """A training config names an unknown key or gives a value of the wrong type."""


class TrainingError(DesktopGymError, RuntimeError, code="training"):
    """The built-in trainer cannot go on with its config or its data."""


class PromptTooLongError(TrainingError, ValueError, code="prompt_too_long"):
    """A prompt (or the prompt budget plus the answer) does not fit the budget or the model's context."""


class UnknownAgentError(DesktopGymError, ValueError, code="unknown_agent"):
    """An agent string no registered kind understands."""


class ModelNotAvailableError(DesktopGymError, RuntimeError, code="model_not_available"):
    """The default model's wheel (or the libraries to load it) is not installed."""


class ResultsError(DesktopGymError, ValueError, code="results"):
    """A results file or output folder that cannot be used (names the file and the problem)."""
