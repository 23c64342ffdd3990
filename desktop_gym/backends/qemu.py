"""A desktop guest in a QEMU VM, with whole-machine snapshots (``savevm``/``loadvm`` over QMP).

Each backend instance boots the built guest (``desktop-gym image build --qemu-small``) from a
per-VM qcow2 overlay on the read-only base disk, with ``-kernel/-initrd`` (no bootloader). The
guest agent listens on TCP inside; QEMU's user network forwards one port on 127.0.0.1 to it
(``restrict=on``: the guest reaches nothing outside). The session token travels through
``fw_cfg``, so it is on no command line. KVM is used when ``/dev/kvm`` can create a VM, TCG
otherwise.

Snapshots are internal to the overlay and hold RAM + disk: :meth:`QemuBackend.restore` puts the
whole machine back, running processes included (~0.1-0.5 s). A client connected before a restore
must reconnect (its TCP connection belongs to the machine state that was thrown away).
"""

from __future__ import annotations

import atexit
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

from ..guest.client import GuestClient
from .base import Backend, BackendError, DesktopHandle
from .qemu_host import QEMU, free_port, kvm_usable
from .qemu_qmp import QmpConnection, QmpError

BUILD_HINTS = {"small": "desktop-gym image build --qemu-small", "desktop": "desktop-gym image build --qemu"}
DEFAULT_SNAPSHOT = "clean"
BOOT_ATTEMPTS = 3
#: Settings of the guest clock after a restore, each checked by a fresh reading (3 once left 42 ms on CI).
CLOCK_SYNC_TRIES = 5
CLOCK_TOLERANCE_S = 0.03  # a guest clock this close to the host's is left alone
_SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class QemuBackend(Backend):
    """A guest agent in a QEMU VM; :meth:`snapshot`, :meth:`restore` and ``reset_desktop`` = restore.

    Args:
        image: A built :class:`~desktop_gym.images.qemu_guest.GuestImage`; ``None`` = this checkout's.
        flavor: Which guest when ``image`` is ``None``: ``"small"`` (headless) or ``"desktop"``.
        memory_mb: Guest RAM; ``None`` = the flavor's default (256 MiB small, 2 GiB desktop).
        cpus: Guest vCPUs.
        accel: ``"auto"`` (KVM when usable, else TCG), ``"kvm"`` or ``"tcg"``.
        build_image: Build the guest image (cached) when it is missing, instead of raising.
        startup_timeout: Seconds allowed for the guest agent to answer after QEMU starts.
        snapshot_on_start: Take snapshot ``"clean"`` once the guest answers (what ``reset_desktop`` restores).
    """

    name = "qemu"

    def __init__(
        self,
        image=None,
        flavor: str = "small",
        memory_mb: int | None = None,
        cpus: int = 1,
        accel: str = "auto",
        build_image: bool = False,
        startup_timeout: float = 120.0,
        snapshot_on_start: bool = True,
    ) -> None:
        from ..images.qemu_recipes import flavor_named

        if accel not in ("auto", "kvm", "tcg"):
            raise ValueError(f"unknown accel {accel!r} (choose auto, kvm or tcg)")
        self.image = image
        self.flavor = image.flavor if image is not None else flavor_named(flavor)
        self.width, self.height = self.flavor.screen  # (0, 0): the small guest is headless
        self.memory_mb, self.cpus = memory_mb or self.flavor.memory_mb, cpus
        self.accel = accel
        self.build_image = build_image
        self.startup_timeout = startup_timeout
        self.snapshot_on_start = snapshot_on_start
        # The env restores the boot snapshot between episodes (a full restore in ~0.5 s under TCG).
        self.reset_mode = "snapshot" if snapshot_on_start else "restart_apps"
        self.workdir: Path | None = None
        self._proc: subprocess.Popen | None = None
        self._qmp: QmpConnection | None = None
        self._handle: DesktopHandle | None = None
        self.snapshots: list[str] = []
        self.timings: dict[str, float] = {}

    # -- lifecycle -------------------------------------------------------------------------------

    def _guest_image(self):
        from ..images.qemu_guest import build_guest_image, guest_image, latest_guest_image

        hint = BUILD_HINTS[self.flavor.name]
        if self.image is not None:
            if not self.image.exists():
                raise BackendError(f"the qemu guest image {self.image.disk} is missing: run `{hint}`")
            return self.image
        image = guest_image(self.flavor)
        if image.exists():
            return image
        if self.build_image:
            return build_guest_image(self.flavor)
        stale = latest_guest_image(self.flavor)
        if stale is None:
            raise BackendError(f"the qemu guest image is not built ({image.disk} is missing): run `{hint}`")
        warnings.warn(
            f"using qemu guest {stale.key}, built from other sources than this checkout's ({image.key}): "
            f"rebuild with `{hint}`",
            stacklevel=3,
        )
        return stale

    def _start(self) -> DesktopHandle:
        """Boot the VM and return once its guest agent answers.

        Raises:
            BackendError: QEMU or the guest image is missing, QEMU exited, or the guest did not
                answer within ``startup_timeout`` (the console tail is in the message).
        """
        if shutil.which(QEMU) is None:
            raise BackendError(f"{QEMU} is not installed: apt-get install qemu-system-x86 qemu-utils")
        image = self._guest_image()
        for attempt in range(BOOT_ATTEMPTS):
            try:
                self._handle = self._boot(image)
                break
            except BackendError as exc:
                # The forwarded port is picked free, then bound by QEMU: another process may take it between.
                if "host forwarding" not in str(exc) or attempt == BOOT_ATTEMPTS - 1:
                    raise
                self.close()
                atexit.register(self.close)
        if self.snapshot_on_start:
            self.snapshot(DEFAULT_SNAPSHOT)
        return self._handle

    def _accel(self) -> str:
        if self.accel == "auto":
            return "kvm" if kvm_usable() else "tcg"
        if self.accel == "kvm" and not kvm_usable():
            raise BackendError("accel='kvm' but /dev/kvm cannot create a VM here (use accel='tcg' or 'auto')")
        return self.accel

    def _boot(self, image) -> DesktopHandle:
        started = time.monotonic()
        self.workdir = Path(tempfile.mkdtemp(prefix="dg-qemu-", dir="/tmp"))  # short: holds a unix socket
        overlay, token_file = self.workdir / "overlay.qcow2", self.workdir / "token"
        result = subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", str(image.disk), str(overlay)],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise BackendError(f"qemu-img create of the overlay over {image.disk} failed: {result.stderr.strip()}")
        token = secrets.token_hex(16)
        token_file.touch(mode=0o600)
        token_file.write_text(token)
        accel, port = self._accel(), free_port()
        qmp_socket = self.workdir / "qmp.sock"
        self._qmp = QmpConnection(f"qemu-{self.workdir.name}")
        self._qmp.listen(str(qmp_socket))
        argv = [
            QEMU, "-nodefaults", "-no-user-config", "-display", "none",
            "-machine", "pc", "-cpu", "host" if accel == "kvm" else "max",
            # TCG's translation cache defaults to 1 GiB (most of a VM's RSS): 128 MiB is plenty here.
            "-accel", "kvm" if accel == "kvm" else "tcg,tb-size=128",
            "-m", str(self.memory_mb), "-smp", str(self.cpus),
            "-kernel", str(image.kernel), "-initrd", str(image.initrd), "-append", image.append,
            "-drive", f"file={overlay},if=virtio,format=qcow2,cache=unsafe,discard=unmap",
            "-netdev", f"user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:{port}-10.0.2.15:7070",
            "-device", "virtio-net-pci,netdev=net0",
            "-fw_cfg", f"name=opt/org.desktop-gym/token,file={token_file}",
            "-serial", f"file:{self.workdir / 'console.log'}",
            "-chardev", f"socket,id=qmp,path={qmp_socket}", "-mon", "chardev=qmp,mode=control",
        ]  # fmt: skip
        with open(self.workdir / "qemu.log", "wb") as log:
            self._proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
            )
        deadline = time.monotonic() + self.startup_timeout
        try:
            self._qmp.accept(timeout=30.0, alive=self.is_alive)
        except QmpError as exc:
            raise BackendError(f"{exc}; qemu log: {self._tail('qemu.log')!r}") from None
        address = f"ipv4:127.0.0.1:{port}"
        self.wait_for_guest(address, token, max(0.1, deadline - time.monotonic()), self._exit_reason, ping_timeout=1.0)
        self.timings["boot_s"] = time.monotonic() - started
        return self._new_handle(
            address,
            token,
            {
                "pid": self._proc.pid,
                "accel": accel,
                "port": port,
                "image": f"{image.flavor.name}-{image.key}",
                "overlay": str(overlay),
                "console": str(self.workdir / "console.log"),
            },
            alive_check=self.is_alive,
        )

    def _tail(self, name: str, chars: int = 1500) -> str:
        try:
            return (self.workdir / name).read_text(errors="replace")[-chars:].strip()  # type: ignore[operator]
        except OSError:
            return ""

    def _exit_reason(self) -> str | None:
        if self.is_alive():
            return None
        return (
            f"qemu exited with code {self._proc.returncode if self._proc else None}; "
            f"log: {self._tail('qemu.log')!r}; console: {self._tail('console.log')!r}"
        )

    def logs(self) -> str:
        """The tail of the VM's serial console."""
        return self._tail("console.log") if self.workdir is not None else ""

    # -- snapshots -------------------------------------------------------------------------------

    def _monitor(self) -> QmpConnection:
        if self._qmp is None or self._handle is None or not self.is_alive():
            raise BackendError("the VM is not running: call start() first")
        return self._qmp

    @staticmethod
    def _check_name(name: str) -> None:
        if not _SNAPSHOT_NAME.fullmatch(name):
            raise ValueError(f"snapshot name {name!r} must be 1-64 letters, digits, '_', '.' or '-'")

    def snapshot(self, name: str = DEFAULT_SNAPSHOT) -> float:
        """Save the whole machine (RAM + disk) as snapshot ``name`` (replacing one of that name); return seconds.

        Raises:
            BackendError: the VM is not running or QEMU refused (its message is included).
        """
        self._check_name(name)
        started = time.monotonic()
        output = self._monitor().hmp(f"savevm {name}")
        if output.strip():
            raise BackendError(f"savevm {name} failed: {output.strip()}")
        if name not in self.snapshots:
            self.snapshots.append(name)
        self.timings["snapshot_s"] = elapsed = time.monotonic() - started
        return elapsed

    def restore(self, name: str = DEFAULT_SNAPSHOT) -> DesktopHandle:
        """Put the machine back to snapshot ``name`` and return the handle once the guest answers.

        Raises:
            BackendError: unknown snapshot, QEMU refused, or the guest did not answer afterwards.
        """
        self._check_name(name)
        if name not in self.snapshots:
            raise BackendError(f"no snapshot {name!r} in this VM (taken: {', '.join(self.snapshots) or 'none'})")
        started = time.monotonic()
        output = self._monitor().hmp(f"loadvm {name}")
        if output.strip():
            raise BackendError(f"loadvm {name} failed: {output.strip()}")
        assert self._handle is not None and self._handle.token is not None
        self.wait_for_guest(
            self._handle.address, self._handle.token, self.startup_timeout, self._exit_reason, ping_timeout=1.0
        )
        self._sync_clock()
        self.timings["restore_s"] = time.monotonic() - started
        return self._handle

    def _sync_clock(self) -> None:
        """Set the guest's clock to the host's: a restored machine's clock lags (it resumes near the
        snapshot's time; 1.5 s behind after 10 s under TCG here), and mtime checks would misjudge files.

        The time sent arrives late (the request's latency and the spawn of ``date`` under TCG: the
        guest then lags 60-80 ms here), so the offset is measured at the midpoint of a round trip
        after each setting, and the next setting sends the host's time that much ahead; up to
        ``CLOCK_SYNC_TRIES`` settings. ``timings["clock_offset_s"]`` keeps the last offset measured
        (guest minus host).
        """
        assert self._handle is not None
        lead = 0.0
        with GuestClient(self._handle.address, token=self._handle.token, timeout=10.0) as client:
            for _ in range(CLOCK_SYNC_TRIES):
                result = client.exec(["date", "-u", "-s", f"@{time.time() + lead:.3f}"])
                if result.returncode != 0:
                    raise BackendError(f"could not set the guest clock after a restore: {result.stderr.strip()}")
                offset = _clock_offset(client)
                if abs(offset) <= CLOCK_TOLERANCE_S:
                    break
                lead -= offset
        self.timings["clock_offset_s"] = offset

    def reset_desktop(self) -> DesktopHandle:
        """Restore the ``"clean"`` snapshot (taken at start), or the latest one taken."""
        if not self.snapshots:
            raise BackendError("no snapshot to reset to: start with snapshot_on_start=True or call snapshot()")
        return self.restore(DEFAULT_SNAPSHOT if DEFAULT_SNAPSHOT in self.snapshots else self.snapshots[-1])

    # -- health and teardown ---------------------------------------------------------------------

    def is_alive(self) -> bool:
        """Whether the QEMU process runs."""
        return self._proc is not None and self._proc.poll() is None

    def rss_bytes(self) -> int:
        """Resident memory of the QEMU process (0 when not running)."""
        if not self.is_alive():
            return 0
        assert self._proc is not None
        for line in Path(f"/proc/{self._proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def _close(self, timeout: float) -> None:
        """Kill QEMU and remove the overlay (and its snapshots).

        Raises:
            BackendError: the QEMU process survived SIGKILL for ``timeout`` seconds.
        """
        self.snapshots = []
        survivor = None
        if self._proc is not None:
            if self._proc.poll() is None:
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)  # the overlay is thrown away: no clean shutdown
                except ProcessLookupError:
                    pass
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                survivor = self._proc.pid
            self._proc = None
        if self._qmp is not None:
            self._qmp.close()
            self._qmp = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
        if survivor is not None:
            raise BackendError(f"qemu process {survivor} survived SIGKILL")


def _clock_offset(client: GuestClient) -> float:
    """The guest clock minus the host's, read at the midpoint of a ``date`` round trip."""
    sent = time.time()
    result = client.exec(["date", "+%s.%N"])
    received = time.time()
    try:
        return float(result.stdout) - (sent + received) / 2
    except ValueError as error:
        raise BackendError(f"could not read the guest clock: {result.stdout!r} {result.stderr.strip()}") from error
