"""Memory options of a local session: every session process runs with the session's malloc settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_gym.backends.local import SESSION_MALLOC_ENV, LocalBackend


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def test_every_session_process_gets_the_malloc_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert SESSION_MALLOC_ENV == {"MALLOC_ARENA_MAX": "2"}
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    backend = LocalBackend(width=640, height=480)
    try:
        handle = backend.start()
        environs = {name: _environ(pid) for name, pid in handle.info["pids"].items()}
    finally:
        backend.close()
    assert set(environs) >= {"xvfb", "dbus", "openbox", "guest"}
    assert {name: environ.get("MALLOC_ARENA_MAX") for name, environ in environs.items()} == dict.fromkeys(environs, "2")
