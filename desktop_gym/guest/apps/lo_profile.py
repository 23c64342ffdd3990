"""A LibreOffice user profile template, built once, copied fresh for every episode.

A fresh profile per episode keeps episodes independent (no recent-files list, no toolbar
changes, no undo history, no stale ``.lock``) and costs one ``copytree`` (~9 ms). The template
is the profile ``soffice --terminate_after_init`` creates, plus settings that keep episodes
dialog-free and deterministic (see :data:`PROFILE_SETTINGS`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

from desktop_gym.errors import OfficeProfileError

TEMPLATE_BUILD_TIMEOUT_S = 60.0
"""Upper bound for ``soffice --terminate_after_init`` (it takes ~0.1-2 s)."""

FAR_FUTURE_EPOCH_S = 4102444800
"""2100-01-01: 'last shown' time for the periodic Donate / Get Involved infobars, so they never show."""


# (registry path, property, xs type, value). Keep this data: the template's cache key hashes it,
# so editing a setting rebuilds the template instead of reusing a stale one.
PROFILE_SETTINGS: tuple[tuple[str, str, str, str], ...] = (
    # "Keep current format?" when saving xlsx/docx/pptx.
    ("/org.openoffice.Office.Common/Save/Document", "WarnAlienFormat", "xs:boolean", "false"),
    ("/org.openoffice.Office.Common/Save/Document", "AutoSave", "xs:boolean", "false"),
    # Tip of the day, first start wizard, crash-report dialog.
    ("/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "xs:boolean", "false"),
    ("/org.openoffice.Office.Common/Misc", "FirstRun", "xs:boolean", "false"),
    ("/org.openoffice.Office.Common/Misc", "CrashReport", "xs:boolean", "false"),
    ("/org.openoffice.Office.Common/Misc", "UseOpenCL", "xs:boolean", "false"),
    # "This document was created by a newer version" dialog.
    ("/org.openoffice.Office.Common/Load", "ShowOfficeUpdateDialog", "xs:boolean", "false"),
    ("/org.openoffice.Setup/Office", "ooSetupInstCompleted", "xs:boolean", "true"),
    # ooSetupLastVersion is filled with the installed major.minor: a mismatch shows "What's new".
    ("/org.openoffice.Setup/Product", "ooSetupLastVersion", "xs:string", "{major_minor}"),
    ("/org.openoffice.Setup/Product", "LastTimeGetInvolvedShown", "xs:long", str(FAR_FUTURE_EPOCH_S)),
    ("/org.openoffice.Setup/Product", "LastTimeDonateShown", "xs:long", str(FAR_FUTURE_EPOCH_S)),
    # Update check, autorecovery, autosave.
    ("/org.openoffice.Office.Update/Update", "Enabled", "xs:boolean", "false"),
    ("/org.openoffice.Office.Recovery/AutoSave", "Enabled", "xs:boolean", "false"),
    ("/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "xs:boolean", "false"),
    # Java: slow start, "no JRE" dialogs.
    ("/org.openoffice.Office.Java/VirtualMachine", "Enable", "xs:boolean", "false"),
    # A new presentation (open_app("impress")) would start behind a modal "Select a Template" dialog.
    ("/org.openoffice.Office.Impress/Misc/NewDoc", "AutoPilot", "xs:boolean", "false"),
)


@functools.lru_cache(maxsize=1)
def libreoffice_version(soffice: str = "soffice") -> str:
    """Return the installed LibreOffice version, e.g. ``"7.4.7.2"``.

    Raises:
        OfficeProfileError: if ``soffice`` is missing or prints no version.
    """
    try:
        result = subprocess.run(
            [soffice, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OfficeProfileError(f"cannot run '{soffice} --version': {exc}") from exc
    match = re.search(r"LibreOffice\S*\s+(\d+(?:\.\d+)+)", result.stdout)
    if not match:
        raise OfficeProfileError(f"'{soffice} --version' printed no version: {result.stdout!r} {result.stderr!r}")
    return match.group(1)


def _settings_xml(version: str) -> str:
    major_minor = ".".join(version.split(".")[:2])
    items = []
    for path, name, xs_type, value in PROFILE_SETTINGS:
        value = value.format(major_minor=major_minor)
        items.append(
            f'<item oor:path="{escape(path)}"><prop oor:name="{escape(name)}" oor:op="fuse" '
            f'oor:type="{xs_type}"><value>{escape(value)}</value></prop></item>'
        )
    return "\n".join(items)


CACHE_ENV = "DESKTOP_GYM_CACHE"


def _default_cache_dir() -> Path:
    # Session homes are wiped between episodes; the backend points DESKTOP_GYM_CACHE at the real
    # user's cache so the template is built once per machine, not once per episode.
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "desktop-gym"


def template_path(cache_dir: Path | None = None) -> Path:
    """Where :func:`ensure_profile_template` keeps the template for the installed LibreOffice."""
    version = libreoffice_version()
    digest = hashlib.sha256(_settings_xml(version).encode()).hexdigest()[:8]
    return Path(cache_dir or _default_cache_dir()) / f"lo-profile-{version}-{digest}"


def _run_terminate_after_init(profile_dir: Path, timeout: float) -> None:
    command = [
        "soffice",
        "--headless",
        "--norestore",
        "--nologo",
        "--nofirststartwizard",
        "--terminate_after_init",
        f"-env:UserInstallation={profile_dir.as_uri()}",
    ]
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    process = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # soffice forks soffice.bin: kill the whole group on timeout
    )
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise OfficeProfileError(f"'soffice --terminate_after_init' did not finish within {timeout:.0f} s") from exc
    finally:
        try:  # soffice.bin may outlive the wrapper script
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if process.returncode != 0:
        raise OfficeProfileError(f"'soffice --terminate_after_init' exited {process.returncode}: {stderr!r}")


def _write_settings(profile_dir: Path, version: str) -> None:
    registry = profile_dir / "user" / "registrymodifications.xcu"
    if not registry.exists():
        raise OfficeProfileError(f"soffice created no {registry}")
    text = registry.read_text(encoding="utf-8")
    closing = "</oor:items>"
    if closing not in text:
        raise OfficeProfileError(f"{registry} has no {closing}")
    # Later items win in registrymodifications.xcu, so appending overrides what soffice wrote.
    text = text.replace(closing, _settings_xml(version) + "\n" + closing)
    registry.write_text(text, encoding="utf-8")


def _strip_locks(profile_dir: Path) -> None:
    for lock in profile_dir.rglob("*"):
        if lock.name == ".lock" or lock.name.endswith(".lock") or lock.name.startswith(".~lock."):
            lock.unlink()


def ensure_profile_template(cache_dir: Path | None = None, timeout: float = TEMPLATE_BUILD_TIMEOUT_S) -> Path:
    """Build the profile template once and return its folder (the ``-env:UserInstallation`` root).

    Safe when several processes race: each builds in its own temporary folder and renames it into
    place; the loser discards its copy and uses the winner's.

    Args:
        cache_dir: Folder holding templates (default ``$XDG_CACHE_HOME/desktop-gym`` or
            ``~/.cache/desktop-gym``).
        timeout: Bound on the ``soffice`` run that creates the profile.

    Returns:
        The template folder, e.g. ``~/.cache/desktop-gym/lo-profile-7.4.7.2-1a2b3c4d``.

    Raises:
        OfficeProfileError: if ``soffice`` fails, hangs or writes no registry.
    """
    target = template_path(cache_dir)
    if (target / "user" / "registrymodifications.xcu").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    build_dir = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        profile = build_dir / "profile"
        _run_terminate_after_init(profile, timeout)
        _write_settings(profile, libreoffice_version())
        _strip_locks(profile)
        try:
            os.rename(profile, target)
        except OSError:
            if not target.exists():  # a real failure, not a lost race
                raise
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    return target


def fresh_profile(dest: Path, cache_dir: Path | None = None) -> str:
    """Copy the profile template to ``dest`` and return its URL for ``-env:UserInstallation=``.

    Args:
        dest: Folder to create (must not exist).
        cache_dir: Passed to :func:`ensure_profile_template`.

    Returns:
        A ``file:///...`` URL.
    """
    template = ensure_profile_template(cache_dir)
    dest = Path(dest).absolute()
    shutil.copytree(template, dest, symlinks=True)
    return dest.as_uri()
