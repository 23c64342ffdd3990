"""Backends by entry point: the load-test stand-in is found by name, and nothing on the server's path imports it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

from desktop_gym.backends import ENTRY_POINT_GROUP, available_backends, make_backend


def test_the_load_test_backend_is_an_entry_point_found_by_name():
    assert "loadtest" in {point.name for point in entry_points(group=ENTRY_POINT_GROUP)}
    assert {"local", "container", "qemu", "loadtest"} <= set(available_backends())
    backend = make_backend("loadtest", width=32, height=24)
    try:
        handle = backend.start()
        assert (handle.width, handle.height) == (32, 24) and backend.is_alive()
        assert backend.env_class.__name__ == "LoadTestEnv"
    finally:
        backend.close()


def test_the_env_server_path_never_imports_the_load_test_module():
    code = (
        "import sys; from desktop_gym.serve import server, pool, client; "
        "from desktop_gym.backends import make_backend; make_backend('local'); "
        "print('desktop_gym.serve.loadtest' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_an_unknown_backend_names_the_known_ones():
    import pytest

    with pytest.raises(ValueError, match=r"unknown backend 'nope' \(known: .*loadtest.*local"):
        make_backend("nope")
