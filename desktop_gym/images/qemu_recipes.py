"""What goes into a QEMU guest disk: the two flavors, the guest's PID 1 and the agent launcher.

- ``small``: headless (kernel, python3, the package): ping, exec, files, app-less API tools. Built
  and tested here, under TCG.
- ``desktop``: the container image's desktop stack on top (Xvfb, openbox, dbus, LibreOffice gtk3,
  xterm, mousepad, pyatspi) and an X session started before the agent. Meant for KVM hosts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .build import IMAGE_APT_PACKAGES

GUEST_PORT = 7070
TOKEN_FW_CFG = "opt/org.desktop-gym/token"
VENV = "/opt/desktop-gym/venv"
GUEST_HOME = "/home/user"
PROFILE_CACHE = "/opt/desktop-gym/cache"  # the baked LibreOffice profile template (DESKTOP_GYM_CACHE)
BASE_APT_PACKAGES: tuple[str, ...] = (
    "linux-image-amd64", "initramfs-tools", "python3", "python3-venv", "iproute2", "kmod", "procps",
)  # fmt: skip
# Kernel modules a virtio VM never loads: dropped from the disk (the initrd is built before).
UNUSED_MODULES = (
    "drivers/gpu", "drivers/media", "drivers/net/wireless", "drivers/net/ethernet", "drivers/infiniband",
    "drivers/staging", "drivers/scsi", "drivers/usb", "drivers/bluetooth", "drivers/iio", "drivers/hid",
    "drivers/input", "drivers/isdn", "drivers/mtd", "drivers/nfc", "drivers/platform", "sound", "net/wireless",
    "net/mac80211", "net/bluetooth", "fs/ocfs2", "fs/btrfs", "fs/xfs", "fs/nfs", "fs/smb", "fs/gfs2",
)  # fmt: skip
# The initrd holds only what mounts a virtio root (MODULES=list): smaller, built and unpacked faster.
INITRAMFS_MODULES = ("virtio_pci", "virtio_blk", "virtio_net", "ext4", "crc32c_generic")

# Starts the agent without running desktop_gym/__init__ (the public surface: gymnasium, tasks, env),
# which the guest never uses: importing the server drops from ~1.8 s to ~0.4 s natively, ~5x under TCG.
AGENT_LAUNCHER = """\
import importlib.util, runpy, sys, types
spec = importlib.util.find_spec("desktop_gym")
package = types.ModuleType("desktop_gym")
package.__path__, package.__spec__ = list(spec.submodule_search_locations), spec
sys.modules["desktop_gym"] = package
runpy.run_module("desktop_gym.guest", run_name="__main__", alter_sys=True)
"""

_X_SESSION = """\
# The X session (what the local backend starts on a host): Xvfb, a session bus, openbox.
Xvfb :0 -screen 0 {width}x{height}x24 -nolisten tcp -extension GLX > /run/desktop-gym/xvfb.log 2>&1 &
until [ -e /tmp/.X11-unix/X0 ]; do sleep 0.05; done
export DISPLAY=:0 DESKTOP_GYM_CACHE={cache}
eval "$(dbus-launch --sh-syntax)"
openbox --sm-disable > /run/desktop-gym/openbox.log 2>&1 &
"""


@dataclass(frozen=True)
class Flavor:
    """One kind of guest disk.

    Attributes:
        name: ``small`` or ``desktop``.
        apt_packages: Installed in the chroot.
        extra_wheels: Installed into the venv besides the package's own dependencies.
        screen: ``(width, height)`` of the X screen; ``(0, 0)`` = headless.
        memory_mb: Guest RAM the backend gives it by default.
        desktop_setup: Link UNO/pyatspi into the venv and bake the LibreOffice profile template.
    """

    name: str
    apt_packages: tuple[str, ...]
    extra_wheels: tuple[str, ...]
    screen: tuple[int, int]
    memory_mb: int
    desktop_setup: bool

    def init_script(self) -> str:
        """The guest's PID 1: mounts, network, the token from fw_cfg, the X session if any, the agent."""
        session = ""
        if self.screen != (0, 0):
            session = _X_SESSION.format(width=self.screen[0], height=self.screen[1], cache=PROFILE_CACHE)
        return f"""#!/bin/sh
# PID 1 of the desktop-gym QEMU guest ({self.name}): mounts, network, token, then the guest agent.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME={GUEST_HOME}
mount -t proc proc /proc
mount -t sysfs sys /sys 2>/dev/null
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -o remount,rw /
hostname desktop-gym-guest
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
modprobe qemu_fw_cfg
mkdir -p /run/desktop-gym {GUEST_HOME}
cp /sys/firmware/qemu_fw_cfg/by_name/{TOKEN_FW_CFG}/raw /run/desktop-gym/token
{session}echo "desktop-gym-guest: starting the guest agent"
while true; do
  {VENV}/bin/python /opt/desktop-gym/guest-agent.py --listen tcp:0.0.0.0:{GUEST_PORT} --home {GUEST_HOME} \\
    --token-file /run/desktop-gym/token --state-dir /run/desktop-gym/state
  echo "desktop-gym-guest: the guest agent exited ($?), restarting"
  sleep 1
done
"""


SMALL = Flavor(
    name="small",
    apt_packages=BASE_APT_PACKAGES,
    extra_wheels=("mss", "python-xlib"),  # server.py imports them (its X parts stay unused)
    screen=(0, 0),
    memory_mb=256,
    desktop_setup=False,
)
DESKTOP = Flavor(
    name="desktop",
    apt_packages=BASE_APT_PACKAGES + tuple(p for p in IMAGE_APT_PACKAGES if p not in BASE_APT_PACKAGES),
    extra_wheels=("mss", "python-xlib", "PyGObject<3.51"),
    screen=(1280, 720),
    memory_mb=2048,
    desktop_setup=True,
)
FLAVORS = {flavor.name: flavor for flavor in (SMALL, DESKTOP)}


def flavor_named(name: str) -> Flavor:
    """The flavor called ``name``.

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    try:
        return FLAVORS[name]
    except KeyError:
        raise ValueError(f"unknown qemu guest flavor {name!r} (choose {' or '.join(FLAVORS)})") from None
