"""Could a kept office give the next episode its start state back by undoing the last one?

Run: ``.venv/bin/python bench/bench_undo_restore.py [--rounds 6] [--json OUT]``.
A GRPO group runs the same task instance (task and seed) several times, so a kept office would not
need the next file, only the first one's state again. This starts its own Xvfb, session bus,
openbox and one Calc (as ``bench_document_swap.py`` does), keeps a fresh load's document as
flat ODF XML and its screen, then in each round plays an episode on the shown document and
restores it: every step undone, the undo stack cleared, the launch's view data restored.

Episodes alternate between edits through the API (a value set, a sheet inserted, a cell selected)
and the same plus edits through the GUI (keys typed into cells, bold toggled). A restore counts
only if its document equals the fresh load as flat XML and its screen equals the fresh load's
pixel for pixel once quiet. The table gives the restore's time to the screen's last change and
how many rounds were faithful.
"""

from __future__ import annotations

import difflib
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_document_swap import Office, _ms, _workbook, measured_rounds, write_result  # noqa: E402
from bench_office_prefetch import Screen  # noqa: E402

from desktop_gym.guest.input import InputController  # noqa: E402
from tests.support.soffice import stop_all  # noqa: E402

MAX_UNDOS = 1000  # an episode's steps are capped far below this
EPISODES = ("API edits", "API and GUI edits")
RECORDED = ("seconds", "steps", "xml", "pixels", "sample")


def _restore(office: Office, view_data: Any) -> int:
    """Undo every step of the shown document, clear its undo stack, restore the view; how many steps."""

    def run() -> int:
        document = office.shown
        undo = document.getUndoManager()
        steps = 0
        while undo.isUndoPossible() and steps < MAX_UNDOS:
            undo.undo()
            steps += 1
        undo.clear()
        document.getCurrentController().restoreViewData(view_data)
        document.setModified(False)
        return steps

    return office.call(run, "undo the episode")


def _gui_edits(keys: InputController) -> None:
    keys.press("Down")
    keys.type_text("hello")
    keys.press("Return")
    keys.hotkey(["ctrl", "b"])
    keys.type_text("42\n")


def _xml_differences(a: str, b: str) -> list[str]:
    """The differing parts of two flat XML documents, ``-`` the first's and ``+`` the second's."""
    diff = difflib.unified_diff(a.split(">"), b.split(">"), n=0)
    return [" ".join(line.split())[:160] for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def measure(rounds: int) -> dict[str, Any]:
    procs: list[subprocess.Popen] = []
    result: dict[str, dict[str, list]] = {name: {key: [] for key in RECORDED} for name in EPISODES}
    with tempfile.TemporaryDirectory(prefix="bench-undo-restore-") as work_dir:
        work = Path(work_dir)
        try:
            office = Office(work, _workbook(work / "orders.xlsx"), procs)
            screen, keys = Screen(office.display), InputController(office.display)
            office.load("_blank", close_first=True)
            fresh_screen = screen.last_change(time.perf_counter())[1]
            fresh_xml = office.flat()
            view_data = office.call(lambda: office.shown.getCurrentController().getViewData(), "view data")
            for round_ in range(rounds):
                name = EPISODES[round_ % len(EPISODES)]
                office.dirty()
                if name == EPISODES[1]:
                    _gui_edits(keys)
                screen.last_change(time.perf_counter())
                started = time.perf_counter()
                steps = _restore(office, view_data)
                elapsed, shown = screen.last_change(started)
                record = result[name]
                record["seconds"].append(elapsed)
                record["steps"].append(steps)
                differences = _xml_differences(fresh_xml, office.flat())
                record["xml"].append(len(differences))
                record["sample"].append(differences[:4])
                record["pixels"].append(int(np.any(shown != fresh_screen, axis=-1).sum()))
                print(f"  round {round_ + 1}/{rounds} done", file=sys.stderr)
        finally:
            stop_all(procs)
    return result


def main() -> None:
    args, result, load = measured_rounds(__doc__, 6, measure)
    rows = []
    for name, record in result.items():
        seconds = record["seconds"]
        faithful = sum(
            1 for xml, pixels in zip(record["xml"], record["pixels"], strict=True) if xml == 0 and pixels == 0
        )
        rows.append(
            [
                name,
                _ms(seconds),
                f"{min(record['steps'])}-{max(record['steps'])}",
                f"{faithful} of {len(seconds)}",
                f"{min(record['xml'])}-{max(record['xml'])}",
                f"{min(record['pixels'])}-{max(record['pixels'])}",
            ]
        )
        print("  " + " | ".join(rows[-1]))
        if record["sample"] and record["sample"][0]:
            print(f"    first differing flat-XML parts: {record['sample'][0]}")
    write_result(
        args,
        load,
        __file__,
        "Restoring a kept office's document by undoing the episode (Calc)",
        notes=[
            f"{name}: first differing flat-XML parts: {record['sample'][0]}"
            for name, record in result.items()
            if record["sample"] and record["sample"][0]
        ],
        tables=[
            {
                "columns": [
                    "episode",
                    "restore to the screen's last change, p50 (min-max)",
                    "steps undone",
                    "faithful (XML and pixels equal)",
                    "flat-XML lines unlike a fresh load",
                    "pixels unlike a fresh load",
                ],
                "rows": rows,
            }
        ],
    )


if __name__ == "__main__":
    main()
