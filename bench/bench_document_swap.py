"""Where a kept office's reset goes: the document's view, not its file. Paths to a swap, side by side.

Run: ``.venv/bin/python bench/bench_document_swap.py [--rounds 7] [--json OUT]``.
Starts its own Xvfb, session bus, openbox and one Calc (as ``bench_a11y.py`` does) on a two-sheet
xlsx, then, in paired rounds with the order rotated, times each way of giving the office the task's
file again:

- ``visible load``: ``loadComponentFromURL(_blank)``, today's reused-office path (its close of the
  previous document is timed apart, as ``close visible``);
- ``load into the kept frame``: the frame's own ``loadComponentFromURL(_self)``: no window is torn
  down or built, but the document's view still is (issue 31's "load into the existing frame");
- ``hidden load``: the same file as a model with no view (``Hidden=True``), what a swap would start from;
- ``sheet swap``: a hidden load, its sheets copied into the shown document (``importSheet``) in place
  of the old ones, the view data restored, the undo stack cleared.

A swap counts only if the document it leaves equals a fresh load: both are stored as flat ODF XML
(metadata and view settings left out) and compared, and the screen after each is compared pixel by
pixel once quiet. The table gives each path's time and the swap's differences.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import statistics
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

from desktop_gym.guest.apps import uno_bridge  # noqa: E402
from desktop_gym.guest.apps.office_launch import remove_stale_lock  # noqa: E402
from desktop_gym.polling import poll_until  # noqa: E402
from desktop_gym.settle import wait_until_stable  # noqa: E402
from tests.support.soffice import start_a11y_session, start_soffice, stop_all  # noqa: E402

CALL_TIMEOUT_S = 20.0  # past it an office counts as hung and a fresh one takes its place
FLAT_FILTER = "OpenDocument Spreadsheet Flat XML"
VOLATILE = (
    re.compile(r"<office:meta>.*?</office:meta>", re.S),
    re.compile(r"<office:settings>.*?</office:settings>", re.S),
)


def _workbook(path: Path) -> Path:
    import openpyxl
    from openpyxl.styles import Font

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Orders"
    sheet.append(["Item", "Qty", "Unit price"])
    for row in range(1, 15):
        sheet.append([f"item {row}", row * 3, row * 1.25])
    sheet["A1"].font = Font(bold=True)
    sheet.column_dimensions["A"].width = 18
    workbook.create_sheet("Notes")["A1"] = "checked by"
    workbook.save(path)
    return path


def _flat_xml(document: Any, work: Path) -> str:
    target = work / f"flat-{time.monotonic_ns()}.fods"
    document.storeToURL(target.as_uri(), uno_bridge.property_values(FilterName=FLAT_FILTER))
    text = target.read_text()
    target.unlink()
    for pattern in VOLATILE:
        text = pattern.sub("", text)
    return text


def _swap_sheets(shown: Any, source: Any) -> None:
    """Replace ``shown``'s sheets by copies of ``source``'s and its view data;
    a cleared undo stack, unmodified.

    ``importSheet`` copies cells, cell styles and column widths but not page styles; copying those
    with ``loadStylesFromURL`` from the xlsx crashed LibreOffice 7.4 (the UNO bridge was disposed).
    """
    sheets = shown.getSheets()
    old = list(sheets.getElementNames())
    for index, name in enumerate(old):
        sheets.getByName(name).setName(f"__swap_old_{index}")
    for name in source.getSheets().getElementNames():
        sheets.importSheet(source, name, sheets.getCount())
    for index in range(len(old)):
        sheets.removeByName(f"__swap_old_{index}")
    controller = source.getCurrentController()
    if controller is not None:
        shown.getCurrentController().restoreViewData(controller.getViewData())
    shown.getUndoManager().clear()
    shown.setModified(False)


class Office:
    """One Calc on a private desktop, its UNO connection, and the screen."""

    def __init__(self, work: Path, document: Path, procs: list[subprocess.Popen]) -> None:
        self.work, self.document = work, document
        env = start_a11y_session(work, procs)
        self.display = env["DISPLAY"]
        soffice, pipe = start_soffice(work, document, env, work / "cache", module="--calc")
        procs.append(soffice)
        self.uno = uno_bridge.wait_for_uno(pipe, timeout=60)
        self.url = document.resolve().as_uri()
        self.shown: Any = poll_until(
            lambda: self.call(self.uno.desktop.getCurrentComponent, "the shown document"), 60, "the Calc document"
        )

    def call(self, fn: Callable[[], Any], what: str) -> Any:
        return self.uno.call(fn, timeout=CALL_TIMEOUT_S, what=what)

    def dirty(self) -> None:
        """What an episode leaves: an edit, a new sheet, another cell selected."""

        def edit() -> None:
            document = self.shown
            sheets = document.getSheets()
            sheets.getByIndex(0).getCellByPosition(1, 2).setValue(999)
            sheets.insertNewByName(f"Extra{time.monotonic_ns()}", 1)
            document.getCurrentController().select(sheets.getByIndex(0).getCellRangeByName("C5"))

        self.call(edit, "an episode's edits")

    def load(self, target: str, close_first: bool) -> float:
        """Load the file visibly (``_blank``, after closing the shown document) or into its frame (``_self``)."""
        props = uno_bridge.property_values()

        def run() -> float:
            document = self.shown
            document.setModified(False)
            if close_first:
                document.close(True)
                started = time.perf_counter()
                self.shown = self.uno.desktop.loadComponentFromURL(self.url, "_blank", 0, props)
            else:
                started = time.perf_counter()
                frame = document.getCurrentController().getFrame()
                self.shown = frame.loadComponentFromURL(self.url, "_self", 0, props)
            return time.perf_counter() - started

        return self.call(run, f"load ({target})")

    def close_visible(self) -> float:
        def run() -> float:
            self.shown.setModified(False)
            started = time.perf_counter()
            self.shown.close(True)
            elapsed = time.perf_counter() - started
            self.shown = self.uno.desktop.loadComponentFromURL(self.url, "_blank", 0, uno_bridge.property_values())
            return elapsed

        return self.call(run, "close a shown document")

    def hidden_load(self) -> tuple[float, Any]:
        def run() -> tuple[float, Any]:
            started = time.perf_counter()
            source = self.uno.desktop.loadComponentFromURL(
                self.url, "_blank", 0, uno_bridge.property_values(Hidden=True)
            )
            return time.perf_counter() - started, source

        return self.call(run, "hidden load")

    def swap(self) -> float:
        def run() -> float:
            started = time.perf_counter()
            source = self.uno.desktop.loadComponentFromURL(
                self.url, "_blank", 0, uno_bridge.property_values(Hidden=True)
            )
            _swap_sheets(self.shown, source)
            elapsed = time.perf_counter() - started
            source.close(True)
            return elapsed

        return self.call(run, "sheet swap")

    def screen(self) -> np.ndarray:
        import mss

        with mss.MSS(display=self.display) as capture:
            grab = lambda: np.asarray(capture.grab(capture.monitors[0]))[..., :3].copy()  # noqa: E731
            wait_until_stable(grab, timeout=10.0, quiet=0.5, poll=0.05)
            return grab()

    def flat(self) -> str:
        return self.call(lambda: _flat_xml(self.shown, self.work), "flat XML")


def measure(rounds: int) -> dict[str, Any]:
    procs: list[subprocess.Popen] = []
    failed: dict[str, int] = {}  # "path: hung|crashed" -> how often
    with tempfile.TemporaryDirectory(prefix="bench-swap-") as work_dir:
        work = Path(work_dir)
        document = _workbook(work / "orders.xlsx")

        def new_office() -> Office:
            stop_all(procs)
            procs.clear()
            folder = work / f"office{sum(failed.values())}"
            folder.mkdir()
            remove_stale_lock(document)  # a killed office leaves one, and it would raise a dialog
            return Office(folder, document, procs)

        try:
            office = new_office()
            paths: dict[str, Callable[[], float]] = {
                "visible load": lambda: office.load("_blank", close_first=True),
                "close visible": lambda: office.close_visible(),
                "load into the kept frame": lambda: office.load("_self", close_first=False),
                "hidden load": lambda: _close(office.hidden_load()),
                "sheet swap": lambda: office.swap(),
            }
            seconds: dict[str, list[float]] = {name: [] for name in paths}
            names = list(paths)
            for round_ in range(rounds):
                for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
                    try:
                        office.dirty()
                        seconds[name].append(paths[name]())
                    except Exception as error:  # noqa: BLE001 - a hung or crashed office: a fresh one takes over
                        failed[f"{name}: {_failure(error)}"] = failed.get(f"{name}: {_failure(error)}", 0) + 1
                        office = new_office()
                print(f"  round {round_ + 1}/{rounds} done", file=sys.stderr)
            for _attempt in range(3):
                try:
                    office.dirty()
                    office.load("_blank", close_first=True)
                    loaded_flat, loaded_screen = office.flat(), office.screen()
                    office.dirty()
                    office.swap()
                    swapped_flat, swapped_screen = office.flat(), office.screen()
                    break
                except Exception as error:  # noqa: BLE001 - as above
                    failed[f"comparison: {_failure(error)}"] = failed.get(f"comparison: {_failure(error)}", 0) + 1
                    office = new_office()
            else:
                raise RuntimeError(f"the office failed in 3 comparison attempts: {failed}")
        finally:
            stop_all(procs)
    changed = np.any(loaded_screen != swapped_screen, axis=-1)
    diff = [line for line in difflib.unified_diff(loaded_flat.split(">"), swapped_flat.split(">"), n=0)]
    return {
        "seconds": seconds,
        "xml_equal": loaded_flat == swapped_flat,
        "xml_diff_lines": sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")),
        "xml_diff_sample": [" ".join(line.split())[:160] for line in diff[2:12]],
        "pixels_differing": int(changed.sum()),
        "failed": failed,
    }


def _failure(error: Exception) -> str:
    if isinstance(error, uno_bridge.UnoTimeoutError):
        return "hung"
    if type(error).__name__ == "DisposedException" or "disposed" in str(error).lower():
        return "crashed"
    raise error


def _close(result: tuple[float, Any]) -> float:
    elapsed, source = result
    source.close(True)
    return elapsed


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def measured_rounds(doc: str, default_rounds: int, measure: Callable[[int], Any]) -> tuple[Any, Any, str]:
    """Parse ``--rounds`` and ``--json``, run ``measure(rounds)``; the arguments, its result and the load."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=default_rounds)
    parser.add_argument("--json", type=Path, help="also write a result file (bench/results/log format)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    result = measure(args.rounds)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(f"Calc, {args.rounds} rounds ({os.cpu_count()} cores, {load})")
    return args, result, load


def write_result(args: Any, load: str, script: str, title: str, notes: list[str], tables: list[dict]) -> None:
    """Write the run as a result file (``bench/results/log`` format) where ``--json`` asks for one."""
    if args.json is None:
        return
    benchmark = f"bench/{Path(script).name}"
    record = {
        "title": title,
        "benchmark": benchmark,
        "command": f".venv/bin/python {benchmark} --rounds {args.rounds}",
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} cores",
        "load": load,
        "notes": notes,
        "tables": tables,
    }
    args.json.write_text(json.dumps(record, indent=1) + "\n")


def main() -> None:
    args, result, load = measured_rounds(__doc__, 7, measure)
    rows = [[name, _ms(values)] for name, values in result["seconds"].items()]
    for name, cell in rows:
        print(f"  {name:<26} p50 {cell}")
    verdict = (
        f"flat XML equal to a fresh load: {result['xml_equal']} ({result['xml_diff_lines']} differing lines); "
        f"pixels differing once quiet: {result['pixels_differing']}"
    )
    print(f"  sheet swap: {verdict}")
    if result["failed"]:
        print(f"  failed (a fresh office took over): {result['failed']}")
    for line in result["xml_diff_sample"]:
        print(f"    {line}")
    write_result(
        args,
        load,
        __file__,
        "A kept office's reset: loads against a sheet swap (Calc)",
        notes=[
            f"sheet swap: {verdict}",
            f"failed calls (a fresh office took over): {result['failed'] or 'none'}",
            *(f"diff: {line}" for line in result["xml_diff_sample"][:3]),
        ],
        tables=[{"columns": ["path", "Calc p50 (min-max)"], "rows": rows}],
    )


if __name__ == "__main__":
    main()
