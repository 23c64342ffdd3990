"""Fixtures for guest tests: an X window in the test process that records the events it receives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from Xlib import X

from desktop_gym.backends.xauth import connect_display
from desktop_gym.guest.client import GuestClient


def launched_app(guest: GuestClient, app: str, file: str | None = None, timeout: float = 60.0) -> Iterator[GuestClient]:
    """The body of a module fixture: start ``app`` (on ``file``), yield the guest, then kill the apps."""
    info = guest.launch_app(app, file, timeout=timeout)
    assert info.alive
    yield guest
    guest.kill_apps()


class EventProbe:
    """An override-redirect window at a fixed place that records pointer and key events."""

    def __init__(
        self,
        display_name: str,
        wait_until,
        x: int = 0,
        y: int = 0,
        width: int = 300,
        height: int = 300,
        xauthority: str | None = None,
    ) -> None:
        self.display = connect_display(display_name, xauthority)
        root = self.display.screen().root
        mask = (
            X.ButtonPressMask
            | X.ButtonReleaseMask
            | X.PointerMotionMask
            | X.KeyPressMask
            | X.KeyReleaseMask
            | X.StructureNotifyMask
            | X.ExposureMask
        )
        self.window = root.create_window(
            x,
            y,
            width,
            height,
            0,
            self.display.screen().root_depth,
            background_pixel=self.display.screen().white_pixel,
            override_redirect=True,
            event_mask=mask,
        )
        self.window.map()
        self.display.sync()
        self.events: list = []
        wait_until(lambda: any(e.type == X.MapNotify for e in self.poll()), what="the probe window to map")
        self.window.raise_window()
        self.window.set_input_focus(X.RevertToParent, X.CurrentTime)
        self.display.sync()

    def poll(self) -> list:
        """Read pending events into ``self.events`` and return them all."""
        while self.display.pending_events():
            self.events.append(self.display.next_event())
        return self.events

    def clear(self) -> None:
        self.poll()
        self.events.clear()

    def of_type(self, event_type: int) -> list:
        return [event for event in self.poll() if event.type == event_type]

    def close(self) -> None:
        self.window.destroy()
        self.display.close()


@pytest.fixture
def probe(guest: GuestClient, desktop, wait_until) -> Iterator[EventProbe]:
    """An event-recording window covering (0, 0)-(300, 300) with keyboard focus."""
    window = EventProbe(guest.ping()["display"], wait_until, xauthority=desktop.start().info.get("xauthority"))
    yield window
    window.close()


A11Y_DOCUMENT = "budget.xlsx"


@pytest.fixture(scope="session")
def a11y_calc_office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], object]]:
    """One Calc on budget.xlsx on the a11y bus for every test that reads the tree in this process.

    Session-wide because libatspi binds one bus per process: a second desktop in the same pytest
    process could not be read.
    """
    from ..support.soffice import calc_on_a11y_bus

    with calc_on_a11y_bus(tmp_path_factory.mktemp("a11y"), A11Y_DOCUMENT) as session:
        yield session
