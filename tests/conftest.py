"""Shared fixtures: one real local desktop for the whole test session, and a guest client on it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, settings

from desktop_gym.backends.local import LocalBackend
from desktop_gym.guest.client import GuestClient
from desktop_gym.polling import poll_until

from .support.skip_policy import pytest_runtest_logreport, pytest_sessionfinish  # noqa: F401 - hooks
from .support.uno_imports import keep_import_error_types

# One test process imports LibreOffice's uno (guest modules tested in process) together with torch,
# starlette and others. uno replaces builtins.__import__ with a hook that turns a missing module in
# `from x import y` into a plain ImportError, and those libraries catch only ModuleNotFoundError
# there (torch.distributed, starlette's optional a2wsgi). So uno is imported here once and its hook
# wrapped to re-raise the original error type. (Outside tests uno lives only in the guest process.)
keep_import_error_types()

# Hypothesis: no per-example deadline and no "data generation too slow" health check. Both measure
# wall time, which on 2 shared cores says nothing about the property; every test keeps its own
# max_examples, so the same number of cases is checked.
settings.register_profile("desktop_gym", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("desktop_gym")

T = TypeVar("T")


def wait_until(condition: Callable[[], T], timeout: float = 5.0, what: str = "condition") -> T:
    """Poll ``condition`` until it returns a truthy value; fail the test naming ``what`` otherwise.

    Exceptions raised by ``condition`` count as "not yet" (the last one is reported).
    """
    return poll_until(condition, timeout, what, retry_on=(Exception,), error=pytest.fail.Exception)


@pytest.fixture(name="wait_until", scope="session")
def wait_until_fixture() -> Callable[..., object]:
    """The ``wait_until(condition, timeout, what)`` polling helper, for test modules."""
    return wait_until


@pytest.fixture(scope="session")
def desktop() -> Iterator[LocalBackend]:
    """A LocalBackend started once per test session (call ``desktop.start()`` for its handle)."""
    backend = LocalBackend(width=1280, height=720)
    backend.start()
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def _session_guest(desktop: LocalBackend) -> Iterator[GuestClient]:
    handle = desktop.start()
    client = GuestClient(handle.address, token=handle.token, timeout=30.0)
    client.wait_ready()
    yield client
    client.close()


@pytest.fixture
def guest(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """The guest client of the shared desktop; apps launched by a test are killed after it."""
    yield _session_guest
    _session_guest.kill_apps()
