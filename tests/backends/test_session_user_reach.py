"""A session user must be able to read the guest's code; a checkout in a private folder is named."""

from __future__ import annotations

import shutil
import sysconfig
import tempfile
from pathlib import Path

from desktop_gym.backends.session_user import _reachable_by_others, unreachable_guest_code


def _checkout(root: Path, mode: int) -> Path:
    (root / "desktop_gym").mkdir(parents=True)
    (root / "desktop_gym").chmod(0o755)
    root.chmod(mode)
    return root


def test_a_checkout_others_can_read_is_reachable() -> None:
    folder = Path(tempfile.mkdtemp(prefix="desktop-gym-reach-"))  # pytest's tmp_path is under a 0700 folder
    try:
        folder.chmod(0o755)
        # The venv's packages are checked too: a clone in a private folder (``mktemp -d``) has them there.
        packages = Path(sysconfig.get_paths()["purelib"])
        expected = None if _reachable_by_others(packages) else packages
        assert unreachable_guest_code(_checkout(folder / "open", 0o755)) == expected
    finally:
        shutil.rmtree(folder)


def test_a_checkout_under_a_private_folder_is_named(tmp_path: Path) -> None:
    private_root = _checkout(tmp_path / "private", 0o700)
    assert unreachable_guest_code(private_root) == private_root / "desktop_gym"
