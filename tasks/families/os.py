"""The OS suite's Python families (files, folders, terminal); its JSON tasks live in ``tasks/suites/os/``."""

from . import os_inspect, os_organize  # noqa: F401  (each module registers its families)
