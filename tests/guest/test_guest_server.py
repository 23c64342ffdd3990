"""The guest agent's RPC surface: ping, screenshots, errors, auth, deadlines."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError, GuestUnavailableError


def test_ping_reports_display_and_size(guest: GuestClient, desktop) -> None:
    info = guest.ping()
    assert info["display"] == desktop.display
    assert (info["width"], info["height"]) == (1280, 720)
    assert info["pid"] > 0 and info["home"].endswith("/home")
    assert guest.screen_size() == (1280, 720)


def test_screenshot_is_rgb_uint8(guest: GuestClient) -> None:
    image = guest.screenshot()
    assert image.shape == (720, 1280, 3) and image.dtype == np.uint8


def test_screenshot_encoded_png_and_jpeg_decode(guest: GuestClient) -> None:
    raw = guest.screenshot()
    png = Image.open(io.BytesIO(guest.screenshot_encoded("png")))
    assert png.format == "PNG" and png.size == (1280, 720)
    assert np.array_equal(np.asarray(png.convert("RGB")), raw)  # nothing moves on an idle desktop
    jpeg = Image.open(io.BytesIO(guest.screenshot_encoded("jpeg", quality=50)))
    assert jpeg.format == "JPEG" and jpeg.size == (1280, 720)


def test_unknown_screenshot_format_is_an_error(guest: GuestClient) -> None:
    with pytest.raises(GuestError, match="unknown screenshot format 'bmp'"):
        guest.screenshot_encoded("bmp")


def test_unknown_key_and_outside_click_are_errors(guest: GuestClient) -> None:
    with pytest.raises(GuestError, match="unknown key 'xyz'"):
        guest.press("xyz")
    with pytest.raises(GuestError, match=r"point \(5000, 10\) is outside the 1280x720 screen"):
        guest.click(5000, 10)
    with pytest.raises(GuestError, match="unknown mouse button 'thumb'"):
        guest.click(10, 10, button="thumb")


def test_call_api_needs_a_running_app_and_a_known_api(guest: GuestClient) -> None:
    with pytest.raises(GuestError, match="no running calc app"):
        guest.call_api("calc", "get_cell_value", '{"cell": "A1"}')
    with pytest.raises(GuestError, match="no app API for 'WordTools'"):
        guest.call_api("WordTools", "get_cell_value", "{}")


def test_wrong_or_missing_token_is_rejected(desktop) -> None:
    handle = desktop.start()
    for token in ("wrong-token", None):
        with GuestClient(handle.address, token=token, timeout=5.0) as client:
            with pytest.raises(GuestError, match="x-desktop-gym-token") as caught:
                client.ping()
            assert not isinstance(caught.value, GuestUnavailableError)


def test_socket_is_private(desktop) -> None:
    socket_path = desktop.start().address.removeprefix("unix://")
    import os
    import stat

    assert stat.S_IMODE(os.stat(socket_path).st_mode) == 0o600


def test_missing_socket_raises_unavailable_within_deadline(tmp_path) -> None:
    with GuestClient(f"unix://{tmp_path}/nothing.sock", timeout=0.5) as client:
        with pytest.raises(GuestUnavailableError):
            client.ping()
        with pytest.raises(GuestUnavailableError, match=r"timed out after 0.3 s waiting for the guest at .* to answer"):
            client.wait_ready(timeout=0.3)
