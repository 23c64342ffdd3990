"""QEMU-backend benchmark: boot until the guest answers, snapshot save, snapshot load (reset), memory per VM.

Run: ``.venv/bin/python bench/bench_qemu.py [--flavor small|desktop] [--boots 3] [--resets 10]``
(root; the small guest is built on first use, the desktop one by ``desktop-gym image build --qemu``).
KVM when a probe VM runs on ``/dev/kvm``, TCG otherwise (the accelerator is printed). Each reset
is timed from ``loadvm`` until a fresh gRPC client gets an answer from the guest; a file is written
between resets and must be gone after each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import process_pss_kib  # noqa: E402

from desktop_gym.backends.qemu import QemuBackend  # noqa: E402
from desktop_gym.guest.client import GuestClient  # noqa: E402
from desktop_gym.images.qemu_guest import build_guest_image, latest_guest_image  # noqa: E402
from desktop_gym.images.qemu_recipes import DESKTOP, SMALL, flavor_named  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def row(name: str, value: str, note: str = "") -> None:
    print(f"  {name:<40} {value:>12}  {note}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boots", type=int, default=3)
    parser.add_argument("--resets", type=int, default=10)
    parser.add_argument("--flavor", choices=("small", "desktop"), default="small")
    parser.add_argument("--memory-mb", type=int, default=None, help="guest RAM (default: the flavor's)")
    args = parser.parse_args()
    flavor = flavor_named(args.flavor)
    image = build_guest_image(flavor) if flavor is SMALL else latest_guest_image(flavor)
    if image is None:
        raise SystemExit("the desktop guest is not built: desktop-gym image build --qemu")
    boots, saves, loads, rss, pss = [], [], [], [], []
    accel = "?"
    for boot in range(args.boots):
        backend = QemuBackend(image=image, memory_mb=args.memory_mb, cpus=2 if flavor is DESKTOP else 1)
        backend.snapshot_on_start = False
        try:
            handle = backend.start()
            accel = handle.info["accel"]
            boots.append(backend.timings["boot_s"])
            saves.append(backend.snapshot("clean"))
            if boot == 0:
                for _ in range(args.resets):
                    with GuestClient(handle.address, token=handle.token, timeout=30) as client:
                        client.put_file("~/episode.txt", b"dirty")
                    started = time.perf_counter()
                    handle = backend.reset_desktop()
                    with GuestClient(handle.address, token=handle.token, timeout=30) as client:
                        client.ping()
                        loads.append(time.perf_counter() - started)
                        probe = client.exec(["sh", "-c", "test -e ~/episode.txt && echo dirty"]).stdout
                        assert not probe.strip(), "a file written before the reset survived it"
            rss.append(backend.rss_bytes() / 2**20)
            pss.append(process_pss_kib(handle.info["pid"]) / 1024)
        finally:
            backend.close()
    print(f"qemu backend, accel={accel}, {flavor.name} guest {image.key}, RAM {backend.memory_mb} MiB")
    row("boot until the guest answers p50", f"{percentile(boots, 50):.2f} s", f"n={len(boots)} max {max(boots):.2f} s")
    row("snapshot save (savevm) p50", f"{percentile(saves, 50) * 1000:.0f} ms", f"n={len(saves)}")
    row("reset (loadvm + guest answers) p50", f"{percentile(loads, 50) * 1000:.0f} ms", f"n={len(loads)}")
    row("reset p95", f"{percentile(loads, 95) * 1000:.0f} ms", "")
    row("memory per VM (RSS of qemu)", f"{percentile(rss, 50):.0f} MiB", f"PSS {percentile(pss, 50):.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
