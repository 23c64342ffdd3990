"""A screenshot buffer in shared memory, for a guest on the same machine as its client.

Moving a 1280x720 RGB frame through protobuf and a unix socket costs ~8 ms (three copies of
2.7 MB); writing it into a file in ``/dev/shm`` that both processes map costs one copy. The client
creates the file (mode 0600) and names it in the request; the guest writes the pixels there.
Guests that cannot see the file (another machine, a container without the mount) answer with an
error and the client falls back to sending bytes.
"""

from __future__ import annotations

import mmap
import os
import threading
import uuid
from pathlib import Path

import numpy as np

SHM_DIR = Path("/dev/shm")


#: What a guest's command line runs: the guest, or the zygote it was forked from (backends/guest_fork.py).
GUEST_MODULES = frozenset({b"desktop_gym.guest", b"desktop_gym.guest.zygote"})


class SharedFrame:
    """A ``height x width x 3`` uint8 array backed by a memory-mapped file.

    Args:
        path: the file to map; created with the right size when ``create`` is True.
        width: frame width in pixels.
        height: frame height in pixels.
        create: create (and later unlink) the file; the other side opens an existing one.
    """

    def __init__(self, path: Path, width: int, height: int, create: bool = False) -> None:
        self.path = Path(path)
        self.width, self.height = width, height
        self._owner = create
        size = width * height * 3
        flags = os.O_RDWR | (os.O_CREAT | os.O_EXCL if create else 0)
        fd = os.open(self.path, flags, 0o600)
        try:
            if create:
                os.ftruncate(fd, size)
            elif os.fstat(fd).st_size != size:
                found = os.fstat(fd).st_size
                raise ValueError(f"{self.path} holds {found} bytes, expected {size} for {width}x{height}")
            self._map = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        self.array = np.ndarray((height, width, 3), dtype=np.uint8, buffer=self._map)
        self.lock = threading.Lock()

    @classmethod
    def create(cls, width: int, height: int) -> SharedFrame:
        """A new frame file in ``/dev/shm`` with a unique name."""
        return cls(SHM_DIR / f"desktop-gym-frame-{uuid.uuid4().hex}", width, height, create=True)

    def hand_to_guest(self, pid: int) -> None:
        """Let the local guest process ``pid`` open the frame when it runs as another user (a session
        user): give it the file (mode 0600 stays). Only root can, only for a desktop-gym guest."""
        if os.geteuid() != 0:
            return
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return  # not a process of this machine's namespace: the guest falls back to bytes
        if not GUEST_MODULES & set(command):  # a forked guest shows its zygote's command line
            return
        uids = next((line.split()[1:] for line in status.splitlines() if line.startswith("Uid:")), [])
        if len(uids) >= 2 and int(uids[1]) != 0:
            os.chown(self.path, int(uids[1]), -1)

    def close(self) -> None:
        """Unmap, and remove the file if this side created it."""
        try:
            self._map.close()
        except BufferError:  # a view is still alive; the mapping goes with the process
            pass
        if self._owner:
            self.path.unlink(missing_ok=True)


def shared_memory_available() -> bool:
    """Whether ``/dev/shm`` exists and is writable here."""
    return SHM_DIR.is_dir() and os.access(SHM_DIR, os.W_OK)
