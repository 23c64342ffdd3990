"""Typed guest errors survive the gRPC boundary."""

from __future__ import annotations

import pytest

from desktop_gym import errors
from desktop_gym.guest.client import GuestClient


def test_missing_file_comes_back_as_file_not_found(guest: GuestClient) -> None:
    with pytest.raises(errors.GuestFileNotFoundError, match="no such file in the guest"):
        guest.get_file("~/does-not-exist.txt")


def test_bad_argument_comes_back_as_invalid_argument(guest: GuestClient) -> None:
    with pytest.raises(errors.GuestInvalidArgumentError, match="must be absolute"):
        guest.get_file("relative/path.txt")


def test_unknown_app_api_is_not_found(guest: GuestClient) -> None:
    with pytest.raises(errors.GuestNotFoundError, match="no app API for 'WordTools'"):
        guest.call_api("WordTools", "anything")
