"""Would a newer LibreOffice make an event-kept accessibility tree safe, or the tree read cheaper?

Run: ``.venv/bin/python bench/bench_a11y_offices.py [--soffice PATH ...] [--json OUT]``.
Each ``--soffice`` (default: the system's ``soffice``) gets its own Xvfb, session bus, openbox and
Calc on a small sheet, in a child process of its own (libatspi binds one bus per process). The child
listens to every AT-SPI object event of the desktop, then does a fixed sequence of real inputs
(XTEST: a click on a cell, typing, Escape, Return, an arrow key). After each input it waits until
the event stream is quiet (no event for 0.3 s, at most 10 s) and then:

- walks the showing nodes (role, name, sensitive/enabled/focused/checked/pressed/selected) and
  lists each node whose line changed since the last walk;
- counts the changes that no event explains: a node renamed without ``property-change:accessible-name``
  on it, a state flipped without ``state-changed:<state>`` on it, or a node that appeared or went
  without any ``state-changed`` or ``children-changed`` event naming it (an event cache keyed on
  these events would serve those stale);
- reads the observation's tree (``a11y.linearize_tree``, the default settings) three times.

To get LibreOffice 25.2 beside the system's 7.4: ``bash bench/backports_office.sh /opt/lo-backports``,
then ``--soffice soffice --soffice /opt/lo-backports/bin/soffice``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUIET_S = 0.3  # the event stream counts as settled after this long without an event
SETTLE_CAP_S = 10.0  # ... or after this long in all
MAX_NODES = 2000  # the comparison walk stops here
MAX_DEPTH = 40
TREE_READS = 3  # observation tree reads per input
STATES = ("sensitive", "enabled", "focused", "checked", "pressed", "selected")
OPAQUE_ROLES = ("table", "tree table", "document spreadsheet")  # the grid claims 10^10 cells: not walked
EVENT_KINDS = (
    "object:state-changed",
    "object:property-change",
    "object:children-changed",
    "object:text-changed",
    "object:bounds-changed",
    "object:visible-data-changed",
)
Line = tuple[str, str, tuple[str, ...]]  # role, name, states


def _inputs(keys: Any, cell: tuple[int, int]) -> list[tuple[str, Callable[[], None]]]:
    """The input sequence: what an agent filling a cell does, twice, with an abandoned edit."""
    return [
        ("click a cell", lambda: keys.click(*cell)),
        ("type 5", lambda: keys.type_text("5")),
        ("type 7", lambda: keys.type_text("7")),
        ("Escape (abandon the edit)", lambda: keys.press("escape")),
        ("type 4", lambda: keys.type_text("4")),
        ("Return (commit)", lambda: keys.press("enter")),
        ("Right", lambda: keys.press("right")),
        ("type x", lambda: keys.type_text("x")),
        ("Escape", lambda: keys.press("escape")),
    ]


def _walk(atspi: Any, node: Any, path: tuple[int, ...], out: dict[tuple[int, ...], Line], depth: int = 0) -> None:
    """Every showing node below ``node`` (the grid not entered), keyed by its child-index path."""
    if len(out) >= MAX_NODES or depth > MAX_DEPTH:
        return
    try:
        role, name, state_set = node.get_role_name(), node.get_name() or "", node.get_state_set()
    except Exception:  # noqa: BLE001 - a node gone mid-walk is skipped, as the observation does
        return
    if depth > 0 and not state_set.contains(atspi.StateType.SHOWING) and role not in ("frame", "application"):
        return
    out[path] = (role, name, tuple(s for s in STATES if state_set.contains(getattr(atspi.StateType, s.upper()))))
    if role in OPAQUE_ROLES:
        return
    for index in range(min(node.get_child_count(), 400)):
        child = node.get_child_at_index(index)
        if child is not None:
            _walk(atspi, child, (*path, index), out, depth + 1)


def _unexplained(before: dict, after: dict, events: list[tuple[str, str, str]]) -> list[str]:
    """The changed lines that no event on a node of that role and name accounts for."""
    seen = {(kind, role, name) for kind, role, name in events}
    named = {(role, name) for kind, role, name in events if kind.startswith(("object:state", "object:children"))}
    missed = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        if old is None or new is None or old[0] != new[0]:  # appeared, went, or another node in its place
            lines = [line for line in (old, new) if line is not None]
            if not any((line[0], line[1]) in named for line in lines):
                missed.append(f"{old} -> {new}")
            continue
        wanted = {"object:property-change:accessible-name"} if old[1] != new[1] else set()
        wanted |= {f"object:state-changed:{state}" for state in set(old[2]) ^ set(new[2])}
        got = {kind for kind, role, name in seen if role == new[0] and name in (old[1], new[1])}
        if not wanted <= got:
            missed.append(f"{old} -> {new}, no {sorted(wanted - got)}")
    return missed


def measure_one(soffice: str) -> dict[str, Any]:
    """One office on a private desktop: the rows of :func:`main`'s table for it (runs in a child)."""
    import openpyxl

    from tests.support.soffice import start_a11y_session, stop_all

    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        try:
            env = start_a11y_session(work, procs)
            os.environ.update({k: env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")})
            workbook = openpyxl.Workbook()
            for row in range(1, 6):
                workbook.active.append([f"item {row}", row * 10, row * 2.5])
            document = work / "budget.xlsx"
            workbook.save(document)
            version = subprocess.run([soffice, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
            return _episode(soffice, version, work, document, env, procs)
        finally:
            stop_all(procs)


def _episode(soffice: str, version: str, work: Path, document: Path, env: dict, procs: list) -> dict[str, Any]:
    from gi.repository import GLib

    from desktop_gym.guest import a11y
    from desktop_gym.guest.input import InputController
    from desktop_gym.polling import poll_until

    argv = [soffice, f"-env:UserInstallation={(work / 'profile').as_uri()}", "--norestore", "--nologo"]
    argv += ["--nofirststartwizard", "--calc", str(document)]
    procs.append(
        subprocess.Popen(argv, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    )
    started = time.monotonic()
    poll_until(lambda: 'table "Sheet' in a11y.linearize_tree(), 120, "the Calc grid", retry_on=(a11y.A11yError,))
    atspi = a11y._ensure_bus()
    events: list[tuple[str, str, str]] = []
    last_event = [time.monotonic()]

    def on_event(event: Any) -> None:
        last_event[0] = time.monotonic()
        try:
            events.append((event.type, event.source.get_role_name(), event.source.get_name() or ""))
        except Exception:  # noqa: BLE001 - the source went away: the event still counts as traffic
            events.append((event.type, "", ""))

    listener = atspi.EventListener.new(on_event)
    for kind in EVENT_KINDS:
        listener.register(kind)
    context = GLib.MainContext.default()

    def settle() -> float:
        """Dispatch events until none came for ``QUIET_S`` (at most ``SETTLE_CAP_S``); the seconds taken."""
        begun = time.monotonic()
        while time.monotonic() - last_event[0] < QUIET_S and time.monotonic() - begun < SETTLE_CAP_S:
            while context.pending():
                context.iteration(False)
            time.sleep(0.01)  # a polling interval while dispatching, not a wait for a state
        return time.monotonic() - begun

    def application() -> Any:
        desktop = atspi.get_desktop(0)
        return next(
            app
            for app in (desktop.get_child_at_index(i) for i in range(desktop.get_child_count()))
            if app and (app.get_name() or "").startswith("soffice")
        )

    last_event[0] = time.monotonic()
    settle()
    grid = next(line for line in a11y.linearize_tree().splitlines() if 'table "Sheet' in line)
    x, y = (int(v) for v in grid.rsplit("@(", 1)[1].split(",")[:2])
    keys = InputController(env["DISPLAY"])
    before: dict = {}
    _walk(atspi, application(), (), before)
    rows = []
    for label, act in _inputs(keys, (x + 250, y + 60)):
        events.clear()
        last_event[0] = time.monotonic()
        act()
        settle_s = settle()
        after: dict = {}
        _walk(atspi, application(), (), after)
        reads = []
        for _ in range(TREE_READS):
            begun = time.perf_counter()
            a11y.linearize_tree()
            reads.append(time.perf_counter() - begun)
        changed = sum(1 for path in set(before) | set(after) if before.get(path) != after.get(path))
        missed = _unexplained(before, after, list(events))
        rows.append(
            {
                "input": label,
                "events": len(events),
                "changed": changed,
                "unexplained": missed,
                "settle_s": settle_s,
                "tree_read_s": statistics.median(reads),
                "nodes": len(after),
            }
        )
        before = after
    keys.close()
    return {"soffice": soffice, "version": version, "ready_s": time.monotonic() - started, "rows": rows}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _median_cell(runs: list[dict], index: int, key: str) -> float:
    return statistics.median(run["rows"][index][key] for run in runs)


def _table(
    offices: list[str], by_office: dict[str, list[dict]], versions: list[str]
) -> tuple[list[str], list[list[str]]]:
    """Per input and office: median events, median changed / runs with an unexplained change, tree read p50."""
    columns = ["input"]
    for version in versions:
        columns += [f"events ({version})", f"changed / unexplained in runs ({version})", f"tree read ({version})"]
    rows = []
    first = by_office[offices[0]][0]["rows"]
    for index, row in enumerate(first):
        line = [row["input"]]
        for soffice in offices:
            runs = by_office[soffice]
            flagged = sum(1 for run in runs if run["rows"][index]["unexplained"])
            changed = _median_cell(runs, index, "changed")
            line += [
                f"{_median_cell(runs, index, 'events'):.0f}",
                f"{changed:.0f} / {flagged} of {len(runs)}",
                _ms(_median_cell(runs, index, "tree_read_s")),
            ]
        rows.append(line)
    medians = []
    for soffice in offices:
        reads = [row["tree_read_s"] for run in by_office[soffice] for row in run["rows"]]
        low, high = min(reads), max(reads)
        medians += ["", "", f"{_ms(statistics.median(reads))} ({_ms(low)}-{_ms(high)})"]
    rows.append(["all inputs: tree read p50 (min-max)", *medians])
    return columns, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soffice", action="append", help="an office's soffice (repeatable; default: soffice)")
    parser.add_argument("--runs", type=int, default=3, help="episodes per office, the offices alternating")
    parser.add_argument("--json", type=Path, help="also write a result file (bench/results/log format)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # one office, in a process of its own
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_one(args.child)))
        return
    offices = args.soffice or ["soffice"]
    load_before = os.getloadavg()[0]
    by_office: dict[str, list[dict]] = {soffice: [] for soffice in offices}
    for run in range(args.runs):
        for soffice in offices if run % 2 == 0 else list(reversed(offices)):
            child = [sys.executable, __file__, "--child", soffice]
            done = subprocess.run(child, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                sys.exit(f"{soffice}: the measuring child failed:\n{done.stderr[-3000:]}")
            by_office[soffice].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"run {run + 1}/{args.runs}: {soffice} done", flush=True)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    versions = [by_office[soffice][0]["version"].split("(")[0].strip() or soffice for soffice in offices]
    columns, table = _table(offices, by_office, versions)
    print(f"{os.cpu_count()} cores, {args.runs} runs per office, {load}")
    print(" | ".join(columns))
    for line in table:
        print(" | ".join(line))
    unexplained = sorted(
        {
            f"{version}, {row['input']}: {missed}"
            for soffice, version in zip(offices, versions, strict=True)
            for run in by_office[soffice]
            for row in run["rows"]
            for missed in row["unexplained"]
        }
    )
    for line in unexplained:
        print("  unexplained:", line)
    if args.json is None:
        return
    command = f".venv/bin/python bench/bench_a11y_offices.py --runs {args.runs} "
    command += " ".join(f"--soffice {soffice}" for soffice in offices)
    record = {
        "title": "An event-kept accessibility tree and the tree read on LibreOffice " + " and ".join(versions),
        "benchmark": "bench/bench_a11y_offices.py",
        "command": command,
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} cores",
        "load": load,
        "notes": [f"unexplained change: {line}" for line in unexplained],
        "tables": [
            {
                "caption": "Per input: AT-SPI events (median), changed showing nodes (median) / runs in which a "
                "change came with no event to explain it, observation tree read (median of the runs' p50 of 3)",
                "columns": columns,
                "rows": table,
            }
        ],
    }
    args.json.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
