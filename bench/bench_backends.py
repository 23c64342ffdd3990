"""All backends in one table: local, container (both reset modes) and QEMU (snapshot reset).

Run: ``.venv/bin/python bench/bench_backends.py [--resets 10] [--starts 3] [--boots 2]`` (root;
podman for the container rows, qemu for the VM rows; images are built on first use). The rows
come from ``bench_container.py`` and ``bench_qemu.py``, measured side by side in one run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_container  # noqa: E402
import bench_qemu  # noqa: E402

from desktop_gym.backends import podman_service  # noqa: E402
from desktop_gym.images import build_image  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resets", type=int, default=10)
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--boots", type=int, default=2)
    args = parser.parse_args()
    print(f"desktop-gym backends benchmark ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    url = podman_service.start_podman_service()
    image = build_image(engine="podman", offline=True)
    print(f"container ({image}); the local rows are the same steps without a container")
    bench_container.bench_starts(image, url, args.starts)
    bench_container.bench_reset_modes(image, url, args.resets)
    bench_container.bench_env_and_memory(image, url, args.resets)
    bench_qemu.row = bench_container.row  # one column layout for the whole table
    sys.argv = [sys.argv[0], "--boots", str(args.boots), "--resets", str(args.resets)]
    return bench_qemu.main()


if __name__ == "__main__":
    sys.exit(main())
