"""Screenshots through a shared-memory frame, and the fallback to bytes when the guest can't see it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_gym.guest import client as client_module
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.shared_frame import SharedFrame


@pytest.fixture
def fresh_client(desktop):
    handle = desktop.start()
    client = GuestClient(handle.address, token=handle.token)
    yield client
    client.close()


def test_shared_frame_matches_bytes_and_is_removed_on_close(fresh_client: GuestClient, guest: GuestClient) -> None:
    guest.kill_apps()  # a still screen: nothing blinks
    shared = fresh_client.screenshot()
    frame = fresh_client._shared_frame
    assert frame is not None and frame.path.exists()
    fresh_client._try_shared_frame = False
    sent = fresh_client.screenshot()
    assert shared.shape == (720, 1280, 3) and shared.dtype == np.uint8
    assert np.array_equal(shared, sent)
    shared[:] = 0  # the caller owns its copy: the next screenshot is unaffected
    fresh_client._try_shared_frame = True
    assert np.array_equal(fresh_client.screenshot(), sent)
    fresh_client.close()
    assert not frame.path.exists()


def test_guest_that_cannot_see_the_frame_falls_back_to_bytes(
    fresh_client: GuestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A frame outside /dev/shm stands for a guest on another machine: the guest refuses the path.
    monkeypatch.setattr(
        client_module.SharedFrame, "create", classmethod(lambda cls, w, h: SharedFrame(tmp_path / "f", w, h, True))
    )
    shot = fresh_client.screenshot()
    assert shot.shape == (720, 1280, 3)
    assert fresh_client._shared_frame is None and not fresh_client._try_shared_frame
    assert not (tmp_path / "f").exists()
