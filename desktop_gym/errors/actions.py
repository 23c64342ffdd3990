"""Actions: parsing agent output and checking it against the screen and the limits."""

from __future__ import annotations

from .base import DesktopGymError


class ActionError(DesktopGymError, code="action"):
    """An action could not be parsed or carried out."""


class ActionParseError(ActionError, ValueError, code="action_parse"):
    """Agent text, a dict or an object could not be turned into actions; the message says why."""


class ArgumentError(ActionParseError, code="action_argument"):
    """An argument value is wrong; the caller prefixes the action name."""


class LimitError(ActionError, ValueError, code="action_limit"):
    """An action asks for more than ``ActionLimits`` allows."""


class CoordinateError(ActionError, ValueError, code="coordinate"):
    """A coordinate lies outside the screen (or outside 0-1000 when normalized)."""


class ElementError(ActionError, ValueError, code="element"):
    """An action names an element id that the latest observation does not have (or has no elements)."""
