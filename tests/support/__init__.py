"""Shared test doubles and pytest plugins (imported by tests/conftest.py)."""
