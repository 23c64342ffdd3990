"""Time and memory of every file verifier on hostile files: the bounds of the robustness suite, measured.

Run: ``.venv/bin/python bench/bench_verifier_robustness.py``. For each hostile variant (built
from a real xlsx, docx and pptx) every registered file verifier is called once with parse caches
cleared; the table shows, per variant, the slowest call and the largest Python heap peak
(tracemalloc), next to the same numbers for the valid documents, so the ratio says what a hostile
file costs compared with a real one.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "verifiers"))

from test_verify_registry import FILE_VERIFIER_KWARGS  # noqa: E402

from desktop_gym.tasks.artifacts import docx_bytes, pptx_bytes, xlsx_bytes  # noqa: E402
from desktop_gym.verifiers import _limits, _load, _ooxml, get_verifier, list_verifiers  # noqa: E402
from desktop_gym.verifiers.hostile_files import hostile_variants  # noqa: E402

TEMPLATES = {
    "xlsx": lambda: xlsx_bytes([["Item", "Qty"], *[[f"Item {n}", n] for n in range(200)]]),
    "docx": lambda: docx_bytes([f"Paragraph {n}" for n in range(200)], heading="Report"),
    "pptx": lambda: pptx_bytes([{"title": f"Slide {n}", "body": ["x"]} for n in range(10)]),
}


def _clear_caches() -> None:
    for cached in (_load._xlsx, _load._docx, _load._pptx, _load._odf, _ooxml._package, _limits.check_package):
        cached.cache_clear()


def measure(data: bytes | None) -> tuple[float, float, str]:
    """The slowest verifier call on ``data`` (seconds), the largest heap peak (MiB), and that verifier."""
    slowest, peak, worst = 0.0, 0.0, ""
    for name in list_verifiers("file"):
        _clear_caches()
        tracemalloc.start()
        started = time.perf_counter()
        get_verifier(name)(data, **FILE_VERIFIER_KWARGS[name])
        seconds = time.perf_counter() - started
        peak = max(peak, tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
        if seconds > slowest:
            slowest, worst = seconds, name
    return slowest, peak, worst


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    rows = []
    jobs = [
        (kind, name, make)
        for kind, template in TEMPLATES.items()
        for name, make in hostile_variants(template()).items()
    ]
    baseline = {kind: measure(template()) for kind, template in TEMPLATES.items()}
    for kind, name, make in tqdm(jobs, desc="hostile files", unit="file"):
        data = make()
        size = len(data) if data is not None else 0
        slowest, peak, worst = measure(data)
        rows.append((kind, name, size, slowest, peak, worst))
    print(
        f"{'doc':<5} {'variant':<24} {'bytes':>10} {'slowest ms':>11} {'vs valid':>9} {'peak MiB':>9}  slowest verifier"
    )
    for kind, (seconds, peak, worst) in baseline.items():
        print(f"{kind:<5} {'(valid document)':<24} {'':>10} {seconds * 1000:>11.1f} {1.0:>9.2f} {peak:>9.1f}  {worst}")
    for kind, name, size, slowest, peak, worst in rows:
        ratio = slowest / baseline[kind][0] if baseline[kind][0] else float("nan")
        print(f"{kind:<5} {name:<24} {size:>10} {slowest * 1000:>11.1f} {ratio:>9.2f} {peak:>9.1f}  {worst}")
    worst_row = max(rows, key=lambda row: row[3])
    print(
        f"\nworst hostile call: {worst_row[5]} on a {worst_row[1]} {worst_row[0]}: {worst_row[3] * 1000:.0f} ms; "
        f"largest heap peak {max(row[4] for row in rows):.1f} MiB"
    )


if __name__ == "__main__":
    main()
