"""Start a bare soffice on a test's own profile and pipe (what the launcher does, without the guest)."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Mapping
from pathlib import Path

import pytest

from desktop_gym.guest.apps import lo_profile


def start_soffice(
    work: Path, document: Path, env: Mapping[str, str], cache_dir: Path | None = None, module: str = "--calc"
) -> tuple[subprocess.Popen, str]:
    """Start ``soffice <module> <document>`` on a fresh profile under ``work``, listening on a UNO pipe.

    Args:
        work: The test's folder (the profile goes to ``work/profile``).
        document: The file to open.
        env: The desktop session's environment (``DISPLAY`` and friends).
        cache_dir: The profile template cache (``lo_profile``'s default when None).
        module: The soffice module flag.

    Returns:
        The process (leader of its own session, so ``os.killpg`` ends it) and the pipe name.
    """
    profile_url = lo_profile.fresh_profile(work / "profile", cache_dir)
    pipe = f"test_{uuid.uuid4().hex}"
    argv = ["soffice", f"-env:UserInstallation={profile_url}", "--norestore", "--nologo", "--nodefault"]
    argv += ["--nofirststartwizard", f"--accept=pipe,name={pipe};urp;", module, str(document)]
    process = subprocess.Popen(
        argv, env=dict(env), start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return process, pipe


DESKTOP_TOOLS = ("soffice", "Xvfb", "openbox", "dbus-daemon")

needs_desktop_tools = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in DESKTOP_TOOLS),
    reason=f"needs {', '.join(DESKTOP_TOOLS)} (scripts/install.sh installs them)",
)
"""Skips a module that starts its own X session and soffice when the desktop tools are missing."""
