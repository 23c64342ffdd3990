"""An unprivileged user per local desktop session, so the session's apps cannot reach the host's files.

When the backend runs as root, each session claims one user of a small pool
(``desktop-gym-00`` ... ``desktop-gym-NN``, created with ``useradd --system`` the first time a slot
is used, then reused: no user is created per reset or per session). A claim is an exclusive
``flock`` on a lock file in a root-only folder; the owner and its reaper hold the same lock, so it
is released only when both are gone, i.e. after everything of the session was killed. Claiming
a slot first kills whatever its user still runs (left by an owner whose reaper died too).

Run as an ordinary user, no other user can be made: the session then runs as that user (see the
README's "Security model" for what is not isolated then).
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ..errors import OfficeProfileError
from .base import BackendError
from .reaper import kill_user

USER_PREFIX = "desktop-gym-"
POOL_SIZE = int(os.environ.get("DESKTOP_GYM_SESSION_USERS", "32"))
"""Most sessions that run at once as their own users on this machine (``DESKTOP_GYM_SESSION_USERS``)."""
LOCK_DIR = Path("/run/desktop-gym-users")
USERADD_TIMEOUT_S = 30.0
SHARED_CACHE = Path("/var/cache/desktop-gym")


@dataclass
class SessionUser:
    """A claimed pool user; ``lock_fd`` holds the claim (pass it to the reaper, close it to release)."""

    name: str
    uid: int
    gid: int
    lock_fd: int

    def release(self) -> None:
        """Give the slot back (its processes must be gone by now)."""
        if self.lock_fd >= 0:
            os.close(self.lock_fd)
            self.lock_fd = -1

    def chown(self, *paths: Path) -> None:
        """Hand ``paths`` (folders the session writes: home, run, tmp, guest state) to this user."""
        for path in paths:
            os.chown(path, self.uid, self.gid)


def can_isolate() -> bool:
    """Whether sessions can run as users of their own here (root, with ``useradd``)."""
    return os.geteuid() == 0 and shutil.which("useradd") is not None


def _ensure_user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    argv = ["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
    argv += ["--shell", "/usr/sbin/nologin", "--comment", "desktop-gym session", name]
    with open(LOCK_DIR / "useradd.lock", "w") as guard:  # one useradd at a time on this machine
        fcntl.flock(guard, fcntl.LOCK_EX)
        try:
            return pwd.getpwnam(name)  # another process created it meanwhile
        except KeyError:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=USERADD_TIMEOUT_S, check=False)
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise BackendError(f"could not create the session user {name}: {result.stderr.strip()!r}") from None


def claim_session_user(pool_size: int = POOL_SIZE) -> SessionUser:
    """Claim a free pool user (creating it on first use) and kill what it still runs.

    Raises:
        BackendError: all ``pool_size`` users are in use, or ``useradd`` failed.
    """
    LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
    for index in range(pool_size):
        name = f"{USER_PREFIX}{index:02d}"
        fd = os.open(LOCK_DIR / f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            entry = _ensure_user(name)
            if survivors := kill_user(entry.pw_uid):
                raise BackendError(f"processes {survivors} of the session user {name} survived SIGKILL")
        except BaseException:
            os.close(fd)
            raise
        return SessionUser(name=name, uid=entry.pw_uid, gid=entry.pw_gid, lock_fd=fd)
    raise BackendError(
        f"all {pool_size} session users are in use (raise DESKTOP_GYM_SESSION_USERS to run more desktops at once)"
    )


def confine_workdir(workdir: Path, user: SessionUser, session_folders: tuple[Path, ...]) -> None:
    """Let ``user`` reach only ``session_folders`` of ``workdir`` (not its token, logs or socket).

    The workdir stays root's with mode 0711: the session user may pass through it to its own
    folders but not list it or open what root keeps there.

    Raises:
        BackendError: a folder above ``workdir`` is closed to other users (the session could not
            reach its home).
    """
    for folder in workdir.resolve().parents:
        if not folder.stat().st_mode & 0o001:
            raise BackendError(
                f"the session user {user.name} cannot reach {workdir}: {folder} is closed to other users "
                f"(mode {folder.stat().st_mode & 0o777:o}); pick a workdir others may pass through, "
                "or pass session_user=False"
            )
    os.chmod(workdir, 0o711)
    user.chown(*session_folders)


def shared_profile_cache() -> Path:
    """A root-owned, world-readable cache for the LibreOffice profile template of session users.

    Built here as root, so no session can change the template later sessions copy; a user's own
    cache (``~/.cache``) is out of the session users' reach.
    """
    cache = SHARED_CACHE
    cache.mkdir(mode=0o755, parents=True, exist_ok=True)
    if shutil.which("soffice") is None:
        return cache  # no LibreOffice here: launching an office app reports that itself
    from ..guest.apps import lo_profile

    try:
        template = lo_profile.ensure_profile_template(cache)
    except OfficeProfileError:
        return cache  # the guest retries, and its launch error names the cause
    for folder, _dirs, files in os.walk(template):  # soffice may create some files 0600
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return cache


def _reachable_by_others(path: Path) -> bool:
    """Whether a user with no claim on ``path`` can read it (every folder above it passable)."""
    try:
        resolved = path.resolve()
        return all(folder.stat().st_mode & 0o001 for folder in resolved.parents) and bool(
            resolved.stat().st_mode & 0o004
        )
    except OSError:
        return False


def unreachable_guest_code(package_root: Path) -> Path | None:
    """The first folder of the guest's code (this package, the venv's packages) that a session user
    cannot read, or None when it can read them all."""
    for folder in (package_root / "desktop_gym", Path(sysconfig.get_paths()["purelib"])):
        if folder.exists() and not _reachable_by_others(folder):
            return folder
    return None


def session_python(python: str) -> tuple[str, list[str]]:
    """An interpreter the session user can run for the guest, and the ``PYTHONPATH`` entries it needs.

    ``python`` itself when its standard library is readable by others. An interpreter installed
    under a private home (pyenv in ``/root``) is not: then the system's interpreter of the same
    version runs the guest, with this process's package folders (the venv's site-packages and
    what its ``.pth`` files add) first on its path, so it imports the same packages.

    Raises:
        BackendError: neither is usable by the session user.
    """
    if python != sys.executable or _reachable_by_others(Path(sysconfig.get_paths()["stdlib"])):
        return python, []
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    system = Path(f"/usr/bin/python{version}")
    stdlib = Path(f"/usr/lib/python{version}")
    if not (system.exists() and _reachable_by_others(stdlib)):
        raise BackendError(
            f"the session user cannot run {python} (its standard library is in a private folder) and "
            f"there is no system {system}: install python{version}, or pass session_user=False"
        )
    private = Path(sys.base_prefix).resolve()
    packages = [p for p in sys.path if p and Path(p).is_dir() and not Path(p).resolve().is_relative_to(private)]
    return str(system), packages
