"""The executor's ActionTarget Protocol, the real GuestClient and the test doubles agree."""

from __future__ import annotations

import importlib
import inspect

import pytest

from desktop_gym.actions.target import ActionTarget
from desktop_gym.guest.client import GuestClient
from desktop_gym.serve.loadtest import StandInGuestClient

from .recording_client import RecordingGuestClient

TARGET_METHODS = sorted(
    name for name in vars(ActionTarget) if not name.startswith("_") and callable(getattr(ActionTarget, name))
)
CLIENT_METHODS = sorted(
    name for name, member in vars(GuestClient).items() if not name.startswith("_") and inspect.isfunction(member)
)


def test_the_protocol_lists_what_the_executor_calls() -> None:
    executor = inspect.getsource(importlib.import_module("desktop_gym.actions.executor"))
    called = {name for name in CLIENT_METHODS if f"client.{name}(" in executor}
    assert called, "the executor calls no client method: the check reads the wrong module"
    assert called <= set(TARGET_METHODS), f"the executor calls {sorted(called - set(TARGET_METHODS))} off the Protocol"


@pytest.mark.parametrize("implementation", [GuestClient, RecordingGuestClient], ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", TARGET_METHODS)
def test_signatures_agree_with_the_protocol(implementation: type, name: str) -> None:
    expected = inspect.signature(getattr(ActionTarget, name))
    assert inspect.signature(getattr(implementation, name)) == expected, f"{implementation.__name__}.{name}"


def test_the_real_client_and_the_recording_double_are_action_targets() -> None:
    assert issubclass(GuestClient, ActionTarget)
    assert isinstance(RecordingGuestClient(), ActionTarget)


def test_the_load_test_stand_in_answers_every_client_method() -> None:
    missing = [name for name in CLIENT_METHODS if not callable(getattr(StandInGuestClient, name, None))]
    assert not missing, f"StandInGuestClient lacks {missing}: an env on the loadtest backend would fail there"
