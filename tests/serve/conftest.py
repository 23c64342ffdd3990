"""Fixtures for the env-server tests: servers on the load-test backend (fast), one on a real desktop,
and counters of leaks."""

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


@pytest.fixture(scope="module")
def real_desktop_server() -> Iterator[EnvServer]:
    """An env server on the local backend with one desktop, warm before the module's first test;
    leases of 120 s (a step on a loaded CPU is slow); drained after the module."""
    server = EnvServer(backend="local", max_envs=1, warm=1, lease_ttl=120).start()
    try:
        server.pool.wait_ready(1, timeout=90)
        yield server
    finally:
        server.drain(grace=10)
