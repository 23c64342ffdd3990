"""A kept office that loads the next task's document during the episode: how fast is the reset then?

Run: ``.venv/bin/python bench/bench_office_prefetch.py [--rounds 7] [--json OUT]``.
Starts its own Xvfb, session bus, openbox and one Calc (as ``bench_document_swap.py`` does), then,
in paired rounds with the order rotated, gives the office its task's file again three ways and
times each from the reset's first call to the screen's last change (polled every 20 ms, quiet for
0.3 s), the office's drawing included:

- ``visible load``: close the episode's document, then ``loadComponentFromURL(_blank)`` (today's
  reused-office path);
- ``hidden, shown at reset``: the next document was loaded hidden (``Hidden=True``) during the
  episode; the reset shows its window and closes the episode's document;
- ``hidden, shown behind``: as above, but during the episode the hidden document's window was also
  shown, under the episode's window; the reset raises it and closes the episode's document.

Each prefetching path counts only if its screen equals the visible load's, pixel for pixel. For the
path that shows a window behind, the table also gives what that did to the episode's screen (the
pixels it changed), and what the work during the episode took.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_document_swap import Office, _ms, _workbook, measured_rounds, write_result  # noqa: E402

from desktop_gym.guest.apps import uno_bridge  # noqa: E402
from tests.support.soffice import stop_all  # noqa: E402

POLL_S = 0.02
QUIET_S = 0.3
SCREEN_TIMEOUT_S = 10.0
COLUMNS = ["reset path", "to the screen's last change, p50 (min-max)", "pixels unlike a visible load"]
PATHS = ("visible load", "hidden, shown at reset", "hidden, shown behind")


class Screen:
    """The desktop's pixels, and the time of their last change."""

    def __init__(self, display: str) -> None:
        import mss

        self._capture = mss.MSS(display=display)

    def grab(self) -> np.ndarray:
        return np.asarray(self._capture.grab(self._capture.monitors[0]))[..., :3].copy()

    def last_change(self, started: float) -> tuple[float, np.ndarray]:
        """Seconds from ``started`` to the screen's last change, once it has been quiet for QUIET_S."""
        previous, changed_at = self.grab(), time.perf_counter()
        deadline = changed_at + SCREEN_TIMEOUT_S
        while time.perf_counter() < deadline:
            time.sleep(POLL_S)  # the polling interval of a condition wait
            current = self.grab()
            if np.any(current != previous):
                previous, changed_at = current, time.perf_counter()
            elif time.perf_counter() - changed_at >= QUIET_S:
                break
        return max(0.0, changed_at - started), previous


def _differing(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.any(a != b, axis=-1).sum())


def _hidden_load(office: Office) -> Any:
    props = uno_bridge.property_values(Hidden=True)
    return office.call(lambda: office.uno.desktop.loadComponentFromURL(office.url, "_blank", 0, props), "hidden load")


def _window(document: Any) -> Any:
    return document.getCurrentController().getFrame().getContainerWindow()


def _show_instead(office: Office, document: Any, raise_it: bool) -> None:
    """Show (and raise) ``document``'s window, close the episode's document, make ``document`` the shown one."""

    def run() -> None:
        window = _window(document)
        window.setVisible(True)
        if raise_it:
            window.toFront()
        old = office.shown
        old.setModified(False)
        old.close(True)
        document.getCurrentController().getFrame().activate()
        office.shown = document

    office.call(run, "show the prefetched document")


def _show_behind(office: Office, document: Any) -> None:
    def run() -> None:
        _window(document).setVisible(True)
        _window(office.shown).toFront()
        office.shown.getCurrentController().getFrame().activate()

    office.call(run, "show the prefetched document behind")


def measure(rounds: int) -> dict[str, Any]:
    procs: list[subprocess.Popen] = []
    seconds: dict[str, list[float]] = {name: [] for name in PATHS}
    pixels: dict[str, list[int]] = {name: [] for name in PATHS[1:]}
    episode: dict[str, list[float]] = {"hidden load": [], "shown behind": [], "episode pixels changed": []}
    with tempfile.TemporaryDirectory(prefix="bench-office-prefetch-") as work_dir:
        work = Path(work_dir)
        try:
            office = Office(work, _workbook(work / "orders.xlsx"), procs)
            screen = Screen(office.display)

            def visible_load() -> np.ndarray:
                office.dirty()
                started = time.perf_counter()
                office.load("_blank", close_first=True)
                elapsed, shown = screen.last_change(started)
                seconds["visible load"].append(elapsed)
                return shown

            def prefetched(behind: bool) -> np.ndarray:
                name = PATHS[2] if behind else PATHS[1]
                started = time.perf_counter()
                document = _hidden_load(office)
                episode["hidden load"].append(time.perf_counter() - started)
                if behind:
                    before = screen.last_change(time.perf_counter())[1]
                    started = time.perf_counter()
                    _show_behind(office, document)
                    elapsed, after = screen.last_change(started)
                    episode["shown behind"].append(elapsed)
                    episode["episode pixels changed"].append(_differing(before, after))
                office.dirty()
                screen.last_change(time.perf_counter())
                started = time.perf_counter()
                _show_instead(office, document, raise_it=behind)
                elapsed, shown = screen.last_change(started)
                seconds[name].append(elapsed)
                return shown

            reference = visible_load()
            runs: dict[str, Callable[[], np.ndarray]] = {
                PATHS[0]: visible_load,
                PATHS[1]: lambda: prefetched(False),
                PATHS[2]: lambda: prefetched(True),
            }
            for round_ in range(rounds):
                for name in PATHS[round_ % 3 :] + PATHS[: round_ % 3]:
                    shown = runs[name]()
                    if name == PATHS[0]:
                        reference = shown
                    else:
                        pixels[name].append(_differing(shown, reference))
                print(f"  round {round_ + 1}/{rounds} done", file=sys.stderr)
        finally:
            stop_all(procs)
    return {"seconds": seconds, "pixels": pixels, "episode": episode}


def main() -> None:
    args, result, load = measured_rounds(__doc__, 7, measure)
    rows = []
    for name, values in result["seconds"].items():
        differing = result["pixels"].get(name)
        rows.append([name, _ms(values), "-" if differing is None else f"max {max(differing)}"])
        print(f"  {name:<24} to a quiet screen p50 {rows[-1][1]}; pixels unlike the visible load: {rows[-1][2]}")
    work = result["episode"]
    notes = [
        f"during the episode: the hidden load took {_ms(work['hidden load'])}; showing it behind took "
        f"{_ms(work['shown behind'])} to a quiet screen",
        "pixels of the episode's screen that showing the next document behind changed, per round: "
        + ", ".join(str(count) for count in work["episode pixels changed"]),
    ]
    for note in notes:
        print(f"  {note}")
    write_result(
        args,
        load,
        __file__,
        "A kept office that loads the next document during the episode (Calc)",
        notes=notes,
        tables=[
            {
                "columns": COLUMNS,
                "rows": rows,
            }
        ],
    )


if __name__ == "__main__":
    main()
