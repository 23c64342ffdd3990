"""Argument types of action specs: the shared signature core, under its old name."""

from desktop_gym.signatures import ArgumentError, Point, check_value, json_schema, type_text

__all__ = ["ArgumentError", "Point", "check_value", "json_schema", "type_text"]
