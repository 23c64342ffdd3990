"""``check_backend`` on real desktops: the local backend, the container backend, and a broken backend."""

from __future__ import annotations

import shutil

import pytest

from desktop_gym.backends.local import LocalBackend
from desktop_gym.testing import BackendReport, check_backend

pytestmark = pytest.mark.slow

CHECKS = ["start", "screenshot", "input", "a11y", "exec", "files", "reset", "close"]


def _assert_passed(report: BackendReport) -> None:
    assert [check.name for check in report.checks] == CHECKS
    report.raise_for_failures()
    assert report.ok


def test_local_backend_passes() -> None:
    backend = LocalBackend()
    report = check_backend(backend)
    _assert_passed(report)
    assert report.backend == "local"
    assert backend.workdir is None or not backend.workdir.exists()


class _MisreportedSize(LocalBackend):
    """A broken backend for the negative case: it announces a screen size its desktop does not have."""

    @property
    def screen_size(self) -> tuple[int, int]:
        return (1920, 1080)


def test_a_broken_backend_is_reported_not_raised() -> None:
    report = check_backend(_MisreportedSize())
    failed = {check.name: check.detail for check in report.failures()}
    assert list(failed) == ["screenshot"]
    assert "expected (1080, 1920, 3)" in failed["screenshot"]
    assert not report.ok
    with pytest.raises(AssertionError, match="FAIL screenshot"):
        report.raise_for_failures()


def test_unknown_backend_name() -> None:
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        check_backend("nope")


@pytest.mark.skipif(shutil.which("podman") is None, reason="podman is not installed (scripts/install.sh installs it)")
@pytest.mark.timeout(900)
@pytest.mark.parametrize("reset_mode", ["restart_apps", "recreate"])
def test_container_backend_passes(reset_mode: str) -> None:
    from desktop_gym.backends import podman_service
    from desktop_gym.backends.container import ContainerBackend
    from desktop_gym.images import ensure_image

    image = ensure_image("podman")  # cached by content hash after the first build
    backend = ContainerBackend(image=image, base_url=podman_service.start_podman_service(), reset_mode=reset_mode)
    report = check_backend(backend)
    _assert_passed(report)
    assert report.backend == "container"
