"""The multi-app suite: tasks whose input lives in one app or file and whose result in another."""

from . import multi_office, multi_slides  # noqa: F401  (each module registers its families)
