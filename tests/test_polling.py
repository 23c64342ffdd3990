"""poll_until: returns the condition's value, or fails naming what it waited for."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.errors import DesktopGymError, WaitTimeoutError
from desktop_gym.polling import poll_until, wait_while


def test_returns_the_first_truthy_value() -> None:
    values = iter([0, None, "", "ready"])
    assert poll_until(lambda: next(values), 5.0, "values", interval=0.001) == "ready"


def test_timeout_names_what_was_awaited_and_the_last_error() -> None:
    def failing() -> bool:
        raise OSError("socket gone")

    began = time.monotonic()
    with pytest.raises(WaitTimeoutError, match=r"waiting for the guest socket \(last error: socket gone\)") as caught:
        poll_until(failing, 0.1, "the guest socket", retry_on=(OSError,))
    assert time.monotonic() - began < 2.0
    assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, DesktopGymError)


def test_exceptions_not_listed_propagate_at_once() -> None:
    with pytest.raises(KeyError):
        poll_until(lambda: {}["x"], 5.0, "a key", retry_on=(OSError,))


def test_custom_error_type() -> None:
    class Boom(Exception):
        pass

    with pytest.raises(Boom, match="waiting for nothing"):
        poll_until(lambda: False, 0.0, "nothing", error=Boom)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=5))
def test_condition_is_called_until_it_holds(calls_needed: int) -> None:
    calls = []

    def condition() -> bool:
        calls.append(1)
        return len(calls) > calls_needed

    assert poll_until(condition, 5.0, "calls", interval=0.0)
    assert len(calls) == calls_needed + 1


def test_wait_while_reports_whether_the_condition_cleared() -> None:
    assert wait_while(lambda: False, 1.0)
    assert not wait_while(lambda: True, 0.05)
