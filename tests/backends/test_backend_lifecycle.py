"""The lifecycle every backend shares: ``start`` and ``close`` are written once on ``Backend``."""

from __future__ import annotations

import pytest

from desktop_gym.backends.base import Backend, DesktopHandle
from desktop_gym.errors import BackendError


class _Recorder(Backend):
    name = "recorder"

    def __init__(self, fail_close: BaseException | None = None) -> None:
        self.calls: list[str] = []
        self.fail_close = fail_close

    def _start(self) -> DesktopHandle:
        self.calls.append("start")
        return self._new_handle("unix:///nowhere", None, {})

    def _close(self, timeout: float) -> None:
        self.calls.append(f"close {timeout}")
        if self.fail_close is not None:
            raise self.fail_close


def test_close_forgets_the_handle_then_runs_the_backends_part() -> None:
    backend = _Recorder()
    handle = backend.start()
    assert backend.start() is handle and backend.calls == ["start"]
    backend.close(timeout=3.0)
    assert backend._handle is None and not backend.is_alive()
    assert backend.calls == ["start", "close 3.0"]
    backend.close()  # twice is fine
    assert backend.calls[-1] == "close 10.0"


def test_a_failure_in_close_leaves_as_one_backend_error_naming_the_backend() -> None:
    backend = _Recorder(fail_close=OSError("device busy"))
    backend.start()
    with pytest.raises(BackendError, match="closing the recorder desktop failed: device busy"):
        backend.close()
    assert backend._handle is None, "the handle is gone even when closing failed"
    own = BackendError("3 processes survived")
    backend.fail_close = own
    with pytest.raises(BackendError) as caught:
        backend.close()
    assert caught.value is own


def test_optional_parts_are_declared_on_the_base() -> None:
    from desktop_gym.env import DesktopEnv

    backend = _Recorder()
    assert backend.env_class is DesktopEnv
    assert callable(backend.wipe_session) and backend.logs() == ""
