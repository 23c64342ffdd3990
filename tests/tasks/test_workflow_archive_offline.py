"""``workflow.archive_report`` judged without a desktop: a correct end state passes, near misses fail.

The home is ``StandInGuest``'s in-memory one; the end states are written the way the oracle's shell
commands leave them (the archive is a real gzip tar). The real proof runs in ``desktop-gym tasks check``.
"""

from __future__ import annotations

import io
import re
import tarfile

import numpy as np
import pytest

from desktop_gym.tasks import get_task

from .test_workflow_files_offline import Home, judged, key

TASK = "workflow.archive_report"


def gzip_tar(members: dict[str, bytes], compress: bool = True) -> bytes:
    """A tar (gzip-compressed unless ``compress`` is False) holding ``members``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if compress else "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def archived(
    home: Home, params: dict, *, keep_tmp: bool = False, keep_folder: bool = False, compress: bool = True
) -> None:
    """Leave the end state of the oracle's commands (or of a near miss)."""
    folder = f"~/project/{params['project']}"
    chosen = {**params["kept"], **(params["temporary"] if keep_tmp else {})}
    members = {f"{params['project']}/{path}": home[key(f"{folder}/{path}")] for path in chosen}
    base = f"~/backups/{params['archive_name']}"
    home[key(f"{base}.tar.gz")] = gzip_tar(members, compress)
    home[key(f"{base}.txt")] = ("\n".join(sorted(members)) + "\n").encode()
    if not keep_folder:
        for path in [*params["kept"], *params["temporary"]]:
            home.pop(key(f"{folder}/{path}"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_archive_report_end_states(seed: int) -> None:
    assert judged(TASK, seed, archived)
    assert not judged(TASK, seed, lambda home, p: archived(home, p, keep_tmp=True))  # temporary files packed
    assert not judged(TASK, seed, lambda home, p: archived(home, p, keep_folder=True))  # copied, not moved
    assert not judged(TASK, seed, lambda home, p: archived(home, p, compress=False))  # plain tar


def test_manifest_order_does_not_depend_on_the_locale() -> None:
    """Byte order (``LC_ALL=C sort``) and a locale's order, which skips punctuation, list the paths alike."""
    for seed in range(20):
        params = get_task(TASK).sample_params(np.random.default_rng(seed))
        paths = [f"{params['project']}/{path}" for path in params["kept"]]
        assert sorted(paths) == sorted(paths, key=lambda path: re.sub(r"[^a-z0-9]", "", path.casefold()))
