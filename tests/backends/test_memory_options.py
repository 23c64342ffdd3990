"""Memory options of a local session: every session process gets the session's malloc settings, Xvfb its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_gym.backends.local import SESSION_MALLOC_ENV, XVFB_MALLOC_ENV, LocalBackend


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def test_every_session_process_gets_the_malloc_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert SESSION_MALLOC_ENV == {"MALLOC_ARENA_MAX": "2"}
    assert XVFB_MALLOC_ENV == {"MALLOC_MMAP_THRESHOLD_": "262144"}
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    backend = LocalBackend(width=640, height=480)
    try:
        handle = backend.start()
        environs = {name: _environ(pid) for name, pid in handle.info["pids"].items()}
    finally:
        backend.close()
    assert set(environs) >= {"xvfb", "dbus", "openbox", "guest"}
    assert {name: environ.get("MALLOC_ARENA_MAX") for name, environ in environs.items()} == dict.fromkeys(environs, "2")
    # Only Xvfb, whose pixmaps are the large allocations, gets a fixed mmap threshold.
    thresholds = {name: environ.get("MALLOC_MMAP_THRESHOLD_") for name, environ in environs.items()}
    assert thresholds == {name: "262144" if name == "xvfb" else None for name in environs}
