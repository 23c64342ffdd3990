"""Pointing at elements: ids for the actionable nodes of an observation, set-of-marks screenshots, and
OSWorld's observation types.
"""

from .table import ACTIONABLE_ROLES, Element, ElementTable, number_elements

__all__ = ["ACTIONABLE_ROLES", "Element", "ElementTable", "number_elements"]
