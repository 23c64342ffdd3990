"""Fixtures for the env-server tests: servers on the load-test backend (fast) and counters of leaks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_gym.serve.server import EnvServer


@pytest.fixture
def loadtest_server() -> Iterator[EnvServer]:
    """An env server on the load-test backend: 4 envs, 2 warm, 2 s leases."""
    server = EnvServer(backend="loadtest", max_envs=4, warm=2, lease_ttl=2.0).start()
    yield server
    server.drain(grace=5)
